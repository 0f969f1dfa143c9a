package corpus

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"

	"github.com/claimaudit/claimaudit/jsonl"
	"github.com/claimaudit/claimaudit/userfile"
)

// DefaultErrorLimit is how many defects a load keeps in full; the rest are
// only counted, so a damaged multi-gigabyte file cannot exhaust memory.
const DefaultErrorLimit = 10000

// Corpus is a validated set of documents and their spans, in input order.
type Corpus struct {
	Docs  []Document
	Spans []Span
	// Inputs are the files the corpus was read from, with their hashes.
	Inputs []Input

	byID map[string]int
}

// Doc returns the document with the given id.
func (c *Corpus) Doc(id string) (*Document, bool) {
	i, ok := c.byID[id]
	if !ok {
		return nil, false
	}
	return &c.Docs[i], true
}

// Input identifies one input file by role and content.
type Input struct {
	Role   string `json:"role"` // "corpus" or "spans"
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	Bytes  int64  `json:"bytes"`
	// Records is the number of non-blank lines read.
	Records int `json:"records"`
}

// LoadOptions tune Load. The zero value is ready to use.
type LoadOptions struct {
	MaxLineBytes int // 0: jsonl.DefaultMaxLineBytes
	ErrorLimit   int // 0: DefaultErrorLimit
}

// Load reads and validates a corpus file and an optional spans file
// (spansPath may be ""). Every defect in both files is collected: the error
// is an *jsonl.ErrorList when the input is invalid, or an I/O error (wrapping
// *fs.PathError when a file cannot be opened).
func Load(ctx context.Context, corpusPath, spansPath string, opts LoadOptions) (*Corpus, error) {
	v := NewValidator(opts)
	if err := v.ReadFile(ctx, "corpus", corpusPath); err != nil {
		return nil, err
	}
	if spansPath != "" {
		if err := v.ReadFile(ctx, "spans", spansPath); err != nil {
			return nil, err
		}
	}
	return v.Corpus()
}

// ReadFile validates one input file, recording its hash. role is "corpus"
// (documents) or "spans"; documents must be read before spans. The error is
// an I/O failure or cancellation; defects go to Errors().
func (v *Validator) ReadFile(ctx context.Context, role, path string) error {
	var add func(context.Context, io.Reader, string) error
	switch role {
	case "corpus":
		add = v.AddDocuments
	case "spans":
		add = v.AddSpans
	default:
		return fmt.Errorf("unknown input role %q", role)
	}
	f, err := userfile.Open(ctx, path)
	if err != nil {
		return fmt.Errorf("open %s: %w", role, err)
	}
	defer f.Close()
	h := sha256.New()
	cr := &countingReader{r: io.TeeReader(f, h)}
	before := v.records
	if err := add(ctx, cr, path); err != nil {
		return fmt.Errorf("read %s: %w", role, err)
	}
	v.inputs = append(v.inputs, Input{Role: role, Path: path, SHA256: hex.EncodeToString(h.Sum(nil)), Bytes: cr.n, Records: v.records - before})
	return nil
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// HashFile returns the hex sha256 and size of a file.
func HashFile(path string) (string, int64, error) {
	f, err := userfile.Open(context.Background(), path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	var h hash.Hash = sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, fmt.Errorf("read %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// Validator checks documents and then spans against them, collecting every
// defect. Documents must all be added before spans.
type Validator struct {
	errs    jsonl.ErrorList
	opts    LoadOptions
	docs    []Document
	byID    map[string]int
	docLine map[string]string // doc_id -> "file:line" of its first definition
	badText map[string]bool   // doc ids whose text was invalid: their spans cannot be checked
	spans   []Span
	spanAt  map[string]string
	records int
	inputs  []Input
}

// NewValidator returns an empty validator.
func NewValidator(opts LoadOptions) *Validator {
	if opts.ErrorLimit <= 0 {
		opts.ErrorLimit = DefaultErrorLimit
	}
	return &Validator{
		errs:    jsonl.ErrorList{Limit: opts.ErrorLimit},
		opts:    opts,
		byID:    map[string]int{},
		docLine: map[string]string{},
		badText: map[string]bool{},
		spanAt:  map[string]string{},
	}
}

// Inputs returns the files read so far, with their hashes and record counts.
func (v *Validator) Inputs() []Input { return v.inputs }

// Counts returns how many documents and spans passed validation so far.
func (v *Validator) Counts() (docs, spans int) { return len(v.docs), len(v.spans) }

// Errors returns the defects found so far.
func (v *Validator) Errors() *jsonl.ErrorList { return &v.errs }

// Corpus returns the validated corpus, or the error list when any defect was
// found.
func (v *Validator) Corpus() (*Corpus, error) {
	if len(v.docs) == 0 && v.errs.Total == 0 {
		file := "corpus"
		if len(v.inputs) > 0 {
			file = v.inputs[0].Path
		}
		v.errs.Add(file, 0, 0, "", jsonl.Errorf(jsonl.ErrEmpty, "the corpus has no documents"))
	}
	if err := v.errs.Err(); err != nil {
		return nil, err
	}
	return &Corpus{Docs: v.docs, Spans: v.spans, Inputs: v.inputs, byID: v.byID}, nil
}

// AddDocuments reads a JSONL stream of documents. The returned error is an
// I/O failure or cancellation; validation defects go to Errors().
func (v *Validator) AddDocuments(ctx context.Context, r io.Reader, file string) error {
	return v.eachRecord(ctx, r, file, func(rec jsonl.Record) {
		rec.AllowOnly(documentFields...)
		var d Document
		id, idOK := rec.Str("doc_id", true, true)
		d.DocID = id
		text, textOK := rec.Str("text", true, true)
		d.Text = text
		d.Title, _ = rec.Str("title", false, false)
		d.Source, _ = rec.Str("source", false, false)
		if ca, ok := rec.Str("created_at", false, false); ok {
			if _, valid := ParseDate(ca); !valid {
				rec.Fail("created_at", rec.Col("created_at"), jsonl.Errorf(ErrBadDate, "%q is not an ISO-8601 date (YYYY-MM-DD) or date-time", ca))
			} else {
				d.CreatedAt = ca
			}
		}
		d.Meta = rec.Object("meta")
		if !idOK {
			return
		}
		if first, dup := v.docLine[id]; dup {
			rec.Fail("doc_id", rec.Col("doc_id"), jsonl.Errorf(jsonl.ErrDuplicateID, "duplicate doc_id %q (first defined at %s)", id, first))
			return
		}
		v.docLine[id] = fmt.Sprintf("%s:%d", file, rec.Line)
		if !textOK {
			v.badText[id] = true
			return
		}
		v.byID[id] = len(v.docs)
		v.docs = append(v.docs, d)
	})
}

// AddSpans reads a JSONL stream of spans and checks each against the
// documents added before.
func (v *Validator) AddSpans(ctx context.Context, r io.Reader, file string) error {
	return v.eachRecord(ctx, r, file, func(rec jsonl.Record) {
		rec.AllowOnly(spanFields...)
		var s Span
		id, idOK := rec.Str("span_id", true, true)
		s.SpanID = id
		docID, docOK := rec.Str("doc_id", true, true)
		s.DocID = docID
		start, startOK := rec.Int("start")
		end, endOK := rec.Int("end")
		s.Start, s.End = start, end
		quote, quoteOK := rec.Str("quote", false, false)
		s.Quote = quote
		s.Tags = rec.Strings("tags")
		s.Meta = rec.Object("meta")
		if idOK {
			if first, dup := v.spanAt[id]; dup {
				rec.Fail("span_id", rec.Col("span_id"), jsonl.Errorf(jsonl.ErrDuplicateID, "duplicate span_id %q (first defined at %s)", id, first))
				idOK = false
			} else {
				v.spanAt[id] = fmt.Sprintf("%s:%d", file, rec.Line)
			}
		}
		var text string
		if docOK {
			i, known := v.byID[docID]
			switch {
			case known:
				text = v.docs[i].Text
			case v.badText[docID]:
				docOK = false // the document's own error is already reported
			default:
				rec.Fail("doc_id", rec.Col("doc_id"), jsonl.Errorf(ErrUnknownDoc, "no document with doc_id %q", docID))
				docOK = false
			}
		}
		if !startOK || !endOK {
			return
		}
		offsetsOK := true
		switch {
		case start < 0:
			rec.Fail("start", rec.Col("start"), jsonl.Errorf(ErrOffsets, "start %d is negative", start))
			offsetsOK = false
		case start >= end:
			rec.Fail("end", rec.Col("end"), jsonl.Errorf(ErrOffsets, "span [%d,%d) is empty or reversed: need start < end", start, end))
			offsetsOK = false
		}
		if !docOK {
			return
		}
		if n := RuneLen(text); offsetsOK && end > n {
			rec.Fail("end", rec.Col("end"), jsonl.Errorf(ErrOffsets, "span [%d,%d) exceeds text length %d of doc %q (code points)", start, end, n, docID))
			offsetsOK = false
		}
		if offsetsOK && quoteOK {
			if got := Slice(text, start, end); FoldText(got) != FoldText(quote) {
				rec.Fail("quote", rec.Col("quote"), jsonl.Errorf(ErrQuoteMismatch, "quote %s does not match text[%d:%d] = %s", clip(quote), start, end, clip(got)))
				offsetsOK = false
			}
		}
		if idOK && offsetsOK && rec.Clean() {
			v.spans = append(v.spans, s)
		}
	})
}

func clip(s string) string {
	const max = 60
	r := []rune(s)
	if len(r) > max {
		return fmt.Sprintf("%q…", string(r[:max]))
	}
	return fmt.Sprintf("%q", s)
}

func (v *Validator) eachRecord(ctx context.Context, r io.Reader, file string, check func(jsonl.Record)) error {
	n, err := jsonl.Each(ctx, r, file, v.opts.MaxLineBytes, &v.errs, check)
	v.records += n
	return err
}
