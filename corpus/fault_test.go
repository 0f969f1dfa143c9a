package corpus

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func builtIndex(t *testing.T) string {
	t.Helper()
	c, err := Load(context.Background(), demoCorpus, demoSpans, LoadOptions{})
	require.NoError(t, err)
	dir := filepath.Join(t.TempDir(), "idx")
	_, err = BuildIndex(context.Background(), dir, c, IndexOptions{})
	require.NoError(t, err)
	return dir
}

// Issue 24 case 17: an index file (a segment, the manifest) replaced by a
// link to /dev/zero is refused at once as damage, never read without end.
func TestIndexFileLinkedToDevZeroIsDamage(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	for _, which := range []string{"segment", "manifest"} {
		t.Run(which, func(t *testing.T) {
			dir := builtIndex(t)
			m, err := ReadManifest(dir)
			require.NoError(t, err)
			target := filepath.Join(dir, ManifestFile)
			if which == "segment" {
				target = filepath.Join(dir, filepath.FromSlash(m.Files[0].Path))
			}
			require.NoError(t, os.Remove(target))
			require.NoError(t, os.Symlink("/dev/zero", target))
			done := make(chan error, 1)
			go func() {
				ix, err := OpenIndex(dir)
				if err == nil {
					ix.Close()
				}
				done <- err
			}()
			select {
			case err := <-done:
				assert.ErrorIs(t, err, ErrDamaged)
				assert.ErrorContains(t, err, "not a regular file")
			case <-time.After(30 * time.Second):
				t.Fatal("opening the index did not end")
			}
		})
	}
}

// Issue 24 case 21: a truncated manifest of an index the tool built is
// damage with the way out named, and a rebuild over it succeeds.
func TestTruncatedManifestCanBeRebuilt(t *testing.T) {
	dir := builtIndex(t)
	path := filepath.Join(dir, ManifestFile)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, b[:len(b)/2], 0o644))
	_, err = OpenIndex(dir)
	assert.ErrorIs(t, err, ErrDamaged)
	assert.ErrorContains(t, err, "audit index --force")
	c, err := Load(context.Background(), demoCorpus, demoSpans, LoadOptions{})
	require.NoError(t, err)
	_, err = BuildIndex(context.Background(), dir, c, IndexOptions{})
	require.NoError(t, err, "the tool's own index folder is replaceable")
	ix, err := OpenIndex(dir)
	require.NoError(t, err)
	ix.Close()
}
