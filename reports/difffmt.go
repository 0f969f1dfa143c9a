package reports

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/claimaudit/claimaudit/metrics"
)

// Formats of `audit diff`.
const (
	DiffText     = "text"
	DiffMarkdown = "markdown"
	DiffHTML     = "html"
	DiffJSON     = "json"
)

// DiffFormats are the formats WriteDiff renders (json is the Comparison
// itself, encoded by the caller).
var DiffFormats = []string{DiffText, DiffMarkdown, DiffHTML, DiffJSON}

// DiffView says what a rendering of a Comparison shows.
type DiffView struct {
	Slice string // default "all"
	// All lists every metric; by default only those whose 95% paired
	// interval excludes 0 and those a gate names.
	All bool
}

// diffPage is what the text, markdown and html renderings share.
type diffPage struct {
	C          *Comparison
	Slice      string
	Counts     DiffCountsRow
	McNemar    string
	Rows       []diffRow
	Hidden     int // metrics of the slice not shown (no significant change)
	All        bool
	Changed    []Transition // decisions that changed (slice all)
	Claims     []diffClaim  // html: fixed and broken claims
	ClaimsLeft int          // fixed and broken claims beyond the html's cap
}

type diffRow struct {
	Metric, A, B, Delta, Interval string
	Significant, Gated            bool
}

// diffClaim is a claim whose correctness changed, for the html page.
type diffClaim struct {
	ID, Text, Gold, Change string
	Fixed                  bool
	A, B                   string // decision at confidence
	PassageA, PassageB     string // deciding passage's snippet (B's only when it differs)
}

// DiffClaimsShown caps the changed claims the html page lists.
const DiffClaimsShown = 200

// countMetric says whether a metric counts claims (printed as an integer).
func countMetric(name string) bool {
	switch name {
	case "n", "answered", "abstained", "critical_unsupported", "contradictions", "supported_n_at_p80", "unsupported_n_at_p80",
		"outputs", "retrieval_claims", "errors_evidence_missed", "errors_evidence_retrieved":
		return true
	}
	return strings.HasPrefix(name, "pred_count_")
}

// zeroBelow: a difference this small is floating-point noise (0.3 − 0.1 −
// 0.2), printed as 0.
const zeroBelow = 1e-12

// FormatMetric prints a metric's value for people: — when undefined, a
// count as an integer, 0 for noise around zero, else three decimals (four
// significant digits for large values such as latencies).
func FormatMetric(name string, v *float64, signed bool) string {
	if v == nil || math.IsNaN(*v) {
		return "—"
	}
	x := *v
	if name == "mcnemar_p" {
		if x < 0.001 {
			return "< 0.001" // an exact p of 1e-33 is not 0
		}
		return fmt.Sprintf("%.3g", x)
	}
	if math.Abs(x) < zeroBelow {
		return "0"
	}
	sign := ""
	if signed && x > 0 {
		sign = "+"
	}
	switch {
	case countMetric(name) && x == math.Trunc(x):
		return sign + fmt.Sprintf("%d", int64(x))
	case math.Abs(x) >= 1000:
		return sign + fmt.Sprintf("%.0f", x)
	}
	return sign + fmt.Sprintf("%.3f", x)
}

// page gathers what every rendering shows.
func (c *Comparison) page(v DiffView) (*diffPage, error) {
	if v.Slice == "" {
		v.Slice = "all"
	}
	p := &diffPage{C: c, Slice: v.Slice, All: v.All}
	found := false
	for _, r := range c.Counts {
		if r.Slice == v.Slice {
			p.Counts, found = r, true
		}
	}
	if !found {
		var names []string
		for _, r := range c.Counts {
			names = append(names, r.Slice)
		}
		return nil, fmt.Errorf("slice %q: no shared claim is in it (slices: %s)", v.Slice, strings.Join(names, ", "))
	}
	p.McNemar = FormatMetric("mcnemar_p", p.Counts.McNemarP, false)
	gated := map[string]bool{}
	for _, g := range c.Gates {
		for _, o := range []*Operand{&g.Left, g.Right} {
			if o != nil {
				gated[o.Name] = true
			}
		}
	}
	for _, d := range c.Deltas {
		if d.Slice != v.Slice {
			continue
		}
		if !v.All && !d.Significant && !gated[d.Metric] {
			p.Hidden++
			continue
		}
		iv := ""
		if d.DeltaLo != nil && d.DeltaHi != nil {
			iv = fmt.Sprintf("[%s, %s]", FormatMetric(d.Metric, d.DeltaLo, true), FormatMetric(d.Metric, d.DeltaHi, true))
		}
		p.Rows = append(p.Rows, diffRow{Metric: d.Metric, A: FormatMetric(d.Metric, d.A, false), B: FormatMetric(d.Metric, d.B, false),
			Delta: FormatMetric(d.Metric, d.Delta, true), Interval: iv, Significant: d.Significant, Gated: gated[d.Metric]})
	}
	if v.Slice == "all" {
		for _, t := range c.Transitions {
			if t.From != t.To {
				p.Changed = append(p.Changed, t)
			}
		}
	}
	return p, nil
}

// WriteDiff renders a comparison as text (terminal tables), markdown (a
// pull-request comment) or html (one self-contained page with the changed
// claims and their passages).
func WriteDiff(w io.Writer, c *Comparison, format string, v DiffView) error {
	p, err := c.page(v)
	if err != nil {
		return err
	}
	switch format {
	case DiffText:
		return p.text(w)
	case DiffMarkdown:
		return p.markdown(w)
	case DiffHTML:
		p.Claims, p.ClaimsLeft = c.changedClaims()
		var buf bytes.Buffer
		if err := diffTmpl.Execute(&buf, p); err != nil {
			return fmt.Errorf("render diff html: %w", err)
		}
		_, err := w.Write(buf.Bytes())
		return err
	}
	return fmt.Errorf("diff format %q is not one of %s", format, strings.Join(DiffFormats, ", "))
}

func (p *diffPage) hiddenLine() string {
	if p.Hidden == 0 {
		return ""
	}
	return fmt.Sprintf("%d other metrics did not change significantly (95%% paired interval holds 0; coverage: McNemar p ≥ 0.05); --all lists them", p.Hidden)
}

func (p *diffPage) text(w io.Writer) error {
	c := p.C
	fmt.Fprintf(w, "A %s (run %s) → B %s (run %s), stage %s, slice %s\n", c.A, c.RunA, c.B, c.RunB, c.Stage, p.Slice)
	fmt.Fprintf(w, "%d shared claims, %d with gold labels\n", p.Counts.Shared, p.Counts.Labelled)
	t := newTable(w)
	t.Header("fixed", "broken", "unchanged correct", "unchanged wrong", "McNemar p (exact)")
	k := p.Counts
	t.Append(fmt.Sprint(k.Fixed), fmt.Sprint(k.Broken), fmt.Sprint(k.UnchangedCorrect), fmt.Sprint(k.UnchangedWrong), p.McNemar)
	if err := t.Render(); err != nil {
		return err
	}
	if p.Slice == "all" {
		if len(p.Changed) == 0 {
			fmt.Fprintln(w, "no decision changed")
		} else {
			tr := newTable(w)
			tr.Header("A → B", "claims")
			for _, x := range p.Changed {
				tr.Append(x.From+" → "+x.To, fmt.Sprint(x.Count))
			}
			if err := tr.Render(); err != nil {
				return err
			}
		}
	}
	if len(p.Rows) == 0 {
		fmt.Fprintln(w, "no metric changed significantly (every 95% paired interval holds 0)")
	} else {
		m := newTable(w)
		m.Header("metric", "A", "B", "B − A", "95% paired interval", "")
		for _, r := range p.Rows {
			m.Append(r.Metric, r.A, r.B, r.Delta, r.Interval, r.mark())
		}
		if err := m.Render(); err != nil {
			return err
		}
	}
	if l := p.hiddenLine(); l != "" && len(p.Rows) > 0 {
		fmt.Fprintln(w, l)
	}
	return PrintGates(w, c.Gates)
}

// mark flags a row: * significant, gate when a gate names it.
func (r diffRow) mark() string {
	var m []string
	if r.Significant {
		m = append(m, "*")
	}
	if r.Gated {
		m = append(m, "gate")
	}
	return strings.Join(m, " ")
}

// mdEscape keeps a value from breaking a markdown table cell.
func mdEscape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

func (p *diffPage) markdown(w io.Writer) error {
	c := p.C
	var b strings.Builder
	fmt.Fprintf(&b, "### claimaudit diff: `%s` → `%s`\n\n", mdEscape(c.A), mdEscape(c.B))
	fmt.Fprintf(&b, "Stage %s, slice `%s`: %d shared claims, %d with gold labels.\n\n", c.Stage, mdEscape(p.Slice), p.Counts.Shared, p.Counts.Labelled)
	k := p.Counts
	b.WriteString("| fixed | broken | unchanged correct | unchanged wrong | McNemar p (exact) |\n|---:|---:|---:|---:|---:|\n")
	fmt.Fprintf(&b, "| %d | %d | %d | %d | %s |\n\n", k.Fixed, k.Broken, k.UnchangedCorrect, k.UnchangedWrong, p.McNemar)
	if len(p.Rows) == 0 {
		b.WriteString("No metric changed significantly (every 95% paired interval holds 0).\n\n")
	} else {
		if p.All {
			b.WriteString("Every metric (**bold**: the 95% paired interval excludes 0):\n\n")
		} else {
			b.WriteString("Significant changes (the 95% paired bootstrap interval of B − A excludes 0; coverage by McNemar's exact test, p < 0.05) and gated metrics:\n\n")
		}
		b.WriteString("| metric | A | B | B − A | 95% paired interval |\n|---|---:|---:|---:|---:|\n")
		for _, r := range p.Rows {
			name := "`" + r.Metric + "`"
			if r.Significant {
				name = "**" + name + "**"
			}
			if r.Gated {
				name += " (gate)"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", name, r.A, r.B, r.Delta, r.Interval)
		}
		b.WriteString("\n")
		if l := p.hiddenLine(); l != "" {
			b.WriteString(strings.Replace(l, "--all", "`--all`", 1) + ".\n\n")
		}
	}
	if len(p.Changed) > 0 {
		b.WriteString("<details><summary>Decisions that changed</summary>\n\n| A → B | claims |\n|---|---:|\n")
		for _, x := range p.Changed {
			fmt.Fprintf(&b, "| %s → %s | %d |\n", x.From, x.To, x.Count)
		}
		b.WriteString("\n</details>\n\n")
	}
	if len(c.Gates) > 0 {
		b.WriteString("| gate | value | result |\n|---|---:|---|\n")
		for _, g := range c.Gates {
			v, res := FormatMetric(g.Left.Name, &g.Value, false), "pass"
			if g.Right != nil {
				v += " vs " + FormatMetric(g.Right.Name, &g.AgainstValue, false)
			}
			if g.Failed {
				res = "**FAIL**"
			}
			if g.Undefined {
				v, res = "—", "**FAIL** (undefined)"
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s |\n", mdEscape(g.Expr), v, res)
		}
		b.WriteString("\n")
	}
	for _, wn := range c.Warnings {
		fmt.Fprintf(&b, "> warning: %s\n", mdEscape(wn))
	}
	_, err := io.WriteString(w, strings.TrimRight(b.String(), "\n")+"\n")
	return err
}

// changedClaims are the fixed and broken claims (broken first), at most
// DiffClaimsShown, and how many more there are.
func (c *Comparison) changedClaims() ([]diffClaim, int) {
	var broken, fixed []diffClaim
	for _, x := range c.changed {
		d := diffClaim{ID: x.b.ClaimID, Text: x.b.Text, Gold: deref2(x.b.GoldLabel), Fixed: x.fixed,
			A: decisionOf(x.a), B: decisionOf(x.b), PassageA: passageOf(x.a)}
		if pb := passageOf(x.b); pb != d.PassageA {
			d.PassageB = pb
		}
		if x.fixed {
			d.Change = "fixed"
			fixed = append(fixed, d)
		} else {
			d.Change = "broken"
			broken = append(broken, d)
		}
	}
	all := append(broken, fixed...)
	if len(all) > DiffClaimsShown {
		return all[:DiffClaimsShown], len(all) - DiffClaimsShown
	}
	return all, 0
}

func deref2(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// decisionOf is a record's decision as the html page shows it.
func decisionOf(r Record) string {
	if r.Abstained || r.PredictedLabel == nil {
		reason := deref2(r.AbstainReason)
		if reason != "" {
			return "abstained (" + reason + ")"
		}
		return "abstained"
	}
	return fmt.Sprintf("%s at %s", *r.PredictedLabel, num(r.Confidence))
}

// passageOf is the deciding passage's snippet with its document, or "".
func passageOf(r Record) string {
	if u := r.EvidenceUsed; u != nil && u.Rank >= 1 && int(u.Rank) <= len(r.Evidence) {
		ev := r.Evidence[u.Rank-1]
		return fmt.Sprintf("%s (document %s): %s", u.PassageID, ev.DocID, ev.Snippet)
	}
	return ""
}

// changedPair is one shared claim whose correctness changed.
type changedPair struct {
	a, b  Record
	fixed bool
	index int // the shared claim's position, in A's order
}

// collectChanged keeps the shared, labelled claims whose correctness
// changed (over all slices), by the outcomes pairedCounts counts: the
// records of those the html page lists (changedClaims: broken first, at
// most DiffClaimsShown) are read whole, the others counted.
func collectChanged(a, b *Run, ra, rb *runRows) ([]changedPair, error) {
	right := func(o metrics.Outcome) bool { return !o.Abstained && o.Predicted == o.Gold }
	var broken, fixed []int
	for i := range ra.outs {
		if rb.outs[i].Gold == metrics.Unknown {
			continue
		}
		if x, y := right(ra.outs[i]), right(rb.outs[i]); x != y {
			if y {
				fixed = append(fixed, i)
			} else {
				broken = append(broken, i)
			}
		}
	}
	nb := min(len(broken), DiffClaimsShown)
	nf := min(len(fixed), DiffClaimsShown-nb)
	shown := slices.Concat(broken[:nb], fixed[:nf])
	var atA, atB []RecordAt
	for _, i := range shown {
		atA, atB = append(atA, ra.at[i]), append(atB, rb.at[i])
	}
	recA, err := a.records(atA)
	if err != nil {
		return nil, err
	}
	recB, err := b.records(atB)
	if err != nil {
		return nil, err
	}
	out := make([]changedPair, 0, len(broken)+len(fixed))
	for k, i := range shown {
		out = append(out, changedPair{a: recA[k], b: recB[k], fixed: k >= nb, index: i})
	}
	// The claims not shown are counted: changedPair without records.
	for _, i := range broken[nb:] {
		out = append(out, changedPair{index: i})
	}
	for _, i := range fixed[nf:] {
		out = append(out, changedPair{fixed: true, index: i})
	}
	return out, nil
}

//go:embed diff.html.tmpl
var diffTemplate string

var diffTmpl = template.Must(template.New("diff").Parse(diffTemplate))
