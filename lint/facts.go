package lint

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/claimaudit/claimaudit/jsonl"
	"github.com/claimaudit/claimaudit/numeric"
	"github.com/claimaudit/claimaudit/userfile"
)

var factFields = []string{"id", "description", "value", "unit", "year", "date", "text"}

// ReadFacts reads a facts file (JSONL, one known fact a line; see
// docs/format/facts.md). value is a number or a numeric expression ("94%",
// "$29", "1.2 million"); a unit given beside a number is normalised as the
// claims' units are ("seconds" → "s"). Defects are collected: the error is a
// *jsonl.ErrorList.
func ReadFacts(ctx context.Context, r io.Reader, file string) ([]Fact, error) {
	errs := &jsonl.ErrorList{Limit: 10000}
	seen := map[string]int{}
	var facts []Fact
	_, err := jsonl.Each(ctx, r, file, 0, errs, func(rec jsonl.Record) {
		rec.AllowOnly(factFields...)
		var f Fact
		f.ID, _ = rec.Str("id", true, true)
		f.Description, _ = rec.Str("description", true, true)
		f.Text, _ = rec.Str("text", false, false)
		unit, hasUnit := rec.Str("unit", false, false)
		if f.ID != "" {
			if first, dup := seen[f.ID]; dup {
				rec.Fail("id", rec.Col("id"), jsonl.Errorf(jsonl.ErrDuplicateID, "duplicate id %q (first at line %d)", f.ID, first))
			} else {
				seen[f.ID] = rec.Line
			}
		}
		readFactValue(&rec, &f)
		if hasUnit && unit != "" {
			unit, _ = numeric.CanonicalUnit(unit)
			// A multiplier's comparative may be given as its unit: "3x" with unit "faster".
			refines := f.Unit == "x" && f.quantity.Kind == numeric.KindMultiplier && numeric.IsComparative(unit)
			if f.Unit != "" && f.Unit != unit && !refines {
				rec.Fail("unit", rec.Col("unit"), fmt.Errorf("unit %q disagrees with the value's %q", unit, f.Unit))
			}
			f.Unit = unit
			f.quantity.Unit = unit
		}
		if rec.Has("year") && jsonl.KindOf(rec.Raw("year")) != "null" {
			if y, ok := rec.Int("year"); ok {
				if y < 1000 || y > 2999 {
					rec.Fail("year", rec.Col("year"), jsonl.Errorf(jsonl.ErrRange, "year %d out of range", y))
				}
				f.Years = append(f.Years, y)
			}
		}
		if d, ok := rec.Str("date", false, true); ok {
			t, err := time.Parse("2006-01-02", d)
			if err != nil {
				rec.Fail("date", rec.Col("date"), jsonl.Errorf(jsonl.ErrWrongType, "expected an ISO date YYYY-MM-DD"))
			} else if len(f.Years) == 0 || f.Years[0] != t.Year() {
				f.Years = append(f.Years, t.Year())
			}
		}
		if rec.Clean() {
			facts = append(facts, f)
		}
	})
	if err != nil {
		return nil, err
	}
	return facts, errs.Err()
}

// ReadFactsFile is ReadFacts on a file.
func ReadFactsFile(ctx context.Context, path string) ([]Fact, error) {
	f, err := userfile.Open(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("open facts: %w", err)
	}
	defer f.Close()
	return ReadFacts(ctx, f, path)
}

// readFactValue reads a fact's value: a number, or a numeric expression
// that brings its unit ("94%", "$29", "3x faster").
func readFactValue(rec *jsonl.Record, f *Fact) {
	raw := rec.Raw("value")
	switch jsonl.KindOf(raw) {
	case "number":
		v, err := strconv.ParseFloat(string(raw), 64)
		if err != nil {
			rec.Fail("value", rec.Col("value"), jsonl.Errorf(jsonl.ErrRange, "number %s out of range", raw))
		}
		f.Value = v
		f.quantity = numeric.Quantity{Kind: numeric.KindNumber, Value: v, Payload: v, Scale: 1}
		if f.Text == "" {
			f.Text = string(raw)
		}
	case "string":
		var s string
		_ = json.Unmarshal(raw, &s)
		q, err := numeric.ParseQuantity(s)
		if err != nil {
			rec.Fail("value", rec.Col("value"), jsonl.Errorf(jsonl.ErrWrongType, "%v", err))
		}
		f.Value, f.Unit, f.quantity = q.Value, q.Unit, q
		if m, ok := numeric.FirstMention(s); ok && q.Kind == numeric.KindMultiplier && m.Pattern == numeric.PatternMultiplier {
			// "3x faster": the comparative is the unit, as in a claim.
			f.Unit, f.quantity.Unit = m.Unit, m.Unit
		}
		if f.Text == "" {
			f.Text = s
		}
	case "nothing", "null":
		rec.Fail("value", 0, jsonl.Errorf(jsonl.ErrMissingField, "required value is missing"))
	default:
		rec.Fail("value", rec.Col("value"), jsonl.Errorf(jsonl.ErrWrongType, "expected number or string, got %s", jsonl.KindOf(raw)))
	}
}
