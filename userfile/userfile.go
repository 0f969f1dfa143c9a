// Package userfile opens and reads the files a user names on the command
// line (inputs, weights, prompts, certificates, tokenizers, policies)
// without ever blocking on them or reading them without bound: a FIFO is
// refused before it is opened (opening one waits for a writer, beyond the
// reach of a signal), a device or a pipe is refused where a file is read
// whole, and a file read whole has a size cap. Every error names the path
// and, where a flag is known, the flag.
//
// It imports nothing of the project, so every package that reads a user's
// file can use it.
package userfile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Errors, matched with errors.Is.
var (
	ErrNotRegular = errors.New("not a regular file")
	ErrTooLarge   = errors.New("file too large")
)

// Caps of the files read whole.
const (
	MaxSmall = 16 << 20  // a prompt, a certificate, a policy, a config or summary file
	MaxLarge = 512 << 20 // a tokenizer, a weights file
)

// Kind names a mode's file type for messages ("a named pipe (FIFO)").
func Kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a folder"
	case m&fs.ModeIrregular != 0:
		return "an irregular file"
	}
	return "not a regular file"
}

// CheckRegular returns an error wrapping ErrNotRegular when path (links
// followed) exists and is not a regular file. A path that does not exist is
// not its concern (the open that follows names it).
func CheckRegular(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return nil
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is %s: %w", path, Kind(st.Mode()), ErrNotRegular)
	}
	return nil
}

// Open opens a file to read as a stream. A FIFO is refused before it is
// opened; a device or a pipe given as /dev/stdin is opened (readers stop
// on their own terms: the line cap, the context). The open itself also
// gives way to ctx.
func Open(ctx context.Context, path string) (*os.File, error) {
	if st, err := os.Stat(path); err == nil && st.Mode()&fs.ModeNamedPipe != 0 {
		return nil, &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%s: %w", Kind(st.Mode()), ErrNotRegular)}
	}
	type opened struct {
		f   *os.File
		err error
	}
	ch := make(chan opened, 1)
	go func() {
		f, err := os.Open(path)
		ch <- opened{f, err}
	}()
	select {
	case o := <-ch:
		return o.f, o.err
	case <-ctx.Done():
		go func() {
			if o := <-ch; o.f != nil {
				o.f.Close()
			}
		}()
		return nil, ctx.Err()
	}
}

// ReadFile reads a regular file of at most limit bytes whole. Anything but
// a regular file (a FIFO, /dev/zero, a link to one) and a file larger than
// limit are errors that name the path; the read itself stops at limit+1
// bytes even when the file grows or its size is not what it says.
func ReadFile(path string, limit int64) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is %s: %w", path, Kind(st.Mode()), ErrNotRegular)
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("%s: %w (%d bytes, at most %d)", path, ErrTooLarge, st.Size(), limit)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil {
		return nil, err
	} else if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is %s: %w", path, Kind(st.Mode()), ErrNotRegular)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s: %w (more than %d bytes)", path, ErrTooLarge, limit)
	}
	return b, nil
}

// Copy writes the regular file at path to w (a hash, say): a file too large
// to hold is streamed, and anything but a regular file is refused.
func Copy(w io.Writer, path string) error {
	if err := CheckRegular(path); err != nil {
		return err
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil {
		return err
	} else if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is %s: %w", path, Kind(st.Mode()), ErrNotRegular)
	}
	_, err = io.Copy(w, f)
	return err
}
