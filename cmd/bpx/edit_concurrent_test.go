package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestEditConcurrentAdds (issue 24, item 5): two "bpx add" of different
// files run at once on one package, as separate processes. Afterwards both
// files are in the package, or the command whose file is missing failed
// saying that the package changed; both used to exit 0 with one file lost.
func TestEditConcurrentAdds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs 40 edits")
	}
	dir := t.TempDir()
	mod := filepath.Join(dir, "mod")
	writeFiles(t, mod, map[string]string{"a.txt": "a", "b.txt": "b"})
	for round := range 20 {
		pkg := packTree(t, filepath.Join(dir, fmt.Sprint(round)), map[string]string{"base.txt": "base"})
		var wg sync.WaitGroup
		res := make([]result, 2)
		files := []string{"a.txt", "b.txt"}
		for i, f := range files {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res[i] = runBinary(t, nil, "add", "-C", mod, pkg, f)
			}()
		}
		wg.Wait()
		if testing.Verbose() && (res[0].Code != 0 || res[1].Code != 0) {
			t.Logf("round %d: %q %q", round, res[0].Stderr, res[1].Stderr)
		}
		got := unpacked(t, pkg)
		for i, f := range files {
			r := res[i]
			switch _, in := got[f]; {
			case r.Code == exitOK && !in:
				t.Errorf("round %d: add %s exited 0, but the package lacks it (other add: %+v)", round, f, res[1-i])
			case r.Code != exitOK && !strings.Contains(r.Stderr, "changed"):
				t.Errorf("round %d: add %s failed unclearly: %+v", round, f, r)
			}
		}
		if ents, _ := os.ReadDir(filepath.Dir(pkg)); len(ents) > 2 { // src and base.bpx
			t.Errorf("round %d: files left: %v", round, ents)
		}
	}
}
