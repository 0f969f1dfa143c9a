package outdir

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/claimaudit/claimaudit/userfile"
)

// Names the tool keeps in an output folder besides the files of a run.
const (
	MarkerFile   = ".claimaudit-out.json"
	LockFile     = ".claimaudit-out.lock"
	stagePrefix  = ".staging-"
	markerFormat = "claimaudit-out"
)

// States of a marker.
const (
	StateCommitted  = "committed"
	StateCommitting = "committing"
)

var (
	// ErrLocked: another command holds the folder.
	ErrLocked = errors.New("another audit command is writing to this folder")
	// ErrForeign: the folder holds files the tool did not write.
	ErrForeign = errors.New("holds files audit did not write")
	// ErrIncomplete: a command was interrupted before it committed.
	ErrIncomplete = errors.New("incomplete: a command writing it was interrupted before it committed (run it again)")
	// ErrDamagedMarker: the commit marker cannot be read, or names
	// something that is not a file of the folder. Nothing it lists is
	// trusted: the folder's files count as foreign, so the way out is to
	// run the writing command again with --force (or choose another --out).
	ErrDamagedMarker = errors.New("the commit marker " + MarkerFile + " is damaged")
)

// File is one file of a committed folder.
type File struct {
	Name  string `json:"name"`
	Bytes int64  `json:"bytes"`
}

// Marker is the commit marker of a folder.
type Marker struct {
	Format string `json:"format"`
	State  string `json:"state"`
	MadeBy string `json:"made_by"` // the command whose files the folder holds: "audit run", ...
	RunID  string `json:"run_id"`
	Files  []File `json:"files"`
	// Kept are files the tool did not write, left in place under --force.
	Kept []string `json:"kept,omitempty"`
}

// Has says whether the marker lists a file named name.
func (m *Marker) Has(name string) bool {
	if m == nil {
		return false
	}
	for _, f := range m.Files {
		if f.Name == name {
			return true
		}
	}
	return false
}

// Options configure Open.
type Options struct {
	// Internal are names (glob patterns) of what the tool keeps in the
	// folder outside any run: an index folder, the verdict cache. They are
	// neither foreign nor part of a commit.
	Internal []string
	// Sweep are names (glob patterns) of what killed commands leave and
	// the next one removes: an index build's temporary folder.
	Sweep []string
	// Force accepts a folder holding files the tool did not write; they
	// are left in place and recorded as kept.
	Force bool
}

// Folder is an output folder held by one command.
type Folder struct {
	dir       string
	opts      Options
	unlock    func()
	stage     string
	prior     *Marker
	foreign   []string
	committed bool
	// created: Open made the folder. Closed uncommitted (a refused or
	// failed command), it is removed again when nothing else is in it,
	// rather than left holding only the lock file.
	created bool
	// madeLock: Open made the lock file (a refused folder of the user's
	// keeps none).
	madeLock bool
}

// Open takes the folder (creating it), refuses it when another command
// holds it or when it holds files the tool did not write, sweeps what killed
// commands left, and makes a fresh staging folder.
func Open(dir string, o Options) (*Folder, error) {
	_, statErr := os.Lstat(dir)
	if err := os.MkdirAll(dir, DirMode); err != nil {
		return nil, fmt.Errorf("create output folder: %w", err)
	}
	created := errors.Is(statErr, fs.ErrNotExist)
	lockPath := filepath.Join(dir, LockFile)
	_, lockErr := os.Lstat(lockPath)
	madeLock := errors.Is(lockErr, fs.ErrNotExist)
	unlock, err := lock(lockPath)
	if err != nil {
		if created {
			os.Remove(dir)
		}
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	f := &Folder{dir: dir, opts: o, unlock: unlock, created: created, madeLock: madeLock}
	if err := f.open(); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func (f *Folder) open() error {
	m, merr := ReadMarker(f.dir)
	damaged := errors.Is(merr, ErrDamagedMarker)
	if merr != nil && !errors.Is(merr, fs.ErrNotExist) && !damaged {
		return merr
	}
	f.prior = m
	entries, err := os.ReadDir(f.dir)
	if err != nil {
		return fmt.Errorf("read output folder: %w", err)
	}
	for _, e := range entries {
		name := e.Name()
		path := filepath.Join(f.dir, name)
		switch {
		case (strings.HasPrefix(name, stagePrefix) || matchAny(f.opts.Sweep, name)) && (Owned(path) || emptyDir(path)),
			strings.HasPrefix(name, MarkerFile+".tmp-") && e.Type().IsRegular():
			// Left by a command that was killed: we hold the lock, so no
			// live command owns it. Only a folder carrying our tag is
			// ours (a user's ".staging-x" is foreign); an empty one (killed
			// between its creation and its tag) holds nothing to lose.
			if err := os.RemoveAll(path); err != nil {
				return fmt.Errorf("remove leftover %s: %w", path, err)
			}
		case name == LockFile, name == MarkerFile, matchAny(f.opts.Internal, name), m.Has(name), m != nil && slices.Contains(m.Kept, name):
		default:
			f.foreign = append(f.foreign, name)
		}
	}
	if len(f.foreign) > 0 && !f.opts.Force {
		shown := f.foreign
		if len(shown) > 5 {
			shown = append(shown[:5:5], fmt.Sprintf("and %d more", len(f.foreign)-5))
		}
		why := ""
		switch {
		case damaged:
			why = fmt.Sprintf(" (%v: its files are not trusted as audit's; --force writes the new run beside them and replaces those with a run file's name)", merr)
		case m == nil:
			why = " (a folder written by an older audit has no ownership record either)"
		}
		return fmt.Errorf("%s %w: %s%s; choose another --out, or --force to write beside them", f.dir, ErrForeign, strings.Join(shown, ", "), why)
	}
	stage, err := MkdirTempOwned(f.dir, stagePrefix)
	if err != nil {
		return fmt.Errorf("create staging folder: %w", err)
	}
	f.stage = stage
	return nil
}

func matchAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if ok, _ := filepath.Match(p, name); ok {
			return true
		}
	}
	return false
}

// Dir is the folder.
func (f *Folder) Dir() string { return f.dir }

// Stage is the staging folder: write every file of the commit there.
func (f *Folder) Stage() string { return f.stage }

// Prior is the folder's marker before this command (nil when none).
func (f *Folder) Prior() *Marker { return f.prior }

// Commit describes what a commit makes of the folder.
type Commit struct {
	MadeBy, RunID string
	// Keep are files of the prior commit that stay (calibrate's files join
	// a run's); every other file of the prior commit is removed.
	Keep []string
}

// Commit moves every file of the staging folder into the folder as one
// commit. A cancelled ctx commits nothing.
func (f *Folder) Commit(ctx context.Context, c Commit) error {
	if f.committed || f.stage == "" {
		return errors.New("outdir: commit of a closed folder")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	entries, err := os.ReadDir(f.stage)
	if err != nil {
		return fmt.Errorf("read staging folder: %w", err)
	}
	var staged []string
	for _, e := range entries {
		if e.Type().IsRegular() && !strings.HasPrefix(e.Name(), ".") && ValidName(e.Name()) {
			staged = append(staged, e.Name())
		}
	}
	names := map[string]bool{}
	for _, n := range staged {
		names[n] = true
	}
	for _, n := range c.Keep {
		if f.prior.Has(n) {
			names[n] = true
		}
	}
	var kept []string
	if f.prior != nil {
		kept = append(kept, f.prior.Kept...)
	}
	for _, n := range f.foreign {
		if !names[n] {
			kept = append(kept, n)
		}
	}
	// A folder (or anything but a file or a link) where a staged file goes
	// would stop the commit half-way (rename cannot replace it): refused
	// before the folder is marked as committing.
	for _, n := range staged {
		if st, err := os.Lstat(filepath.Join(f.dir, n)); err == nil && !st.Mode().IsRegular() && st.Mode()&fs.ModeSymlink == 0 {
			return fmt.Errorf("%s %w: %s is %s where the command writes a file; --force replaces files, never folders: move it away", f.dir, ErrForeign, n, userfile.Kind(st.Mode()))
		}
	}
	// 1. The folder says it is being committed, and lists every file that
	// may be in it meanwhile (so a crash here leaves nothing unowned).
	all := map[string]bool{}
	for n := range names {
		all[n] = true
	}
	if f.prior != nil {
		for _, pf := range f.prior.Files {
			all[pf.Name] = true
		}
	}
	if err := f.writeMarker(Marker{State: StateCommitting, MadeBy: c.MadeBy, RunID: c.RunID, Files: f.list(all, false), Kept: kept}); err != nil {
		return err
	}
	// 2. Move the new files in; 3. remove the older run's others.
	for _, n := range staged {
		if err := os.Rename(filepath.Join(f.stage, n), filepath.Join(f.dir, n)); err != nil {
			return fmt.Errorf("commit %s: %w", n, err)
		}
	}
	if f.prior != nil {
		for _, pf := range f.prior.Files {
			if !names[pf.Name] {
				if err := removeOurs(f.dir, pf.Name); err != nil {
					return err
				}
			}
		}
	}
	// 4. The folder says committed.
	if err := f.writeMarker(Marker{State: StateCommitted, MadeBy: c.MadeBy, RunID: c.RunID, Files: f.list(names, true), Kept: kept}); err != nil {
		return err
	}
	f.committed = true
	return nil
}

// removeOurs removes a file an older commit listed: only a plain name
// (ValidName; ReadMarker already refused others) and only a regular file
// or a link (never followed), never a folder.
func removeOurs(dir, name string) error {
	if !ValidName(name) {
		return fmt.Errorf("remove %q of the older run: %w", name, ErrDamagedMarker)
	}
	path := filepath.Join(dir, name)
	st, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("remove %s of the older run: %w", path, err)
	}
	if st.IsDir() {
		return nil // a folder is never a run's file: left alone
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove %s of the older run: %w", path, err)
	}
	return nil
}

func (f *Folder) list(names map[string]bool, stat bool) []File {
	var out []File
	for n := range names {
		file := File{Name: n}
		if stat {
			if st, err := os.Stat(filepath.Join(f.dir, n)); err == nil {
				file.Bytes = st.Size()
			}
		}
		out = append(out, file)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func (f *Folder) writeMarker(m Marker) error {
	m.Format = markerFormat
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := CreateTemp(f.dir, MarkerFile+".tmp-")
	if err != nil {
		return fmt.Errorf("write commit marker: %w", err)
	}
	_, err = tmp.Write(append(b, '\n'))
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(f.dir, MarkerFile))
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write commit marker %s: %w", filepath.Join(f.dir, MarkerFile), err)
	}
	return syncDir(f.dir)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}

// Close removes the staging folder (what an uncommitted command wrote) and
// releases the folder.
func (f *Folder) Close() error {
	var err error
	if f.stage != "" {
		err = os.RemoveAll(f.stage)
		f.stage = ""
	}
	if f.unlock != nil {
		if (f.created || f.madeLock) && !f.committed {
			// Ours, and nothing was committed: the lock file goes while
			// we hold it, then the folder if nothing else is in it (an
			// index a failed run built stays, and so does the folder). A
			// folder of the user's that was refused keeps no lock file.
			os.Remove(filepath.Join(f.dir, LockFile))
		}
		f.unlock()
		f.unlock = nil
		if f.created && !f.committed {
			os.Remove(f.dir)
		}
	}
	return err
}

// ReadMarker reads a folder's marker; fs.ErrNotExist when it has none,
// ErrDamagedMarker when it is not a regular file, cannot be decoded, or
// lists a name that is not ValidName.
func ReadMarker(dir string) (*Marker, error) {
	path := filepath.Join(dir, MarkerFile)
	st, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w (not a regular file)", dir, ErrDamagedMarker)
	}
	b, err := userfile.ReadFile(path, userfile.MaxSmall)
	if err != nil {
		return nil, err
	}
	var m Marker
	if err := json.Unmarshal(b, &m); err != nil || m.Format != markerFormat {
		why := "empty"
		if len(b) > 0 {
			why = "not audit's JSON"
		}
		return nil, fmt.Errorf("%s: %w (%s)", dir, ErrDamagedMarker, why)
	}
	for _, f := range m.Files {
		if !ValidName(f.Name) {
			return nil, fmt.Errorf("%s: %w (it lists %q, not a file of this folder)", dir, ErrDamagedMarker, f.Name)
		}
	}
	for _, n := range m.Kept {
		if !ValidName(n) {
			return nil, fmt.Errorf("%s: %w (it lists %q, not a file of this folder)", dir, ErrDamagedMarker, n)
		}
	}
	return &m, nil
}

// Check is for readers of a folder: nil when it holds one committed run (or
// was not written by the tool at all), ErrIncomplete when a command writing
// it stopped before it committed.
func Check(dir string) error {
	m, err := ReadMarker(dir)
	switch {
	case err == nil && m.State == StateCommitted:
		return nil
	case err == nil:
		return fmt.Errorf("%s is %w", dir, ErrIncomplete)
	case errors.Is(err, ErrDamagedMarker):
		return fmt.Errorf("%w: which files are one run's is unknown; run the command that wrote the folder again with --force, or remove the folder", err)
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	if _, err := os.Stat(filepath.Join(dir, LockFile)); err == nil {
		return fmt.Errorf("%s is %w", dir, ErrIncomplete)
	}
	return nil
}
