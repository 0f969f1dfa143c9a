package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/claimaudit/claimaudit/outdir"
	"github.com/claimaudit/claimaudit/reports"
	"github.com/claimaudit/claimaudit/review"
	"github.com/spf13/cobra"
)

const estimateLong = `estimate turns the human labels of a review queue ('audit review') and the verifier's
predictions on every claim of the run into estimates about all the claims, each two ways:
prediction-powered (PPI++: the human labels correct the verifier's predictions; valid
whatever the verifier's quality, narrower when it is informative) and classical (the human
sample alone). Intervals are 95%; the inclusion probabilities of the queue's design weight
every human label (docs/review.md states the estimators and their variances).

Quantities: share_supported, share_unsupported, share_insufficient (of all claims);
verifier_accuracy (among answered claims); tier1_fa (answered supported, among the claims
humans call unsupported or insufficient), tier2_fa (answered supported or insufficient,
among the claims humans call unsupported), and both as shares of all claims
(tier1_fa_unconditional, tier2_fa_unconditional). A quantity the sample cannot
estimate (no human label in its denominator, a stratum without two labels) is null with
the reason.

Writes DIR/estimates.parquet (quantity, method ppi|classical, value, ci_low, ci_high,
std_error, n_human, n_effective, lambda, design, reason) and DIR/report.html. --fail-on
gates the PPI estimates: est_<quantity>[.lo|.hi], e.g. 'est_tier1_fa.hi>0.05' (exit 1 when
a gate holds or its estimate is null).`

type estimateCmd struct {
	e                  *env
	runDir, queue, out string
	reviews            []string
	failOn             string
	asJSON, force      bool
}

func newEstimateCmd(e *env) *cobra.Command {
	c := &estimateCmd{e: e}
	cmd := &cobra.Command{
		Use: "estimate --run DIR --queue QUEUE [--reviews F] --out DIR [--fail-on EXPR]",
		Example: `  audit estimate --run demo-out --queue q --out est
  audit estimate --run demo-out --queue q --out est --fail-on 'est_tier1_fa.hi>0.05'
  audit estimate --run demo-out --queue q --reviews ann.jsonl --reviews bob.csv --out est --json`,
		Short: "Estimate label shares, verifier accuracy and false-accept rates from human review (PPI++)",
		Long:  estimateLong,
		Args:  cobra.NoArgs,
		RunE:  c.run,
	}
	f := cmd.Flags()
	f.StringVar(&c.runDir, "run", "", "the run folder the queue was drawn from")
	f.StringVar(&c.queue, "queue", "", "the review queue folder")
	f.StringArrayVar(&c.reviews, "reviews", nil, "answers (JSONL or .csv; repeatable); default QUEUE/reviews.jsonl")
	f.StringVar(&c.out, "out", "", "output folder")
	f.StringVar(&c.failOn, "fail-on", "", "gates over the PPI estimates, e.g. 'est_tier1_fa.hi>0.05,est_verifier_accuracy.lo<0.7'")
	f.BoolVar(&c.asJSON, "json", false, "print the estimates as JSON on stdout instead of a table")
	f.BoolVar(&c.force, "force", false, "write into an --out folder that holds files audit did not write")
	return cmd
}

func (c *estimateCmd) run(cmd *cobra.Command, _ []string) error {
	if c.runDir == "" || c.queue == "" || c.out == "" {
		return usageErrorf("estimate: --run, --queue and --out are required")
	}
	gates, err := reports.ParseEstimateGates(c.failOn, review.QuantityNames())
	if err != nil {
		return usageErrorf("%v", err)
	}
	q, err := review.Read(c.queue)
	if err != nil {
		return &exitError{code: exitInput, err: err}
	}
	records, err := readRunRecords(c.runDir)
	if err != nil {
		return err
	}
	if records[0].RunID != q.Plan.RunID {
		// Still valid (the design's probabilities are in the queue), but
		// the predictions are not those the queue was drawn beside.
		c.e.log.Warn("the records are of another run than the queue's: estimates use these records' predictions", "records_run", records[0].RunID, "queue_run", q.Plan.RunID)
	}
	files := c.reviews
	if len(files) == 0 {
		files = []string{filepath.Join(c.queue, review.ReviewsFile)}
		if _, err := os.Stat(files[0]); errors.Is(err, fs.ErrNotExist) {
			return usageErrorf("estimate: %s has no answers yet: import them with 'audit review --import ANSWERS --queue %s' (or give --reviews ANSWERS)", c.queue, c.queue)
		}
	}
	a, _, err := loadAnswers(cmd, c.e, q, "", files)
	if err != nil {
		return err
	}
	res, err := review.Estimate(records, q, a.List)
	if err != nil {
		return usageErrorf("estimate: %v", err)
	}
	results := reports.Check(gates, reports.EstimateRows(res.Rows))
	dir, err := openOut(c.out, c.force)
	if err != nil {
		return err
	}
	defer dir.Close()
	meta := reports.Meta{RunID: q.Plan.RunID, ToolVersion: version()}
	if err := reports.WriteEstimates(dir.Stage(), res.Rows, meta); err != nil {
		return err
	}
	page, err := reports.EstimatesHTML(reports.EstimatesPage{RunID: q.Plan.RunID, Design: string(q.Plan.Strategy), Claims: len(records),
		Reviewed: res.Labelled, Answers: len(a.List), Unused: res.Unused, Agreement: res.Agreement, Rows: res.Rows, Gates: results})
	if err != nil {
		return err
	}
	if err := writeFile(filepath.Join(dir.Stage(), "report.html"), page); err != nil {
		return err
	}
	if err := dir.Commit(cmd.Context(), outdir.Commit{MadeBy: "audit estimate", RunID: q.Plan.RunID}); err != nil {
		return err
	}
	if err := c.print(res, results); err != nil {
		return err
	}
	if err := reports.Failures(results); err != nil {
		return &exitError{code: exitGate, err: err}
	}
	return nil
}

func writeFile(path string, b []byte) error {
	f, err := reports.CreateAtomic(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}

func (c *estimateCmd) print(res *review.Result, gates []reports.GateResult) error {
	if c.asJSON {
		enc := json.NewEncoder(c.e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Estimates []reports.EstimateRow `json:"estimates"`
			Labelled  int                   `json:"n_labelled"`
			Unused    []string              `json:"left_out,omitempty"`
			Agreement []string              `json:"agreement,omitempty"`
			Gates     []reports.GateResult  `json:"gates,omitempty"`
		}{res.Rows, res.Labelled, res.Unused, res.Agreement, gates})
	}
	if err := reports.PrintEstimates(c.e.stdout, res.Rows); err != nil {
		return err
	}
	for _, u := range res.Unused {
		fmt.Fprintf(c.e.stdout, "left out: %s\n", u)
	}
	for _, a := range res.Agreement {
		fmt.Fprintln(c.e.stdout, a)
	}
	return reports.PrintGates(c.e.stdout, gates)
}
