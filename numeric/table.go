package numeric

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/claimaudit/claimaudit/jsonl"
)

// TableClaim is one row of a claim table: seed 000's claim tuple ⟨id,
// indicator, entity, year, value, unit, kind⟩ ("clm 7ef6", GDP growth,
// PHL, 2024, 5.7, %, m), with Quantity the value read in its unit.
type TableClaim struct {
	ID        string   `json:"id"`
	Indicator string   `json:"indicator,omitempty"`
	Entity    string   `json:"entity,omitempty"`
	Year      int      `json:"year,omitempty"`
	Value     string   `json:"value"` // as written in the table
	Unit      string   `json:"unit,omitempty"`
	Kind      string   `json:"kind,omitempty"`
	Quantity  Quantity `json:"-"`
	Line      int      `json:"-"` // line of the table file
}

// ClaimTable is a claim table by claim id, with the ids in file order.
type ClaimTable struct {
	ByID  map[string]TableClaim
	Order []string
}

var tableFields = []string{"id", "indicator", "entity", "year", "value", "unit", "kind"}

// ReadClaimTable reads a claim table (JSONL, one claim a line; see
// docs/format/tagged-outputs.md). value is a number or a numeric
// expression ("5.7", "12%", "$1.9 billion"); a unit beside a number is the
// value's unit. A value that is not one number, a unit that disagrees with
// the value's own, a duplicate id or an unknown field is a defect: the
// error is a *jsonl.ErrorList naming file, line and field.
func ReadClaimTable(ctx context.Context, r io.Reader, file string) (ClaimTable, error) {
	errs := &jsonl.ErrorList{Limit: 10000}
	t := ClaimTable{ByID: map[string]TableClaim{}}
	_, err := jsonl.Each(ctx, r, file, 0, errs, func(rec jsonl.Record) {
		rec.AllowOnly(tableFields...)
		c := TableClaim{Line: rec.Line}
		c.ID, _ = rec.Str("id", true, true)
		c.Indicator, _ = rec.Str("indicator", false, false)
		c.Entity, _ = rec.Str("entity", false, false)
		c.Kind, _ = rec.Str("kind", false, false)
		unit, _ := rec.Str("unit", false, false)
		if rec.Has("year") && jsonl.KindOf(rec.Raw("year")) != "null" {
			if y, ok := rec.Int("year"); ok {
				if y < 1000 || y > 2999 {
					rec.Fail("year", rec.Col("year"), jsonl.Errorf(jsonl.ErrRange, "year %d out of range", y))
				}
				c.Year = y
			}
		}
		tableValue(rec, &c, unit)
		if c.ID != "" {
			if prev, dup := t.ByID[c.ID]; dup {
				rec.Fail("id", rec.Col("id"), jsonl.Errorf(jsonl.ErrDuplicateID, "duplicate id %q (first at line %d)", c.ID, prev.Line))
				return
			}
		}
		if rec.Clean() {
			t.ByID[c.ID] = c
			t.Order = append(t.Order, c.ID)
		}
	})
	if err != nil {
		return ClaimTable{}, err
	}
	return t, errs.Err()
}

// tableValue reads a row's value and unit into c.Quantity.
func tableValue(rec jsonl.Record, c *TableClaim, unit string) {
	raw := rec.Raw("value")
	var q Quantity
	switch jsonl.KindOf(raw) {
	case "number":
		c.Value = string(raw)
		var err error
		if q, err = ParseQuantity(c.Value); err != nil {
			rec.Fail("value", rec.Col("value"), jsonl.Errorf(jsonl.ErrRange, "number %s out of range", raw))
			return
		}
	case "string":
		_ = json.Unmarshal(raw, &c.Value)
		var err error
		if q, err = ParseQuantity(c.Value); err != nil {
			rec.Fail("value", rec.Col("value"), jsonl.Errorf(jsonl.ErrWrongType, "%v", err))
			return
		}
	case "nothing", "null":
		rec.Fail("value", 0, jsonl.Errorf(jsonl.ErrMissingField, "required value is missing"))
		return
	default:
		rec.Fail("value", rec.Col("value"), jsonl.Errorf(jsonl.ErrWrongType, "expected number or string, got %s", jsonl.KindOf(raw)))
		return
	}
	if unit != "" {
		u, _ := CanonicalUnit(unit)
		if q.Unit != "" && q.Unit != u && q.Kind != KindYear {
			rec.Fail("unit", rec.Col("unit"), fmt.Errorf("unit %q disagrees with the value's %q", unit, q.Unit))
			return
		}
		q = withUnit(q, u)
	}
	c.Unit, c.Quantity = q.Unit, q
}

// withUnit gives a bare value the unit a table names beside it.
func withUnit(q Quantity, unit string) Quantity {
	if q.Kind == KindYear {
		q.Kind = KindNumber // a value with a unit is a measure, not a year
	}
	q.Unit = unit
	switch dim, _ := UnitDimension(unit); {
	case dim == DimPercent:
		q.Kind = KindPercent
	case strings.HasPrefix(dim, DimCurrency):
		q.Kind = KindMoney
	case unit == "x":
		q.Kind = KindMultiplier
	}
	return q
}

// ReadClaimTableFile is ReadClaimTable on a file.
func ReadClaimTableFile(ctx context.Context, path string) (ClaimTable, error) {
	f, err := os.Open(path)
	if err != nil {
		return ClaimTable{}, fmt.Errorf("open claim table: %w", err)
	}
	defer f.Close()
	return ReadClaimTable(ctx, f, path)
}

// String names a claim for reasons and reports: its value and unit, and
// what it is about.
func (c TableClaim) String() string {
	var about []string
	for _, s := range []string{c.Indicator, c.Entity} {
		if s != "" {
			about = append(about, s)
		}
	}
	if c.Year != 0 {
		about = append(about, strconv.Itoa(c.Year))
	}
	v := c.Value
	if c.Unit != "" && !strings.Contains(v, c.Unit) {
		v += " " + c.Unit
	}
	if len(about) == 0 {
		return v
	}
	return v + " (" + strings.Join(about, ", ") + ")"
}
