package jsonl

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors wrapped by ParseError, so callers and tests can ask
// errors.Is(err, jsonl.ErrDuplicateID) without parsing messages. Formats
// add their own (corpus.ErrUnknownDoc, ...).
var (
	ErrSyntax       = errors.New("malformed JSON")
	ErrEncoding     = errors.New("invalid UTF-8")
	ErrLineTooLong  = errors.New("line too long")
	ErrNotText      = errors.New("not a text file")
	ErrMissingField = errors.New("missing required field")
	ErrWrongType    = errors.New("wrong type")
	ErrEmpty        = errors.New("empty value")
	ErrUnknownField = errors.New("unknown field")
	ErrDuplicateKey = errors.New("duplicate key")
	ErrDuplicateID  = errors.New("duplicate id")
	ErrRange        = errors.New("value out of range")
)

// ParseError is one defect in one input line. Line and Col are 1-based;
// Col counts bytes, as go/scanner does, and is 0 when the defect concerns the
// whole line. Field names the offending JSON field ("" for the whole record).
type ParseError struct {
	File  string
	Line  int
	Col   int
	Field string
	Err   error
}

func (e *ParseError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Col > 0 {
			fmt.Fprintf(&b, ":%d", e.Col)
		}
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *ParseError) Unwrap() error { return e.Err }

// ErrorList collects every defect found in an input instead of stopping at the
// first, in the manner of go/scanner.ErrorList. It keeps the first Limit
// defects in full (all of them when Limit is 0) and counts the rest in Total.
type ErrorList struct {
	Errors []*ParseError
	Total  int
	Limit  int
}

// Add records a defect.
func (l *ErrorList) Add(file string, line, col int, field string, err error) {
	l.Total++
	if l.Limit > 0 && len(l.Errors) >= l.Limit {
		return
	}
	var pe *ParseError
	if errors.As(err, &pe) && pe.File == file {
		l.Errors = append(l.Errors, pe)
		return
	}
	l.Errors = append(l.Errors, &ParseError{File: file, Line: line, Col: col, Field: field, Err: err})
}

// Err returns the list as an error, or nil when it holds no defect.
func (l *ErrorList) Err() error {
	if l == nil || l.Total == 0 {
		return nil
	}
	return l
}

func (l *ErrorList) Error() string {
	switch {
	case l.Total == 0:
		return "no errors"
	case l.Total == 1 && len(l.Errors) == 1:
		return l.Errors[0].Error()
	case len(l.Errors) == 0:
		return fmt.Sprintf("%d errors", l.Total)
	}
	return fmt.Sprintf("%s (and %d more errors)", l.Errors[0], l.Total-1)
}

// Unwrap exposes every kept defect to errors.Is and errors.As.
func (l *ErrorList) Unwrap() []error {
	errs := make([]error, len(l.Errors))
	for i, e := range l.Errors {
		errs[i] = e
	}
	return errs
}

// Errorf returns an error with a specific message that errors.Is matches to
// sentinel.
func Errorf(sentinel error, format string, args ...any) error {
	return &detailError{sentinel: sentinel, msg: fmt.Sprintf(format, args...)}
}

type detailError struct {
	sentinel error
	msg      string
}

func (e *detailError) Error() string { return e.msg }
func (e *detailError) Unwrap() error { return e.sentinel }
