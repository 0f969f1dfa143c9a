package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/claimaudit/claimaudit/reports"
	"github.com/spf13/cobra"
)

func newDiffCmd(e *env) *cobra.Command {
	var slice, stage, failOn string
	var seed uint64
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "diff A B [--fail-on EXPR]",
		Short: "Compare two runs claim by claim (B − A): fixed, broken, McNemar, paired deltas",
		Long: `diff pairs two runs by claim_id — A and B are output folders or records.parquet files,
A the baseline (last night's folder), B the new run — and prints:

  - paired counts over the claims labelled in both: fixed (wrong in A, right in B), broken
    (right in A, wrong in B), unchanged correct and unchanged wrong (an abstention is not
    right), with McNemar's exact two-sided test of fixed against broken;
  - the label transitions (A's decision → B's, abstained included);
  - every metric in A and B over the shared claims, B − A and a 95% paired bootstrap
    interval (claims resampled, both runs together), for one slice (--slice; --json gives
    every slice).

It refuses runs that share no claim (exit 2) and warns, naming them, when the runs' inputs
(by sha256), verifier, weights or settings differ, or when claims are in one run only.
--fail-on takes the gates of 'audit run' plus the diff's own names: delta.<metric> (B − A;
.lo/.hi its interval), fixed, broken, unchanged_correct, unchanged_wrong, shared,
mcnemar_p, each with an optional [slice]; a plain metric is B's value. Exit 1 names every
failed gate, e.g.

  audit diff nightly/2026-05-01 nightly/2026-05-02 \
    --fail-on 'broken>fixed,delta.tier1_fa_conditional>0.01,delta.accuracy.hi<0'`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usageErrorf("%s: want two runs, A and B (output folders or records files), got %d arguments", cmd.CommandPath(), len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			gates, err := reports.ParseDiffGates(failOn)
			if err != nil {
				return usageErrorf("%v", err)
			}
			if stage != reports.StageCalibrated && stage != reports.StageRaw {
				return usageErrorf("--stage %q is not raw or calibrated", stage)
			}
			c, err := compareRuns(args[0], args[1], reports.CompareOptions{Stage: stage, Seed: seed})
			if err != nil {
				return err
			}
			c.Gates = reports.Check(gates, c)
			for _, w := range c.Warnings {
				fmt.Fprintln(e.stderr, "warning: "+w)
			}
			if asJSON {
				if err := printJSON(e, c); err != nil {
					return err
				}
			} else if err := printDiff(e, c, normaliseSlice(slice)); err != nil {
				return err
			}
			if err := reports.Failures(c.Gates); err != nil {
				return &exitError{code: exitGate, err: err}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&slice, "slice", "all", "slice the terminal table shows (all, type=..., source=..., importance=...)")
	f.StringVar(&stage, "stage", reports.StageCalibrated, "stage to compare: raw or calibrated")
	f.StringVar(&failOn, "fail-on", "", "gates over the comparison, e.g. \"broken>fixed,delta.accuracy<-0.02,mcnemar_p<0.05\": exit 1 when any holds")
	f.Uint64Var(&seed, "seed", 1, "paired bootstrap seed")
	f.BoolVar(&asJSON, "json", false, "print the whole comparison (every slice) as JSON")
	return cmd
}

// normaliseSlice accepts the gate spelling of a slice key (source_id=,
// claim_type=) for --slice too.
func normaliseSlice(s string) string {
	for from, to := range map[string]string{"source_id=": "source=", "claim_type=": "type="} {
		if strings.HasPrefix(s, from) {
			return to + strings.TrimPrefix(s, from)
		}
	}
	return s
}

func printDiff(e *env, c *reports.Comparison, slice string) error {
	num := func(p *float64) string {
		if p == nil || math.IsNaN(*p) {
			return "—"
		}
		return fmt.Sprintf("%.4g", *p)
	}
	var counts *reports.DiffCountsRow
	for i := range c.Counts {
		if c.Counts[i].Slice == slice {
			counts = &c.Counts[i]
		}
	}
	if counts == nil {
		return usageErrorf("--slice %q: no shared claim is in it (slices: %s)", slice, sliceNames(c))
	}
	fmt.Fprintf(e.stdout, "A %s (run %s) → B %s (run %s), stage %s, slice %s\n", c.A, c.RunA, c.B, c.RunB, c.Stage, slice)
	fmt.Fprintf(e.stdout, "%d shared claims, %d with gold labels\n", counts.Shared, counts.Labelled)
	t := newTable(e)
	t.Header("fixed", "broken", "unchanged correct", "unchanged wrong", "McNemar p (exact)")
	t.Append(fmt.Sprint(counts.Fixed), fmt.Sprint(counts.Broken), fmt.Sprint(counts.UnchangedCorrect), fmt.Sprint(counts.UnchangedWrong), num(counts.McNemarP))
	if err := t.Render(); err != nil {
		return err
	}
	if slice == "all" {
		tr := newTable(e)
		tr.Header("A → B", "claims")
		changed := 0
		for _, x := range c.Transitions {
			if x.From != x.To {
				tr.Append(x.From+" → "+x.To, fmt.Sprint(x.Count))
				changed++
			}
		}
		if changed > 0 {
			if err := tr.Render(); err != nil {
				return err
			}
		} else {
			fmt.Fprintln(e.stdout, "no decision changed")
		}
	}
	m := newTable(e)
	m.Header("metric", "A", "B", "B − A", "95% paired interval")
	for _, d := range c.Deltas {
		if d.Slice != slice {
			continue
		}
		iv := ""
		if d.DeltaLo != nil && d.DeltaHi != nil {
			iv = fmt.Sprintf("[%.4g, %.4g]", *d.DeltaLo, *d.DeltaHi)
		}
		m.Append(d.Metric, num(d.A), num(d.B), num(d.Delta), iv)
	}
	if err := m.Render(); err != nil {
		return err
	}
	return reports.PrintGates(e.stdout, c.Gates)
}

func sliceNames(c *reports.Comparison) string {
	var s []string
	for _, r := range c.Counts {
		s = append(s, r.Slice)
	}
	return strings.Join(s, ", ")
}

// checkRunReadable refuses a run folder (or the folder of a records file)
// that a command was writing when it was killed.
func checkRunReadable(p string) error {
	if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
		p = filepath.Dir(p)
	}
	return checkReadable(p)
}

// compareRuns loads two runs (folders or records files) and pairs them.
func compareRuns(a, b string, opts reports.CompareOptions) (*reports.Comparison, error) {
	var runs [2]*reports.Run
	for i, p := range []string{a, b} {
		if err := checkRunReadable(p); err != nil {
			return nil, err
		}
		var err error
		if runs[i], err = reports.LoadRun(p); err != nil {
			return nil, &exitError{code: exitInput, err: fmt.Errorf("read run %s: %w", p, err)}
		}
	}
	c, err := reports.Compare(runs[0], runs[1], opts)
	if errors.Is(err, reports.ErrNoSharedClaims) {
		return nil, &exitError{code: exitInput, err: err}
	}
	return c, err
}
