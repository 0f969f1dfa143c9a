package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/claimaudit/claimaudit/metrics"
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
}

func newCalibrateCmd(e *env) *cobra.Command {
	c := &calibrateCmd{e: e}
	cmd := &cobra.Command{
		Use:   "calibrate --records F --out DIR [--sweep]",
		Short: "Fit a temperature to a run's logits and measure it out of sample",
		Long: `calibrate reads records.parquet and cross-fits a temperature to the labelled claims'
logits: the claims are split into --folds folds by --seed and their claim ids (as 'audit
run' splits them), each fold is scaled by the T that minimises the NLL of the other folds,
and calibration is measured before and after on the answered, labelled claims — so the
"after" numbers come from claims T was not fitted on, and equal the calibrated ones 'audit
run' reports when it applied the cross-fit. It also fits T on every labelled claim (the one
to reuse with 'audit run --calibrate fixed --temperature T'). Below --min-calibration
labelled claims it fits nothing and says so; a fit that lands on the bounds [0.05, 20] is
flagged. It writes calibration_fit.json; with --sweep also temperature_sweep.parquet/.png
(ECE and NLL over a grid of temperatures) and threshold_sweep.parquet/.png (coverage,
selective risk and false-accept rates over abstain thresholds, calibrated stage
cross-fitted).`,
		Args: cobra.NoArgs,
		RunE: c.run,
	}
	f := cmd.Flags()
	f.StringVar(&c.records, "records", "", "records.parquet of a run (required)")
	f.StringVar(&c.out, "out", "", "output folder (required)")
	f.BoolVar(&c.sweep, "sweep", false, "also write temperature and abstain-threshold sweeps (Parquet and PNG)")
	f.Float64Var(&c.threshold, "ece-threshold", 0.10, "report whether auto calibration would apply at this ECE")
	f.IntVar(&c.opts.K, "folds", metrics.DefaultFolds, "cross-fitting folds")
	f.Uint64Var(&c.opts.Seed, "seed", 1, "fold assignment seed (the run's --seed gives its folds)")
	f.IntVar(&c.opts.Min, "min-calibration", metrics.DefaultMinCalibration, "fewest labelled claims with logits to fit a temperature on")
	f.BoolVar(&c.asJSON, "json", false, "print the fit as JSON")
	return cmd
}

func (c *calibrateCmd) run(cmd *cobra.Command, _ []string) error {
	if err := requireFlags(cmd, "records", "out"); err != nil {
		return err
	}
	rs, err := reports.ReadParquet[reports.Record](c.records)
	if err != nil {
		return &exitError{code: exitInput, err: err}
	}
	outs := make([]metrics.Outcome, len(rs))
	runID := ""
	for i, r := range rs {
		outs[i] = reports.OutcomeOf(r)
		runID = r.RunID
	}
	fit, cf := reports.FitCalibration(runID, outs, c.opts, c.threshold)
	if err := os.MkdirAll(c.out, 0o755); err != nil {
		return err
	}
	if err := writeAtomic(filepath.Join(c.out, "calibration_fit.json"), mustJSON(fit)); err != nil {
		return err
	}
	if c.sweep {
		if err := reports.WriteSweeps(c.out, reports.Meta{RunID: runID, ToolVersion: version()}, outs, cf.PerOutcome, cf.Full); err != nil {
			return err
		}
	}
	if c.asJSON {
		return printJSON(c.e, fit)
	}
	printFit(c.e, fit, cf)
	return nil
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
		fmt.Fprintf(e.stdout, "warning: the full-data fit is on its bound [%g, %g]\n", metrics.MinTemperature, metrics.MaxTemperature)
	}
	for _, f := range cf.Folds {
		if f.AtBound {
			fmt.Fprintf(e.stdout, "warning: fold %d's fit is on its bound (T = %g)\n", f.Fold, f.Temperature)
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
