package main

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/claimaudit/claimaudit/audit"
	"github.com/claimaudit/claimaudit/metrics"
	"github.com/claimaudit/claimaudit/outdir"
	"github.com/claimaudit/claimaudit/reports"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

const reportLong = `report reads one or more records files (--records, and any arguments after the flags)
and writes metrics.parquet, confusion.parquet, calibration.parquet, risk_coverage.parquet,
outputs.parquet, the plots, report.html and summary.json into DIR — the same files 'audit run'
writes, with the same values when --seed, --folds and --min-calibration match the run's.
Each claim's calibrated probabilities come from the temperature in its record (cross-fitted
by the run: a labelled claim's T was fitted without it), and the summary's calibration block
is the cross-fit recomputed from the records' logits and claim ids. --fail-on works as in
'audit run' (exit 1 when a gate holds or its metric is undefined).

Every record is checked first (a temperature that is not a positive number, logits or
probabilities that are not finite: exit 2 naming the file and row). DIR is written as
'audit run' writes its folder (locked, staged, committed as a whole); a run's own folder
is refused, so a report never replaces a run's manifest.

Shards: the records of 'audit run --shard i/N' (or --shards N under a scheduler) are
decided at T = 1, and their folders' manifests say which shard they are. Given every
shard of one run (in any order: --records shard-*/records.parquet), report puts the
claims back in claims-file order, cross-fits the temperature over their union with the
run's --seed, --folds and --min-calibration, gives each claim the temperature the run's
--calibrate mode gives it, and takes again the decisions that depend on the calibrated
confidence (--abstain-below, and through it --numeric-effect override): the reports are
those one run over all the claims writes. A missing or repeated shard, or a whole run
among shards, is refused (exit 2). Several files that are not shards are merged as they
are: one run id, no claim twice, each claim at the temperature its record holds.`

// outputFlags are the report options audit run, report and calibrate
// share: plot formats and metadata slices.
type outputFlags struct {
	plotFormat string
	sliceBy    []string
}

func (o *outputFlags) add(f *pflag.FlagSet, slices bool) {
	f.StringVar(&o.plotFormat, "plot-format", "png,svg", "formats of every plot: png, svg or png,svg")
	if slices {
		f.StringSliceVar(&o.sliceBy, "slice-by", nil, "also slice every metric by a claim metadata key, e.g. meta.topic, or by evidence tag, tag (a slice tag=T per tag of the deciding span, a claim in one per tag it has) (repeat or comma-separate)")
	}
}

// parse checks the flags; their errors are usage errors.
func (o *outputFlags) parse() (formats, keys []string, err error) {
	formats, err = reports.ParsePlotFormats(o.plotFormat)
	if err != nil {
		return nil, nil, usageErrorf("--plot-format: %v", err)
	}
	for _, s := range o.sliceBy {
		if strings.TrimSpace(s) == metrics.KindTag {
			if !slices.Contains(keys, metrics.SliceTags) {
				keys = append(keys, metrics.SliceTags)
			}
			continue
		}
		key, ok := strings.CutPrefix(strings.TrimSpace(s), "meta.")
		if !ok || key == "" || strings.Contains(key, "\x00") {
			return nil, nil, usageErrorf("--slice-by %q: slices come from claim metadata, written meta.KEY, or the evidence tags, written tag (type, source and importance are always sliced)", s)
		}
		keys = append(keys, key)
	}
	return formats, keys, nil
}

// reportCmd is `audit report`.
type reportCmd struct {
	e             *env
	out, failOn   string
	seed          uint64
	folds, minCal int
	sourceSlices  int
	asJSON, force bool
	of            outputFlags
}

func newReportCmd(e *env) *cobra.Command {
	c := &reportCmd{e: e}
	cmd := &cobra.Command{
		Use: "report --records F [--records F ...] [F ...] --out DIR [--fail-on EXPR]",
		Example: `  audit report --records demo-out/records.parquet --out rep
  audit report --out out/report --records out/shard-*/records.parquet
  audit report --records run/records.parquet --out rep --slice-by meta.topic --fail-on 'ece_10>0.10'`,
		Short: "Recompute every metric, table and plot from records.parquet",
		Long:  reportLong,
		RunE:  c.run,
	}
	f := cmd.Flags()
	f.StringArray("records", nil, "records.parquet of a run (repeat for shards)")
	f.StringVar(&c.out, "out", "", "output folder (required)")
	f.StringVar(&c.failOn, "fail-on", "", "gates, as for audit run")
	f.Uint64Var(&c.seed, "seed", 1, "bootstrap and cross-fitting seed (the run's --seed reproduces its intervals and folds)")
	f.IntVar(&c.folds, "folds", metrics.DefaultFolds, "cross-fitting folds (as the run)")
	f.IntVar(&c.minCal, "min-calibration", metrics.DefaultMinCalibration, "fewest labelled claims a temperature is fitted on (as the run)")
	f.IntVar(&c.sourceSlices, "source-slices", metrics.DefaultMaxSourceSlices, sourceSlicesHelp)
	f.BoolVar(&c.asJSON, "json", false, "print summary.json on stdout instead of tables")
	c.of.add(f, true)
	f.BoolVar(&c.force, "force", false, "write into an --out folder that holds files audit did not write (they are left alone)")
	return cmd
}

func (c *reportCmd) run(cmd *cobra.Command, args []string) error {
	files, _ := cmd.Flags().GetStringArray("records")
	// Arguments are more records files: --records shard-*/records.parquet
	// works as the shell expands it.
	files = append(files, args...)
	if err := intRanges(intRange{"source-slices", c.sourceSlices, -1, math.MaxInt32}); err != nil {
		return err
	}
	if len(files) == 0 || c.out == "" {
		return usageErrorf("%s: --records and --out are required", cmd.CommandPath())
	}
	if c.folds < 2 || c.folds > metrics.MaxFolds {
		return usageErrorf("--folds must be from 2 to %d, got %d", metrics.MaxFolds, c.folds)
	}
	gates, err := reports.ParseGates(c.failOn)
	if err != nil {
		return usageErrorf("%v", err)
	}
	formats, keys, err := c.of.parse()
	if err != nil {
		return err
	}
	for _, f := range files {
		if err := checkReadable(filepath.Dir(f)); err != nil {
			return err
		}
	}
	in, err := c.limitedInput(cmd, files, keys)
	if err != nil {
		return err
	}
	if len(in.Outcomes) == 0 {
		return usageErrorf("%s: no records: there is nothing to report", strings.Join(files, ", "))
	}
	if m, err := reports.ReadManifest(c.out); err == nil && m.MadeBy != "" && m.MadeBy != "audit report" {
		// Said first: the run's index folder would otherwise be blamed
		// as a file audit did not write.
		return usageErrorf("%s holds the files of '%s' (run %s): a report never replaces a run's manifest; write it to another --out", c.out, m.MadeBy, m.RunID)
	}
	dir, err := openOut(c.out, c.force)
	if err != nil {
		return err
	}
	defer dir.Close()
	if p := dir.Prior(); p != nil && p.MadeBy != "audit report" {
		return usageErrorf("%s holds %s: a report never replaces a run's manifest; write it to another --out", c.out, describeRun(p))
	}
	in.SliceBy, in.PlotFormats = keys, formats
	in.Progress = newProgressUnit(c.e, "metrics per slice", "")
	// As in a run: the heap grows from the outcomes' live size, not by
	// doubling it.
	defer audit.HeapLimit()()
	t, err := audit.ComputeReports(cmd.Context(), in)
	if err != nil {
		return err
	}
	t.Summary.Gates = reports.Check(gates, t)
	if err := reports.UnknownSlices(gates, &t.Summary); err != nil {
		return usageErrorf("--fail-on: %v", err)
	}
	if err := t.Write(dir.Stage()); err != nil {
		return err
	}
	if err := dir.Commit(cmd.Context(), outdir.Commit{MadeBy: "audit report", RunID: in.RunID}); err != nil {
		return err
	}
	if c.asJSON {
		if err := printJSON(c.e, t.Summary); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(c.e.stdout, "%s → %s (run %s)\n", claimsHeadline(len(in.Outcomes), t.Summary.Labelled, "record"), c.out, in.RunID)
		if err := reports.PrintTables(c.e.stdout, &t.Summary); err != nil {
			return err
		}
	}
	logWarnings(c.e, t.Summary.Warnings)
	return gateError(t.Summary.Gates)
}

// limitedInput is input; shards are merged under a limit: the outcomes
// and the decision fields kept beside them, and room for the decoding's
// garbage (left to double, the heap of a million claims' merge peaked at
// 1.8 times the run's). One file is read without: its peak is the
// metrics' (audit.HeapLimit), and a limit here costs collections.
func (c *reportCmd) limitedInput(cmd *cobra.Command, files, sliceBy []string) (reports.Input, error) {
	if len(files) > 1 {
		defer audit.HeapLimitFor(uint64(reports.CountRecords(files)) * audit.RecordBytes)()
	}
	return c.input(cmd, files, sliceBy)
}

// input reads the records: the shards of a sharded run are merged and
// calibrated over their union as the whole run would have been
// (audit.MergeShards), with the run's seed, folds and minimum; any other
// records are reported with the temperatures they hold.
func (c *reportCmd) input(cmd *cobra.Command, files, sliceBy []string) (reports.Input, error) {
	in := reports.Input{ToolVersion: version(), MaxSourceSlices: c.sourceSlices,
		Manifest: reports.Manifest{Records: files, MadeBy: "audit report"}}
	m, err := audit.MergeShards(files, sliceBy)
	switch {
	case errors.Is(err, audit.ErrNotShards):
		sh, err := reports.ReadShards(files, reports.ReadOptions{SliceBy: sliceBy, Folds: c.folds, Seed: c.seed})
		if err != nil {
			return in, &exitError{code: exitInput, err: err}
		}
		in.RunID, in.Outcomes, in.Temperatures, in.Seed, in.Errors = sh.RunID, sh.Outcomes, sh.Temperatures, c.seed, sh.Errors()
		in.Usage = reports.NewUsageSummary(sh.Usage, nil, reports.Prices{})
		in.CrossFit = metrics.CrossFit(sh.Outcomes, metrics.CrossFitOptions{K: c.folds, Seed: c.seed, Min: c.minCal})
		// A report over one run's records belongs to that execution.
		if inst, ok := sh.Instance(); ok {
			in.Instance = inst
		}
	case err != nil:
		return in, &exitError{code: exitInput, err: err}
	default:
		s := m.Settings
		for _, f := range []struct {
			name      string
			flag, run uint64
		}{{"seed", c.seed, s.Seed}, {"folds", uint64(c.folds), uint64(s.Folds)}, {"min-calibration", uint64(c.minCal), uint64(s.MinCalibration)}} {
			if cmd.Flags().Changed(f.name) && f.flag != f.run {
				return in, usageErrorf("--%s %d: the shards were run with --%s %d, and their union is calibrated as that run would have been", f.name, f.flag, f.name, f.run)
			}
		}
		in.RunID, in.Outcomes, in.Temperatures, in.CrossFit, in.Seed = m.RunID, m.Outcomes, m.Temperatures, m.CrossFit, s.Seed
		in.Usage = reports.NewUsageSummary(m.Usage, nil, reports.Prices{})
		c.e.log.Info("merged shards", "shards", m.Shards, "claims", len(m.Outcomes), "calibration", s.Calibrate)
	}
	if in.Instance.ID == "" {
		in.Instance = reports.NewInstance(time.Now())
	}
	in.Manifest.Counts.Claims = len(in.Outcomes)
	return in, nil
}

// sourceSlicesHelp is shared by run and report, which must agree for a
// report to reproduce a run's files.
var sourceSlicesHelp = fmt.Sprintf("sources with a slice of their own in the reports: the N with most claims, the rest pooled as %q; -1 for every source (slices under %d claims get no intervals)",
	metrics.OtherSources, metrics.MinBootstrapClaims)
