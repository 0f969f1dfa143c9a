package main

import (
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/claimaudit/claimaudit/metrics"
	"github.com/claimaudit/claimaudit/reports"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// outputFlags are the report options audit run, report and calibrate
// share: plot formats and metadata slices.
type outputFlags struct {
	plotFormat string
	sliceBy    []string
}

func (o *outputFlags) add(f *pflag.FlagSet, slices bool) {
	f.StringVar(&o.plotFormat, "plot-format", "png,svg", "formats of every plot: png, svg or png,svg")
	if slices {
		f.StringSliceVar(&o.sliceBy, "slice-by", nil, "also slice every metric by a claim metadata key, e.g. meta.topic (repeat or comma-separate)")
	}
}

// parse checks the flags; their errors are usage errors.
func (o *outputFlags) parse() (formats, keys []string, err error) {
	formats, err = reports.ParsePlotFormats(o.plotFormat)
	if err != nil {
		return nil, nil, usageErrorf("--plot-format: %v", err)
	}
	for _, s := range o.sliceBy {
		key, ok := strings.CutPrefix(strings.TrimSpace(s), "meta.")
		if !ok || key == "" {
			return nil, nil, usageErrorf("--slice-by %q: slices come from claim metadata, written meta.KEY (type, source and importance are always sliced)", s)
		}
		keys = append(keys, key)
	}
	return formats, keys, nil
}

func newReportCmd(e *env) *cobra.Command {
	var out, failOn string
	var seed uint64
	var folds, minCal int
	var asJSON bool
	var of outputFlags
	cmd := &cobra.Command{
		Use:   "report --records F [--records F ...] --out DIR [--fail-on EXPR]",
		Short: "Recompute every metric, table and plot from records.parquet",
		Long: `report reads one or more records files (several files are shards of one run, read in
the order given) and writes metrics.parquet, confusion.parquet, calibration.parquet,
risk_coverage.parquet, the plots, report.html and summary.json into DIR — the same files 'audit run'
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
			formats, keys, err := of.parse()
			if err != nil {
				return err
			}
			gates, err := reports.ParseGates(failOn)
			if err != nil {
				return usageErrorf("--fail-on: %v", err)
			}
			var outs []metrics.Outcome
			var temps []float64
			runID := ""
			seen := map[string]string{}
			picker := reports.NewErrorPicker(reports.ReportErrors)
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
					picker.Add(r)
					temps = append(temps, r.Temperature)
				}
			}
			if err := os.MkdirAll(out, 0o755); err != nil {
				return err
			}
			cf := metrics.CrossFit(outs, metrics.CrossFitOptions{K: folds, Seed: seed, Min: minCal})
			t, err := reports.Compute(reports.Input{RunID: runID, ToolVersion: version(), Outcomes: outs, Temperatures: temps,
				CrossFit: cf, Seed: seed, SliceBy: keys, PlotFormats: formats, Errors: picker.Records(), Manifest: reports.Manifest{Records: files, MadeBy: "audit report", Counts: reports.ManifestCount{Claims: len(outs)}}})
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
	f.BoolVar(&asJSON, "json", false, "print summary.json on stdout instead of tables")
	of.add(f, true)
	return cmd
}
