package main

import (
	"bufio"
	"io"
	"os"
	"path/filepath"

	"github.com/claimaudit/claimaudit/audit"
	"github.com/claimaudit/claimaudit/outdir"
	"github.com/spf13/pflag"
)

// requireRegular refuses inputs that are not regular files (a pipe,
// /dev/stdin, a FIFO): run, index and train read an input more than once
// (validate, hash for the run id and manifest, then stream), and a stream
// read twice gives an empty second read — a wrong hash, or no claims.
// Saving the stream to a file first makes the hash and the content agree.
func requireRegular(f *pflag.FlagSet, names ...string) error {
	for _, n := range names {
		p, err := f.GetString(n)
		if err != nil || p == "" {
			continue
		}
		st, err := os.Stat(p)
		if err != nil {
			continue // the reader reports it, with the path
		}
		if !st.Mode().IsRegular() {
			return usageErrorf("--%s %s is %s, not a regular file: it is read more than once, so save it to a file first", n, p, kindOf(st.Mode()))
		}
	}
	return nil
}

// requireClaims refuses a claims file that holds nothing but white space
// and byte-order marks, before any folder is created (exit 2). It reads
// only up to the first other byte.
func requireClaims(path string) error {
	if path == "" {
		return nil
	}
	if st, err := os.Stat(path); err == nil && st.Mode()&os.ModeNamedPipe != 0 {
		return nil // a FIFO: refused by requireRegular or the reader, never opened (it would block)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil // the reader reports it, with the path
	}
	defer f.Close()
	r := bufio.NewReader(f)
	for {
		b, err := r.ReadByte()
		if err != nil {
			if err == io.EOF {
				return usageErrorf("--claims %s: %v", path, audit.ErrNoClaims)
			}
			return nil
		}
		switch b {
		case ' ', '\t', '\r', '\n', 0xEF, 0xBB, 0xBF:
			continue
		}
		return nil
	}
}

func kindOf(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "a pipe"
	case m.IsDir():
		return "a folder"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "not a plain file"
}

// writeTarget refuses an --out file that is a folder or one of the
// command's inputs (it would be overwritten before it is read whole):
// exit 2, before any work.
func writeTarget(out string, inputs ...string) error {
	st, err := os.Stat(out)
	if err != nil {
		return nil // a new file
	}
	if st.IsDir() {
		return usageErrorf("--out %s is a folder: give the file to write", out)
	}
	for _, in := range inputs {
		if ist, err := os.Stat(in); err == nil && os.SameFile(st, ist) {
			return usageErrorf("--out %s is the input %s: write the result to another file", out, in)
		}
	}
	return nil
}

// notAnOutputFolder refuses a folder that another audit command owns (a
// run, report or calibrate folder: it holds the commit marker or the lock)
// as the --out of a command that writes its own files (gen, review): they
// would turn up as foreign files in that folder.
func notAnOutputFolder(dir string) error {
	for _, f := range []string{outdir.MarkerFile, outdir.LockFile} {
		if _, err := os.Lstat(filepath.Join(dir, f)); err == nil {
			return usageErrorf("--out %s is the output folder of another audit command (it holds %s): choose another folder", dir, f)
		}
	}
	return nil
}
