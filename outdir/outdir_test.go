package outdir

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func write(t *testing.T, path, s string) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte(s), 0o644))
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

func commit(t *testing.T, dir string, o Options, c Commit, files map[string]string) {
	t.Helper()
	f, err := Open(dir, o)
	require.NoError(t, err)
	defer f.Close()
	for n, s := range files {
		write(t, filepath.Join(f.Stage(), n), s)
	}
	require.NoError(t, f.Commit(context.Background(), c))
}

func TestLockRefusesSecondCommand(t *testing.T) {
	dir := t.TempDir()
	f, err := Open(dir, Options{})
	require.NoError(t, err)
	_, err = Open(dir, Options{})
	assert.ErrorIs(t, err, ErrLocked)
	require.NoError(t, f.Close())
	g, err := Open(dir, Options{})
	require.NoError(t, err, "released on close")
	g.Close()
}

func TestCommitReplacesAnOlderRunAsAWhole(t *testing.T) {
	dir := t.TempDir()
	commit(t, dir, Options{}, Commit{MadeBy: "audit run", RunID: "a"}, map[string]string{"records.parquet": "a", "summary.json": "a"})
	// calibrate joins run a
	commit(t, dir, Options{}, Commit{MadeBy: "audit run", RunID: "a", Keep: []string{"records.parquet", "summary.json"}},
		map[string]string{"calibration_fit.json": "a"})
	m, err := ReadMarker(dir)
	require.NoError(t, err)
	assert.True(t, m.Has("calibration_fit.json") && m.Has("records.parquet"))
	// run b replaces everything of run a, calibrate's file included
	commit(t, dir, Options{}, Commit{MadeBy: "audit run", RunID: "b"}, map[string]string{"records.parquet": "b", "summary.json": "b"})
	assert.Equal(t, "b", read(t, filepath.Join(dir, "records.parquet")))
	_, err = os.Stat(filepath.Join(dir, "calibration_fit.json"))
	assert.True(t, os.IsNotExist(err))
	m, err = ReadMarker(dir)
	require.NoError(t, err)
	assert.Equal(t, StateCommitted, m.State)
	assert.Equal(t, "b", m.RunID)
	assert.NoError(t, Check(dir))
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.ElementsMatch(t, []string{LockFile, MarkerFile, "records.parquet", "summary.json"}, names, "no staging left")
}

func TestForeignFilesRefusedUnlessForced(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "summary.json"), "mine")
	write(t, filepath.Join(dir, "notes.txt"), "mine")
	require.NoError(t, os.Mkdir(filepath.Join(dir, "index"), 0o755))
	_, err := Open(dir, Options{Internal: []string{"index"}})
	require.ErrorIs(t, err, ErrForeign)
	assert.Contains(t, err.Error(), "notes.txt")
	assert.NotContains(t, err.Error(), "index", "internal names are not foreign")
	assert.Equal(t, "mine", read(t, filepath.Join(dir, "summary.json")))

	commit(t, dir, Options{Force: true, Internal: []string{"index"}}, Commit{MadeBy: "audit run", RunID: "a"}, map[string]string{"summary.json": "a"})
	assert.Equal(t, "mine", read(t, filepath.Join(dir, "notes.txt")), "never deletes what it did not write")
	// The kept file is recorded: the next command is not refused, and a
	// commit without it does not remove it.
	commit(t, dir, Options{Internal: []string{"index"}}, Commit{MadeBy: "audit run", RunID: "b"}, map[string]string{"records.parquet": "b"})
	assert.Equal(t, "mine", read(t, filepath.Join(dir, "notes.txt")))
}

func TestCancelledCommitLeavesTheOlderRun(t *testing.T) {
	dir := t.TempDir()
	commit(t, dir, Options{}, Commit{MadeBy: "audit run", RunID: "a"}, map[string]string{"records.parquet": "a"})
	f, err := Open(dir, Options{})
	require.NoError(t, err)
	write(t, filepath.Join(f.Stage(), "records.parquet"), "b")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, f.Commit(ctx, Commit{MadeBy: "audit run", RunID: "b"}), context.Canceled)
	require.NoError(t, f.Close())
	assert.Equal(t, "a", read(t, filepath.Join(dir, "records.parquet")))
	m, _ := ReadMarker(dir)
	assert.Equal(t, "a", m.RunID)
}

func TestLeftoversSweptAndIncompleteFoldersReported(t *testing.T) {
	dir := t.TempDir()
	commit(t, dir, Options{}, Commit{MadeBy: "audit run", RunID: "a"}, map[string]string{"records.parquet": "a"})
	// A command killed part way through its commit.
	m, err := ReadMarker(dir)
	require.NoError(t, err)
	m.State = StateCommitting
	f := &Folder{dir: dir}
	require.NoError(t, f.writeMarker(*m))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, stagePrefix+"1", "x"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "index.building-7"), 0o755))
	require.NoError(t, MarkOwned(filepath.Join(dir, stagePrefix+"1")))
	require.NoError(t, MarkOwned(filepath.Join(dir, "index.building-7")))
	err = Check(dir)
	assert.True(t, errors.Is(err, ErrIncomplete), "%v", err)

	commit(t, dir, Options{Sweep: []string{"index.building-*"}}, Commit{MadeBy: "audit run", RunID: "b"}, map[string]string{"records.parquet": "b"})
	assert.NoError(t, Check(dir))
	for _, n := range []string{stagePrefix + "1", "index.building-7"} {
		_, err := os.Stat(filepath.Join(dir, n))
		assert.True(t, os.IsNotExist(err), n)
	}

	// A first run killed before it committed: a lock, no marker.
	fresh := t.TempDir()
	write(t, filepath.Join(fresh, LockFile), "")
	assert.ErrorIs(t, Check(fresh), ErrIncomplete)
	assert.NoError(t, Check(t.TempDir()), "a folder the tool never wrote is readable")
}

// A folder Open created and nothing was committed to (a refused or failed
// command) is removed again, not left holding only the lock file; one
// that existed before, or holds anything else, stays.
func TestUncommittedNewFolderIsRemoved(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	f, err := Open(dir, Options{})
	require.NoError(t, err)
	write(t, filepath.Join(f.Stage(), "records.parquet"), "half")
	require.NoError(t, f.Close())
	assert.NoDirExists(t, dir, "nothing committed: no folder")

	// Something else the command made there (an index) keeps it.
	f, err = Open(dir, Options{})
	require.NoError(t, err)
	require.NoError(t, os.Mkdir(filepath.Join(dir, "index"), 0o755))
	require.NoError(t, f.Close())
	assert.DirExists(t, filepath.Join(dir, "index"))
	assert.NoFileExists(t, filepath.Join(dir, LockFile))

	// A folder that was there before stays, empty or not.
	empty := t.TempDir()
	f, err = Open(empty, Options{})
	require.NoError(t, err)
	require.NoError(t, f.Close())
	assert.DirExists(t, empty)

	// Committed: it stays.
	fresh := filepath.Join(t.TempDir(), "new")
	commit(t, fresh, Options{}, Commit{MadeBy: "audit run", RunID: "a"}, map[string]string{"summary.json": "a"})
	assert.FileExists(t, filepath.Join(fresh, "summary.json"))
}
