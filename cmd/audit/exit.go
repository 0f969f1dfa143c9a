package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"syscall"

	"github.com/claimaudit/claimaudit/audit"
	"github.com/claimaudit/claimaudit/corpus"
	"github.com/claimaudit/claimaudit/jsonl"
	"github.com/claimaudit/claimaudit/outdir"
	"github.com/claimaudit/claimaudit/reports"
	"github.com/claimaudit/claimaudit/userfile"
)

// Exit codes (DESIGN.md): 0 success; 1 the run finished but a --fail-on gate
// failed; 2 usage or input error; 3 a backend or internal failure.
// An interrupted command exits 130, the shell's code for SIGINT.
const (
	exitOK          = 0
	exitGate        = 1
	exitInput       = 2
	exitInternal    = 3
	exitInterrupted = 130
)

// exitError carries an explicit exit code. quiet means the command already
// told the user everything, so main prints nothing more.
type exitError struct {
	code  int
	err   error
	quiet bool
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func usageErrorf(format string, args ...any) error {
	return &exitError{code: exitInput, err: fmt.Errorf(format, args...)}
}

// report prints err to stderr and returns its exit code. An input error
// list prints one defect per line, at most maxErrors of them, then the total.
func report(stderr io.Writer, err error, maxErrors int) int {
	if err == nil {
		return exitOK
	}
	code := exitCode(err)
	var ee *exitError
	if errors.As(err, &ee) && ee.quiet {
		return code
	}
	var list *jsonl.ErrorList
	if errors.As(err, &list) {
		printErrorList(stderr, list, maxErrors)
		return code
	}
	fmt.Fprintf(stderr, "audit: %s\n", termSafe(err.Error()))
	return code
}

func exitCode(err error) int {
	var ee *exitError
	var list *jsonl.ErrorList
	var pathErr *fs.PathError
	switch {
	case errors.As(err, &ee):
		return ee.code
	case errors.Is(err, context.Canceled):
		return exitInterrupted
	case errors.Is(err, syscall.EROFS):
		// A read-only file system is the user's choice of where to
		// write, as a permission error is (run and index alike).
		return exitInput
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EIO), errors.Is(err, syscall.EDQUOT):
		// The machine failed us (a full disk, an I/O error): not the
		// user's input, even though the error names a path.
		return exitInternal
	case errors.Is(err, corpus.ErrDamaged), errors.Is(err, fs.ErrPermission), errors.Is(err, outdir.ErrNotOurs), errors.Is(err, outdir.ErrLink), errors.Is(err, outdir.ErrForeign), errors.Is(err, reports.ErrWrongTable), errors.Is(err, audit.ErrNoClaims), errors.Is(err, audit.ErrNoContexts),
		errors.Is(err, userfile.ErrNotRegular), errors.Is(err, userfile.ErrTooLarge):
		return exitInput
	case errors.As(err, &list), errors.As(err, &pathErr), errors.Is(err, corpus.ErrNotIndex):
		return exitInput
	}
	return exitInternal
}

func printErrorList(w io.Writer, list *jsonl.ErrorList, max int) {
	shown := 0
	for _, e := range list.Errors {
		if max > 0 && shown >= max {
			break
		}
		fmt.Fprintln(w, termSafe(e.Error()))
		shown++
	}
	if list.Total > shown {
		fmt.Fprintf(w, "... %d more errors not shown (%d in total; raise --max-errors to see more)\n", list.Total-shown, list.Total)
	} else {
		fmt.Fprintf(w, "%d errors\n", list.Total)
	}
}
