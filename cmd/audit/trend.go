package main

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/claimaudit/claimaudit/metrics"
	"github.com/claimaudit/claimaudit/outdir"
	"github.com/claimaudit/claimaudit/reports"
	"github.com/spf13/cobra"
)

const trendLong = `trend reads the metrics.parquet of many runs — run folders, or folders holding run
folders (nightly/) — orders them by when they started (started_at; each run's run_instance
tells two runs of one configuration apart) and writes into --out:

  - trend.parquet: every metric of every slice and stage of every run (run_instance,
    run_id, started_at, run, metric, slice, stage, value, ci_low, ci_high, n), with the
    band of the runs before it (band_low, band_high: their lowest and highest value over
    up to --window runs, from 3 of them on) and flagged when the value left it;
  - trend_<metric>.png and .svg for each --metric (default: accuracy, macro_f1,
    tier1_fa_of_gold_negatives, tier1_fa_conditional, ece_10, coverage, aurc) of one
    --slice and --stage: the value with its 95% interval, the band, flagged runs in red;
  - trend.html: the plots and each run's values, one self-contained page.

A run is flagged (red; "runs worse") when a metric left the band the way it gets worse
(accuracy, F1, AUC, coverage, recall down; error rates, ECE, AURC, latency up; a metric with
no better direction, either way), and marked better (green) the other way — in both cases
with its 95% interval clear of the band, so identical earlier runs (a band of zero width)
do not flag a change within sampling noise. Runs whose input files differ by sha256 from
the latest run's are refused, as by audit diff (--allow-different-inputs).

--fail-on gates the latest run against the median of up to --window runs before it:
METRIC[SLICE].drop (median − latest), .rise (latest − median) or .worse (the change the way
the metric gets worse), compared with a number, e.g. 'accuracy.drop>0.02,ece_10.rise>0.03,
aurc.worse>0.01,tier1_fa_of_gold_negatives[type=numeric].rise>0.05'.
Exit 1 names each gate that holds (or whose value is undefined: no earlier run, a null
metric).`

func newTrendCmd(e *env) *cobra.Command {
	var out, failOn, slice, stage, metricList, plotFormat string
	var window int
	var force, allowInputs bool
	cmd := &cobra.Command{
		Use: "trend DIR... --out DIR [--fail-on 'accuracy.drop>0.02']",
		Example: `  audit trend nightly --out nightly-trend
  audit trend nightly --out nightly-trend --fail-on 'accuracy.drop>0.02,aurc.worse>0.01'
  audit trend run-a run-b run-c --out t --metric accuracy,ece_10 --slice type=numeric`,
		Short: "Metrics across many runs: trend.parquet, trend plots and trend.html; flag runs leaving the band, gate drops",
		Long:  trendLong,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErrorf("%s: give run folders, or a folder of them", cmd.CommandPath())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usageErrorf("%s: --out is required", cmd.CommandPath())
			}
			gates, err := reports.ParseTrendGates(failOn)
			if err != nil {
				return usageErrorf("--fail-on: %v", err)
			}
			view, err := trendView(metricList, slice, stage, plotFormat)
			if err != nil {
				return err
			}
			if window < 1 {
				return usageErrorf("--window %d: want at least 1", window)
			}
			t, err := loadTrend(args, window)
			if err != nil {
				return err
			}
			if d := t.InputDifferences(); len(d) > 0 {
				if !allowInputs {
					return &exitError{code: exitInput, err: fmt.Errorf("%w: %s; a trend over unrelated inputs is not one series (give --allow-different-inputs to make it all the same)",
						reports.ErrDifferentInputs, strings.Join(d, "; "))}
				}
				for _, w := range d {
					e.log.Warn("inputs differ: " + w)
				}
			}
			if len(t.Series(view.Metrics[0], view.Slice, view.Stage)) == 0 {
				return usageErrorf("--slice %q: no run has it", view.Slice)
			}
			view.Gates = t.Check(gates, view.Stage)
			dir, err := openOut(out, force)
			if err != nil {
				return err
			}
			defer dir.Close()
			if err := t.Write(dir.Stage(), view); err != nil {
				return err
			}
			if err := dir.Commit(cmd.Context(), outdir.Commit{MadeBy: "audit trend"}); err != nil {
				return err
			}
			printTrend(e, t, view, out)
			return gateError(view.Gates)
		},
	}
	f := cmd.Flags()
	f.StringVar(&out, "out", "", "output folder (required)")
	f.StringVar(&failOn, "fail-on", "", "gates on the latest run against the median of the runs before it, e.g. \"accuracy.drop>0.02,ece_10.rise>0.03\"")
	f.StringVar(&metricList, "metric", strings.Join(reports.TrendMetrics, ","), "metrics to plot and show in trend.html (trend.parquet has every metric)")
	f.StringVar(&slice, "slice", "all", "slice the plots show (all, type=..., source=..., importance=...)")
	f.StringVar(&stage, "stage", reports.StageCalibrated, "stage the plots show: raw or calibrated")
	f.IntVar(&window, "window", 7, "previous runs in a band and in a gate's median")
	f.StringVar(&plotFormat, "plot-format", "png,svg", "formats of every plot: png, svg or png,svg")
	f.BoolVar(&force, "force", false, "write into an --out folder that holds files audit did not write (they are left alone)")
	f.BoolVar(&allowInputs, "allow-different-inputs", false, "make a trend of runs whose input files differ by sha256 from the latest run's (refused otherwise, as by audit diff)")
	return cmd
}

func trendView(metricList, slice, stage, plotFormat string) (reports.TrendView, error) {
	v := reports.TrendView{Slice: normaliseSlice(slice), Stage: stage}
	if stage != reports.StageCalibrated && stage != reports.StageRaw {
		return v, usageErrorf("--stage %q is not raw or calibrated", stage)
	}
	for _, m := range strings.Split(metricList, ",") {
		m = strings.TrimSpace(m)
		if m == "" {
			continue
		}
		if !slices.Contains(metrics.Names, m) {
			return v, usageErrorf("--metric: unknown metric %q", m)
		}
		v.Metrics = append(v.Metrics, m)
	}
	if len(v.Metrics) == 0 {
		return v, usageErrorf("--metric: no metric given")
	}
	formats, err := reports.ParsePlotFormats(plotFormat)
	if err != nil {
		return v, usageErrorf("--plot-format: %v", err)
	}
	v.Formats = formats
	return v, nil
}

// loadTrend reads every run folder under the arguments.
func loadTrend(args []string, window int) (*reports.TrendTable, error) {
	dirs, err := reports.FindTrendRuns(args)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, reports.ErrNoRuns) || strings.Contains(err.Error(), "not a folder") {
			return nil, &exitError{code: exitInput, err: err}
		}
		return nil, err
	}
	var runs []reports.TrendRun
	for _, d := range dirs {
		if err := checkReadable(d); err != nil {
			return nil, err
		}
		r, err := reports.LoadTrendRun(d)
		if err != nil {
			return nil, &exitError{code: exitInput, err: fmt.Errorf("read run %s: %w", d, err)}
		}
		runs = append(runs, r)
	}
	return reports.Trend(runs, reports.TrendOptions{Window: window}), nil
}

// printTrend says what was written and which runs were flagged.
func printTrend(e *env, t *reports.TrendTable, v reports.TrendView, out string) {
	fmt.Fprintf(e.stdout, "%d runs → %s (trend.parquet: %d rows; trend.html; plots of %s)\n", len(t.Runs), out, len(t.Rows), strings.Join(v.Metrics, ", "))
	tb := newTable(e)
	tb.Header("metric ("+v.Slice+", "+v.Stage+")", "worse when", "first", "latest", "runs worse", "runs better")
	for _, m := range v.Metrics {
		s := t.Series(m, v.Slice, v.Stage)
		if len(s) == 0 {
			continue
		}
		var flagged, better []string
		for i, r := range s {
			if r.Flagged {
				flagged = append(flagged, fmt.Sprintf("#%d", i+1))
			}
			if r.Improved {
				better = append(better, fmt.Sprintf("#%d", i+1))
			}
		}
		worse := map[reports.Direction]string{reports.HigherIsWorse: "higher", reports.LowerIsWorse: "lower", reports.EitherWay: "either way"}[reports.WorseWay(m)]
		tb.Append(m, worse, reports.FormatMetric(m, s[0].Value, false), reports.FormatMetric(m, s[len(s)-1].Value, false), strings.Join(flagged, " "), strings.Join(better, " "))
	}
	_ = tb.Render()
	_ = reports.PrintGates(e.stdout, v.Gates)
}
