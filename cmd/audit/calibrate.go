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

func newCalibrateCmd(e *env) *cobra.Command {
	var records, out string
	var of outputFlags
	var sweep, asJSON bool
	var threshold float64
	var opts metrics.CrossFitOptions
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
flagged. It writes calibration_fit.json; with --sweep also temperature_sweep.parquet and its plot
(ECE and NLL over a grid of temperatures) and threshold_sweep.parquet and its plot (coverage,
selective risk and false-accept rates over abstain thresholds, calibrated stage
cross-fitted).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := requireFlags(cmd, "records", "out"); err != nil {
				return err
			}
			formats, _, err := of.parse()
			if err != nil {
				return err
			}
			rs, err := reports.ReadParquet[reports.Record](records)
			if err != nil {
				return &exitError{code: exitInput, err: err}
			}
			outs := make([]metrics.Outcome, len(rs))
			runID := ""
			for i, r := range rs {
				outs[i] = reports.OutcomeOf(r)
				runID = r.RunID
			}
			cf := metrics.CrossFit(outs, opts)
			before := metrics.Calibration(outs, 1)
			after := metrics.Calibration(metrics.Scaled(outs, cf.PerOutcome), 1)
			if err := os.MkdirAll(out, 0o755); err != nil {
				return err
			}
			num := func(v float64) any {
				if math.IsNaN(v) {
					return nil
				}
				return v
			}
			fit := map[string]any{"run_id": runID, "fitted": cf.Fitted, "labelled": cf.Labelled, "min_labelled": cf.Min,
				"folds": cf.K, "seed": cf.Seed, "fold_temperatures": cf.Folds, "full_temperature": nil, "full_at_bound": cf.FullAtBound,
				"ece_10_before": num(before.ECE10), "nll_before": num(before.NLL), "brier_before": num(before.Brier),
				"would_apply_at_threshold": before.ECE10 > threshold && cf.Fitted}
			if cf.Fitted {
				fit["full_temperature"] = cf.Full
				fit["ece_10_after"], fit["nll_after"], fit["brier_after"] = num(after.ECE10), num(after.NLL), num(after.Brier)
			} else {
				fit["reason"] = cf.Reason
			}
			if cf.Folds == nil {
				fit["fold_temperatures"] = []metrics.FoldFit{}
			}
			if err := writeAtomic(filepath.Join(out, "calibration_fit.json"), mustJSON(fit)); err != nil {
				return err
			}
			if sweep {
				if err := reports.WriteSweeps(out, reports.Meta{RunID: runID, ToolVersion: version()}, outs, cf.PerOutcome, cf.Full, formats); err != nil {
					return err
				}
			}
			if asJSON {
				return printJSON(e, fit)
			}
			if !cf.Fitted {
				fmt.Fprintf(e.stdout, "no temperature fitted: %s\n", cf.Reason)
				fmt.Fprintf(e.stdout, "ECE (10 bins) %s at T = 1\n", fmtNum(before.ECE10))
				return nil
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
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&records, "records", "", "records.parquet of a run (required)")
	f.StringVar(&out, "out", "", "output folder (required)")
	f.BoolVar(&sweep, "sweep", false, "also write temperature and abstain-threshold sweeps (Parquet and plots)")
	f.Float64Var(&threshold, "ece-threshold", 0.10, "report whether auto calibration would apply at this ECE")
	f.IntVar(&opts.K, "folds", metrics.DefaultFolds, "cross-fitting folds")
	f.Uint64Var(&opts.Seed, "seed", 1, "fold assignment seed (the run's --seed gives its folds)")
	f.IntVar(&opts.Min, "min-calibration", metrics.DefaultMinCalibration, "fewest labelled claims with logits to fit a temperature on")
	f.BoolVar(&asJSON, "json", false, "print the fit as JSON")
	of.add(f, false)
	return cmd
}

// fmtNum prints to four places, or — when undefined.
func fmtNum(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return fmt.Sprintf("%.4f", v)
}
