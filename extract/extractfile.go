package extract

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/claimaudit/claimaudit/jsonl"
	"github.com/claimaudit/claimaudit/outdir"
	"github.com/claimaudit/claimaudit/userfile"

	"github.com/claimaudit/claimaudit/claims"
)

// ReadOutputs validates a JSONL file of model outputs {id, text, query?}
// and calls fn for each, in order. Defects are collected: the error is a
// *jsonl.ErrorList when any line is invalid, and fn is then not called for
// that line.
func ReadOutputs(ctx context.Context, r io.Reader, file string, fn func(Output) error) error {
	return ReadOutputsAt(ctx, r, file, func(_ int, o Output) error { return fn(o) })
}

// OutputFields are the members of an outputs file's line.
var OutputFields = []string{"id", "output_id", "text", "query", "query_id", "attempt", "cites", "contexts"}

// ReadOutputsAt is ReadOutputs that also passes each output's line number.
// An output's id is "id" or "output_id" (one of them); "attempt" is an
// integer >= 0, unique among the outputs of its query_id; "cites" a list of
// evidence ids.
func ReadOutputsAt(ctx context.Context, r io.Reader, file string, fn func(line int, o Output) error) error {
	errs := &jsonl.ErrorList{Limit: 10000}
	seen := map[string]int{}
	attempts := map[string]int{} // query id, NUL, attempt → line
	var fnErr error
	_, err := jsonl.Each(ctx, r, file, 0, errs, func(rec jsonl.Record) {
		if fnErr != nil {
			return
		}
		rec.AllowOnly(OutputFields...)
		o := Output{Line: rec.Line}
		idField := "id"
		if rec.Has("output_id") {
			idField = "output_id"
			if rec.Has("id") {
				rec.Fail("output_id", rec.Col("output_id"), jsonl.Errorf(jsonl.ErrDuplicateKey, "give the output's id as id or output_id, not both"))
			}
		}
		o.ID, _ = rec.Str(idField, true, true)
		o.Text, _ = rec.Str("text", true, false)
		o.Query, _ = rec.Str("query", false, false)
		o.QueryID, _ = rec.Str("query_id", false, true)
		o.Cites = rec.Strings("cites")
		for i, c := range o.Cites {
			if jsonl.IsBlank(c) {
				rec.Fail("cites", rec.Col("cites"), jsonl.Errorf(jsonl.ErrEmpty, "element %d: must not be empty", i))
			}
		}
		o.Contexts = rec.Strings("contexts")
		for i, c := range o.Contexts {
			if jsonl.IsBlank(c) {
				rec.Fail("contexts", rec.Col("contexts"), jsonl.Errorf(jsonl.ErrEmpty, "element %d: must not be empty", i))
			}
		}
		if o.ID != "" {
			for i := range o.Contexts {
				o.Cites = append(o.Cites, ContextID(o.ID, i))
			}
		}
		if rec.Has("attempt") {
			if n, ok := rec.Int("attempt"); ok {
				o.Attempt, o.HasAttempt = n, true
				if n < 0 {
					rec.Fail("attempt", rec.Col("attempt"), jsonl.Errorf(jsonl.ErrRange, "attempt %d: want 0 or more", n))
				} else if o.QueryID != "" {
					k := fmt.Sprintf("%s\x00%d", o.QueryID, n)
					if first, dup := attempts[k]; dup {
						rec.Fail("attempt", rec.Col("attempt"), jsonl.Errorf(jsonl.ErrDuplicateID, "query %q has attempt %d already (line %d)", o.QueryID, n, first))
					} else {
						attempts[k] = rec.Line
					}
				}
			}
		}
		if o.ID != "" {
			if first, dup := seen[o.ID]; dup {
				rec.Fail(idField, rec.Col(idField), jsonl.Errorf(jsonl.ErrDuplicateID, "duplicate id %q (first at line %d)", o.ID, first))
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
	if st, err := os.Stat(outPath); err == nil && st.IsDir() {
		return stats, &fs.PathError{Op: "write claims", Path: outPath, Err: errors.New("is a folder, not a file to write")}
	}
	in, err := userfile.Open(ctx, inPath)
	if err != nil {
		return stats, fmt.Errorf("open input: %w", err)
	}
	defer in.Close()
	tmp, err := outdir.CreateTemp(filepath.Dir(outPath), "."+filepath.Base(outPath)+".tmp-*")
	if err != nil {
		return stats, fmt.Errorf("create output: %w", err)
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriter(tmp)
	stats, err = ExtractTo(ctx, in, inPath, w, opts)
	if err == nil {
		err = w.Flush()
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

// ExtractTo extracts the claims of every output read from in (named inName
// in errors; plain text when IsText(inName), JSONL otherwise) and writes
// them to w as JSONL, as they are extracted. On an input error w may hold
// the claims of the outputs before it: a caller that must not leave a
// partial file writes to a temporary one (ExtractFile).
func ExtractTo(ctx context.Context, in io.Reader, inName string, w io.Writer, opts ExtractOptions) (ExtractStats, error) {
	var stats ExtractStats
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	write := func(cs []claims.Claim) error {
		for _, c := range cs {
			if err := enc.Encode(c); err != nil {
				return fmt.Errorf("write claims: %w", err)
			}
		}
		return nil
	}
	var err error
	if opts.Source != nil {
		err = extractWithSource(ctx, in, inName, opts, &stats, write)
	} else {
		err = ReadInput(ctx, in, inName, opts.Split, func(o Output) error { return write(Extract(o, opts, &stats)) })
	}
	return stats, err
}

// IsText says whether a path names a plain-text input (.txt, .text, .md)
// rather than JSONL outputs.
func IsText(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".txt", ".text", ".md":
		return true
	}
	return false
}

// ReadInput calls fn for each output of an input file: the lines of a JSONL
// outputs file (ReadOutputs), or, for a plain-text file (IsText), the whole
// text as one output whose id is the file's name without its extension,
// or with split SplitParagraphs each paragraph (text between blank lines)
// as an output NAME-1, NAME-2, ….
func ReadInput(ctx context.Context, r io.Reader, file, split string, fn func(Output) error) error {
	switch split {
	case "", SplitNone, SplitParagraphs:
	default:
		return fmt.Errorf("split %q: want %s or %s", split, SplitNone, SplitParagraphs)
	}
	if !IsText(file) {
		if split == SplitParagraphs {
			return fmt.Errorf("%s: --split paragraphs applies to a plain-text input (.txt, .text, .md), not JSONL outputs", file)
		}
		return ReadOutputs(ctx, r, file, fn)
	}
	b, err := io.ReadAll(io.LimitReader(r, userfile.MaxLarge+1))
	if err == nil && len(b) > userfile.MaxLarge {
		err = fmt.Errorf("%w (more than %d bytes)", userfile.ErrTooLarge, userfile.MaxLarge)
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", file, err)
	}
	if !utf8.Valid(b) {
		// An input error with its position, as in every other input.
		at := 0
		for at < len(b) {
			r, n := utf8.DecodeRune(b[at:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			at += n
		}
		line := bytes.Count(b[:at], []byte{'\n'}) + 1
		col := at - bytes.LastIndexByte(b[:at], '\n')
		var errs jsonl.ErrorList
		errs.Add(file, line, col, "", jsonl.Errorf(jsonl.ErrEncoding, "invalid UTF-8 (byte 0x%02x)", b[at]))
		return errs.Err()
	}
	text := strings.ReplaceAll(string(b), "\r\n", "\n")
	if strings.TrimSpace(text) == "" {
		var errs jsonl.ErrorList
		errs.Add(file, 1, 1, "", jsonl.Errorf(jsonl.ErrEmpty, "the file holds no text"))
		return errs.Err()
	}
	name := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	if split != SplitParagraphs {
		return fn(Output{ID: name, Text: strings.TrimSpace(text), Line: 1})
	}
	n, line := 0, 1
	for _, para := range reBlankLines.Split(text, -1) {
		start := line
		line += strings.Count(para, "\n") + 1
		if strings.TrimSpace(para) == "" {
			continue
		}
		n++
		if err := fn(Output{ID: fmt.Sprintf("%s-%d", name, n), Text: strings.TrimSpace(para), Line: start}); err != nil {
			return err
		}
	}
	return nil
}

// reBlankLines separates paragraphs.
var reBlankLines = regexp.MustCompile(`\n[ \t]*\n(?:[ \t]*\n)*`)

// extractWithSource reads every output, asks opts.Source for their facts
// opts.Workers at a time, and writes the claims in input order; an output
// that fails is an entry of stats.Errors (with its line), never dropped
// silently.
func extractWithSource(ctx context.Context, in io.Reader, inPath string, opts ExtractOptions, stats *ExtractStats, write func([]claims.Claim) error) error {
	var outs []Output
	if err := ReadInput(ctx, in, inPath, opts.Split, func(o Output) error { outs = append(outs, o); return nil }); err != nil {
		return err
	}
	type result struct {
		claims []claims.Claim
		stats  ExtractStats
		err    error
	}
	res := make([]result, len(outs))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < max(1, opts.Workers); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				res[i].claims, res[i].err = ExtractFacts(ctx, opts.Source, outs[i], opts, &res[i].stats)
			}
		}()
	}
	for i := range outs {
		select {
		case next <- i:
		case <-ctx.Done():
		}
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	for i, r := range res {
		stats.Outputs++
		stats.Sentences += r.stats.Sentences
		stats.Claims += r.stats.Claims
		for k, v := range r.stats.Skipped {
			for ; v > 0; v-- {
				stats.skip(k)
			}
		}
		if r.err != nil {
			stats.Errors = append(stats.Errors, OutputError{ID: outs[i].ID, Line: outs[i].Line, Error: r.err.Error()})
			continue
		}
		if err := write(r.claims); err != nil {
			return err
		}
	}
	return nil
}
