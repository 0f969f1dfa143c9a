package reports

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/claimaudit/claimaudit/metrics"
	"github.com/claimaudit/claimaudit/userfile"
)

// TrendRow is one row of trend.parquet: one metric of one slice and stage
// in one run, with the band of the runs before it.
type TrendRow struct {
	RunInstance string   `parquet:"run_instance,dict"`
	RunID       string   `parquet:"run_id,dict"`
	StartedAt   int64    `parquet:"started_at,timestamp(millisecond)"`
	Run         string   `parquet:"run,dict"` // the run's folder, as given
	Metric      string   `parquet:"metric,dict"`
	Slice       string   `parquet:"slice,dict"`
	Stage       string   `parquet:"stage,dict"`
	Value       *float64 `parquet:"value,optional"`
	CILow       *float64 `parquet:"ci_low,optional"`
	CIHigh      *float64 `parquet:"ci_high,optional"`
	N           int64    `parquet:"n"`
	// BandLow and BandHigh are the lowest and highest value of the
	// previous runs (up to the window); null before MinBandRuns of them.
	BandLow  *float64 `parquet:"band_low,optional"`
	BandHigh *float64 `parquet:"band_high,optional"`
	// Flagged: the value left the band the way the metric gets worse
	// (WorseWay; either way for a metric with no better direction), by
	// more than its own 95% interval: a change within the run's sampling
	// noise is not flagged, even beside the zero-width band of identical
	// runs.
	Flagged bool `parquet:"flagged"`
	// Improved: it left the band, by as much, the way that is better.
	Improved bool `parquet:"improved"`
}

// TrendOptions tune Trend.
type TrendOptions struct {
	Window      int // previous runs in a band and a gate's median; default 7
	MinBandRuns int // fewest previous runs that make a band; default 3
}

// TrendRun is one run folder's metrics.
type TrendRun struct {
	Dir      string
	RunID    string
	Instance Instance
	Rows     []MetricRow
	// Manifest is the run's manifest.json (its inputs' sha256); nil when
	// it has none.
	Manifest *Manifest
}

// ErrNoRuns: nothing to make a trend of.
var ErrNoRuns = errors.New("no run folders (folders holding metrics.parquet)")

// FindTrendRuns expands the paths into run folders: a folder holding
// metrics.parquet is a run; any other folder contributes its subfolders
// that are runs. Sorted, duplicates dropped.
func FindTrendRuns(paths []string) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	add := func(d string) {
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("%s is not a folder (give run folders, or a folder of them)", p)
		}
		if isRunDir(p) {
			add(p)
			continue
		}
		ents, err := os.ReadDir(p)
		if err != nil {
			return nil, err
		}
		n := 0
		for _, e := range ents {
			if d := filepath.Join(p, e.Name()); e.IsDir() && isRunDir(d) {
				add(d)
				n++
			}
		}
		if n == 0 {
			return nil, fmt.Errorf("%s: %w in it or below it", p, ErrNoRuns)
		}
	}
	if len(out) == 0 {
		return nil, ErrNoRuns
	}
	sort.Strings(out)
	return out, nil
}

func isRunDir(d string) bool {
	st, err := os.Stat(filepath.Join(d, "metrics.parquet"))
	return err == nil && st.Mode().IsRegular()
}

// LoadTrendRun reads a run folder's metrics.parquet. Its execution is the
// rows' run_instance and started_at; folders written before those columns
// existed take summary.json's, or else the manifest's written_at with the
// folder as the instance.
func LoadTrendRun(dir string) (TrendRun, error) {
	rows, err := ReadParquet[MetricRow](filepath.Join(dir, "metrics.parquet"))
	if err != nil {
		return TrendRun{}, err
	}
	r := TrendRun{Dir: dir, Rows: rows}
	if m, err := ReadManifest(dir); err == nil {
		r.Manifest = m
	}
	if len(rows) > 0 {
		r.RunID = rows[0].RunID
		r.Instance = InstanceOf(rows[0].RunInstance, rows[0].StartedAt)
	}
	if r.Instance.ID == "" {
		r.Instance = legacyInstance(dir)
	}
	if r.Instance.StartedAt.IsZero() {
		return r, fmt.Errorf("%s: no started_at in metrics.parquet, summary.json or manifest.json: the runs cannot be ordered", dir)
	}
	return r, nil
}

// legacyInstance is the execution of a folder without instance columns.
func legacyInstance(dir string) Instance {
	var m struct {
		RunInstance string `json:"run_instance"`
		StartedAt   string `json:"started_at"`
		WrittenAt   string `json:"written_at"`
	}
	for _, f := range []string{"summary.json", "manifest.json"} {
		if b, err := userfile.ReadFile(filepath.Join(dir, f), userfile.MaxLarge); err == nil {
			_ = json.Unmarshal(b, &m)
		}
	}
	at := m.StartedAt
	if at == "" {
		at = m.WrittenAt
	}
	t, err := time.Parse(time.RFC3339, at)
	if err != nil {
		return Instance{ID: m.RunInstance}
	}
	id := m.RunInstance
	if id == "" {
		id = "folder:" + filepath.Base(dir)
	}
	return Instance{ID: id, StartedAt: t.UTC()}
}

// TrendTable is every run's metrics in time order, with bands and flags.
type TrendTable struct {
	Runs []TrendRun // oldest first
	Rows []TrendRow // by run, then in each run's metrics.parquet order
	opts TrendOptions
}

// Trend orders the runs by started_at (then instance id) and marks, for
// every metric, slice and stage, each value outside the band of the
// previous runs (their lowest and highest value, over up to Window runs,
// from MinBandRuns of them).
func Trend(runs []TrendRun, o TrendOptions) *TrendTable {
	if o.Window <= 0 {
		o.Window = 7
	}
	if o.MinBandRuns <= 0 {
		o.MinBandRuns = 3
	}
	sort.SliceStable(runs, func(i, j int) bool {
		a, b := runs[i].Instance, runs[j].Instance
		if !a.StartedAt.Equal(b.StartedAt) {
			return a.StartedAt.Before(b.StartedAt)
		}
		return a.ID < b.ID
	})
	t := &TrendTable{Runs: runs, opts: o}
	history := map[string][]float64{} // series key → previous values
	for _, r := range runs {
		for _, m := range r.Rows {
			row := TrendRow{RunInstance: r.Instance.ID, RunID: r.RunID, StartedAt: r.Instance.Millis(), Run: r.Dir,
				Metric: m.Metric, Slice: m.Slice, Stage: m.Stage, Value: m.Value, CILow: m.CILow, CIHigh: m.CIHigh, N: m.N}
			key := m.Metric + "\x00" + m.Slice + "\x00" + m.Stage
			prev := lastN(history[key], o.Window)
			if len(prev) >= o.MinBandRuns {
				lo, hi := minMax(prev)
				row.BandLow, row.BandHigh = &lo, &hi
				row.Flagged, row.Improved = leftBand(m.Metric, m.Value, m.CILow, m.CIHigh, lo, hi)
			}
			if m.Value != nil {
				history[key] = append(history[key], *m.Value)
			}
			t.Rows = append(t.Rows, row)
		}
	}
	return t
}

// leftBand says whether a value left the band [lo, hi] the worse way
// (flagged) or the better way (improved): by more than floating-point
// noise, and with its 95% interval, when it has one, clear of the band.
func leftBand(metric string, v, ciLo, ciHi *float64, lo, hi float64) (flagged, improved bool) {
	if v == nil {
		return false, false
	}
	below, above := *v < lo-zeroBelow, *v > hi+zeroBelow
	if ciLo != nil && ciHi != nil {
		below, above = below && *ciHi < lo, above && *ciLo > hi
	}
	switch WorseWay(metric) {
	case HigherIsWorse:
		return above, below
	case LowerIsWorse:
		return below, above
	}
	return below || above, false
}

// InputDifferences are the runs whose input files (corpus, spans, claims,
// gold) differ by sha256 from the latest run's, as audit diff refuses them:
// generated sets reuse claim ids, so a trend over unrelated inputs would
// read as one series. Empty when every run shares the latest's inputs
// (or a run has no manifest to say).
func (t *TrendTable) InputDifferences() []string {
	if len(t.Runs) < 2 {
		return nil
	}
	last := t.Runs[len(t.Runs)-1]
	var out []string
	for _, r := range t.Runs[:len(t.Runs)-1] {
		if d := inputDifferences(r.Manifest, last.Manifest); len(d) > 0 {
			out = append(out, fmt.Sprintf("%s against the latest, %s: %s", r.Dir, last.Dir, strings.Join(d, ", ")))
		}
	}
	return out
}

func lastN(xs []float64, n int) []float64 {
	if len(xs) > n {
		return xs[len(xs)-n:]
	}
	return xs
}

func minMax(xs []float64) (float64, float64) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range xs {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	return lo, hi
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Series is one metric's rows for a slice and stage, oldest first.
func (t *TrendTable) Series(metric, slice, stage string) []TrendRow {
	var out []TrendRow
	for _, r := range t.Rows {
		if r.Metric == metric && r.Slice == slice && r.Stage == stage {
			out = append(out, r)
		}
	}
	return out
}

// TrendGate is `<metric>[<slice>].drop|rise|worse <op> <number>`: the
// latest run's value against the median of up to Window runs before it;
// drop is median − latest, rise latest − median, worse the change the way
// the metric gets worse (WorseWay: a drop of accuracy, a rise of ECE).
type TrendGate struct {
	Expr      string
	Metric    string
	Slice     string
	Direction string // drop, rise or worse
	Op        string
	Threshold float64
}

var trendGateRE = regexp.MustCompile(`^([a-z0-9_]+)(?:\[([^\]]+)\])?\.(drop|rise|worse)\s*(>=|<=|>|<)\s*([-+0-9.eE]+)$`)

// ParseTrendGates reads --fail-on for audit trend (comma-separated).
func ParseTrendGates(s string) ([]TrendGate, error) {
	var out []TrendGate
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		m := trendGateRE.FindStringSubmatch(part)
		if m == nil {
			return nil, fmt.Errorf("trend gate %q: want METRIC[.SLICE].drop>X, .rise>X or .worse>X, e.g. accuracy.drop>0.02, ece_10[type=numeric].rise>0.05 or aurc.worse>0.01", part)
		}
		if !isKnownMetric(m[1]) {
			return nil, fmt.Errorf("trend gate %q: %s", part, unknownMetric(m[1], metrics.Names, ""))
		}
		if m[3] == "worse" && WorseWay(m[1]) == EitherWay {
			return nil, fmt.Errorf("trend gate %q: %s has no worse direction: use .drop or .rise", part, m[1])
		}
		x, err := strconv.ParseFloat(m[5], 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("trend gate %q: %q is not a number", part, m[5])
		}
		sl := m[2]
		if sl == "" {
			sl = "all"
		}
		out = append(out, TrendGate{Expr: part, Metric: m[1], Slice: sl, Direction: m[3], Op: m[4], Threshold: x})
	}
	return out, nil
}

func isKnownMetric(name string) bool {
	for _, n := range metrics.Names {
		if n == name {
			return true
		}
	}
	return false
}

// Check evaluates the gates on the latest run at the stage.
func (t *TrendTable) Check(gates []TrendGate, stage string) []GateResult {
	var out []GateResult
	for _, g := range gates {
		r := GateResult{Gate: Gate{Expr: g.Expr, Metric: g.Metric + "." + g.Direction, Op: g.Op, Threshold: g.Threshold}}
		v, why := t.change(g, stage)
		if why != "" {
			r.Value, r.Undefined, r.Failed, r.Reason = math.NaN(), true, true, why
		} else {
			r.Value, r.Failed = v, compare(v, g.Op, g.Threshold)
		}
		out = append(out, r)
	}
	return out
}

// change is a gate's value: the latest run's drop or rise from the median
// of the runs before it, or why it is undefined.
func (t *TrendTable) change(g TrendGate, stage string) (float64, string) {
	s := t.Series(g.Metric, g.Slice, stage)
	if len(s) == 0 {
		return 0, fmt.Sprintf("%s is undefined: no run has %s in slice %s", g.Expr, g.Metric, g.Slice)
	}
	last := s[len(s)-1]
	if last.RunInstance != t.Runs[len(t.Runs)-1].Instance.ID {
		return 0, fmt.Sprintf("%s is undefined: the latest run has no %s in slice %s", g.Expr, g.Metric, g.Slice)
	}
	if last.Value == nil {
		return 0, fmt.Sprintf("%s is undefined: %s is null in the latest run", g.Expr, g.Metric)
	}
	var prev []float64
	for _, r := range s[:len(s)-1] {
		if r.Value != nil {
			prev = append(prev, *r.Value)
		}
	}
	prev = lastN(prev, t.opts.Window)
	if len(prev) == 0 {
		return 0, fmt.Sprintf("%s is undefined: no earlier run to compare with", g.Expr)
	}
	d := *last.Value - median(prev)
	if g.Direction == "drop" || g.Direction == "worse" && WorseWay(g.Metric) == LowerIsWorse {
		d = 0 - d // never -0
	}
	return d, ""
}

func compare(v float64, op string, x float64) bool {
	switch op {
	case ">":
		return v > x
	case ">=":
		return v >= x
	case "<":
		return v < x
	case "<=":
		return v <= x
	}
	return false
}
