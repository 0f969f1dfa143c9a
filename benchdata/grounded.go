package benchdata

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/claimaudit/claimaudit/jsonl"
	"github.com/claimaudit/claimaudit/userfile"
)

// Grounded benchmark layout (docs/format/grounded.md): one (document,
// claim) pair per line, as LLM-AggreFact and the grounded verification
// benchmarks ship them.
var groundedFields = []string{"id", "doc", "claim", "label", "dataset"}

// ErrLabel is a grounded label that is not 0 or 1.
var ErrLabel = errors.New("label must be 0 or 1")

// GroundedCounts are what ConvertGrounded wrote.
type GroundedCounts struct {
	Pairs, Docs int
	Datasets    map[string]int // pairs per dataset
}

type groundedDoc struct {
	DocID string `json:"doc_id"`
	Title string `json:"title"`
	Text  string `json:"text"`
}

type groundedClaim struct {
	ID       string            `json:"id"`
	Text     string            `json:"text"`
	Cite     []string          `json:"cite"`
	Evidence string            `json:"evidence"`
	Label    string            `json:"label"`
	Meta     map[string]string `json:"meta,omitempty"`
}

// ConvertGrounded reads a grounded benchmark file — JSONL lines {"doc",
// "claim", "label": 0|1, "dataset"?, "id"?} — and writes into dir the
// inputs of `audit run`: corpus.jsonl (each distinct document once, id
// "g" + 12 hex of its text's sha256), claims.jsonl (each claim citing its
// document, judged against it alone — "evidence": "cited" —, its gold
// label — 1 supported, 0 unsupported — and meta.dataset for slicing). A
// claim's id is the line's id, else "<dataset>:<line>" ("pair:<line>"
// without a dataset). Every defect is reported as file:line:col: field,
// and nothing is written unless the whole file is sound.
func ConvertGrounded(ctx context.Context, path, dir string) (GroundedCounts, error) {
	counts := GroundedCounts{Datasets: map[string]int{}}
	f, err := userfile.Open(ctx, path)
	if err != nil {
		return counts, err
	}
	defer f.Close()
	var errs jsonl.ErrorList
	var docs []groundedDoc
	var cls []groundedClaim
	docIDs := map[string]bool{}
	ids := map[string]int{}
	_, err = jsonl.Each(ctx, f, path, 0, &errs, func(rec jsonl.Record) {
		c, doc, ok := groundedPair(rec, ids)
		if !ok {
			return
		}
		sum := sha256.Sum256([]byte(doc))
		c.Cite = []string{"g" + hex.EncodeToString(sum[:6])}
		if !docIDs[c.Cite[0]] {
			docIDs[c.Cite[0]] = true
			docs = append(docs, groundedDoc{DocID: c.Cite[0], Title: c.Cite[0], Text: doc})
		}
		cls = append(cls, c)
		counts.Datasets[c.Meta["dataset"]]++
	})
	if err != nil {
		return counts, err
	}
	if err := errs.Err(); err != nil {
		return counts, err
	}
	if len(cls) == 0 {
		return counts, fmt.Errorf("%s: no (doc, claim, label) lines", path)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return counts, err
	}
	if err := writeJSONL(filepath.Join(dir, "corpus.jsonl"), docs); err != nil {
		return counts, err
	}
	if err := writeJSONL(filepath.Join(dir, "claims.jsonl"), cls); err != nil {
		return counts, err
	}
	counts.Pairs, counts.Docs = len(cls), len(docs)
	return counts, nil
}

// groundedPair reads one line: the claim (without its cite) and the
// document text; ids are the claim ids so far, by line.
func groundedPair(rec jsonl.Record, ids map[string]int) (groundedClaim, string, bool) {
	rec.AllowOnly(groundedFields...)
	doc, _ := rec.Str("doc", true, true)
	text, _ := rec.Str("claim", true, true)
	dataset, _ := rec.Str("dataset", false, true)
	id, hasID := rec.Str("id", false, true)
	c := groundedClaim{Text: text, Evidence: "cited"}
	if n, ok := rec.Int("label"); ok {
		switch n {
		case 1:
			c.Label = "supported"
		case 0:
			c.Label = "unsupported"
		default:
			rec.Fail("label", rec.Col("label"), jsonl.Errorf(ErrLabel, "label must be 0 or 1, got %d", n))
		}
	}
	if dataset != "" {
		c.Meta = map[string]string{"dataset": dataset}
	}
	switch {
	case hasID && id != "":
		c.ID = id
	case dataset != "":
		c.ID = fmt.Sprintf("%s:%d", dataset, rec.Line)
	default:
		c.ID = fmt.Sprintf("pair:%d", rec.Line)
	}
	if first, dup := ids[c.ID]; dup {
		rec.Fail("id", rec.Col("id"), jsonl.Errorf(jsonl.ErrDuplicateID, "duplicate id %q (first at line %d)", c.ID, first))
	} else {
		ids[c.ID] = rec.Line
	}
	return c, doc, rec.Clean()
}

// writeJSONL writes one JSON line per value, built aside and renamed
// into place.
func writeJSONL[T any](path string, vs []T) error {
	var b strings.Builder
	for _, v := range vs {
		line, err := json.Marshal(v)
		if err != nil {
			return err
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(b.String()), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// DatasetNames are the datasets of counts, sorted.
func (c GroundedCounts) DatasetNames() []string {
	var out []string
	for k := range c.Datasets {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
