package corpus

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"

	"github.com/blevesearch/bleve/v2"
	"github.com/claimaudit/claimaudit/userfile"
)

// ErrDamaged is an index whose files do not match the digests its manifest
// recorded when it was built (or whose manifest was edited).
var ErrDamaged = errors.New("index is damaged")

// FileDigest is one file of the bleve folder, as built.
type FileDigest struct {
	Path   string `json:"path"` // relative to the index folder, slash-separated
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// seal records the digest of every file under the index's bleve folder, and
// then the digest of the manifest itself (counts and settings included: they
// enter scores), so that any later change to either is noticed on open.
func (m *IndexManifest) seal(dir string) error {
	files, err := digestFiles(dir)
	if err != nil {
		return err
	}
	m.Files = files
	m.Digest = ""
	m.Digest, err = m.selfDigest()
	return err
}

func (m *IndexManifest) selfDigest() (string, error) {
	c := *m
	c.Digest = ""
	b, err := json.Marshal(c)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

func digestFiles(dir string) ([]FileDigest, error) {
	var out []FileDigest
	root := filepath.Join(dir, bleveDir)
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if !d.Type().IsRegular() {
			// A link (to /dev/zero, say) or a device would be read without
			// end: only regular files are index files.
			return fmt.Errorf("%s is not a regular file", path)
		}
		sum, n, err := HashFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		out = append(out, FileDigest{Path: filepath.ToSlash(rel), Bytes: n, SHA256: sum})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("digest index files: %w", err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// VerifyIndex checks an index folder against its manifest: the manifest's
// own digest, then every file's size and SHA-256. It costs one read of the
// index. The error wraps ErrDamaged and says how to rebuild.
func VerifyIndex(dir string, m *IndexManifest) error {
	damaged := func(format string, args ...any) error {
		return fmt.Errorf("%s: %w (%s): rebuild it with 'audit index --force'", dir, ErrDamaged, fmt.Sprintf(format, args...))
	}
	if m.Digest == "" {
		return damaged("its manifest has no digest: it was built by an older version")
	}
	if d, err := m.selfDigest(); err != nil || d != m.Digest {
		return damaged("%s was edited after the build", ManifestFile)
	}
	got, err := digestFiles(dir)
	if err != nil {
		return damaged("%v", err)
	}
	want := map[string]FileDigest{}
	for _, f := range m.Files {
		want[f.Path] = f
	}
	for _, f := range got {
		w, ok := want[f.Path]
		switch {
		case !ok:
			return damaged("%s was not part of the build", f.Path)
		case w.Bytes != f.Bytes || w.SHA256 != f.SHA256:
			return damaged("%s changed since the build", f.Path)
		}
		delete(want, f.Path)
	}
	for p := range want {
		return damaged("%s is missing", p)
	}
	return nil
}

// readRegular reads an index's own file (its manifest), refusing anything
// but a regular file: a link to /dev/zero would never end.
func readRegular(path string) ([]byte, error) {
	st, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file: %w", path, ErrDamaged)
	}
	b, err := userfile.ReadFile(path, maxIndexOwnFile)
	if errors.Is(err, userfile.ErrTooLarge) {
		return nil, fmt.Errorf("%w: %w", err, ErrDamaged)
	}
	return b, err
}

// maxIndexOwnFile bounds an index's manifest read whole (a damaged one
// may be any size; a real one is a few kilobytes).
const maxIndexOwnFile = 64 << 20

// openBleve opens a bleve index read-only; a panic or memory fault inside
// bleve (a damaged segment the digests did not catch) is an error.
func openBleve(path string) (idx bleve.Index, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if p := recover(); p != nil {
			idx, err = nil, fmt.Errorf("open bleve index %s: %w (%v)", path, ErrDamaged, p)
		}
	}()
	return bleve.OpenUsing(path, map[string]any{"read_only": true})
}

// Recovered turns a panic or memory fault inside fn (a search of a damaged
// index) into an error wrapping ErrDamaged. Retrieval goroutines run each
// search through it.
func Recovered[T any](fn func() (T, error)) (v T, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if p := recover(); p != nil {
			var zero T
			v, err = zero, fmt.Errorf("search: %w (%v)", ErrDamaged, p)
		}
	}()
	return fn()
}

// HasDoc says whether a document with this id was indexed (any of its
// passages).
func (ix *Index) HasDoc(ctx context.Context, docID string) (bool, error) {
	tq := bleve.NewTermQuery(docID)
	tq.SetField("doc_id")
	res, err := ix.idx.SearchInContext(ctx, bleve.NewSearchRequestOptions(tq, 0, 0, false))
	if err != nil {
		return false, fmt.Errorf("look up document %s: %w", docID, err)
	}
	return res.Total > 0, nil
}
