package main

import (
	"errors"
	"fmt"
	"github.com/claimaudit/claimaudit/audit"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/claimaudit/claimaudit/reports"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// diffCmd is `audit diff`: its flags, and the comparison they configure.
type diffCmd struct {
	e                        *env
	slice, stage, failOn     string
	format                   string
	seed                     uint64
	asJSON, all, allowInputs bool
}

func newDiffCmd(e *env) *cobra.Command {
	d := &diffCmd{e: e}
	cmd := &cobra.Command{
		Use: "diff A B [--format text|markdown|html|json] [--fail-on EXPR]",
		Example: `  audit diff nightly/2026-05-01 nightly/2026-05-02
  audit diff before after --format markdown > pr-comment.md
  audit diff before after --fail-on 'broken>fixed,delta.accuracy.hi<0'`,
		Short: "Compare two runs claim by claim (B − A): fixed, broken, McNemar, significant metric changes",
		Long: `diff pairs two runs by claim_id — A and B are output folders or records.parquet files,
A the baseline (last night's folder), B the new run — and prints:

  - paired counts over the claims labelled in both: fixed (wrong in A, right in B), broken
    (right in A, wrong in B), unchanged correct and unchanged wrong (an abstention is not
    right), with McNemar's exact two-sided test of fixed against broken;
  - the label transitions (A's decision → B's, abstained included);
  - the metrics whose change is significant — B − A over the shared claims with a 95%
    paired bootstrap interval (claims resampled, both runs together) that excludes 0 —
    and any metric a --fail-on gate names, for one slice (--slice). --all lists every
    metric; --format json gives every metric of every slice.

Counts print as integers and noise around zero as 0. --format markdown fits a pull-request
comment; --format html is one self-contained page that adds the fixed and broken claims
with their deciding passages.

Runs whose input files (corpus, spans, claims, gold) differ by sha256 are refused (exit 2):
generated sets reuse claim ids, so unrelated runs would pair. --allow-different-inputs
compares them all the same, with a warning. Runs sharing no claim are refused (exit 2);
other differences (verifier, weights, settings, claims in one run only) are warnings.
--fail-on takes the gates of 'audit run' plus the diff's own names: delta.<metric> (B − A;
.lo/.hi its interval), fixed, broken, unchanged_correct, unchanged_wrong, shared,
mcnemar_p, each with an optional [slice]; a plain metric is B's value. Exit 1 names every
failed gate, e.g.

  audit diff nightly/2026-05-01 nightly/2026-05-02 --format markdown \
    --fail-on 'broken>fixed,delta.tier1_fa_conditional>0.01,delta.accuracy.hi<0'`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usageErrorf("%s: want two runs, A and B (output folders or records files), got %d arguments", cmd.CommandPath(), len(args))
			}
			return nil
		},
		RunE: d.run,
	}
	d.flags(cmd.Flags())
	return cmd
}

func (d *diffCmd) flags(f *pflag.FlagSet) {
	f.StringVar(&d.slice, "slice", "all", "slice the tables show (all, type=..., source=..., importance=...)")
	f.StringVar(&d.stage, "stage", reports.StageCalibrated, "stage to compare: raw or calibrated")
	f.StringVar(&d.failOn, "fail-on", "", "gates over the comparison, e.g. \"broken>fixed,delta.accuracy<-0.02,mcnemar_p<0.05\": exit 1 when any holds")
	f.Uint64Var(&d.seed, "seed", 1, "paired bootstrap seed")
	f.StringVar(&d.format, "format", reports.DiffText, "output: text (terminal tables), markdown (a pull-request comment), html (a self-contained page with the changed claims) or json (everything, every slice)")
	f.BoolVar(&d.asJSON, "json", false, "same as --format json")
	f.BoolVar(&d.all, "all", false, "list every metric, not only the significant changes and the gated ones")
	f.BoolVar(&d.allowInputs, "allow-different-inputs", false, "compare runs whose input files differ by sha256 (paired by claim id all the same)")
}

// check validates the flags: the gates, the stage and the output format
// (--json is --format json); every failure is exit 2.
func (d *diffCmd) check(cmd *cobra.Command) ([]reports.Gate, error) {
	gates, err := reports.ParseDiffGates(d.failOn)
	if err != nil {
		return nil, usageErrorf("%v", err)
	}
	if d.stage != reports.StageCalibrated && d.stage != reports.StageRaw {
		return nil, usageErrorf("--stage %q is not raw or calibrated", d.stage)
	}
	if d.asJSON {
		if cmd.Flags().Changed("format") && d.format != reports.DiffJSON {
			return nil, usageErrorf("--json and --format %s: give one", d.format)
		}
		d.format = reports.DiffJSON
	}
	if !slices.Contains(reports.DiffFormats, d.format) {
		return nil, usageErrorf("--format %q is not one of %s", d.format, strings.Join(reports.DiffFormats, ", "))
	}
	return gates, nil
}

// run compares A with B, prints the comparison in the chosen format (the
// warnings on stderr) and exits 1 when a gate fails.
func (d *diffCmd) run(cmd *cobra.Command, args []string) error {
	e := d.e
	gates, err := d.check(cmd)
	if err != nil {
		return err
	}
	c, err := compareRuns(args[0], args[1], reports.CompareOptions{Stage: d.stage, Seed: d.seed, AllowDifferentInputs: d.allowInputs})
	if err != nil {
		return err
	}
	c.Gates = reports.Check(gates, c)
	if d.format != reports.DiffMarkdown {
		// The markdown carries them itself, for the pull request: once
		// is enough.
		logWarnings(e, c.Warnings)
	}
	if d.format == reports.DiffJSON {
		if err := printJSON(e, c); err != nil {
			return err
		}
	} else if err := reports.WriteDiff(e.stdout, c, d.format, reports.DiffView{Slice: normaliseSlice(d.slice), All: d.all}); err != nil {
		if strings.HasPrefix(err.Error(), "slice ") {
			return usageErrorf("--%v", err)
		}
		return err
	}
	if err := reports.Failures(c.Gates); err != nil {
		return &exitError{code: exitGate, err: err}
	}
	return nil
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
	rows := 0
	for _, p := range []string{a, b} {
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			p = filepath.Join(p, "records.parquet")
		}
		rows += reports.CountRecords([]string{p})
	}
	restore := audit.HeapLimitFor(uint64(rows) * audit.RunRowBytes)
	defer func() { restore() }()
	for i, p := range []string{a, b} {
		if err := checkRunReadable(p); err != nil {
			return nil, err
		}
		var err error
		if runs[i], err = reports.LoadRun(p); err != nil {
			return nil, &exitError{code: exitInput, err: fmt.Errorf("read run %s: %w", p, err)}
		}
	}
	// The comparison keeps little beyond the two runs' rows.
	restore()
	restore = audit.HeapLimitFor(0)
	c, err := reports.Compare(runs[0], runs[1], opts)
	if errors.Is(err, reports.ErrNoSharedClaims) || errors.Is(err, reports.ErrDifferentInputs) {
		return nil, &exitError{code: exitInput, err: err}
	}
	return c, err
}
