package main

import (
	"fmt"
	"math"
	"path/filepath"

	"github.com/claimaudit/claimaudit/reports"
	"github.com/spf13/cobra"
)

type diffRow struct {
	Metric  string   `json:"metric"`
	A       *float64 `json:"a"`
	B       *float64 `json:"b"`
	Delta   *float64 `json:"delta"`
	Overlap *bool    `json:"intervals_overlap,omitempty"`
}

func newDiffCmd(e *env) *cobra.Command {
	var slice, stage string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "diff DIR_A DIR_B",
		Short: "Compare the metrics of two runs (B − A), with interval overlap",
		Long: `diff reads metrics.parquet from two output folders and prints, for every metric of one
slice and stage (default: all, calibrated), A, B, B − A and whether the 95% bootstrap
intervals overlap — a quick way for a nightly job to say what moved and whether the
move is beyond noise.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			load := func(dir string) (map[string]reports.MetricRow, []string, error) {
				if err := checkReadable(dir); err != nil {
					return nil, nil, err
				}
				rows, err := reports.ReadParquet[reports.MetricRow](filepath.Join(dir, "metrics.parquet"))
				if err != nil {
					return nil, nil, &exitError{code: exitInput, err: err}
				}
				m := map[string]reports.MetricRow{}
				var order []string
				for _, r := range rows {
					if r.Slice == slice && r.Stage == stage {
						m[r.Metric] = r
						order = append(order, r.Metric)
					}
				}
				if len(m) == 0 {
					return nil, nil, usageErrorf("%s: no metrics for slice %q, stage %q", dir, slice, stage)
				}
				return m, order, nil
			}
			a, order, err := load(args[0])
			if err != nil {
				return err
			}
			b, _, err := load(args[1])
			if err != nil {
				return err
			}
			var rows []diffRow
			for _, name := range order {
				ra, rb := a[name], b[name]
				row := diffRow{Metric: name, A: ra.Value, B: rb.Value}
				if ra.Value != nil && rb.Value != nil {
					d := *rb.Value - *ra.Value
					row.Delta = &d
				}
				if ra.CILow != nil && ra.CIHigh != nil && rb.CILow != nil && rb.CIHigh != nil {
					o := *ra.CILow <= *rb.CIHigh && *rb.CILow <= *ra.CIHigh
					row.Overlap = &o
				}
				rows = append(rows, row)
			}
			if asJSON {
				return printJSON(e, rows)
			}
			t := newTable(e)
			t.Header("metric", "A", "B", "B − A", "intervals overlap")
			num := func(p *float64) string {
				if p == nil || math.IsNaN(*p) {
					return "—"
				}
				return fmt.Sprintf("%.4g", *p)
			}
			for _, r := range rows {
				ov := ""
				if r.Overlap != nil {
					ov = map[bool]string{true: "yes", false: "NO"}[*r.Overlap]
				}
				t.Append(r.Metric, num(r.A), num(r.B), num(r.Delta), ov)
			}
			return t.Render()
		},
	}
	f := cmd.Flags()
	f.StringVar(&slice, "slice", "all", "slice to compare (all, type=..., source=..., importance=...)")
	f.StringVar(&stage, "stage", "calibrated", "stage to compare: raw or calibrated")
	f.BoolVar(&asJSON, "json", false, "print the comparison as JSON")
	return cmd
}
