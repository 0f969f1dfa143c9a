package outdir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// OwnTag is the file the tool writes into every folder it creates inside an
// output folder or as an index (a staging folder, an index build, the
// verdict cache folder). It is the one notion of "ours": the tool removes
// or replaces a folder it finds only when the folder is Owned. A user's
// folder that happens to be named like one of the tool's (".staging-x",
// "index.building-y") is foreign: refused, and left alone under --force.
const OwnTag = ".claimaudit-owned"

// ErrNotOurs is a file or folder where the tool expects one of its own (a
// verdict cache, an index) that it cannot tell is its own: it is left as
// it is and the command stops (exit 2).
var ErrNotOurs = errors.New("is not audit's")

// MarkOwned writes the tag into dir (a folder the tool has just created).
func MarkOwned(dir string) error {
	f, err := openNoFollow(filepath.Join(dir, OwnTag), os.O_WRONLY|os.O_CREATE|os.O_TRUNC)
	if err == nil {
		_, err = f.Write([]byte("claimaudit\n"))
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return fmt.Errorf("mark %s as audit's: %w", dir, err)
	}
	return nil
}

// MkdirTempOwned is MkdirTemp followed by MarkOwned.
func MkdirTempOwned(parent, pattern string) (string, error) {
	dir, err := MkdirTemp(parent, pattern)
	if err != nil {
		return "", err
	}
	if err := MarkOwned(dir); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}

// Owned says whether path is a real folder (not a link to one) holding the
// tag as a regular file.
func Owned(path string) bool {
	st, err := os.Lstat(path)
	if err != nil || !st.IsDir() {
		return false
	}
	tag, err := os.Lstat(filepath.Join(path, OwnTag))
	return err == nil && tag.Mode().IsRegular()
}

// emptyDir says whether path is a real, empty folder.
func emptyDir(path string) bool {
	st, err := os.Lstat(path)
	if err != nil || !st.IsDir() {
		return false
	}
	entries, err := os.ReadDir(path)
	return err == nil && len(entries) == 0
}

// ValidName is the one rule for a name the commit marker may list (a run's
// file or a kept foreign file): a plain name in the folder itself — not
// empty, not "." or "..", no path separator, no NUL — and none of the
// tool's own bookkeeping files (the marker, the lock). A marker listing anything else is damaged:
// nothing it names is ever removed.
func ValidName(name string) bool {
	switch {
	case name == "", name == ".", name == "..", strings.ContainsAny(name, "/\\\x00"):
		return false
	case name == MarkerFile, name == LockFile:
		return false
	}
	return true
}
