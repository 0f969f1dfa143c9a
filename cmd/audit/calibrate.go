package main

import (
	"fmt"
	"path/filepath"

	"github.com/claimaudit/claimaudit/metrics"
	"github.com/claimaudit/claimaudit/outdir"
	"github.com/claimaudit/claimaudit/reports"
	"github.com/spf13/cobra"
)

func newCalibrateCmd(e *env) *cobra.Command {
	var records, out string
	var sweep, asJSON, force bool
	var opts metrics.CalibrateOptions
	cmd := &cobra.Command{
		Use:   "calibrate --records F --out DIR [--sweep]",
		Short: "Fit a temperature to a run's logits and measure it out of sample",
		Long: `calibrate reads records.parquet, fits the temperature that minimises the NLL of the
labelled claims' logits, and measures calibration before and after with 5-fold
cross-fitting (the "after" numbers come from claims T was not fitted on). It writes
calibration_fit.json; with --sweep also temperature_sweep.parquet/.png (ECE and NLL over
a grid of temperatures) and threshold_sweep.parquet/.png (coverage, selective risk and
false-accept rates over abstain thresholds). Use the temperature with
'audit run --calibrate fixed --temperature T'.

DIR may be the run's own folder: the files join the run's (an older calibrate's are
replaced, and a later 'audit run' there removes them). DIR is locked, staged and
committed as a whole; a DIR holding another run's files is refused unless --force.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := requireFlags(cmd, "records", "out"); err != nil {
				return err
			}
			if err := checkFloats(cmd.Flags(), "ece-threshold"); err != nil {
				return err
			}
			if opts.Folds < 2 {
				return usageErrorf("--folds must be >= 2, got %d", opts.Folds)
			}
			if err := checkReadable(filepath.Dir(records)); err != nil {
				return err
			}
			rs, err := reports.ReadParquet[reports.Record](records)
			if err != nil {
				return &exitError{code: exitInput, err: err}
			}
			if len(rs) == 0 {
				return usageErrorf("%s: no records: there is nothing to calibrate", records)
			}
			outs := make([]metrics.Outcome, len(rs))
			runID := ""
			for i, r := range rs {
				if err := reports.CheckRecord(r); err != nil {
					return usageErrorf("%s row %d: %v", records, i+1, err)
				}
				outs[i] = reports.OutcomeOf(r)
				runID = r.RunID
			}
			dir, err := openOut(out, force)
			if err != nil {
				return err
			}
			defer dir.Close()
			commit := outdir.Commit{MadeBy: "audit calibrate", RunID: runID}
			if p := dir.Prior(); p != nil && p.MadeBy != "audit calibrate" {
				if p.RunID != runID && !force {
					return usageErrorf("%s holds %s, not of run %s: write to another --out, or --force to replace them", out, describeRun(p), runID)
				}
				if p.RunID == runID {
					// Join the run's files, replacing an older calibrate's.
					commit.MadeBy = p.MadeBy
					for _, f := range p.Files {
						if !calibrateFiles[f.Name] {
							commit.Keep = append(commit.Keep, f.Name)
						}
					}
				}
			}
			opts.Force = true
			res := metrics.Calibrate(outs, opts)
			fit := map[string]any{"run_id": runID, "temperature": res.Temperature, "held_out": res.HeldOut,
				"ece_10_before": res.Before.ECE10, "ece_10_after": res.After.ECE10, "nll_before": res.Before.NLL, "nll_after": res.After.NLL,
				"brier_before": res.Before.Brier, "brier_after": res.After.Brier, "would_apply_at_threshold": res.Before.ECE10 > opts.Threshold}
			if err := writeAtomic(filepath.Join(dir.Stage(), "calibration_fit.json"), mustJSON(fit)); err != nil {
				return err
			}
			if sweep {
				if err := reports.WriteSweeps(dir.Stage(), reports.Meta{RunID: runID, ToolVersion: version()}, outs, res.Temperature); err != nil {
					return err
				}
			}
			if err := dir.Commit(cmd.Context(), commit); err != nil {
				return err
			}
			if asJSON {
				return printJSON(e, fit)
			}
			fmt.Fprintf(e.stdout, "temperature %.4f fitted on %d labelled claims\n", res.Temperature, res.HeldOut)
			fmt.Fprintf(e.stdout, "ECE (10 bins) %.4f → %.4f, NLL %.4f → %.4f, Brier %.4f → %.4f (after: cross-fitted)\n",
				res.Before.ECE10, res.After.ECE10, res.Before.NLL, res.After.NLL, res.Before.Brier, res.After.Brier)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&records, "records", "", "records.parquet of a run (required)")
	f.StringVar(&out, "out", "", "output folder (required)")
	f.BoolVar(&sweep, "sweep", false, "also write temperature and abstain-threshold sweeps (Parquet and PNG)")
	f.Float64Var(&opts.Threshold, "ece-threshold", 0.10, "report whether auto calibration would apply at this ECE")
	f.IntVar(&opts.Folds, "folds", 5, "cross-fitting folds")
	f.Uint64Var(&opts.Seed, "seed", 1, "fold assignment seed")
	f.BoolVar(&asJSON, "json", false, "print the fit as JSON")
	f.BoolVar(&force, "force", false, "write into an --out folder that holds files audit did not write, or another run's")
	return cmd
}
