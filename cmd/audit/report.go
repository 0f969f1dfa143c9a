package main

import (
	"fmt"
	"math"
	"os"

	"github.com/claimaudit/claimaudit/metrics"
	"github.com/claimaudit/claimaudit/reports"
	"github.com/spf13/cobra"
)

func newReportCmd(e *env) *cobra.Command {
	var out, failOn string
	var seed uint64
	sourceSlices := metrics.DefaultMaxSourceSlices
	var folds, minCal int
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "report --records F [--records F ...] --out DIR [--fail-on EXPR]",
		Short: "Recompute every metric, table and plot from records.parquet",
		Long: `report reads one or more records files (several files are shards of one run, read in
the order given) and writes metrics.parquet, confusion.parquet, calibration.parquet,
risk_coverage.parquet, the PNG plots and summary.json into DIR — the same files 'audit run'
writes, with the same values when --seed, --folds and --min-calibration match the run's.
Each claim's calibrated probabilities come from the temperature in its record (cross-fitted
by the run: a labelled claim's T was fitted without it), and the summary's calibration block
is the cross-fit recomputed from the records' logits and claim ids. --fail-on works as in
'audit run' (exit 1 when a gate holds or its metric is undefined).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			files, _ := cmd.Flags().GetStringArray("records")
			if len(files) == 0 || out == "" {
				return usageErrorf("%s: --records and --out are required", cmd.CommandPath())
			}
			gates, err := reports.ParseGates(failOn)
			if err != nil {
				return usageErrorf("--fail-on: %v", err)
			}
			var outs []metrics.Outcome
			var temps []float64
			runID := ""
			seen := map[string]string{}
			for _, f := range files {
				rs, err := reports.ReadParquet[reports.Record](f)
				if err != nil {
					return &exitError{code: exitInput, err: err}
				}
				for i, r := range rs {
					if runID == "" {
						runID = r.RunID
					}
					if r.RunID != runID {
						return usageErrorf("%s row %d: run %s, but earlier rows are run %s: shards must come from one run", f, i+1, r.RunID, runID)
					}
					if !(r.Temperature > 0) || math.IsInf(r.Temperature, 0) {
						return usageErrorf("%s row %d: temperature %v is not a positive number", f, i+1, r.Temperature)
					}
					if first, dup := seen[r.ClaimID]; dup {
						return usageErrorf("%s row %d: claim %s is also in %s: shards must not overlap", f, i+1, r.ClaimID, first)
					}
					seen[r.ClaimID] = f
					outs = append(outs, reports.OutcomeOf(r))
					temps = append(temps, r.Temperature)
				}
			}
			if err := os.MkdirAll(out, 0o755); err != nil {
				return err
			}
			cf := metrics.CrossFit(outs, metrics.CrossFitOptions{K: folds, Seed: seed, Min: minCal})
			t, err := reports.Compute(reports.Input{RunID: runID, ToolVersion: version(), Outcomes: outs, Temperatures: temps,
				CrossFit: cf, Seed: seed, MaxSourceSlices: sourceSlices, Manifest: reports.Manifest{Records: files, MadeBy: "audit report", Counts: reports.ManifestCount{Claims: len(outs)}}})
			if err != nil {
				return err
			}
			t.Summary.Gates = reports.Check(gates, &t.Summary)
			if err := t.Write(out); err != nil {
				return err
			}
			if asJSON {
				if err := printJSON(e, t.Summary); err != nil {
					return err
				}
			} else {
				fmt.Fprintf(e.stdout, "%d records → %s (run %s)\n", len(outs), out, runID)
				if err := reports.PrintTables(e.stdout, &t.Summary); err != nil {
					return err
				}
			}
			if err := reports.Failures(t.Summary.Gates); err != nil {
				return &exitError{code: exitGate, err: err}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringArray("records", nil, "records.parquet of a run (repeat for shards)")
	f.StringVar(&out, "out", "", "output folder (required)")
	f.StringVar(&failOn, "fail-on", "", "gates, as for audit run")
	f.Uint64Var(&seed, "seed", 1, "bootstrap and cross-fitting seed (the run's --seed reproduces its intervals and folds)")
	f.IntVar(&folds, "folds", metrics.DefaultFolds, "cross-fitting folds (as the run)")
	f.IntVar(&minCal, "min-calibration", metrics.DefaultMinCalibration, "fewest labelled claims a temperature is fitted on (as the run)")
	f.IntVar(&sourceSlices, "source-slices", metrics.DefaultMaxSourceSlices, sourceSlicesHelp)
	f.BoolVar(&asJSON, "json", false, "print summary.json on stdout instead of tables")
	return cmd
}

// sourceSlicesHelp is shared by run and report, which must agree for a
// report to reproduce a run's files.
var sourceSlicesHelp = fmt.Sprintf("sources with a slice of their own in the reports: the N with most claims, the rest pooled as %q; -1 for every source (slices under %d claims get no intervals)",
	metrics.OtherSources, metrics.MinBootstrapClaims)
