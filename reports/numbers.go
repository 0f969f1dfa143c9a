package reports

import (
	"fmt"
	"html/template"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/claimaudit/claimaudit/numeric"
)

// The report of `audit numcheck --outputs`: every number of every tagged
// output as verified, flagged or bare (numbers.parquet), counts per output
// (number_counts.parquet and the terminal), and the outputs marked up
// (numbers.html). See docs/format/tagged-outputs.md.

// NumberRow is one row of numbers.parquet.
type NumberRow struct {
	OutputID   string  `parquet:"output_id,dict"`
	OutputLine int64   `parquet:"output_line"` // line of the outputs file
	Start      int64   `parquet:"start"`       // byte offsets of the number in the output's text
	End        int64   `parquet:"end"`
	Text       string  `parquet:"text"`
	Status     string  `parquet:"status,dict"` // verified, flagged, bare
	ClaimID    *string `parquet:"claim_id,optional"`
	Policy     *string `parquet:"policy,optional"`  // as the tag asked
	Decided    *string `parquet:"decided,optional"` // the mode that decided
	Reason     string  `parquet:"reason"`
	ClaimValue *string `parquet:"claim_value,optional"`
	ClaimUnit  *string `parquet:"claim_unit,optional"`
	Indicator  *string `parquet:"indicator,optional"`
	Entity     *string `parquet:"entity,optional"`
	Year       *int64  `parquet:"year,optional"`
}

// NumberCountRow is one row of number_counts.parquet: an output's numbers
// by status and its malformed tags.
type NumberCountRow struct {
	OutputID   string `parquet:"output_id,dict"`
	OutputLine int64  `parquet:"output_line"`
	Verified   int64  `parquet:"verified"`
	Flagged    int64  `parquet:"flagged"`
	Bare       int64  `parquet:"bare"`
	Malformed  int64  `parquet:"malformed"`
}

// TaggedOutput is one output as checked.
type TaggedOutput struct {
	ID      string
	Line    int
	Text    string
	Numbers []numeric.NumberCheck
	Errors  []numeric.TagError
	Counts  numeric.Counts
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// NumberRows are the rows of numbers.parquet for one output.
func NumberRows(o TaggedOutput) []NumberRow {
	rows := make([]NumberRow, 0, len(o.Numbers))
	for _, n := range o.Numbers {
		r := NumberRow{OutputID: o.ID, OutputLine: int64(o.Line), Start: int64(n.Start), End: int64(n.End), Text: n.Text,
			Status: n.Status, ClaimID: optional(n.ClaimID), Policy: optional(n.Policy), Decided: optional(n.Decided), Reason: n.Reason}
		if c := n.Claim; c != nil {
			r.ClaimValue, r.ClaimUnit, r.Indicator, r.Entity = optional(c.Value), optional(c.Unit), optional(c.Indicator), optional(c.Entity)
			if c.Year != 0 {
				y := int64(c.Year)
				r.Year = &y
			}
		}
		rows = append(rows, r)
	}
	return rows
}

// WriteNumbers writes numbers.parquet, number_counts.parquet and
// numbers.html into dir.
func WriteNumbers(dir string, m Meta, outs []TaggedOutput) error {
	nw, err := NewParquetWriter[NumberRow](filepath.Join(dir, "numbers.parquet"), m)
	if err != nil {
		return err
	}
	cw, err := NewParquetWriter[NumberCountRow](filepath.Join(dir, "number_counts.parquet"), m)
	if err != nil {
		nw.Abort()
		return err
	}
	for _, o := range outs {
		c := o.Counts
		if err = nw.Write(NumberRows(o)...); err == nil {
			err = cw.Write(NumberCountRow{OutputID: o.ID, OutputLine: int64(o.Line), Verified: int64(c.Verified),
				Flagged: int64(c.Flagged), Bare: int64(c.Bare), Malformed: int64(c.Malformed)})
		}
		if err != nil {
			nw.Abort()
			cw.Abort()
			return err
		}
	}
	if err := nw.Close(); err != nil {
		cw.Abort()
		return err
	}
	if err := cw.Close(); err != nil {
		return err
	}
	return writeNumbersHTML(filepath.Join(dir, "numbers.html"), outs)
}

// PrintNumberCounts writes the terminal table: counts per output and in
// all, then every flagged number with its reason.
func PrintNumberCounts(w io.Writer, outs []TaggedOutput) error {
	t := newTable(w)
	t.Header("output", "verified", "flagged", "bare", "malformed")
	var all numeric.Counts
	for _, o := range outs {
		c := o.Counts
		all = all.Add(c)
		if err := t.Append(o.ID, strconv.Itoa(c.Verified), strconv.Itoa(c.Flagged), strconv.Itoa(c.Bare), strconv.Itoa(c.Malformed)); err != nil {
			return err
		}
	}
	if err := t.Append("all", strconv.Itoa(all.Verified), strconv.Itoa(all.Flagged), strconv.Itoa(all.Bare), strconv.Itoa(all.Malformed)); err != nil {
		return err
	}
	if err := t.Render(); err != nil {
		return err
	}
	for _, o := range outs {
		for _, n := range o.Numbers {
			if n.Status == numeric.StatusFlagged {
				fmt.Fprintf(w, "flagged %s: %q (claim %s, policy %s): %s\n", o.ID, n.Text, n.ClaimID, n.Policy, n.Reason)
			}
		}
	}
	return nil
}

// markedOutput is an output's text cut into plain and number segments.
type markedOutput struct {
	ID       string
	Counts   numeric.Counts
	Segments []segment
	Errors   []numeric.TagError
}

type segment struct {
	Text, Class, Title string
}

// segments cuts text at its numbers; a tag's markup is left out of the
// view, its number kept with its status as the class and its provenance
// or reason as the title.
func segments(o TaggedOutput) []segment {
	var out []segment
	pos := 0
	for _, n := range o.Numbers {
		if n.TagStart < pos {
			continue
		}
		out = append(out, segment{Text: o.Text[pos:n.TagStart]})
		title := n.Reason
		if n.ClaimID != "" {
			title = fmt.Sprintf("claim %s", n.ClaimID)
			if n.Claim != nil {
				title += " = " + n.Claim.String()
			}
			title += fmt.Sprintf("; policy %s; %s", n.Policy, n.Reason)
		}
		out = append(out, segment{Text: n.Text, Class: n.Status, Title: title})
		pos = n.TagEnd
	}
	return append(out, segment{Text: o.Text[pos:]})
}

var numbersPage = template.Must(template.New("numbers").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Tagged numbers</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:60em;margin:2em auto;padding:0 1em;color:#222}
.out{border:1px solid #ccc;border-radius:4px;padding:.6em 1em;margin:1em 0;white-space:pre-wrap}
.verified{background:#d8f0d8;border-bottom:2px solid #2a7a2a}
.verified::after{content:"\2713";color:#2a7a2a;font-size:.75em;vertical-align:super}
.flagged{background:#fbd9d3;border-bottom:2px dashed #b3261e}
.flagged::after{content:"!";color:#b3261e;font-weight:bold;font-size:.75em;vertical-align:super}
.bare{color:#555;border-bottom:1px dotted #999}
.legend span{margin-right:1.5em}.err{color:#b3261e;font-family:monospace}
</style></head><body>
<h1>Tagged numbers</h1>
<p class="legend"><span class="verified">verified</span> checked against its claim (hover for provenance)
<span class="flagged">flagged</span> tagged, check failed <span class="bare">bare</span> no claim tag: not verified</p>
{{range .}}<h2>{{.ID}}</h2>
<p>verified {{.Counts.Verified}} · flagged {{.Counts.Flagged}} · bare {{.Counts.Bare}} · malformed tags {{.Counts.Malformed}}</p>
<div class="out">{{range .Segments}}{{if .Class}}<span class="{{.Class}}" title="{{.Title}}">{{.Text}}</span>{{else}}{{.Text}}{{end}}{{end}}</div>
{{range .Errors}}<p class="err">column {{.Column}}: {{.Message}}: {{.Tag}}</p>
{{end}}{{end}}</body></html>
`))

func writeNumbersHTML(path string, outs []TaggedOutput) error {
	view := make([]markedOutput, len(outs))
	for i, o := range outs {
		view[i] = markedOutput{ID: o.ID, Counts: o.Counts, Segments: segments(o), Errors: o.Errors}
	}
	f, err := CreateAtomic(path)
	if err != nil {
		return err
	}
	if err := numbersPage.Execute(f, view); err != nil {
		f.Abort()
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	return f.Commit()
}

// NumberGate is one --fail-on comparison of `audit numcheck --outputs`:
// a count over all outputs (verified, flagged, bare, malformed, numbers)
// against a number.
type NumberGate struct {
	Expr, Name, Op string
	Threshold      float64
}

// NumberGateNames are the counts a number gate may compare.
var NumberGateNames = []string{"verified", "flagged", "bare", "malformed", "numbers"}

// ParseNumberGates parses "flagged>0,bare>=10".
func ParseNumberGates(expr string) ([]NumberGate, error) {
	var gates []NumberGate
	for _, part := range strings.Split(expr, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		m := reGate.FindStringSubmatch(part)
		if m == nil || !containsString(NumberGateNames, m[1]) || !reNumber.MatchString(m[3]) {
			return nil, fmt.Errorf("%w: %q is not COUNT (>|<|>=|<=) NUMBER with COUNT one of %s", ErrBadGate, part, strings.Join(NumberGateNames, ", "))
		}
		v, _ := strconv.ParseFloat(m[3], 64)
		gates = append(gates, NumberGate{Expr: part, Name: m[1], Op: m[2], Threshold: v})
	}
	return gates, nil
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// FailedNumberGates returns the gates whose comparison holds for counts c.
func FailedNumberGates(gates []NumberGate, c numeric.Counts) []NumberGate {
	values := map[string]float64{"verified": float64(c.Verified), "flagged": float64(c.Flagged), "bare": float64(c.Bare),
		"malformed": float64(c.Malformed), "numbers": float64(c.Verified + c.Flagged + c.Bare)}
	var failed []NumberGate
	for _, g := range gates {
		v := values[g.Name]
		if (g.Op == ">" && v > g.Threshold) || (g.Op == "<" && v < g.Threshold) ||
			(g.Op == ">=" && v >= g.Threshold) || (g.Op == "<=" && v <= g.Threshold) {
			failed = append(failed, g)
		}
	}
	return failed
}
