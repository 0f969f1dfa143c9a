//go:build !unix

package outdir

import (
	"errors"
	"fmt"
	"os"
)

// lock creates path exclusively where advisory locks are not available; a
// killed command leaves it behind, and the message says so.
func lock(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("%w (or one was killed: remove %s)", ErrLocked, path)
	}
	if err != nil {
		return nil, fmt.Errorf("lock output folder: %w", err)
	}
	f.Close()
	return func() { os.Remove(path) }, nil
}
