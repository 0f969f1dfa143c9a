package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/claimaudit/claimaudit/extract"
	"github.com/claimaudit/claimaudit/numeric"
	"github.com/claimaudit/claimaudit/outdir"
	"github.com/claimaudit/claimaudit/reports"
	"github.com/claimaudit/claimaudit/userfile"
)

// taggedCmd is `audit numcheck --outputs F --claims-table F`: the tagged
// numbers of model outputs checked against a claim table.
type taggedCmd struct {
	outputs, table, out, failOn string
	force                       bool
	checker                     numeric.TagChecker
}

func (c *taggedCmd) run(ctx context.Context, e *env) error {
	gates, err := reports.ParseNumberGates(c.failOn)
	if err != nil {
		return usageErrorf("--fail-on: %v", err)
	}
	table, err := numeric.ReadClaimTableFile(ctx, c.table)
	if err != nil {
		return err
	}
	c.checker.Table = table
	outs, err := c.check(ctx, e.stderr)
	if err != nil {
		return err
	}
	if c.out != "" {
		if err := c.write(ctx, outs); err != nil {
			return err
		}
	}
	if err := reports.PrintNumberCounts(e.stdout, outs); err != nil {
		return err
	}
	var all numeric.Counts
	for _, o := range outs {
		all = all.Add(o.Counts)
	}
	if failed := reports.FailedNumberGates(gates, all); len(failed) > 0 {
		var names []string
		for _, g := range failed {
			names = append(names, g.Expr)
		}
		return &exitError{code: exitGate, err: fmt.Errorf("gate failed: %s", strings.Join(names, ", "))}
	}
	return nil
}

// check reads every output and checks its tags; a malformed tag is printed
// as file:line: output, column: message.
func (c *taggedCmd) check(ctx context.Context, stderr io.Writer) ([]reports.TaggedOutput, error) {
	f, err := userfile.Open(ctx, c.outputs)
	if err != nil {
		return nil, fmt.Errorf("open outputs: %w", err)
	}
	defer f.Close()
	var outs []reports.TaggedOutput
	err = extract.ReadOutputsAt(ctx, f, c.outputs, func(line int, o extract.Output) error {
		nums, errs := c.checker.Check(o.Text)
		for _, te := range errs {
			fmt.Fprintf(stderr, "%s:%d: output %q, column %d: %s: %s\n", c.outputs, line, o.ID, te.Column, te.Message, te.Tag)
		}
		outs = append(outs, reports.TaggedOutput{ID: o.ID, Line: line, Text: o.Text, Numbers: nums, Errors: errs,
			Counts: numeric.Count(nums, errs)})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return outs, nil
}

// write commits numbers.parquet, number_counts.parquet and numbers.html
// into --out.
func (c *taggedCmd) write(ctx context.Context, outs []reports.TaggedOutput) error {
	dir, err := openOut(c.out, c.force)
	if err != nil {
		return err
	}
	defer dir.Close()
	runID := fmt.Sprintf("numcheck-%d", len(outs))
	if err := reports.WriteNumbers(dir.Stage(), reports.Meta{RunID: runID, ToolVersion: version()}, outs); err != nil {
		return err
	}
	return dir.Commit(ctx, outdir.Commit{MadeBy: "audit numcheck", RunID: runID})
}
