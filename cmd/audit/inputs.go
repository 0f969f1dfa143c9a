package main

import (
	"os"

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
