package pack

import (
	"bytes"
	"compress/flate"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gobpx/bpx"
)

// deflated returns text compressed with flate: bytes that do not
// compress again, as in a PNG or a ZIP.
func deflated(n int) []byte {
	var b bytes.Buffer
	w, _ := flate.NewWriter(&b, flate.BestCompression)
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(w, "%d %x\n", i, uint32(i*i)*2654435761)
	}
	w.Close()
	return b.Bytes()[:n]
}

// mediaWithMetadata returns n bytes of a media file that starts with 17 KB
// of metadata text (XMP, as in SuperTuxKart's PNGs) before bytes that do
// not compress.
func mediaWithMetadata(n int) []byte {
	meta := strings.Repeat("<rdf:li>xmp.did:3C1F7A2B-photoshop</rdf:li>\n", 17_000/44)
	return append([]byte(meta), noiseOf(9, n-len(meta))...)
}

func TestClassify(t *testing.T) {
	text := []byte(strings.Repeat("func main() { fmt.Println(\"hello, world\") }\n", 2000))
	mesh := make([]byte, 50_000) // float32 vertices on a grid: repeats
	for i := range mesh {
		mesh[i] = byte(i % 12 * (i / 4096))
	}
	for _, c := range []struct {
		what string
		b    []byte
		want objClass
	}{
		{"text", text, classText},
		{"text shorter than minSample", text[:100], classText},
		// The sample's end cuts "é" (2 bytes) after its first byte.
		{"text cut in a rune", append(bytes.Repeat([]byte("a"), sampleSize-1), "é and more"...), classText},
		{"text with an invalid byte", append(bytes.Clone(text[:5000]), 0xE9, ' '), classCompress},
		{"UTF-16 text", []byte(strings.Repeat("h\x00i\x00 \x00", 3000)), classCompress},
		{"mesh", mesh, classCompress},
		{"random bytes", noiseOf(1, 100_000), classStore},
		{"deflated bytes", deflated(200_000), classStore},
		{"random bytes shorter than minSample", noiseOf(2, minSample-1), classCompress},
		{"random bytes then their copy", append(noiseOf(3, 30_000), noiseOf(3, 30_000)...), classCompress},
		{"empty", nil, classCompress},
		// A PNG with 17 KB of XMP text first: stored when the text is
		// all that compresses of a larger file, compressed when it is
		// a quarter of the whole file.
		{"media with metadata first", mediaWithMetadata(300_000), classStore},
		{"small media with metadata first", mediaWithMetadata(sampleSize), classCompress},
	} {
		sample := c.b[:min(len(c.b), sampleSize)]
		if got := classify(sample, len(c.b) > len(sample)); got != c.want {
			t.Errorf("%s: class %d, want %d (estimate %.3f)", c.what, got, c.want, estimateRatio(sample))
		}
	}
}

// storedTree is a tree of files that compress (text) and files that do not
// (random and deflated bytes), in sizes around the section sizes.
func storedTree() fstest.MapFS {
	m := fstest.MapFS{}
	for i := range 40 {
		m[fmt.Sprintf("img/%02d.png", i)] = &fstest.MapFile{Data: noiseOf(byte(i), 2000+i*997)}
		m[fmt.Sprintf("txt/%02d.xml", i)] = &fstest.MapFile{Data: bytes.Repeat(fmt.Appendf(nil, "<node id=%d/>\n", i), 100+i*37)}
	}
	m["img/big.ogg"] = &fstest.MapFile{Data: deflated(70_000)}
	m["img/deflated.zip"] = &fstest.MapFile{Data: deflated(9_000)}
	m["img/meta.png"] = &fstest.MapFile{Data: mediaWithMetadata(100_000)}
	return m
}

// TestStoredSections: objects that do not compress go to raw sections of
// their own kind, those that compress to xz sections; no object that fits
// a section is split between two; the package reads back whole, the
// reference model reads it, and reading a stored object decodes nothing.
func TestStoredSections(t *testing.T) {
	tree := storedTree()
	const sec = 8 << 10
	b := pkgBytes(t, tree, WithSectionSize(sec))
	referenceReadable(t, b)
	p := openBytes(t, b)
	checkTree(t, p, tree)
	for _, o := range p.Objects() {
		segs, err := p.segments(&o)
		if err != nil {
			t.Fatal(err)
		}
		stored := strings.HasPrefix(o.Name, "img/")
		for _, sg := range segs {
			s := p.Reader.Sections[sg.sec]
			// A compressed section of a few bytes is kept raw: xz
			// cannot shrink them.
			if s.Compressed() == stored && (stored || s.USize >= minSample) {
				t.Errorf("%s is in section %d, compressed %v", o.Name, sg.sec, s.Compressed())
			}
		}
		large := int64(sec)
		if stored {
			large = 16 * sec / 4
		}
		if int64(o.Size) < large && len(segs) > 1 {
			t.Errorf("%s (%d bytes) is split over %d sections", o.Name, o.Size, len(segs))
		}
	}
	// Stored objects are read in place: no section is decoded.
	p = openBytes(t, b)
	for name := range tree {
		if strings.HasPrefix(name, "img/") {
			if _, err := fs.ReadFile(p, name); err != nil {
				t.Fatal(err)
			}
		}
	}
	if n := decodedSections(p); n != 0 {
		t.Errorf("reading the stored objects decoded %d sections", n)
	}
	// Everything compressed, as before: larger and all xz.
	all := pkgBytes(t, tree, WithSectionSize(sec), compressAll())
	for _, s := range openBytes(t, all).Reader.Sections {
		if s.Type == SectionData && s.Compressed() && s.USize >= 16<<10 {
			t.Errorf("compressAll: a compressed data section of %d bytes", s.USize)
		}
	}
}

// decodedSections counts the whole sections p's cache holds.
func decodedSections(p *Package) int {
	p.cache.mu.Lock()
	defer p.cache.mu.Unlock()
	n := 0
	for k := range p.cache.entries {
		if k.kind == keySection {
			n++
		}
	}
	return n
}

// TestStoredObjectChecked: a stored object read in place is checked
// against its digest at every read of its stored bytes: a byte changed
// after a first good read (its entry evicted) fails the next with
// ErrChecksum.
func TestStoredObjectChecked(t *testing.T) {
	tree := storedTree()
	b := pkgBytes(t, tree, WithSectionSize(8<<10))
	p := openBytes(t, b, WithCacheSize(64<<10))
	name := "img/07.png"
	got, err := fs.ReadFile(p, name)
	if err != nil || !bytes.Equal(got, tree[name].Data) {
		t.Fatalf("first read: %v", err)
	}
	i := bytes.Index(b, tree[name].Data)
	if i < 0 {
		t.Fatal("stored bytes not found")
	}
	b[i+100] ^= 1
	// Evict it: read every other stored object.
	for n := range tree {
		if n != name && strings.HasPrefix(n, "img/") {
			fs.ReadFile(p, n)
		}
	}
	if _, err := fs.ReadFile(p, name); !errors.Is(err, bpx.ErrChecksum) {
		t.Errorf("read after the change: %v, want ErrChecksum", err)
	}
}

// TestTextSections: text objects get compressed sections of their own,
// before the other data sections, whatever the order they are added in:
// reading a game's text at startup decodes no mesh (issue 43 goal 1).
// Small text files too (they were put with their neighbours unmeasured).
func TestTextSections(t *testing.T) {
	m := fstest.MapFS{}
	for i := range 60 {
		mesh := make([]byte, 20_000+i*500)
		for j := range mesh {
			mesh[j] = byte(j % 12 * (j / 4096))
		}
		m[fmt.Sprintf("level%02d/mesh.spm", i)] = &fstest.MapFile{Data: mesh}
		m[fmt.Sprintf("level%02d/scene.xml", i)] = &fstest.MapFile{Data: bytes.Repeat(fmt.Appendf(nil, "<node id=\"%d\"/>\n", i), 50+i*40)}
		m[fmt.Sprintf("level%02d/tiny.cfg", i)] = &fstest.MapFile{Data: fmt.Appendf(nil, "name = level %d\n", i)}
		m[fmt.Sprintf("level%02d/icon.png", i)] = &fstest.MapFile{Data: noiseOf(byte(i), 3000+i*100)}
	}
	for _, opts := range [][]WriterOption{nil, {WithSectionSize(64 << 10)}, {WithStableSections()}} {
		p := openBytes(t, pkgBytes(t, m, opts...))
		kind := map[int]string{} // section: "text" or "other"
		firstOther, lastText := len(p.Reader.Sections), -1
		for _, o := range p.Objects() {
			if o.Size == 0 {
				continue
			}
			k := "other"
			if strings.HasSuffix(o.Name, ".xml") || strings.HasSuffix(o.Name, ".cfg") {
				k = "text"
			}
			rem, off := o.Size, uint64(o.Offset)
			for s := int(o.Start); rem > 0; s++ { // the sections the object spans
				rem -= min(rem, p.secSize[s]-off)
				off = 0
				if prev, ok := kind[s]; ok && prev != k {
					t.Fatalf("%v: section %d holds text and other objects (%s)", opts, s, o.Name)
				}
				kind[s] = k
				if k == "text" {
					lastText = max(lastText, s)
				} else {
					firstOther = min(firstOther, s)
				}
			}
		}
		if lastText < 0 || lastText > firstOther {
			t.Errorf("%v: text sections end at %d, others start at %d", opts, lastText, firstOther)
		}
		for name, f := range m {
			if got, err := fs.ReadFile(p, name); err != nil || !bytes.Equal(got, f.Data) {
				t.Fatalf("%v: %s: %v", opts, name, err)
			}
		}
	}
}
