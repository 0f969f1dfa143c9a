package corpus

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/claimaudit/claimaudit/jsonl"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite golden files")

// defectLines returns the line numbers of a fixture that plant a defect:
// each such line contains the word "defect".
func defectLines(t *testing.T, path string) map[int]bool {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	lines := map[int]bool{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		if strings.Contains(sc.Text(), "defect") {
			lines[n] = true
		}
	}
	require.NoError(t, sc.Err())
	return lines
}

func TestLoadPlantedDefects(t *testing.T) {
	dir := filepath.Join("testdata", "defects")
	corpusPath, spansPath := filepath.Join(dir, "corpus.jsonl"), filepath.Join(dir, "spans.jsonl")
	_, err := Load(context.Background(), corpusPath, spansPath, LoadOptions{})
	var list *jsonl.ErrorList
	require.ErrorAs(t, err, &list)
	assert.Equal(t, len(list.Errors), list.Total, "nothing dropped under the default limit")

	got := map[string]map[int]bool{corpusPath: {}, spansPath: {}}
	var text strings.Builder
	for _, e := range list.Errors {
		require.Contains(t, got, e.File)
		got[e.File][e.Line] = true
		text.WriteString(e.Error() + "\n")
	}
	assert.Equal(t, defectLines(t, corpusPath), got[corpusPath], "corpus lines reported must be exactly the planted ones")
	assert.Equal(t, defectLines(t, spansPath), got[spansPath], "span lines reported must be exactly the planted ones")

	golden := filepath.Join(dir, "want.txt")
	if *update {
		require.NoError(t, os.WriteFile(golden, []byte(text.String()), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	assert.Equal(t, string(want), text.String())
}

// check runs the validator on inline documents and spans and returns the
// defects found.
func check(t *testing.T, docs, spans string) *jsonl.ErrorList {
	t.Helper()
	v := NewValidator(LoadOptions{})
	ctx := context.Background()
	require.NoError(t, v.AddDocuments(ctx, strings.NewReader(docs), "c.jsonl"))
	require.NoError(t, v.AddSpans(ctx, strings.NewReader(spans), "s.jsonl"))
	return v.Errors()
}

func TestValidationRules(t *testing.T) {
	const doc = `{"doc_id":"d","text":"Hello wörld 🌍 again."}` + "\n"
	tests := []struct {
		name   string
		docs   string
		spans  string
		want   error  // nil: valid
		field  string // field the defect names
		line   int
		col    int
		inText string // substring of the message
	}{
		{name: "minimal document", docs: doc},
		{name: "all document fields", docs: `{"doc_id":"d","title":"T","text":"x","source":null,"created_at":"2024-02-29","meta":{"a":[1]}}`},
		{name: "date-time with zone", docs: `{"doc_id":"d","text":"x","created_at":"2024-02-29T23:59:59.5+02:00"}`},
		{name: "date-time without zone", docs: `{"doc_id":"d","text":"x","created_at":"2024-02-29T23:59"}`},
		{name: "not a leap year", docs: `{"doc_id":"d","text":"x","created_at":"2023-02-29"}`, want: ErrBadDate, field: "created_at", line: 1, col: 39},
		{name: "month 13", docs: `{"doc_id":"d","text":"x","created_at":"2023-13-01"}`, want: ErrBadDate, field: "created_at"},
		{name: "doc_id missing", docs: `{"text":"x"}`, want: jsonl.ErrMissingField, field: "doc_id", line: 1},
		{name: "doc_id null", docs: `{"doc_id":null,"text":"x"}`, want: jsonl.ErrMissingField, field: "doc_id", col: 11},
		{name: "doc_id number", docs: `{"doc_id":12,"text":"x"}`, want: jsonl.ErrWrongType, field: "doc_id", inText: "expected string, got number"},
		{name: "doc_id blank", docs: `{"doc_id":" ","text":"x"}`, want: jsonl.ErrEmpty, field: "doc_id"},
		{name: "text missing", docs: `{"doc_id":"d"}`, want: jsonl.ErrMissingField, field: "text"},
		{name: "text blank", docs: `{"doc_id":"d","text":" \t"}`, want: jsonl.ErrEmpty, field: "text"},
		{name: "meta array", docs: `{"doc_id":"d","text":"x","meta":[]}`, want: jsonl.ErrWrongType, field: "meta"},
		{name: "unknown field", docs: `{"doc_id":"d","text":"x","txet":"y"}`, want: jsonl.ErrUnknownField, field: "txet", col: 26},
		{name: "duplicate key", docs: `{"doc_id":"d","text":"x","doc_id":"e"}`, want: jsonl.ErrDuplicateKey, field: "doc_id"},
		{name: "duplicate doc", docs: doc + doc, want: jsonl.ErrDuplicateID, field: "doc_id", line: 2, inText: "first defined at c.jsonl:1"},
		{name: "not an object", docs: `"d"`, want: jsonl.ErrWrongType, line: 1, col: 1},
		{name: "truncated JSON", docs: `{"doc_id":"d","text":"x"`, want: jsonl.ErrSyntax},
		{name: "trailing data", docs: `{"doc_id":"d","text":"x"} {}`, want: jsonl.ErrSyntax, col: 27},
		{name: "invalid UTF-8", docs: "{\"doc_id\":\"d\",\"text\":\"a\xff\"}", want: jsonl.ErrEncoding, col: 24},
		{name: "deep nesting", docs: `{"doc_id":"d","text":"x","meta":` + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + "}", want: jsonl.ErrSyntax},

		{name: "span ok", docs: doc, spans: `{"span_id":"s","doc_id":"d","start":0,"end":5,"quote":"Hello"}`},
		{name: "span after multibyte", docs: doc, spans: `{"span_id":"s","doc_id":"d","start":6,"end":13,"quote":"wörld 🌍"}`},
		{name: "span to end", docs: doc, spans: `{"span_id":"s","doc_id":"d","start":14,"end":20}`},
		{name: "span past end", docs: doc, spans: `{"span_id":"s","doc_id":"d","start":14,"end":21}`, want: ErrOffsets, field: "end", inText: "exceeds text length 20"},
		{name: "span byte offsets", docs: doc, spans: `{"span_id":"s","doc_id":"d","start":6,"end":17,"quote":"wörld 🌍"}`, want: ErrQuoteMismatch, field: "quote"},
		{name: "quote folds space and NFC", docs: `{"doc_id":"d","text":"cafe\u0301  au\tlait"}`, spans: `{"span_id":"s","doc_id":"d","start":0,"end":14,"quote":"café au lait"}`},
		{name: "quote mismatch", docs: doc, spans: `{"span_id":"s","doc_id":"d","start":0,"end":5,"quote":"Hallo"}`, want: ErrQuoteMismatch, field: "quote"},
		{name: "empty span", docs: doc, spans: `{"span_id":"s","doc_id":"d","start":3,"end":3}`, want: ErrOffsets, field: "end"},
		{name: "reversed span", docs: doc, spans: `{"span_id":"s","doc_id":"d","start":4,"end":3}`, want: ErrOffsets, field: "end"},
		{name: "negative start", docs: doc, spans: `{"span_id":"s","doc_id":"d","start":-2,"end":3}`, want: ErrOffsets, field: "start"},
		{name: "fractional end", docs: doc, spans: `{"span_id":"s","doc_id":"d","start":0,"end":3.0}`, want: jsonl.ErrWrongType, field: "end"},
		{name: "huge end", docs: doc, spans: `{"span_id":"s","doc_id":"d","start":0,"end":99999999999999999999}`, want: jsonl.ErrRange, field: "end"},
		{name: "unknown doc", docs: doc, spans: `{"span_id":"s","doc_id":"x","start":0,"end":1}`, want: ErrUnknownDoc, field: "doc_id"},
		{name: "duplicate span", docs: doc, spans: `{"span_id":"s","doc_id":"d","start":0,"end":1}` + "\n" + `{"span_id":"s","doc_id":"d","start":1,"end":2}`, want: jsonl.ErrDuplicateID, field: "span_id", line: 2},
		{name: "tags not strings", docs: doc, spans: `{"span_id":"s","doc_id":"d","start":0,"end":1,"tags":[1]}`, want: jsonl.ErrWrongType, field: "tags"},
		{name: "span unknown field", docs: doc, spans: `{"span_id":"s","doc_id":"d","start":0,"end":1,"stop":2}`, want: jsonl.ErrUnknownField, field: "stop"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := check(t, tt.docs, tt.spans)
			if tt.want == nil {
				assert.NoError(t, errs.Err())
				return
			}
			require.Equal(t, 1, errs.Total, "want exactly one defect, got: %v", errs.Errors)
			e := errs.Errors[0]
			assert.ErrorIs(t, e, tt.want)
			assert.Equal(t, tt.field, e.Field)
			if tt.line != 0 {
				assert.Equal(t, tt.line, e.Line)
			}
			if tt.col != 0 {
				assert.Equal(t, tt.col, e.Col)
			}
			if tt.inText != "" {
				assert.Contains(t, e.Error(), tt.inText)
			}
			assert.True(t, errors.Is(errs.Err(), tt.want), "the list unwraps to its defects")
		})
	}
}

func TestErrorFormat(t *testing.T) {
	e := &jsonl.ParseError{File: "docs.jsonl", Line: 12, Col: 7, Field: "end", Err: jsonl.Errorf(ErrOffsets, "span [90,120) exceeds text length 80")}
	assert.Equal(t, "docs.jsonl:12:7: end: span [90,120) exceeds text length 80", e.Error())
	assert.ErrorIs(t, e, ErrOffsets)
}

func TestErrorListLimitCountsEverything(t *testing.T) {
	var docs strings.Builder
	for i := 0; i < 30; i++ {
		docs.WriteString("{\"doc_id\":1}\n")
	}
	v := NewValidator(LoadOptions{ErrorLimit: 10})
	require.NoError(t, v.AddDocuments(context.Background(), strings.NewReader(docs.String()), "c.jsonl"))
	assert.Len(t, v.Errors().Errors, 10)
	assert.Equal(t, 60, v.Errors().Total, "two defects per line, all counted")
}

func TestEmptyCorpusIsAnError(t *testing.T) {
	v := NewValidator(LoadOptions{})
	require.NoError(t, v.AddDocuments(context.Background(), strings.NewReader("\n\n"), "c.jsonl"))
	_, err := v.Corpus()
	assert.ErrorIs(t, err, jsonl.ErrEmpty)
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load(context.Background(), filepath.Join(t.TempDir(), "nope.jsonl"), "", LoadOptions{})
	var pe *os.PathError
	assert.ErrorAs(t, err, &pe)
}

func TestLoadRecordsInputs(t *testing.T) {
	c, err := Load(context.Background(), "testdata/small/corpus.jsonl", "testdata/small/spans.jsonl", LoadOptions{})
	require.NoError(t, err)
	require.Len(t, c.Inputs, 2)
	sum, n, err := HashFile("testdata/small/corpus.jsonl")
	require.NoError(t, err)
	assert.Equal(t, sum, c.Inputs[0].SHA256)
	assert.Equal(t, n, c.Inputs[0].Bytes)
	assert.Equal(t, len(c.Docs), c.Inputs[0].Records)
	assert.Equal(t, len(c.Spans), c.Inputs[1].Records)
	for _, s := range c.Spans {
		d, ok := c.Doc(s.DocID)
		require.True(t, ok)
		assert.Equal(t, FoldText(s.Quote), FoldText(Slice(d.Text, s.Start, s.End)))
	}
}

func FuzzSpanValidation(f *testing.F) {
	f.Add("Hello wörld 🌍", 0, 5, "Hello")
	f.Add("a\u0301b", 0, 2, "á")
	f.Add("", 0, 0, "")
	f.Add("x", -1, 40, "x")
	f.Fuzz(func(t *testing.T, text string, start, end int, quote string) {
		if !utf8.ValidString(text) || !utf8.ValidString(quote) {
			return // JSON encoding would replace the bad bytes; invalid UTF-8 has its own tests
		}
		doc, _ := jsonLine(map[string]any{"doc_id": "d", "text": text})
		span, _ := jsonLine(map[string]any{"span_id": "s", "doc_id": "d", "start": start, "end": end, "quote": quote})
		v := NewValidator(LoadOptions{})
		ctx := context.Background()
		require.NoError(t, v.AddDocuments(ctx, strings.NewReader(doc), "c"))
		require.NoError(t, v.AddSpans(ctx, strings.NewReader(span), "s"))
		c, err := v.Corpus()
		if err != nil {
			return
		}
		// Whatever was accepted obeys the rules.
		require.Len(t, c.Spans, 1)
		s := c.Spans[0]
		n := RuneLen(c.Docs[0].Text)
		require.True(t, 0 <= s.Start && s.Start < s.End && s.End <= n, "accepted [%d,%d) of %d", s.Start, s.End, n)
		require.Equal(t, FoldText(quote), FoldText(Slice(c.Docs[0].Text, s.Start, s.End)))
	})
}

func FuzzValidateFiles(f *testing.F) {
	f.Add([]byte(`{"doc_id":"d","text":"Hello wörld."}`+"\n"), []byte(`{"span_id":"s","doc_id":"d","start":0,"end":5,"quote":"Hello"}`))
	f.Add([]byte("\ufeff{\"doc_id\":1}\r\n[]\n"), []byte(`{"span_id":"s","doc_id":"d","start":-1,"end":1e9}`))
	f.Fuzz(func(t *testing.T, docs, spans []byte) {
		v := NewValidator(LoadOptions{MaxLineBytes: 1 << 16})
		ctx := context.Background()
		require.NoError(t, v.AddDocuments(ctx, bytes.NewReader(docs), "c"))
		require.NoError(t, v.AddSpans(ctx, bytes.NewReader(spans), "s"))
		lines := map[string]int{"c": bytes.Count(docs, []byte("\n")) + 1, "s": bytes.Count(spans, []byte("\n")) + 1}
		for _, e := range v.Errors().Errors {
			if e.Line == 0 {
				continue // file-level ("the corpus has no documents")
			}
			require.LessOrEqual(t, e.Line, lines[e.File], "%v", e)
			require.NotEmpty(t, e.Err.Error())
		}
		if c, err := v.Corpus(); err == nil {
			for _, s := range c.Spans {
				d, ok := c.Doc(s.DocID)
				require.True(t, ok)
				require.LessOrEqual(t, s.End, RuneLen(d.Text))
			}
		}
	})
}
