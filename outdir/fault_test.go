package outdir

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 24 case 3: a commit marker naming a path outside the folder
// ("../victim/precious.txt") or a bookkeeping file is damaged: nothing it
// names is removed, and the folder is refused until --force.
func TestMarkerNamingOutsideIsDamaged(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "out")
	victim := filepath.Join(root, "victim", "precious.txt")
	require.NoError(t, os.MkdirAll(filepath.Dir(victim), 0o755))
	write(t, victim, "keep me")
	commit(t, dir, Options{}, Commit{MadeBy: "audit run", RunID: "a"}, map[string]string{"records.parquet": "a"})
	for _, bad := range []string{"../victim/precious.txt", "/etc/passwd", "..", "", LockFile, "sub/file", `..\x`} {
		m, err := ReadMarker(dir)
		require.NoError(t, err)
		m.Files = append(m.Files, File{Name: bad})
		b, _ := json.Marshal(m)
		write(t, filepath.Join(dir, MarkerFile), string(b))
		_, err = ReadMarker(dir)
		assert.ErrorIs(t, err, ErrDamagedMarker, "%q", bad)
		_, err = Open(dir, Options{})
		assert.ErrorIs(t, err, ErrForeign, "%q: refused without --force", bad)
		assert.ErrorContains(t, err, "damaged")
		assert.ErrorIs(t, Check(dir), ErrDamagedMarker)
		assert.ErrorContains(t, Check(dir), "--force")
		// --force: the new run commits; the victim is untouched.
		commit(t, dir, Options{Force: true}, Commit{MadeBy: "audit run", RunID: "b"}, map[string]string{"records.parquet": "b"})
		assert.Equal(t, "keep me", read(t, victim), "%q", bad)
		assert.Equal(t, "b", read(t, filepath.Join(dir, "records.parquet")))
		assert.NoError(t, Check(dir), "the --force run leaves a committed folder")
	}
}

// Issue 24 case 20: an empty or unreadable marker does not lock the folder
// for good: readers name the way out (--force), and a --force run repairs
// the folder.
func TestDamagedMarkerHasAWayOut(t *testing.T) {
	for name, content := range map[string]string{"empty": "", "truncated": `{"format": "claimaudit-out", "sta`, "not ours": `{"a": 1}`} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			commit(t, dir, Options{}, Commit{MadeBy: "audit run", RunID: "a"}, map[string]string{"records.parquet": "a"})
			write(t, filepath.Join(dir, MarkerFile), content)
			err := Check(dir)
			assert.ErrorIs(t, err, ErrDamagedMarker)
			assert.ErrorContains(t, err, "again with --force")
			_, err = Open(dir, Options{})
			assert.ErrorIs(t, err, ErrForeign)
			commit(t, dir, Options{Force: true}, Commit{MadeBy: "audit run", RunID: "b"}, map[string]string{"records.parquet": "b"})
			assert.NoError(t, Check(dir))
		})
	}
}

// Issue 24 case 4: a user's folder named like the tool's leftovers is not
// the tool's: refused without --force, left with its contents under --force.
func TestUserFoldersNamedLikeLeftoversAreForeign(t *testing.T) {
	for _, name := range []string{stagePrefix + "mine", "index.building-mine"} {
		dir := t.TempDir()
		user := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(user, 0o755))
		write(t, filepath.Join(user, "thesis.tex"), "precious")
		_, err := Open(dir, Options{Sweep: []string{"index.building-*"}})
		assert.ErrorIs(t, err, ErrForeign, name)
		commit(t, dir, Options{Force: true, Sweep: []string{"index.building-*"}}, Commit{MadeBy: "audit run", RunID: "a"}, map[string]string{"records.parquet": "a"})
		assert.Equal(t, "precious", read(t, filepath.Join(user, "thesis.tex")), name)
		m, err := ReadMarker(dir)
		require.NoError(t, err)
		assert.Contains(t, m.Kept, name)
		// The next run keeps it too (recorded as kept).
		commit(t, dir, Options{Sweep: []string{"index.building-*"}}, Commit{MadeBy: "audit run", RunID: "b"}, map[string]string{"records.parquet": "b"})
		assert.Equal(t, "precious", read(t, filepath.Join(user, "thesis.tex")), name)
	}
	// A link to a folder holding the tag is not ours either.
	dir, elsewhere := t.TempDir(), t.TempDir()
	require.NoError(t, MarkOwned(elsewhere))
	require.NoError(t, os.Symlink(elsewhere, filepath.Join(dir, stagePrefix+"link")))
	assert.False(t, Owned(filepath.Join(dir, stagePrefix+"link")))
	_, err := Open(dir, Options{})
	assert.True(t, errors.Is(err, ErrForeign), "%v", err)
}
