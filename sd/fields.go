package sd

import (
	"reflect"
	"slices"
	"strings"
	"sync"
)

// field is one property of a struct type, after tags and embedding.
type field struct {
	name      string
	hash      uint64
	index     []int // reflect index path, through embedded structs
	omitEmpty bool
}

// structInfo lists the properties of a struct type in declaration order.
type structInfo struct {
	fields []field
}

// indexOf returns the position of the field with key hash h, or -1.
func (s *structInfo) indexOf(h uint64) int {
	for i := range s.fields {
		if s.fields[i].hash == h {
			return i
		}
	}
	return -1
}

// typeFuncs caches one function per Go type, built on first use. A
// recursive type gets an indirect function (made by wrap from a getter)
// while its own is being built, as in encoding/json.
type typeFuncs[F any] struct {
	m sync.Map // reflect.Type -> F
}

func (c *typeFuncs[F]) get(t reflect.Type, build func(reflect.Type) F, wrap func(get func() F) F) F {
	if f, ok := c.m.Load(t); ok {
		return f.(F)
	}
	var (
		wg sync.WaitGroup
		f  F
	)
	wg.Add(1)
	fi, loaded := c.m.LoadOrStore(t, wrap(func() F {
		wg.Wait()
		return f
	}))
	if loaded {
		return fi.(F)
	}
	f = build(t)
	wg.Done()
	c.m.Store(t, f)
	return f
}

var structCache sync.Map // reflect.Type -> *structInfo

func cachedStructInfo(t reflect.Type) *structInfo {
	if s, ok := structCache.Load(t); ok {
		return s.(*structInfo)
	}
	s, _ := structCache.LoadOrStore(t, buildStructInfo(t))
	return s.(*structInfo)
}

// parseTag splits an `sd:"name,omitempty"` tag.
func parseTag(tag string) (name string, omitEmpty bool) {
	name, opts, _ := strings.Cut(tag, ",")
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == "omitempty" {
			omitEmpty = true
		}
	}
	return name, omitEmpty
}

// buildStructInfo collects the fields of t the way encoding/json does:
// exported fields, named by their tag or Go name; fields of embedded
// structs without a tag name are promoted; of several fields with one
// name, the shallowest wins, then a tagged one, and otherwise none.
func buildStructInfo(t reflect.Type) *structInfo {
	type candidate struct {
		field
		depth  int
		tagged bool
		order  int
	}
	var all []candidate
	type level struct {
		typ   reflect.Type
		index []int
	}
	current := []level{{typ: t}}
	visited := map[reflect.Type]bool{}
	for depth := 0; len(current) > 0; depth++ {
		var next []level
		for _, lv := range current {
			if visited[lv.typ] {
				continue
			}
			visited[lv.typ] = true
			for i := 0; i < lv.typ.NumField(); i++ {
				sf := lv.typ.Field(i)
				tag := sf.Tag.Get("sd")
				if tag == "-" {
					continue
				}
				name, omit := parseTag(tag)
				ft := sf.Type
				if sf.Anonymous {
					if ft.Kind() == reflect.Pointer {
						ft = ft.Elem()
					}
					if !sf.IsExported() && ft.Kind() != reflect.Struct {
						continue
					}
					if name == "" && ft.Kind() == reflect.Struct {
						next = append(next, level{typ: ft, index: append(slices.Clone(lv.index), i)})
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tagged := name != ""
				if !tagged {
					name = sf.Name
				}
				all = append(all, candidate{
					field:  field{name: name, hash: Hash(name), index: append(slices.Clone(lv.index), i), omitEmpty: omit},
					depth:  depth,
					tagged: tagged,
					order:  len(all),
				})
			}
		}
		current = next
	}
	// Keep the dominant field of each name, in declaration order, and of
	// distinct names with the same hash only the first.
	s := &structInfo{}
	for i, c := range all {
		dominant := true
		for j, d := range all {
			if i == j || d.name != c.name {
				continue
			}
			if d.depth < c.depth || (d.depth == c.depth && d.tagged && !c.tagged) ||
				(d.depth == c.depth && d.tagged == c.tagged) {
				dominant = false
				break
			}
		}
		if dominant && s.indexOf(c.hash) < 0 {
			s.fields = append(s.fields, c.field)
		}
	}
	slices.SortStableFunc(s.fields, func(a, b field) int {
		return slices.Compare(a.index, b.index)
	})
	return s
}
