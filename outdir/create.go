package outdir

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Files and folders the tool creates get 0666 and 0777 and the umask
// decides, as with every Unix tool (os.CreateTemp's 0600 and os.MkdirTemp's
// 0700 would need a Chmod that ignores it). Nothing is created through a
// link: a temporary name is created exclusively (O_EXCL never follows one),
// and NoLink refuses a link where the tool writes inside --out.
const (
	FileMode fs.FileMode = 0o666
	DirMode  fs.FileMode = 0o777
)

// ErrLink is a link where the tool would write (a lock, a cache folder):
// refused, never followed.
var ErrLink = errors.New("is a symbolic link: audit writes nothing through a link inside its output folder; remove it")

// CreateTemp is os.CreateTemp (pattern's last "*" replaced by a random
// string, or one appended) with mode FileMode under the umask.
func CreateTemp(dir, pattern string) (*os.File, error) {
	var f *os.File
	err := tempName(dir, pattern, func(path string) error {
		var err error
		f, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, FileMode)
		return err
	})
	return f, err
}

// MkdirTemp is os.MkdirTemp with mode DirMode under the umask.
func MkdirTemp(dir, pattern string) (string, error) {
	var out string
	err := tempName(dir, pattern, func(path string) error {
		out = path
		return os.Mkdir(path, DirMode)
	})
	return out, err
}

func tempName(dir, pattern string, create func(string) error) error {
	prefix, suffix := pattern, ""
	if i := strings.LastIndexByte(pattern, '*'); i >= 0 {
		prefix, suffix = pattern[:i], pattern[i+1:]
	}
	for try := 0; try < 10000; try++ {
		path := filepath.Join(dir, prefix+strconv.FormatUint(uint64(rand.Uint32()), 10)+suffix)
		err := create(path)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return err
	}
	return &fs.PathError{Op: "createtemp", Path: filepath.Join(dir, pattern), Err: fs.ErrExist}
}

// NoLink refuses path when it is a symbolic link (a missing path is fine).
func NoLink(path string) error {
	st, err := os.Lstat(path)
	if err == nil && st.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%s %w", path, ErrLink)
	}
	return nil
}

// openNoFollow opens path for writing, creating it, never through a link.
func openNoFollow(path string, flag int) (*os.File, error) {
	f, err := os.OpenFile(path, flag|syscall.O_NOFOLLOW, FileMode)
	if errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("%s %w", path, ErrLink)
	}
	return f, err
}
