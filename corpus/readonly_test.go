package corpus

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fileState is what a reader must not change in an index folder.
type fileState struct {
	mode fs.FileMode
	size int64
	mod  time.Time
}

func snapshot(t *testing.T, dir string) map[string]fileState {
	t.Helper()
	s := map[string]fileState{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		s[p] = fileState{fi.Mode(), fi.Size(), fi.ModTime()}
		return nil
	}))
	return s
}

// Shards of a run (separate processes, or here goroutines with their own
// handles) share one prebuilt index: reusing and opening an up-to-date
// index neither writes nor creates anything in its folder, so a folder
// without write permission (a read-only volume) serves them all.
func TestUpToDateIndexIsOnlyRead(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "idx")
	req := EnsureRequest{Dir: dir, CorpusPath: demoCorpus, SpansPath: demoSpans}
	_, err := EnsureIndex(ctx, req)
	require.NoError(t, err)
	before := snapshot(t, dir)
	// Take write permission away (root ignores it: the snapshot below is
	// the check that holds for every user).
	for p, st := range before {
		require.NoError(t, os.Chmod(p, st.mode.Perm()&^0o222))
	}
	t.Cleanup(func() {
		for p, st := range before {
			os.Chmod(p, st.mode.Perm())
		}
	})
	before = snapshot(t, dir)

	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := EnsureIndex(ctx, req)
			if !assert.NoError(t, err) || !assert.True(t, res.Reused, "reader %d", g) {
				return
			}
			ix, err := OpenIndex(dir)
			if !assert.NoError(t, err) {
				return
			}
			defer ix.Close()
			h, err := ix.Search(ctx, "passengers 2022", 5)
			assert.NoError(t, err)
			assert.NotEmpty(t, h)
		}()
	}
	wg.Wait()
	assert.Equal(t, before, snapshot(t, dir), "reading the index changed its folder")
}
