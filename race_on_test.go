//go:build race

package bpx

// raceEnabled: sync.Pool drops entries at random under the race detector,
// so allocation counts are meaningless there.
const raceEnabled = true
