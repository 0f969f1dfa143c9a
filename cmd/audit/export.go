package main

import (
	"bufio"
	"path/filepath"

	"github.com/claimaudit/claimaudit/reports"
	"github.com/spf13/cobra"
)

func newExportCmd(e *env) *cobra.Command {
	var records, format, out string
	cmd := &cobra.Command{
		Use:   "export --records F --format csv|jsonl [--out F]",
		Short: "Write records.parquet as CSV or JSONL, for readers without Parquet",
		Long: `export reads a records.parquet and writes every row, in file order, to --out (stdout when
not given). csv: a header of the Parquet column names, one row per claim, null as an empty
cell, and the nested columns (evidence, evidence_used, meta) as JSON text. jsonl: one JSON
object per claim with the column names as keys, null as null, evidence as a list of
objects. Column meanings are those of records.parquet.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := requireFlags(cmd, "records", "format"); err != nil {
				return err
			}
			if format != reports.ExportCSV && format != reports.ExportJSONL {
				return usageErrorf("--format %q is not csv or jsonl", format)
			}
			if err := checkReadable(filepath.Dir(records)); err != nil {
				return err // a folder killed while committing may mix two runs' files
			}
			recs, err := reports.ReadParquet[reports.Record](records)
			if err != nil {
				return &exitError{code: exitInput, err: err}
			}
			if out == "" {
				w := bufio.NewWriter(e.stdout)
				if err := reports.ExportRecords(w, format, recs); err != nil {
					return err
				}
				return w.Flush()
			}
			f, err := reports.CreateAtomic(filepath.Clean(out))
			if err != nil {
				return err
			}
			w := bufio.NewWriter(f)
			if err := reports.ExportRecords(w, format, recs); err != nil {
				f.Abort()
				return err
			}
			if err := w.Flush(); err != nil {
				f.Abort()
				return err
			}
			return f.Commit()
		},
	}
	f := cmd.Flags()
	f.StringVar(&records, "records", "", "records.parquet of a run (required)")
	f.StringVar(&format, "format", "", "csv or jsonl (required)")
	f.StringVar(&out, "out", "", "output file (default stdout)")
	return cmd
}
