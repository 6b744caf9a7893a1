// Command loader reads a game's files through fs.FS the way a game's
// loader does, from a package, from a zip of the same tree and from the
// tree itself (os.DirFS), in interleaved rounds, and prints the ratios
// (issue 43, goal 3). The workloads:
//
//   - open: open the archive and Stat one file;
//   - text: read every text file (a file whose first 8 KiB hold no NUL
//     byte and are UTF-8) with fs.ReadFile, in the tree's order, from one
//     goroutine, then from GOMAXPROCS goroutines;
//   - images: read and decode every PNG and JPEG of one directory (a kart,
//     a unit: -images, by default the directory holding the most image
//     files among those whose images take at most 16 MiB) from GOMAXPROCS
//     goroutines;
//   - level: read every file of one directory (-level, by default the one
//     with the most files among those whose files take at most 64 MiB,
//     other than the images' directory);
//   - music: open one large stored file (-music, by default the largest
//     .ogg, .opus, .mp3 or .wav), seek to its middle (a zip's file is no
//     io.Seeker: read up to there) and read 128 KiB in 4 KiB reads, as an
//     audio decoder streams; the bytes read from the archive file are
//     counted too; and once more over HTTP, from a server on 127.0.0.1
//     through package remote, printing what the server sent;
//   - meshes: read every 3D mesh and animation (by extension: .spm, .b3d,
//     .obj, .glb...; none in a 2D game) from GOMAXPROCS goroutines, as a
//     level's loader does (issue 43 goal 4 measures it against a stored
//     zip).
//
// Every run opens the archive anew (untimed but for the open workload),
// so that no run reads what an earlier one cached. Each figure is the
// median of -rounds runs; the ratios are the package's time over zip's
// (and over a stored zip's, -stored) and over os.DirFS's.
//
// Usage: go run ./bench/loader -pkg GAME.bpx -zip GAME.zip [-stored GAME0.zip] TREE
// (bench/loader.sh packs and zips a tree and runs it).
package main

import (
	"archive/zip"
	"flag"
	"fmt"
	"image"
	_ "image/jpeg"
	_ "image/png"
	"io"
	"io/fs"
	"os"
	"path"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/gobpx/bpx/types/pack"
)

// An archive is one way of reading the tree: open gives its fs.FS and a
// closer; the counter, when not nil, counts the bytes read from its file.
type archive struct {
	name  string
	open  func(c *counter) (fs.FS, io.Closer, error)
	count bool
}

// counter counts the bytes read through an io.ReaderAt.
type counter struct {
	r io.ReaderAt
	n atomic.Int64
}

func (c *counter) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n.Add(int64(n))
	return n, err
}

type workload struct {
	name string
	run  func(fsys fs.FS) (int64, error) // the bytes it read
}

func main() {
	pkgPath := flag.String("pkg", "", "the package of TREE (bpx pack)")
	zipPath := flag.String("zip", "", "a zip of TREE (zip -r)")
	storedPath := flag.String("stored", "", "a zip of TREE whose entries are stored (zip -0), optional")
	imagesDir := flag.String("images", "", "the directory of TREE whose images are read (default: the one with the most)")
	levelDir := flag.String("level", "", "the directory of TREE read whole (default: the one with the most files, of at most 64 MiB)")
	music := flag.String("music", "", "the file of TREE streamed (default: the largest .ogg, .opus, .mp3 or .wav)")
	rounds := flag.Int("rounds", 5, "runs of each workload and archive")
	flag.Parse()
	if flag.NArg() != 1 || *pkgPath == "" || *zipPath == "" {
		fmt.Fprintln(os.Stderr, "usage: loader -pkg GAME.bpx -zip GAME.zip [-stored GAME0.zip] [-images DIR] [-level DIR] [-music FILE] [-rounds N] TREE")
		os.Exit(2)
	}
	tree := flag.Arg(0)
	t, err := scan(os.DirFS(tree))
	if err != nil {
		fail(err)
	}
	if *imagesDir != "" {
		t.imagesDir = *imagesDir
	}
	if *levelDir != "" {
		t.levelDir = *levelDir
	}
	if *music != "" {
		t.music = *music
	}
	t.images = under(t.imageFiles, t.imagesDir)
	t.level = under(t.files, t.levelDir)

	archives := []archive{
		{name: "bpx", count: true, open: func(c *counter) (fs.FS, io.Closer, error) {
			f, size, err := openFile(*pkgPath)
			if err != nil {
				return nil, nil, err
			}
			c.r = f
			p, err := pack.NewReader(c, size)
			if err != nil {
				f.Close()
				return nil, nil, err
			}
			return p, closers{p, f}, nil
		}},
		{name: "zip", count: true, open: zipOpener(*zipPath)},
		{name: "dir", open: func(*counter) (fs.FS, io.Closer, error) { return os.DirFS(tree), closers{}, nil }},
	}
	if *storedPath != "" {
		archives = append(archives, archive{name: "zip0", count: true, open: zipOpener(*storedPath)})
	}

	workloads := []workload{
		{"open", func(fsys fs.FS) (int64, error) {
			fi, err := fs.Stat(fsys, t.text[0])
			if err != nil {
				return 0, err
			}
			return fi.Size(), nil
		}},
		{fmt.Sprintf("text: %d files, 1 goroutine", len(t.text)), func(fsys fs.FS) (int64, error) { return readAll(fsys, t.text, 1) }},
		{fmt.Sprintf("text: %d files, %d goroutines", len(t.text), runtime.GOMAXPROCS(0)), func(fsys fs.FS) (int64, error) {
			return readAll(fsys, t.text, runtime.GOMAXPROCS(0))
		}},
		{fmt.Sprintf("images of %s: %d decoded", t.imagesDir, len(t.images)), func(fsys fs.FS) (int64, error) { return decodeAll(fsys, t.images) }},
		{fmt.Sprintf("level %s: %d files", t.levelDir, len(t.level)), func(fsys fs.FS) (int64, error) { return readAll(fsys, t.level, 1) }},
		{"music " + t.music + ": seek to the middle, 128 KiB", func(fsys fs.FS) (int64, error) { return stream(fsys, t.music) }},
	}
	if len(t.meshes) > 0 {
		workloads = append(workloads, workload{fmt.Sprintf("meshes: %d files, %d goroutines", len(t.meshes), runtime.GOMAXPROCS(0)), func(fsys fs.FS) (int64, error) {
			return readAll(fsys, t.meshes, runtime.GOMAXPROCS(0))
		}})
	}

	// times[w][a] holds the runs of workload w on archive a; read[w][a]
	// the bytes read from the archive's file in its last run.
	times := make([][][]time.Duration, len(workloads))
	read := make([][]int64, len(workloads))
	for w := range workloads {
		times[w] = make([][]time.Duration, len(archives))
		read[w] = make([]int64, len(archives))
	}
	for round := range *rounds {
		for w, wl := range workloads {
			for k := range archives {
				a := (k + round + w) % len(archives) // each archive first in turn
				d, n, err := runOnce(archives[a], wl, w == 0)
				if err != nil {
					fail(fmt.Errorf("%s, %s: %w", archives[a].name, wl.name, err))
				}
				times[w][a] = append(times[w][a], d)
				read[w][a] = n
			}
		}
	}

	fmt.Printf("tree %s: %d files; %d text files (%d bytes)\n", tree, len(t.files), len(t.text), t.textBytes)
	sizes := []string{}
	pkgSize := fileSize(*pkgPath)
	for _, p := range []struct{ name, path string }{{"zip", *zipPath}, {"zip -0", *storedPath}} {
		if p.path != "" {
			sizes = append(sizes, fmt.Sprintf("%.3fx %s", float64(pkgSize)/float64(fileSize(p.path)), p.name))
		}
	}
	fmt.Printf("package size: %d bytes, %s\n\n", pkgSize, strings.Join(sizes, ", "))
	head := "| workload | bpx / zip | bpx / os.DirFS |"
	line := "|---|---|---|"
	if *storedPath != "" {
		head += " bpx / zip -0 |"
		line += "---|"
	}
	head += " read from the file: bpx, zip |"
	line += "---|"
	fmt.Println(head)
	fmt.Println(line)
	for w, wl := range workloads {
		bpx := median(times[w][0])
		row := fmt.Sprintf("| %s | %.2fx | %.2fx |", wl.name, ratio(bpx, median(times[w][1])), ratio(bpx, median(times[w][2])))
		if *storedPath != "" {
			row += fmt.Sprintf(" %.2fx |", ratio(bpx, median(times[w][3])))
		}
		row += fmt.Sprintf(" %s, %s |", mib(read[w][0]), mib(read[w][1]))
		fmt.Println(row)
	}
	printStreamOverHTTP(*pkgPath, t.music)
}

// runOnce opens a, runs wl on it (timing the open too when withOpen) and
// returns the time and the bytes read from a's file.
func runOnce(a archive, wl workload, withOpen bool) (time.Duration, int64, error) {
	runtime.GC()
	c := &counter{}
	start := time.Now()
	fsys, cl, err := a.open(c)
	if err != nil {
		return 0, 0, err
	}
	if !withOpen {
		start = time.Now()
	}
	_, err = wl.run(fsys)
	d := time.Since(start)
	cl.Close()
	return d, c.n.Load(), err
}

func zipOpener(name string) func(c *counter) (fs.FS, io.Closer, error) {
	return func(c *counter) (fs.FS, io.Closer, error) {
		f, size, err := openFile(name)
		if err != nil {
			return nil, nil, err
		}
		c.r = f
		z, err := zip.NewReader(c, size)
		if err != nil {
			f.Close()
			return nil, nil, err
		}
		return z, f, nil
	}
}

func openFile(name string) (*os.File, int64, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, fi.Size(), nil
}

type closers []io.Closer

func (cs closers) Close() error {
	for _, c := range cs {
		c.Close()
	}
	return nil
}

// readAll reads names with fs.ReadFile from n goroutines.
func readAll(fsys fs.FS, names []string, n int) (int64, error) {
	return each(names, n, func(name string) (int64, error) {
		b, err := fs.ReadFile(fsys, name)
		return int64(len(b)), err
	})
}

// decodeAll decodes the images names from GOMAXPROCS goroutines.
func decodeAll(fsys fs.FS, names []string) (int64, error) {
	return each(names, runtime.GOMAXPROCS(0), func(name string) (int64, error) {
		f, err := fsys.Open(name)
		if err != nil {
			return 0, err
		}
		defer f.Close()
		img, _, err := image.Decode(f)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", name, err)
		}
		b := img.Bounds()
		return int64(b.Dx() * b.Dy()), nil
	})
}

// each calls do for every name from n goroutines and returns the sum of
// what it returns and its first error.
func each(names []string, n int, do func(string) (int64, error)) (int64, error) {
	var (
		next  atomic.Int64
		total atomic.Int64
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(names) {
					return
				}
				k, err := do(names[i])
				total.Add(k)
				if err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					return
				}
			}
		}()
	}
	wg.Wait()
	return total.Load(), first
}

// stream opens name, goes to its middle and reads 128 KiB in 4 KiB reads.
func stream(fsys fs.FS, name string) (int64, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	mid := fi.Size() / 2
	if s, ok := f.(io.Seeker); ok {
		if _, err := s.Seek(mid, io.SeekStart); err != nil {
			return 0, err
		}
	} else if _, err := io.CopyN(io.Discard, f, mid); err != nil {
		return 0, err
	}
	buf := make([]byte, 4<<10)
	var n int64
	for n < 128<<10 {
		k, err := io.ReadFull(f, buf)
		n += int64(k)
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// tree is what scan learns of a tree.
type tree struct {
	files, text, imageFiles []string
	meshes                  []string // the 3D meshes and animations (issue 43 goal 4)
	textBytes               int64
	imagesDir, levelDir     string
	music                   string
	images, level           []string
}

// scan lists the files of fsys and picks the workloads' files.
func scan(fsys fs.FS) (*tree, error) {
	t := &tree{}
	var musicSize int64
	imagesIn := map[string]int{}
	imageBytes := map[string]int64{}
	bytesIn := map[string]int64{}
	filesIn := map[string]int{}
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		t.files = append(t.files, name)
		dir := path.Dir(name)
		bytesIn[dir] += fi.Size()
		filesIn[dir]++
		switch strings.ToLower(path.Ext(name)) {
		case ".png", ".jpg", ".jpeg":
			t.imageFiles = append(t.imageFiles, name)
			imagesIn[dir]++
			imageBytes[dir] += fi.Size()
			return nil
		case ".spm", ".b3d", ".x", ".obj", ".dae", ".glb", ".gltf", ".iqm", ".md2", ".md3", ".md5mesh", ".md5anim", ".mesh", ".skeleton", ".fbx":
			t.meshes = append(t.meshes, name)
			return nil
		case ".ogg", ".opus", ".mp3", ".wav":
			if fi.Size() > musicSize {
				t.music, musicSize = name, fi.Size()
			}
			return nil
		}
		if isText(fsys, name) {
			t.text = append(t.text, name)
			t.textBytes += fi.Size()
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(t.text) == 0 || len(t.imageFiles) == 0 || t.music == "" {
		return nil, fmt.Errorf("the tree needs text files, images and music: %d, %d, %q", len(t.text), len(t.imageFiles), t.music)
	}
	t.imagesDir = maxKey(imagesIn, func(dir string) bool { return imageBytes[dir] <= 16<<20 })
	t.levelDir = maxKey(filesIn, func(dir string) bool { return bytesIn[dir] <= 64<<20 && dir != t.imagesDir })
	return t, nil
}

// isText reports whether the first 8 KiB of name hold no NUL byte and are
// UTF-8 (but for a rune cut at their end).
func isText(fsys fs.FS, name string) bool {
	f, err := fsys.Open(name)
	if err != nil {
		return false
	}
	defer f.Close()
	b := make([]byte, 8<<10)
	n, _ := io.ReadFull(f, b)
	b = b[:n]
	if n == 0 || slices.Contains(b, 0) {
		return false
	}
	for i := 0; i < 3 && len(b) > 0 && !utf8.Valid(b); i++ {
		b = b[:len(b)-1]
	}
	return utf8.Valid(b)
}

// maxKey returns the key of m with the largest value among those ok
// accepts (the first in order among equals).
func maxKey[V int | int64](m map[string]V, ok func(string) bool) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	best := ""
	for _, k := range keys {
		if ok(k) && (best == "" || m[k] > m[best]) {
			best = k
		}
	}
	return best
}

// under returns the names of files in dir (not in its subdirectories).
func under(files []string, dir string) []string {
	var out []string
	for _, f := range files {
		if path.Dir(f) == dir {
			out = append(out, f)
		}
	}
	return out
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func ratio(a, b time.Duration) float64 { return float64(a) / float64(b) }

func mib(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d KiB", (n+1023)>>10)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

func fileSize(name string) int64 {
	fi, err := os.Stat(name)
	if err != nil {
		fail(err)
	}
	return fi.Size()
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "loader:", err)
	os.Exit(1)
}
