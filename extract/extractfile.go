package extract

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/claimaudit/claimaudit/jsonl"
)

// ReadOutputs validates a JSONL file of model outputs {id, text, query?}
// and calls fn for each, in order. Defects are collected: the error is a
// *jsonl.ErrorList when any line is invalid, and fn is then not called for
// that line.
func ReadOutputs(ctx context.Context, r io.Reader, file string, fn func(Output) error) error {
	return ReadOutputsAt(ctx, r, file, func(_ int, o Output) error { return fn(o) })
}

// ReadOutputsAt is ReadOutputs that also passes each output's line number.
func ReadOutputsAt(ctx context.Context, r io.Reader, file string, fn func(line int, o Output) error) error {
	errs := &jsonl.ErrorList{Limit: 10000}
	seen := map[string]int{}
	var fnErr error
	_, err := jsonl.Each(ctx, r, file, 0, errs, func(rec jsonl.Record) {
		if fnErr != nil {
			return
		}
		rec.AllowOnly("id", "text", "query")
		var o Output
		o.ID, _ = rec.Str("id", true, true)
		o.Text, _ = rec.Str("text", true, false)
		o.Query, _ = rec.Str("query", false, false)
		if o.ID != "" {
			if first, dup := seen[o.ID]; dup {
				rec.Fail("id", rec.Col("id"), jsonl.Errorf(jsonl.ErrDuplicateID, "duplicate id %q (first at line %d)", o.ID, first))
			} else {
				seen[o.ID] = rec.Line
			}
		}
		if rec.Clean() {
			fnErr = fn(rec.Line, o)
		}
	})
	if err != nil {
		return err
	}
	if fnErr != nil {
		return fnErr
	}
	return errs.Err()
}

// ExtractFile extracts the claims of every output in inPath into outPath as
// JSONL. The output is written to a temporary file and renamed into place
// only when every input line was valid, so invalid input leaves no file
// that looks complete.
func ExtractFile(ctx context.Context, inPath, outPath string, opts ExtractOptions) (ExtractStats, error) {
	var stats ExtractStats
	in, err := os.Open(inPath)
	if err != nil {
		return stats, fmt.Errorf("open input: %w", err)
	}
	defer in.Close()
	tmp, err := os.CreateTemp(filepath.Dir(outPath), "."+filepath.Base(outPath)+".tmp-*")
	if err != nil {
		return stats, fmt.Errorf("create output: %w", err)
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriter(tmp)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	err = ReadOutputs(ctx, in, inPath, func(o Output) error {
		for _, c := range Extract(o, opts, &stats) {
			if err := enc.Encode(c); err != nil {
				return fmt.Errorf("write claims: %w", err)
			}
		}
		return nil
	})
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = tmp.Chmod(0o644)
	}
	if cerr := tmp.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("write claims: %w", cerr)
	}
	if err != nil {
		return stats, err
	}
	if err := os.Rename(tmp.Name(), outPath); err != nil {
		return stats, fmt.Errorf("write claims: %w", err)
	}
	return stats, nil
}
