package audit

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/claimaudit/claimaudit/claims"
	"github.com/claimaudit/claimaudit/label"
	"github.com/claimaudit/claimaudit/lint"
	"github.com/claimaudit/claimaudit/metrics"
	"github.com/claimaudit/claimaudit/reports"
	"github.com/claimaudit/claimaudit/rules"
)

// Shard is one of Count deterministic subsets of a run's claims: those
// whose claims.ShardOf(id, Count) is Index. The zero Shard is the whole run.
type Shard struct{ Index, Count int }

// ParseShard reads "i/N" (0 ≤ i < N).
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("shard %q is not i/N (e.g. 0/4)", s)
	}
	sh := Shard{Index: i, Count: n}
	return sh, sh.Validate()
}

// Validate checks 0 ≤ Index < Count.
func (s Shard) Validate() error {
	if s.Count < 1 || s.Index < 0 || s.Index >= s.Count {
		return fmt.Errorf("shard %d/%d: want 0 ≤ i < N", s.Index, s.Count)
	}
	return nil
}

// Sharded says whether the run is one shard of several.
func (s Shard) Sharded() bool { return s.Count > 1 }

// Holds says whether claim id belongs to this shard.
func (s Shard) Holds(id string) bool {
	return !s.Sharded() || claims.ShardOf(id, s.Count) == s.Index
}

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Merged is a run put back together from its shards' records: every claim
// decided as a single run over all of them would have decided it.
type Merged struct {
	RunID string
	// Outcomes are in claims-file order, with the abstentions and labels
	// that depend on the calibrated confidence re-decided.
	Outcomes []metrics.Outcome
	// Temperatures are each claim's T (nil: 1 for all); CrossFit is the
	// fit over the union's labelled claims.
	Temperatures []float64
	CrossFit     metrics.CrossFitResult
	Settings     reports.RunSettings
	Shards       int
	// Usage sums the shards' remote calls.
	Usage reports.Usage
}

// ErrNotShards says the records files are not shards of a run: each is
// reported with the temperatures its records hold.
var ErrNotShards = errors.New("not shards of a run")

// MergeShards reads the records of every shard of one run (each file's
// folder holds the manifest.json `audit run --shard` wrote) and calibrates
// their union as the single run would: the claims are put back in claims-
// file order (claim_index), the cross-fit is computed over all labelled
// claims as decided at T = 1 (what the shards wrote), each claim gets the
// temperature the run's --calibrate mode gives it, and the decisions that
// depend on the calibrated confidence — the low_confidence abstention and,
// through it, the numeric override — are taken again. It returns
// ErrNotShards when no file comes from a shard.
func MergeShards(files []string, sliceBy []string) (*Merged, error) {
	run, err := shardManifest(files)
	if err != nil {
		return nil, err
	}
	s := *run.Settings
	o := Options{AbstainBelow: s.AbstainBelow, NumericEffect: lint.NumericEffect(s.NumericEffect), Calibrate: s.Calibrate,
		Temperature: s.Temperature, ECEThreshold: s.ECEThreshold, Seed: s.Seed, Folds: s.Folds, MinCalibration: s.MinCalibration}
	sh, prelim, ds, err := readShards(files, reports.ReadOptions{SliceBy: sliceBy, Folds: o.Folds, Seed: o.Seed})
	if err != nil {
		return nil, err
	}
	cal := o.calibrateScores(metrics.ScoresOf(prelim, o.Folds, o.Seed))
	m := &Merged{Usage: sh.Usage, RunID: sh.RunID, Temperatures: cal.temps, CrossFit: cal.result.CrossFit, Settings: s, Shards: run.Shard.Count,
		Outcomes: prelim}
	for i := range prelim {
		if ds[i].fallback {
			continue // the fallback verifier's verdict, at T = 1 as in a run
		}
		r := ds[i].record()
		// prelim[i] is read before it is replaced: the outcomes are
		// re-decided in place.
		m.Outcomes[i] = replayRules(r, o.redecide(r, prelim[i], cal.temp(i)), cal.temp(i), s)
	}
	return m, nil
}

// shardManifest decides whether the files are the shards of one run, all
// of them, each once: it returns the first shard's manifest, or
// ErrNotShards when no file comes from a shard.
func shardManifest(files []string) (*reports.Manifest, error) {
	var (
		run    *reports.Manifest
		seen   = map[int]string{}
		shards int
	)
	for _, f := range files {
		m, err := reports.ReadManifest(filepath.Dir(f))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			m = &reports.Manifest{} // records without their folder: not a shard
		case err != nil:
			return nil, fmt.Errorf("%s: read its run's manifest: %w", f, err)
		}
		switch {
		case m.Shard == nil && shards == 0:
			continue
		case m.Shard == nil:
			return nil, fmt.Errorf("%s is a whole run, the others shards: report them apart", f)
		case shards == 0 && f != files[0]:
			return nil, fmt.Errorf("%s is shard %d/%d, %s a whole run: report them apart", f, m.Shard.Index, m.Shard.Count, files[0])
		case m.Settings == nil:
			return nil, fmt.Errorf("%s: its manifest has no settings", f)
		case run != nil && m.Shard.Count != run.Shard.Count:
			return nil, fmt.Errorf("%s is shard %d/%d, but %s is of %d shards", f, m.Shard.Index, m.Shard.Count, files[0], run.Shard.Count)
		}
		if prev, dup := seen[m.Shard.Index]; dup {
			return nil, fmt.Errorf("%s and %s are both shard %d/%d", prev, f, m.Shard.Index, m.Shard.Count)
		}
		seen[m.Shard.Index] = f
		shards++
		if run == nil {
			run = m
		}
	}
	if shards == 0 {
		return nil, ErrNotShards
	}
	if shards != run.Shard.Count {
		var missing []string
		for i := range run.Shard.Count {
			if _, ok := seen[i]; !ok {
				missing = append(missing, fmt.Sprintf("%d/%d", i, run.Shard.Count))
			}
		}
		return nil, fmt.Errorf("shard(s) %s missing: a report over shards needs all %d of them", strings.Join(missing, ", "), run.Shard.Count)
	}
	return run, nil
}

// decisionFields are the columns of a shard's record that its decision
// is taken again from (redecide, replayRules), the strings interned: a
// merge holds them for every claim.
type decisionFields struct {
	abstainReason, numericCheck, rule, ruleLabel, verifierLabel *string
	flags                                                       []string
	evidence, fallback                                          bool
}

// oneEvidence stands for a record's non-empty evidence list (the
// re-decision reads only whether there is one).
var oneEvidence = []reports.Evidence{{}}

// record is the part of the record redecide and replayRules read.
func (d *decisionFields) record() reports.Record {
	r := reports.Record{AbstainReason: d.abstainReason, NumericCheck: d.numericCheck, Rule: d.rule, RuleLabel: d.ruleLabel,
		VerifierLabel: d.verifierLabel, Flags: d.flags}
	if d.evidence {
		r.Evidence = oneEvidence
	}
	return r
}

// fieldInterner holds one copy of each small string (and flag list) the
// merge keeps per claim.
type fieldInterner struct {
	strs  map[string]*string
	flags map[string][]string
}

func (in *fieldInterner) str(p *string) *string {
	if p == nil {
		return nil
	}
	if q, ok := in.strs[*p]; ok {
		return q
	}
	in.strs[*p] = p
	return p
}

func (in *fieldInterner) list(fs []string) []string {
	if len(fs) == 0 {
		return nil
	}
	k := strings.Join(fs, "\x00")
	if l, ok := in.flags[k]; ok {
		return l
	}
	in.flags[k] = fs
	return fs
}

// readShards streams every shard's records (reports.ScanRecords: the
// columns the metrics and the re-decision read) into outcomes and the
// fields their decisions are taken again from, put back in claims-file
// order (claim_index). reports.Shards' rules check each record (one run
// id, no claim twice, records metrics can use).
func readShards(files []string, ro reports.ReadOptions) (*reports.Shards, []metrics.Outcome, []decisionFields, error) {
	sh := &reports.Shards{}
	var (
		outs  []metrics.Outcome
		ds    []decisionFields
		index []int64
	)
	in := &fieldInterner{strs: map[string]*string{}, flags: map[string][]string{}}
	if n := reports.CountRecords(files); n > 0 {
		outs, ds, index = make([]metrics.Outcome, 0, n), make([]decisionFields, 0, n), make([]int64, 0, n)
	}
	err := sh.Scan(files, ro, func(_ reports.RecordAt, r reports.Record, out metrics.Outcome) {
		sh.Usage.Add(&r)
		outs = append(outs, out)
		index = append(index, r.ClaimIndex)
		ds = append(ds, decisionFields{abstainReason: in.str(r.AbstainReason), numericCheck: in.str(r.NumericCheck),
			rule: in.str(r.Rule), ruleLabel: in.str(r.RuleLabel), verifierLabel: in.str(r.VerifierLabel), flags: in.list(r.Flags),
			evidence: len(r.Evidence) > 0, fallback: r.DecidedBy != nil && *r.DecidedBy == rules.DecidedBy(rules.Fallback)})
	})
	if err != nil {
		return nil, nil, nil, err
	}
	// The order by claim index (stable: files in the order given), applied
	// in place.
	perm := make([]int32, len(outs))
	for i := range perm {
		perm[i] = int32(i)
	}
	slices.SortStableFunc(perm, func(a, b int32) int { return cmp.Compare(index[a], index[b]) })
	index = nil
	reports.Permute(perm, func(i, j int) {
		outs[i], outs[j] = outs[j], outs[i]
		ds[i], ds[j] = ds[j], ds[i]
	})
	return sh, outs, ds, nil
}

// redecide takes again, at temperature t, the decisions of a record
// decided at T = 1: the low_confidence abstention (the other reasons do
// not depend on T) and the numeric effect on the label, as decide and
// withNumeric take them in a run.
func (o *Options) redecide(r reports.Record, out metrics.Outcome, t float64) metrics.Outcome {
	if !out.Scored {
		return out
	}
	if weakRetrievalDecided(r) {
		// --weak-retrieval insufficient decided it whatever the temperature.
		out.Abstained, out.Predicted = false, metrics.Insufficient
		return out
	}
	reason := ""
	if r.AbstainReason != nil && *r.AbstainReason != ReasonLowConfidence {
		reason = *r.AbstainReason
	}
	if len(r.Evidence) == 0 {
		// Nothing was retrieved: undecided until the no_evidence rule
		// decides it, as decide leaves it in a run (the record holds the
		// rule's label, not the abstention).
		reason = ReasonNoEvidence
	}
	p := metrics.Softmax(out.Logits, t)
	pred := metrics.Argmax(p)
	if reason == "" && p[pred] < o.AbstainBelow {
		reason = ReasonLowConfidence
	}
	out.Abstained, out.Predicted = reason != "", pred
	if reason == "" && r.NumericCheck != nil {
		ld := lint.DecideNumeric(label.Of(int(pred)), &lint.NumericCheck{Status: *r.NumericCheck}, o.NumericEffect)
		if ld.Changed {
			out.Predicted = metrics.Class(ld.Label.Index())
		}
	}
	return out
}
