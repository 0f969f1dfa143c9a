package main

import (
	"fmt"
	"math"
	"path/filepath"
	"time"

	"github.com/claimaudit/claimaudit/metrics"
	"github.com/claimaudit/claimaudit/outdir"
	"github.com/claimaudit/claimaudit/reports"
	"github.com/spf13/cobra"
)

// calibrateCmd is `audit calibrate`.
type calibrateCmd struct {
	e             *env
	records, out  string
	sweep, asJSON bool
	threshold     float64
	opts          metrics.CrossFitOptions
	force         bool
	of            outputFlags
}

func newCalibrateCmd(e *env) *cobra.Command {
	c := &calibrateCmd{e: e}
	cmd := &cobra.Command{
		Use: "calibrate --records F --out DIR [--sweep]",
		Example: `  audit calibrate --records demo-out/records.parquet --out demo-out
  audit calibrate --records demo-out/records.parquet --out cal --sweep
  audit calibrate --records out/records.parquet --out cal --folds 10 --json`,
		Short: "Fit a temperature to a run's logits and measure it out of sample",
		Long: `calibrate reads records.parquet and cross-fits a temperature to the labelled claims'
logits: the claims are split into --folds folds by --seed and their claim ids (as 'audit
run' splits them), each fold is scaled by the T that minimises the NLL of the other folds,
and calibration is measured before and after on the answered, labelled claims — so the
"after" numbers come from claims T was not fitted on, and equal the calibrated ones 'audit
run' reports when it applied the cross-fit. It also fits T on every labelled claim (the one
to reuse with 'audit run --calibrate fixed --temperature T'). Below --min-calibration
labelled claims it fits nothing and says so; a fit that lands on the bounds [0.05, 20] is
flagged. It writes calibration_fit.json; with --sweep also temperature_sweep.parquet and its plot
(ECE and NLL over a grid of temperatures) and threshold_sweep.parquet and its plot (coverage,
selective risk and false-accept rates over abstain thresholds, calibrated stage
cross-fitted).

DIR may be the run's own folder: the files join the run's (an older calibrate's are
replaced, and a later 'audit run' there removes them). DIR is locked, staged and
committed as a whole; a DIR holding another run's files is refused unless --force.`,
		Args: cobra.NoArgs,
		RunE: c.run,
	}
	f := cmd.Flags()
	f.StringVar(&c.records, "records", "", "records.parquet of a run (required)")
	f.StringVar(&c.out, "out", "", "output folder (required)")
	f.BoolVar(&c.sweep, "sweep", false, "also write temperature and abstain-threshold sweeps (Parquet and plots)")
	c.of.add(f, false)
	f.Float64Var(&c.threshold, "ece-threshold", 0.10, "report whether auto calibration would apply at this ECE")
	f.IntVar(&c.opts.K, "folds", metrics.DefaultFolds, "cross-fitting folds")
	f.Uint64Var(&c.opts.Seed, "seed", 1, "fold assignment seed (the run's --seed gives its folds)")
	f.IntVar(&c.opts.Min, "min-calibration", metrics.DefaultMinCalibration, "fewest labelled claims with logits to fit a temperature on")
	f.BoolVar(&c.asJSON, "json", false, "print the fit as JSON")
	f.BoolVar(&c.force, "force", false, "write into an --out folder holding another run's or foreign files (foreign files are left alone)")
	return cmd
}

func (c *calibrateCmd) run(cmd *cobra.Command, _ []string) error {
	if err := requireFlags(cmd, "records", "out"); err != nil {
		return err
	}
	if err := checkFloats(cmd.Flags(), "ece-threshold"); err != nil {
		return err
	}
	formats, _, err := c.of.parse()
	if err != nil {
		return err
	}
	if c.opts.Min < 1 {
		return usageErrorf("--min-calibration must be at least 1, got %d", c.opts.Min)
	}
	if c.opts.K < 2 || c.opts.K > metrics.MaxFolds {
		return usageErrorf("--folds must be from 2 to %d, got %d", metrics.MaxFolds, c.opts.K)
	}
	outs, runID, inst, err := readRecordsChecked(c.records)
	if err != nil {
		return err
	}
	// A run's folder (its help allows it) holds the run's index and
	// verdict cache: they are the tool's, left as they are.
	dir, err := outdir.Open(c.out, outdir.Options{Force: c.force, Internal: []string{".cache", "index", "index.building-*"}})
	if err != nil {
		return &exitError{code: exitInput, err: err}
	}
	defer dir.Close()
	commit, err := c.commitFor(dir.Prior(), runID)
	if err != nil {
		return err
	}
	fit, cf := reports.FitCalibration(runID, outs, c.opts, c.threshold)
	if err := writeAtomic(filepath.Join(dir.Stage(), "calibration_fit.json"), mustJSON(fit)); err != nil {
		return err
	}
	if c.sweep {
		if err := reports.WriteSweeps(dir.Stage(), reports.Meta{RunID: runID, ToolVersion: version(), Instance: inst}, outs, cf.PerOutcome, cf.Full, formats); err != nil {
			return err
		}
	}
	if err := dir.Commit(cmd.Context(), commit); err != nil {
		return err
	}
	if c.asJSON {
		return printJSON(c.e, fit)
	}
	printFit(c.e, fit, cf)
	return nil
}

// commitFor is how calibrate's files enter --out: beside their own run's
// files (replacing an older calibrate's), or alone; another run's folder
// is refused unless --force.
func (c *calibrateCmd) commitFor(p *outdir.Marker, runID string) (outdir.Commit, error) {
	commit := outdir.Commit{MadeBy: "audit calibrate", RunID: runID}
	if p == nil || p.MadeBy == "audit calibrate" {
		return commit, nil
	}
	if p.RunID != runID && !c.force {
		return commit, usageErrorf("%s holds %s, not of run %s: write to another --out, or --force to replace them", c.out, describeRun(p), runID)
	}
	if p.RunID == runID {
		commit.MadeBy = p.MadeBy
		for _, f := range p.Files {
			if !calibrateFiles[f.Name] {
				commit.Keep = append(commit.Keep, f.Name)
			}
		}
	}
	return commit, nil
}

// readRecordsChecked reads a records file for calibrate: the folder must
// hold a complete run, and every row numbers metrics can use (exit 2
// naming the row otherwise). The instance is the records' run's (the
// sweeps belong to that execution), or a new one for records of several.
func readRecordsChecked(path string) ([]metrics.Outcome, string, reports.Instance, error) {
	var inst reports.Instance
	if err := checkReadable(filepath.Dir(path)); err != nil {
		return nil, "", inst, err
	}
	rs, err := reports.ReadParquet[reports.Record](path)
	if err != nil {
		return nil, "", inst, &exitError{code: exitInput, err: err}
	}
	if len(rs) == 0 {
		return nil, "", inst, usageErrorf("%s: no records: there is nothing to calibrate", path)
	}
	outs := make([]metrics.Outcome, len(rs))
	runID := ""
	inst = reports.InstanceOf(rs[0].RunInstance, rs[0].StartedAt)
	for i, r := range rs {
		if err := reports.CheckRecord(r); err != nil {
			return nil, "", inst, usageErrorf("%s row %d: %v", path, i+1, err)
		}
		outs[i] = reports.OutcomeOf(r)
		runID = r.RunID
		if r.RunInstance != inst.ID {
			inst.ID = ""
		}
	}
	if inst.ID == "" {
		inst = reports.NewInstance(time.Now())
	}
	return outs, runID, inst, nil
}

func printFit(e *env, fit reports.CalibrationFit, cf metrics.CrossFitResult) {
	before, after := fit.Before, fit.After
	if !cf.Fitted {
		fmt.Fprintf(e.stdout, "no temperature fitted: %s\n", cf.Reason)
		fmt.Fprintf(e.stdout, "ECE (10 bins) %s at T = 1\n", fmtNum(before.ECE10))
		return
	}
	fmt.Fprintf(e.stdout, "temperature %.4f fitted on %d labelled claims; folds:", cf.Full, cf.Labelled)
	for _, f := range cf.Folds {
		fmt.Fprintf(e.stdout, " %.4f (n %d)", f.Temperature, f.N)
	}
	fmt.Fprintln(e.stdout)
	fmt.Fprintf(e.stdout, "ECE (10 bins) %s → %s, NLL %s → %s, Brier %s → %s (after: cross-fitted, out of sample)\n",
		fmtNum(before.ECE10), fmtNum(after.ECE10), fmtNum(before.NLL), fmtNum(after.NLL), fmtNum(before.Brier), fmtNum(after.Brier))
	if cf.FullAtBound {
		e.log.Warn(fmt.Sprintf("the full-data fit is on its bound [%g, %g]", metrics.MinTemperature, metrics.MaxTemperature))
	}
	for _, f := range cf.Folds {
		if f.AtBound {
			e.log.Warn(fmt.Sprintf("fold %d's fit is on its bound (T = %g)", f.Fold, f.Temperature))
		}
	}
}

// fmtNum prints to four places, or — when undefined.
func fmtNum(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return fmt.Sprintf("%.4f", v)
}
