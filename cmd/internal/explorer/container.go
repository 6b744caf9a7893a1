package explorer

import (
	"context"
	"encoding/hex"
	"io"
	"io/fs"
	"net/http"
	"strconv"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/cmd/internal/describe"
	"github.com/gobpx/bpx/sign"
	"github.com/gobpx/bpx/types/pack"
)

// containerAnswer is the answer of /api/container; its field names are
// those of the contract (camelCase), its values those of bpx info.
type containerAnswer struct {
	Name        string           `json:"name"`
	Size        int64            `json:"size"`
	Type        any              `json:"type"`
	TypeName    string           `json:"typeName"`
	Version     uint32           `json:"version"`
	Checksum    uint32           `json:"checksum"`
	FileSize    uint64           `json:"fileSize"`
	TypeExt     string           `json:"typeExt"`
	TypeExtText string           `json:"typeExtText"`
	Sections    []sectionJSON    `json:"sections"`     // the first page (see /api/sections)
	SectionNum  int              `json:"sectionCount"` // every section
	SectionNext int              `json:"sectionsNext"` // where the next page starts
	Objects     *int             `json:"objects,omitempty"`
	DeadBytes   *uint64          `json:"deadBytes,omitempty"`
	Shader      *describe.Shader `json:"shader,omitempty"`
	// Signature says who signed the file and whether it matches what
	// they signed (as bpx info does); no key is trusted here.
	Signature *describe.Signature `json:"signature,omitempty"`
}

// sectionJSON is one section of a container.
type sectionJSON struct {
	Index     int    `json:"index"`
	Type      uint8  `json:"type"`
	TypeName  string `json:"typeName"`
	Flags     uint8  `json:"flags"`
	FlagNames string `json:"flagNames"`
	Pointer   uint64 `json:"pointer"`
	CSize     uint32 `json:"csize"`
	USize     uint32 `json:"usize"`
	Checksum  uint32 `json:"checksum"`
	View      string `json:"view"`
}

// serveContainer answers /api/container: what bpx info says of a file.
func (s *Server) serveContainer(w http.ResponseWriter, r *http.Request) {
	t, err := s.containerSubject(r)
	if err != nil {
		fail(w, err)
		return
	}
	defer t.Close()
	h := &t.rd.Header
	out := containerAnswer{
		Name: t.name, Size: t.size, Type: describe.TypeByte(h.Type), TypeName: describe.TypeName(h.Type),
		Version: h.Version, Checksum: h.Checksum, FileSize: h.FileSize,
		TypeExt: hex.EncodeToString(h.TypeExt[:]), TypeExtText: describe.TypeExt(h.Type, h.TypeExt),
	}
	g, err := s.describeShader(r, t, &out)
	if err != nil {
		failRequest(w, r, err)
		return
	}
	if g == nil {
		g = &grant{} // no symbols: the answer is the header and a page of sections
	}
	if err := s.describeSignature(r, t, &out); err != nil {
		failRequest(w, r, err)
		return
	}
	out.Sections, out.SectionNext = sectionPage(t.rd, 0, DefaultListLimit)
	out.SectionNum = len(t.rd.Sections)
	p := t.pkg
	if p == nil && t.rd.Header.Type == bpx.TypePackage && packageOpenCost(t.rd) <= MaxPreviewBytes {
		// Opening a package inside the tree decodes its object table (4
		// GiB at most; not its names: describe.OpenPackage skips them):
		// under a grant of the preview budget, released before the answer
		// is written.
		pg, err := s.acquire(r, t.name, packageOpenCost(t.rd))
		if err != nil {
			failRequest(w, r, err)
			return
		}
		if p = describe.OpenPackage(t.rd); p != nil {
			packageCounts(p, &out)
			p.Close()
		}
		pg.release()
	} else if p != nil {
		packageCounts(p, &out)
	}
	sendJSON(w, r, g, out)
}

// describeSignature sets out.Signature. sign.Inspect reads the signature
// section, the last one, whole (sign.MaxSectionSize at most): under a
// grant of the preview budget, released before it returns.
func (s *Server) describeSignature(r *http.Request, t *subject, out *containerAnswer) error {
	n := len(t.rd.Sections)
	if n == 0 || t.rd.Sections[n-1].Type != sign.SectionType {
		out.Signature = describe.InspectSignature(t.ra, t.size) // reads the header and table only
		return nil
	}
	// The section, and the manifest and signatures parsed from it.
	g, err := s.acquire(r, t.name, 2*int64(t.rd.Sections[n-1].CSize))
	if err != nil {
		return err
	}
	out.Signature = describe.InspectSignature(t.ra, t.size)
	g.release()
	return nil
}

// packageCounts sets the object count and dead bytes of the package p.
func packageCounts(p *pack.Package, out *containerAnswer) {
	n := len(p.Objects())
	out.Objects = &n
	if dead, err := p.DeadBytes(); err == nil {
		out.DeadBytes = &dead
	}
}

// packageOpenFactor is what opening a package takes per byte of the
// sections it reads at most (TestPreviewCostFactors measures it).
const packageOpenFactor = 8

// packageOpenCost is what opening the package rd takes at most.
func packageOpenCost(rd *bpx.Reader) int64 { return packageOpenFactor * packageOpenSize(rd) }

// packageOpenSize is how many decompressed bytes opening the package rd
// for counting (describe.OpenPackage, pack.SkipNames) reads at most: its
// object table, or for the older revisions, whose objects are found in
// their data, every section.
func packageOpenSize(rd *bpx.Reader) int64 {
	var n int64
	for _, sec := range rd.Sections {
		if rd.Header.Version < 2 || sec.Type == pack.SectionObjectTable {
			n += int64(sec.USize)
		}
	}
	return n
}

// verifyAnswer is the answer of /api/verify.
type verifyAnswer struct {
	Section int    `json:"section"`
	OK      bool   `json:"ok"`
	Error   string `json:"error,omitempty"`
}

// serveVerify answers /api/verify: section I decompressed and checked.
func (s *Server) serveVerify(w http.ResponseWriter, r *http.Request) {
	t, sec, err := s.section(r)
	if err != nil {
		fail(w, err)
		return
	}
	defer t.Close()
	g, err := s.acquire(r, t.name, streamCost(sec))
	if err != nil {
		failRequest(w, r, err)
		return
	}
	err = verifySection(r.Context(), sec)
	g.release()
	if r.Context().Err() != nil {
		return
	}
	out := verifyAnswer{Section: sec.Index, OK: err == nil}
	if err != nil {
		out.Error = err.Error()
	}
	writeJSON(w, out)
}

// verifySection reads section sec to its end, which checks its size and
// checksum. It stops when ctx is done.
func verifySection(ctx context.Context, sec *bpx.Section) error {
	rc, err := sec.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	_, err = io.Copy(io.Discard, ctxReader{ctx, rc})
	return err
}

// streamCost is what reading the section sec as a stream takes at most
// (for a nil sec, the most it takes for any section):
// a zstd section its window; an xz section its dictionary (at most maxXZDictionary) or,
// decoded whole when small, its stored and decoded bytes; any other a
// decoder's buffers.
func streamCost(sec *bpx.Section) int64 {
	if sec == nil {
		return maxXZDictionary + minPreviewCost
	}
	if sec.Flags&bpx.FlagZstd != 0 {
		return min(int64(sec.USize), 8<<20) + minPreviewCost // its window
	}
	if sec.Flags&bpx.FlagXZ == 0 {
		return minPreviewCost
	}
	return min(2*int64(sec.USize), maxXZDictionary) + minPreviewCost
}

// ctxReader reads r until ctx is done: a section can decompress to 4 GiB,
// which a request that is gone must not go on paying for.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// maxSectionRead bounds length= of /api/section.
const maxSectionRead = 1 << 20

// serveSection answers /api/section: bytes [O, O+L) of section I,
// decompressed.
func (s *Server) serveSection(w http.ResponseWriter, r *http.Request) {
	t, sec, err := s.section(r)
	if err != nil {
		fail(w, err)
		return
	}
	defer t.Close()
	off, err := intParam(r, "offset", 0, 1<<62)
	if err != nil {
		fail(w, err)
		return
	}
	n, err := intParam(r, "length", 4096, maxSectionRead)
	if err != nil {
		fail(w, err)
		return
	}
	off = min(off, int64(sec.USize))
	n = min(n, int64(sec.USize)-off)
	g, err := s.acquire(r, t.name, streamCost(sec)+n)
	if err != nil {
		failRequest(w, r, err)
		return
	}
	defer g.release()
	buf := make([]byte, n)
	var m int
	if sec.Compressed() {
		m, err = readCompressed(r.Context(), sec, buf, off)
		if r.Context().Err() != nil {
			return
		}
	} else {
		m, err = sec.ReadAt(buf, off)
	}
	g.keep(n)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		fail(w, err)
		return
	}
	buf = buf[:m] // a section whose data ends early: the bytes there are
	h := w.Header()
	h.Set("Content-Type", "application/octet-stream")
	h.Set("Content-Length", strconv.Itoa(len(buf)))
	h.Set("X-Section-Size", strconv.FormatUint(uint64(sec.USize), 10))
	h.Set("Cache-Control", "no-store")
	w.Write(buf)
}

// readCompressed reads the decompressed bytes of sec from off into buf.
// When buf reaches the end of the section, the section is read to its end,
// which checks its size and checksum: the last page of a corrupted section
// is an error, not bytes that look right.
func readCompressed(ctx context.Context, sec *bpx.Section, buf []byte, off int64) (int, error) {
	sr, err := sec.Open()
	if err != nil {
		return 0, err
	}
	defer sr.Close()
	rc := ctxReader{ctx, sr}
	if _, err := io.CopyN(io.Discard, rc, off); err != nil {
		return 0, err
	}
	n, err := io.ReadFull(rc, buf)
	if err == nil && off+int64(n) == int64(sec.USize) {
		_, err = io.Copy(io.Discard, rc)
	}
	return n, err
}

// section opens the container r names and returns its section
// section=I. The caller closes the container.
func (s *Server) section(r *http.Request) (*subject, *bpx.Section, error) {
	v := r.URL.Query().Get("section")
	i, err := strconv.Atoi(v)
	if err != nil {
		return nil, nil, badRequestf("section=%q: want a section index", v)
	}
	t, err := s.containerSubject(r)
	if err != nil {
		return nil, nil, err
	}
	if i < 0 || i >= len(t.rd.Sections) {
		t.Close()
		return nil, nil, &fs.PathError{Op: "open", Path: "section " + v + " of " + t.name, Err: fs.ErrNotExist}
	}
	return t, t.rd.Sections[i], nil
}
