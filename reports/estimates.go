package reports

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"
)

// EstimateRow is one row of estimates.parquet: a quantity about all the
// claims of a run, estimated from a sample of human labels by one method
// (`audit estimate`, docs/review.md). Value and interval are null, with
// Reason, when the quantity is not estimable from the sample.
type EstimateRow struct {
	RunID    string   `parquet:"run_id,dict" json:"run_id"`
	Quantity string   `parquet:"quantity,dict" json:"quantity"`
	Method   string   `parquet:"method,dict" json:"method"` // "ppi" or "classical"
	Value    *float64 `parquet:"value,optional" json:"value"`
	CILow    *float64 `parquet:"ci_low,optional" json:"ci_low"`
	CIHigh   *float64 `parquet:"ci_high,optional" json:"ci_high"`
	StdError *float64 `parquet:"std_error,optional" json:"std_error"`
	// NHuman is the reviewed claims with a human label the estimate used;
	// NEffective the human sample size the classical interval would need
	// to be as narrow as this one (n·(classical width / width)², so below n
	// exactly when this interval is the wider), null for classical rows.
	NHuman     int64    `parquet:"n_human" json:"n_human"`
	NEffective *float64 `parquet:"n_effective,optional" json:"n_effective"`
	// Lambda is PPI++'s power-tuning weight of the verifier's predictions
	// (0: the classical estimator); null for classical rows.
	Lambda *float64 `parquet:"lambda,optional" json:"lambda"`
	Design string   `parquet:"design,dict" json:"design"` // uniform, stratified or active
	Reason *string  `parquet:"reason,optional" json:"reason"`
}

// WriteEstimates writes estimates.parquet into dir.
func WriteEstimates(dir string, rows []EstimateRow, m Meta) error {
	w, err := NewParquetWriter[EstimateRow](filepath.Join(dir, "estimates.parquet"), m)
	if err != nil {
		return err
	}
	if err := w.Write(rows...); err != nil {
		w.Abort()
		return err
	}
	return w.Close()
}

// EstimateRows resolves est_<quantity> gates against the ppi rows.
type EstimateRows []EstimateRow

func parseEstimateOperand(m []string, quantities []string) (Operand, error) {
	o := Operand{Name: m[2], Slice: "all", Bound: m[5]}
	q, ok := strings.CutPrefix(o.Name, "est_")
	switch {
	case m[1] != "":
		return o, fmt.Errorf("delta.%s compares two runs: use it with audit diff", o.Name)
	case !ok || !slices.Contains(quantities, q):
		return o, fmt.Errorf("unknown estimate %q (known: est_%s)", o.Name, strings.Join(quantities, ", est_"))
	case m[3] != "" || m[4] != "":
		return o, fmt.Errorf("estimates have no slices ([%s])", m[3])
	case o.Bound != "" && o.Bound != "lo" && o.Bound != "hi":
		return o, fmt.Errorf("unknown bound .%s (.lo or .hi: the ends of the 95%% interval)", o.Bound)
	}
	return o, nil
}

// Resolve gives the prediction-powered estimate of est_<quantity>, or an
// end of its interval; NaN and why when it is not estimable.
func (rows EstimateRows) Resolve(o Operand) (float64, string) {
	q := strings.TrimPrefix(o.Name, "est_")
	for _, r := range rows {
		if r.Quantity != q || r.Method != "ppi" {
			continue
		}
		p := r.Value
		switch o.Bound {
		case "lo":
			p = r.CILow
		case "hi":
			p = r.CIHigh
		}
		if p == nil {
			why := "not estimable"
			if r.Reason != nil {
				why = *r.Reason
			}
			return math.NaN(), fmt.Sprintf("%s is undefined: %s", o, why)
		}
		return *p, ""
	}
	return math.NaN(), fmt.Sprintf("%s is undefined: not estimated", o)
}

//go:embed estimates.html.tmpl
var estimatesTemplate string

var estimatesTmpl = template.Must(template.New("estimates").Parse(estimatesTemplate))

// EstimatesPage is what the estimates report.html shows.
type EstimatesPage struct {
	RunID, Design    string
	Claims, Reviewed int
	Answers          int
	Unused           []string // why reviewed claims were left out ("3 unsure")
	Agreement        []string // "Krippendorff's α 0.81 over 40 claims with 2+ reviews"
	Rows             []EstimateRow
	Gates            []GateResult
}

type estimateLine struct {
	Quantity, PPI, Classical, Width, NEff, Lambda, Reason string
}

func fmtEstimate(r EstimateRow) string {
	if r.Value == nil {
		return "—"
	}
	return fmt.Sprintf("%.3f [%.3f, %.3f]", *r.Value, *r.CILow, *r.CIHigh)
}

// EstimatesHTML renders report.html for `audit estimate`: one line per
// quantity, the prediction-powered and the classical estimate side by
// side.
func EstimatesHTML(p EstimatesPage) ([]byte, error) {
	var lines []estimateLine
	byQ := map[string][2]*EstimateRow{}
	var order []string
	for i := range p.Rows {
		r := &p.Rows[i]
		pair, seen := byQ[r.Quantity]
		if !seen {
			order = append(order, r.Quantity)
		}
		if r.Method == "ppi" {
			pair[0] = r
		} else {
			pair[1] = r
		}
		byQ[r.Quantity] = pair
	}
	for _, q := range order {
		pair := byQ[q]
		l := estimateLine{Quantity: q, PPI: "—", Classical: "—", Width: "—", NEff: "—", Lambda: "—"}
		if r := pair[0]; r != nil {
			l.PPI = fmtEstimate(*r)
			if r.NEffective != nil {
				l.NEff = fmt.Sprintf("%.0f (of %d)", *r.NEffective, r.NHuman)
			}
			if r.Lambda != nil {
				l.Lambda = fmt.Sprintf("%.2f", *r.Lambda)
			}
			if r.Reason != nil {
				l.Reason = *r.Reason
			}
		}
		if r := pair[1]; r != nil {
			l.Classical = fmtEstimate(*r)
			if l.Reason == "" && r.Reason != nil {
				l.Reason = *r.Reason
			}
		}
		if a, b := pair[0], pair[1]; a != nil && b != nil && a.CIHigh != nil && b.CIHigh != nil && *b.CIHigh > *b.CILow {
			l.Width = fmt.Sprintf("%.2f", (*a.CIHigh-*a.CILow)/(*b.CIHigh-*b.CILow))
		}
		lines = append(lines, l)
	}
	var buf bytes.Buffer
	err := estimatesTmpl.Execute(&buf, struct {
		EstimatesPage
		Lines []estimateLine
	}{p, lines})
	return buf.Bytes(), err
}

// PrintEstimates writes the estimates as a boxed table, as the run's
// tables are: one row per quantity and method, with the interval, the
// human labels used and, on ppi rows, the effective n and the width of the
// interval against the classical one (below 1: PPI's is narrower).
func PrintEstimates(w io.Writer, rows []EstimateRow) error {
	t := newTable(w)
	t.Header("quantity", "method", "value", "95% interval", "n human", "effective n", "width ÷ classical", "not estimable because")
	classical := map[string]EstimateRow{}
	for _, r := range rows {
		if r.Method == "classical" {
			classical[r.Quantity] = r
		}
	}
	for _, r := range rows {
		v, ci, neff, ratio, why := "—", "", "", "", ""
		if r.Value != nil {
			v, ci = fmt.Sprintf("%.4f", *r.Value), fmt.Sprintf("[%.4f, %.4f]", *r.CILow, *r.CIHigh)
		}
		if r.NEffective != nil {
			neff = fmt.Sprintf("%.0f", *r.NEffective)
		}
		if c, ok := classical[r.Quantity]; ok && r.Method != "classical" && r.CIHigh != nil && c.CIHigh != nil && *c.CIHigh > *c.CILow {
			ratio = fmt.Sprintf("%.2f", (*r.CIHigh-*r.CILow)/(*c.CIHigh-*c.CILow))
		}
		if r.Reason != nil {
			why = *r.Reason
		}
		t.Append(r.Quantity, r.Method, v, ci, fmt.Sprint(r.NHuman), neff, ratio, why)
	}
	return t.Render()
}
