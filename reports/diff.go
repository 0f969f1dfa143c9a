package reports

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/claimaudit/claimaudit/metrics"
	"github.com/claimaudit/claimaudit/userfile"
)

// Run is one side of a comparison: its records, read as the outcomes
// the comparison needs (a compact row per claim, not the records), and,
// when found, its manifest.
type Run struct {
	Path     string    // what the user named: a folder or a records file
	Manifest *Manifest // nil when there is no manifest.json beside the records
	// Temperature is the run's T as its summary.json gives it (the
	// full-data T when cross-fitted); nil without a summary.json.
	Temperature *float64

	files []string
	rows  runRows
}

// runRows are a run's claims, one entry per record in the files' order:
// its outcome (claim id included), temperature, gold label (interned), and
// where its record is (to read it whole for the html page).
type runRows struct {
	runID, verifier string
	outs            []metrics.Outcome
	temps           []float64
	gold            []*string
	at              []RecordAt
}

func (r *runRows) swap(i, j int) {
	r.outs[i], r.outs[j] = r.outs[j], r.outs[i]
	r.temps[i], r.temps[j] = r.temps[j], r.temps[i]
	r.gold[i], r.gold[j] = r.gold[j], r.gold[i]
	r.at[i], r.at[j] = r.at[j], r.at[i]
}

func (r *runRows) truncate(n int) {
	r.outs, r.temps, r.gold, r.at = r.outs[:n], r.temps[:n], r.gold[:n], r.at[:n]
}

// Claims is how many records the run has.
func (r *Run) Claims() int { return len(r.rows.outs) }

// LoadRun reads a run from an output folder (records.parquet and
// manifest.json in it; for a folder `audit report` wrote, the records
// files its manifest names) or a records file (manifest.json beside it, if
// any). The records are streamed (ScanRecords: the columns the metrics
// read) into a compact row per claim.
func LoadRun(path string) (*Run, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	dir, files := filepath.Dir(path), []string{path}
	if st.IsDir() {
		dir, files = path, []string{filepath.Join(path, "records.parquet")}
	}
	r := &Run{Path: path}
	switch m, err := ReadManifest(dir); {
	case err == nil:
		r.Manifest = m
	case !errors.Is(err, fs.ErrNotExist):
		// A manifest that is there but unreadable is damage, not "no
		// manifest.json": say which file and why.
		return nil, fmt.Errorf("unreadable run manifest: %w", err)
	}
	if b, err := userfile.ReadFile(filepath.Join(dir, "summary.json"), userfile.MaxLarge); err == nil {
		var sm struct {
			Temperature *float64 `json:"temperature"`
		}
		if json.Unmarshal(b, &sm) == nil {
			r.Temperature = sm.Temperature
		}
	}
	if _, err := os.Stat(files[0]); err != nil && st.IsDir() && r.Manifest != nil && len(r.Manifest.Records) > 0 {
		files = r.Manifest.Records
	}
	r.files = files
	src, gold := interner{}, map[string]*string{}
	if n := CountRecords(files); n > 0 {
		rs := &r.rows
		rs.outs, rs.temps, rs.gold, rs.at = make([]metrics.Outcome, 0, n), make([]float64, 0, n), make([]*string, 0, n), make([]RecordAt, 0, n)
	}
	for fi, f := range files {
		err := ScanRecords(f, false, func(row int64, rec Record) error {
			rs := &r.rows
			if len(rs.outs) == 0 {
				rs.runID, rs.verifier = rec.RunID, rec.Verifier
			}
			out := OutcomeOf(rec)
			out.Source = src.of(out.Source)
			g := rec.GoldLabel
			if g != nil {
				if p, ok := gold[*g]; ok {
					g = p
				} else {
					gold[*g] = g
				}
			}
			rs.outs, rs.temps, rs.gold = append(rs.outs, out), append(rs.temps, rec.Temperature), append(rs.gold, g)
			rs.at = append(rs.at, RecordAt{File: fi, Row: row})
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return r, nil
}

// records reads the run's records at rows whole.
func (r *Run) records(at []RecordAt) ([]Record, error) {
	out := make([]Record, len(at))
	for fi, f := range r.files {
		var rows []int64
		var idx []int
		for i, a := range at {
			if a.File == fi {
				rows, idx = append(rows, a.Row), append(idx, i)
			}
		}
		recs, err := ReadRecordsAt(f, rows)
		if err != nil {
			return nil, err
		}
		for k, i := range idx {
			out[i] = recs[k]
		}
	}
	return out, nil
}

// ErrNoSharedClaims: two runs with no claim in common cannot be compared.
var ErrNoSharedClaims = errors.New("the runs share no claims")

// ErrDifferentInputs: two runs whose input files differ (by sha256) are
// not compared claim by claim unless CompareOptions.AllowDifferentInputs:
// generated sets reuse claim ids, so unrelated runs would pair.
var ErrDifferentInputs = errors.New("the runs' inputs differ")

// DiffCountsRow are the paired counts of one slice: claims with a gold
// label in both runs, by whether each run got them right (answered with
// the gold label; an abstention is not right).
type DiffCountsRow struct {
	Slice            string   `json:"slice"`
	Shared           int      `json:"shared"`   // claims in both runs
	Labelled         int      `json:"labelled"` // of which gold-labelled (B's gold)
	Fixed            int      `json:"fixed"`    // wrong in A, right in B
	Broken           int      `json:"broken"`   // right in A, wrong in B
	UnchangedCorrect int      `json:"unchanged_correct"`
	UnchangedWrong   int      `json:"unchanged_wrong"`
	McNemarP         *float64 `json:"mcnemar_p"` // exact, two-sided, fixed against broken
}

// DeltaRow is one metric of one slice in both runs (over the shared
// claims), B − A and its paired bootstrap interval (null where the metric
// has none or is undefined).
type DeltaRow struct {
	Metric  string   `json:"metric"`
	Slice   string   `json:"slice"`
	A       *float64 `json:"a"`
	B       *float64 `json:"b"`
	Delta   *float64 `json:"delta"`
	DeltaLo *float64 `json:"delta_lo"`
	DeltaHi *float64 `json:"delta_hi"`
	// Significant: the 95% paired interval excludes 0.
	Significant bool `json:"significant"`
}

// Transition counts shared claims whose decision went From → To
// (a label, or "abstained").
type Transition struct {
	From  string `json:"from"`
	To    string `json:"to"`
	Count int    `json:"count"`
}

// Comparison is `audit diff A B`: runs paired by claim id.
type Comparison struct {
	A           string          `json:"a"`
	B           string          `json:"b"`
	RunA        string          `json:"run_a"`
	RunB        string          `json:"run_b"`
	Stage       string          `json:"stage"`
	OnlyA       int             `json:"only_in_a"`
	OnlyB       int             `json:"only_in_b"`
	Counts      []DiffCountsRow `json:"counts"` // slice all first
	Transitions []Transition    `json:"transitions"`
	Deltas      []DeltaRow      `json:"deltas"`
	Warnings    []string        `json:"warnings"`
	Gates       []GateResult    `json:"gates,omitempty"`

	changed []changedPair // fixed and broken claims, for the html page
}

// CompareOptions tune Compare.
type CompareOptions struct {
	Stage     string // StageCalibrated (default) or StageRaw
	Seed      uint64 // paired bootstrap
	Resamples int    // default 1000
	// AllowDifferentInputs compares runs whose input files (corpus,
	// spans, claims, gold) differ by hash, with a warning; otherwise
	// that is ErrDifferentInputs.
	AllowDifferentInputs bool
}

// Compare pairs two runs' records by claim id (in A's order) and computes
// the paired counts, McNemar's test, label transitions and per-slice
// metric deltas with paired bootstrap intervals; Warnings name what
// differs between the runs' inputs, verifier and settings.
func Compare(a, b *Run, opts CompareOptions) (*Comparison, error) {
	if opts.Stage == "" {
		opts.Stage = StageCalibrated
	}
	na, nb := a.Claims(), b.Claims()
	ra, rb, err := pair(a, b)
	if err != nil {
		return nil, err
	}
	c := &Comparison{A: a.Path, B: b.Path, Stage: opts.Stage, OnlyA: na - len(ra.outs), OnlyB: nb - len(rb.outs),
		Transitions: []Transition{}, Warnings: []string{}}
	if len(ra.outs) == 0 {
		return nil, fmt.Errorf("%w: %s has %d claims, %s has %d, none with the same claim_id", ErrNoSharedClaims, a.Path, na, b.Path, nb)
	}
	c.RunA, c.RunB = ra.runID, rb.runID
	if d := inputDifferences(a.Manifest, b.Manifest); len(d) > 0 && !opts.AllowDifferentInputs {
		return nil, fmt.Errorf("%w: %s; these are not two runs on the same claims (give --allow-different-inputs to pair them by claim id all the same)",
			ErrDifferentInputs, strings.Join(d, "; "))
	}
	c.Warnings = differences(a, b, ra, rb)
	if c.OnlyA > 0 || c.OnlyB > 0 {
		c.Warnings = append(c.Warnings, fmt.Sprintf("the runs share %d claims: %d only in A and %d only in B are left out", len(ra.outs), c.OnlyA, c.OnlyB))
	}

	oa, ob := ra.outs, rb.outs
	for i := range oa {
		// Slices and gold are the claim's: B's, in both, so a slice holds
		// the same claims on either side.
		oa[i].Gold, oa[i].Type, oa[i].Source, oa[i].Importance = ob[i].Gold, ob[i].Type, ob[i].Source, ob[i].Importance
	}
	if opts.Stage == StageCalibrated {
		scale(oa, ra.temps)
		scale(ob, rb.temps)
	}

	changed, err := collectChanged(a, b, ra, rb)
	if err != nil {
		return nil, err
	}
	c.changed = changed
	trans := map[[2]string]int{}
	for i := range oa {
		trans[[2]string{decisionName(oa[i]), decisionName(ob[i])}]++
	}
	for k, n := range trans {
		c.Transitions = append(c.Transitions, Transition{From: k[0], To: k[1], Count: n})
	}
	sort.Slice(c.Transitions, func(i, j int) bool {
		x, y := c.Transitions[i], c.Transitions[j]
		if x.Count != y.Count {
			return x.Count > y.Count
		}
		return x.From+"→"+x.To < y.From+"→"+y.To
	})

	bo := metrics.BootstrapOptions{Resamples: opts.Resamples, Seed: opts.Seed}
	// The slices of metrics.Slices(ob), in its order: each partition's
	// slices laid side by side in both runs' rows (groupInPlace, with one
	// partition, B's, for both) and compared where they lie, rather than
	// copied out (a slice of most claims was a copy of each run's rows).
	if err := c.compareSlice(a, b, ra, rb, "all", oa, ob, bo, opts); err != nil {
		return nil, err
	}
	for _, kind := range metrics.PartitionKinds(nil) {
		p := metrics.PartitionOf(ob, metrics.SliceOptions{}, kind)
		ga, gb := groupInPlace(oa, nil, p), groupInPlace(ob, nil, p)
		for g, name := range p.Names {
			pa, _ := ga.span(oa, g)
			pb, _ := gb.span(ob, g)
			if err := c.compareSlice(a, b, ra, rb, name, pa, pb, bo, opts); err != nil {
				ga.ungroup(oa)
				gb.ungroup(ob)
				return nil, err
			}
		}
		ga.ungroup(oa)
		gb.ungroup(ob)
	}
	return c, nil
}

// compareSlice adds one slice's paired counts and metric deltas.
func (c *Comparison) compareSlice(a, b *Run, ra, rb *runRows, name string, pa, pb []metrics.Outcome, bo metrics.BootstrapOptions, opts CompareOptions) error {
	c.Counts = append(c.Counts, pairedCounts(name, pa, pb))
	ea, err := metrics.Evaluate(pa, 1, metrics.BootstrapOptions{Resamples: 1, Seed: opts.Seed})
	if err != nil {
		return err
	}
	eb, err := metrics.Evaluate(pb, 1, metrics.BootstrapOptions{Resamples: 1, Seed: opts.Seed})
	if err != nil {
		return err
	}
	ci, err := metrics.PairedBootstrap(pa, pb, 1, bo)
	if err != nil {
		return err
	}
	// Coverage has no bootstrap interval: its change is tested on the
	// claims whose abstention changed, by McNemar's exact test.
	abstainP := abstentionMcNemar(pa, pb)
	for i, m := range ea.Metrics {
		va, vb := m.Value, eb.Metrics[i].Value
		if m.Name == "temperature" {
			// Evaluate saw logits already scaled (T = 1): the runs' own T.
			va, vb = runTemperature(a, ra.temps, opts.Stage), runTemperature(b, rb.temps, opts.Stage)
		}
		row := DeltaRow{Metric: m.Name, Slice: name, A: fp(va), B: fp(vb), Delta: fp(vb - va)}
		if iv, ok := ci[m.Name]; ok && row.Delta != nil {
			row.DeltaLo, row.DeltaHi = fp(iv.Low), fp(iv.High)
			row.Significant = iv.Low > 0 || iv.High < 0
		}
		if abstentionMetric(m.Name) && row.Delta != nil && *row.Delta != 0 {
			row.Significant = abstainP < 0.05
		}
		c.Deltas = append(c.Deltas, row)
	}
	return nil
}

// pair puts the claims of a and b that share a claim id side by side, in
// A's order (a claim id twice in B pairs with its last record), in place:
// the rows of each run are reordered and cut to the shared claims, and
// their claim ids dropped once paired.
func pair(a, b *Run) (ra, rb *runRows, err error) {
	ra, rb = &a.rows, &b.rows
	byID := make(map[string]int32, len(rb.outs))
	for i := range rb.outs {
		byID[rb.outs[i].ID] = int32(i)
	}
	// perm[k] is the B row of the k-th shared claim; B's rows not shared
	// follow in any order.
	perm := make([]int32, 0, len(rb.outs))
	used := make([]bool, len(rb.outs))
	for i := range ra.outs {
		j, ok := byID[ra.outs[i].ID]
		if !ok {
			continue
		}
		if used[j] {
			// A claim twice in A pairs twice with one B row: copy it.
			return pairWithRepeats(a, b)
		}
		used[j] = true
		perm = append(perm, j)
	}
	k := 0
	for i := range ra.outs {
		if _, ok := byID[ra.outs[i].ID]; ok {
			ra.swap(k, i)
			k++
		}
	}
	byID = nil
	for j := range used {
		if !used[j] {
			perm = append(perm, int32(j))
		}
	}
	Permute(perm, rb.swap)
	ra.truncate(k)
	rb.truncate(k)
	for i := range ra.outs {
		ra.outs[i].ID, rb.outs[i].ID = "", ""
	}
	return ra, rb, nil
}

// pairWithRepeats is pair for a run A that holds a claim id twice (a
// merge of overlapping files): B's rows are copied per pair.
func pairWithRepeats(a, b *Run) (ra, rb *runRows, err error) {
	byID := make(map[string]int, len(b.rows.outs))
	for i := range b.rows.outs {
		byID[b.rows.outs[i].ID] = i
	}
	ra, rb = &runRows{runID: a.rows.runID, verifier: a.rows.verifier}, &runRows{runID: b.rows.runID, verifier: b.rows.verifier}
	for i := range a.rows.outs {
		if j, ok := byID[a.rows.outs[i].ID]; ok {
			for _, x := range []struct {
				to   *runRows
				from *runRows
				i    int
			}{{ra, &a.rows, i}, {rb, &b.rows, j}} {
				x.to.outs, x.to.temps = append(x.to.outs, x.from.outs[x.i]), append(x.to.temps, x.from.temps[x.i])
				x.to.gold, x.to.at = append(x.to.gold, x.from.gold[x.i]), append(x.to.at, x.from.at[x.i])
			}
		}
	}
	return ra, rb, nil
}

// Permute reorders a sequence in place so that position i holds what was
// at perm[i], by swaps (perm is consumed): a run's rows put in another
// order without a second copy (the comparison here, the shard merge).
func Permute(perm []int32, swap func(i, j int)) {
	for i := range perm {
		j := i
		for int(perm[j]) != i {
			k := int(perm[j])
			swap(j, k)
			perm[j] = int32(j)
			j = k
		}
		perm[j] = int32(j)
	}
}

// scale divides each scored outcome's logits by its temperature, in place
// (metrics.Scaled without the copy).
func scale(outs []metrics.Outcome, temps []float64) {
	for i := range outs {
		if outs[i].Scored && temps[i] != 1 {
			for k := range outs[i].Logits {
				outs[i].Logits[k] /= temps[i]
			}
		}
	}
}

// abstentionMetric: metrics that move only with abstentions.
func abstentionMetric(name string) bool {
	switch name {
	case "coverage", "abstain_rate", "answered", "abstained":
		return true
	}
	return false
}

// abstentionMcNemar is McNemar's exact two-sided p over the claims
// answered in one run and abstained in the other (1 when none).
func abstentionMcNemar(a, b []metrics.Outcome) float64 {
	var toAbstain, toAnswer int
	for i := range a {
		switch {
		case !a[i].Abstained && b[i].Abstained:
			toAbstain++
		case a[i].Abstained && !b[i].Abstained:
			toAnswer++
		}
	}
	return metrics.McNemar(toAbstain, toAnswer)
}

// runTemperature is a run's temperature for the stage: 1 raw; calibrated,
// its summary.json's T, else the one T every record holds, else undefined
// (per-claim temperatures and no summary).
func runTemperature(r *Run, temps []float64, stage string) float64 {
	if stage == StageRaw {
		return 1
	}
	if r.Temperature != nil {
		return *r.Temperature
	}
	t := temps[0]
	for _, x := range temps {
		if x != t {
			return math.NaN()
		}
	}
	return t
}

// inputDifferences names the input roles both manifests hash differently
// (a role one run lacks, or a missing manifest, is a warning of
// differences, not a refusal).
func inputDifferences(ma, mb *Manifest) []string {
	if ma == nil || mb == nil {
		return nil
	}
	hb := map[string]string{}
	for _, f := range mb.Inputs {
		hb[f.Role] = f.SHA256
	}
	var d []string
	for _, f := range ma.Inputs {
		if y, ok := hb[f.Role]; ok && y != f.SHA256 {
			d = append(d, fmt.Sprintf("%s sha256 %s in A, %s in B", f.Role, short(f.SHA256), short(y)))
		}
	}
	return d
}

func decisionName(o metrics.Outcome) string {
	if o.Abstained {
		return "abstained"
	}
	return o.Predicted.String()
}

func pairedCounts(slice string, a, b []metrics.Outcome) DiffCountsRow {
	r := DiffCountsRow{Slice: slice, Shared: len(a)}
	right := func(o metrics.Outcome) bool { return !o.Abstained && o.Predicted == o.Gold }
	for i := range a {
		if b[i].Gold == metrics.Unknown {
			continue
		}
		r.Labelled++
		switch x, y := right(a[i]), right(b[i]); {
		case x && y:
			r.UnchangedCorrect++
		case !x && !y:
			r.UnchangedWrong++
		case y:
			r.Fixed++
		default:
			r.Broken++
		}
	}
	if r.Labelled > 0 {
		r.McNemarP = fp(metrics.McNemar(r.Fixed, r.Broken))
	}
	return r
}

// differences names what differs between two runs that should be
// comparable: inputs (by hash), verifier, settings, gold labels.
func differences(a, b *Run, ra, rb *runRows) []string {
	var w []string
	ma, mb := a.Manifest, b.Manifest
	if ma == nil || mb == nil {
		var missing []string
		for _, r := range []*Run{a, b} {
			if r.Manifest == nil {
				missing = append(missing, r.Path)
			}
		}
		w = append(w, "no manifest.json for "+strings.Join(missing, " and ")+": inputs and settings cannot be compared")
	} else {
		hashes := func(m *Manifest) map[string]string {
			h := map[string]string{}
			for _, f := range m.Inputs {
				h[f.Role] = f.SHA256
			}
			return h
		}
		ha, hb := hashes(ma), hashes(mb)
		roles := map[string]bool{}
		for r := range ha {
			roles[r] = true
		}
		for r := range hb {
			roles[r] = true
		}
		var rs []string
		for r := range roles {
			rs = append(rs, r)
		}
		sort.Strings(rs)
		for _, r := range rs {
			switch x, y := ha[r], hb[r]; {
			case x == "":
				w = append(w, fmt.Sprintf("input %s: only B has one (sha256 %s)", r, short(y)))
			case y == "":
				w = append(w, fmt.Sprintf("input %s: only A has one (sha256 %s)", r, short(x)))
			case x != y:
				w = append(w, fmt.Sprintf("input %s differs: sha256 %s in A, %s in B", r, short(x), short(y)))
			}
		}
		switch {
		case ma.Verifier == nil || mb.Verifier == nil:
		case ma.Verifier.Name != mb.Verifier.Name:
			w = append(w, fmt.Sprintf("verifier differs: %s in A, %s in B", ma.Verifier.Name, mb.Verifier.Name))
		case ma.Verifier.Version != mb.Verifier.Version:
			w = append(w, fmt.Sprintf("verifier version (model or weights) differs: %s in A, %s in B", ma.Verifier.Version, mb.Verifier.Version))
		}
		if ma.Settings != nil && mb.Settings != nil {
			for _, d := range settingsDiff(*ma.Settings, *mb.Settings) {
				w = append(w, "setting "+d)
			}
		}
	}
	if ma == nil || mb == nil {
		if ra.verifier != rb.verifier {
			w = append(w, fmt.Sprintf("verifier differs: %s in A, %s in B", ra.verifier, rb.verifier))
		}
	}
	gold := 0
	for i := range ra.gold {
		if !reflect.DeepEqual(ra.gold[i], rb.gold[i]) {
			gold++
		}
	}
	if gold > 0 {
		w = append(w, fmt.Sprintf("gold labels differ for %d shared claims: B's are used for both", gold))
	}
	return w
}

// settingsDiff names the settings (by their manifest.json names) that
// differ, with both values; the index folder is where, not what, and is
// left out.
// settingFlag is the command-line flag a manifest setting comes from, as
// a user typed it ("abstain_below" → "--abstain-below").
func settingFlag(key string) string {
	switch key {
	case "k":
		return "--k"
	case "passages":
		return "the passage settings (--window-sentences, --window-stride, --max-passage-chars)"
	}
	return "--" + strings.ReplaceAll(key, "_", "-")
}

// settingValue is a setting's value as a user would write it: a string
// unquoted, a list comma-joined, a duration without its trailing zero
// units (8760h, not "8760h0m0s"), unset as "not set".
func settingValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "not set"
	case string:
		if x == "" {
			return "not set"
		}
		if d, err := time.ParseDuration(x); err == nil && strings.HasSuffix(x, "0s") {
			t := strings.TrimSuffix(strings.TrimSuffix(d.String(), "0s"), "0m")
			if t == "" {
				t = "0s"
			}
			return t
		}
		return x
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = settingValue(e)
		}
		return strings.Join(parts, ",")
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func settingsDiff(a, b RunSettings) []string {
	var ja, jb map[string]any
	ba, _ := json.Marshal(a)
	bb, _ := json.Marshal(b)
	json.Unmarshal(ba, &ja)
	json.Unmarshal(bb, &jb)
	var out []string
	keys := make([]string, 0, len(ja))
	for k := range ja {
		keys = append(keys, k)
	}
	for k := range jb {
		if _, ok := ja[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k == "index" || k == "workers" || k == "batch_size" || k == "resume" {
			continue // how the run was carried out, not what it computed
		}
		if k == "temperature" && a.Calibrate == "auto" && b.Calibrate == "auto" {
			continue // fitted by each run, not set: the calibrated deltas show its effect
		}
		if !reflect.DeepEqual(ja[k], jb[k]) {
			if k == "max_evidence_age" && (ja[k] == nil || jb[k] == nil) && !reflect.DeepEqual(ja["rules"], jb["rules"]) {
				continue // set only with the stale rule on: the --rules line says it
			}
			out = append(out, fmt.Sprintf("%s differs: %s in A, %s in B", settingFlag(k), settingValue(ja[k]), settingValue(jb[k])))
		}
	}
	return out
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12] + "…"
	}
	return h
}

// Resolve gives a diff gate's value: a paired count (DiffCounts) of a
// slice, delta.<metric> (B − A, .lo/.hi its paired interval), or a plain
// metric, B's value over the shared claims.
func (c *Comparison) Resolve(o Operand) (float64, string) {
	slice := o.Slice
	if slice == "" {
		slice = "all"
	}
	for _, r := range c.Counts {
		if r.Slice != slice {
			continue
		}
		switch o.Name {
		case "shared":
			return float64(r.Shared), ""
		case "fixed", "broken", "unchanged_correct", "unchanged_wrong", "mcnemar_p":
			if r.Labelled == 0 {
				return math.NaN(), fmt.Sprintf("%s is undefined: no shared claim has a gold label", o)
			}
			return map[string]float64{"fixed": float64(r.Fixed), "broken": float64(r.Broken), "unchanged_correct": float64(r.UnchangedCorrect),
				"unchanged_wrong": float64(r.UnchangedWrong), "mcnemar_p": deref(r.McNemarP)}[o.Name], ""
		}
		for _, d := range c.Deltas {
			if d.Slice != slice || d.Metric != o.Name {
				continue
			}
			p := d.B
			if o.Delta {
				p = map[string]*float64{"": d.Delta, "lo": d.DeltaLo, "hi": d.DeltaHi}[o.Bound]
			}
			if p == nil {
				what := "B's value is undefined"
				switch {
				case o.Delta && (d.A == nil || d.B == nil):
					what = "the metric is undefined in " + map[bool]string{true: "A", false: "B"}[d.A == nil]
				case o.Delta:
					what = "no paired resample defined the interval"
				}
				return math.NaN(), fmt.Sprintf("%s is undefined: %s", o, what)
			}
			return *p, ""
		}
		return math.NaN(), fmt.Sprintf("%s is undefined: the comparison did not compute it", o)
	}
	return math.NaN(), fmt.Sprintf("%s is undefined: no shared claim is in slice %s", o, slice)
}
