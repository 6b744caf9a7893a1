package cdc

// gear is the hash's table: gear[i] is the i-th output (from 0) of
// splitmix64 seeded with 0x6270782063646321 ("bpx cdc!"). It is part of
// the package file format.
var gear = func() (t [256]uint64) {
	s := uint64(0x6270782063646321)
	for i := range t {
		s += 0x9e3779b97f4a7c15
		z := s
		z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
		z = (z ^ z>>27) * 0x94d049bb133111eb
		t[i] = z ^ z>>31
	}
	return t
}()
