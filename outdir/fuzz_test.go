package outdir

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadMarker feeds arbitrary bytes as a commit marker: ReadMarker
// never panics, and a marker it accepts lists only names ValidName allows
// (so no commit ever removes anything outside the folder).
func FuzzReadMarker(f *testing.F) {
	f.Add([]byte(`{"format":"claimaudit-out","state":"committed","files":[{"name":"records.parquet","bytes":3}]}`))
	f.Add([]byte(`{"format":"claimaudit-out","state":"committing","files":[{"name":"../victim/precious.txt"}],"kept":["/etc"]}`))
	f.Add([]byte(`{"format":"claimaudit-out","files":[{"name":".claimaudit-out.lock"}]}`))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, b []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, MarkerFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := ReadMarker(dir)
		if err != nil {
			return
		}
		for _, f := range m.Files {
			if !ValidName(f.Name) || filepath.Base(f.Name) != f.Name {
				t.Fatalf("accepted file name %q", f.Name)
			}
		}
		for _, n := range m.Kept {
			if !ValidName(n) || filepath.Base(n) != n {
				t.Fatalf("accepted kept name %q", n)
			}
		}
		_ = Check(dir)
	})
}
