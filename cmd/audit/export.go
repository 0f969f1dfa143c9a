package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/claimaudit/claimaudit/reports"
	"github.com/spf13/cobra"
)

func newExportCmd(e *env) *cobra.Command {
	var records, format, out, table string
	cmd := &cobra.Command{
		Use: "export [RUN_DIR | FILE.parquet] --format csv|jsonl [--table T] [--out F]",
		Example: `  audit export demo-out --format csv > records.csv
  audit export demo-out --table metrics --format jsonl --out metrics.jsonl
  audit export nightly-trend/trend.parquet --format csv`,
		Short: "Write a run's Parquet files (records, metrics, ...) as CSV or JSONL, for readers without Parquet",
		Long: `export reads a Parquet file audit wrote — a run folder (records.parquet unless --table
names another), any of the tool's Parquet files by path (records, metrics, confusion,
calibration, risk_coverage, outputs, trend, estimates, numbers, number_counts,
temperature_sweep, threshold_sweep: which one is told from its columns), or --records F —
and writes every row, in file order, by that file's own schema, to --out (stdout when not
given). A file that is not the table --table names (a column would be dropped, or most are
missing) is refused with exit 2, naming the table it is. csv: a header of the Parquet column names, one row per line, null as an
empty cell, nested columns (evidence, evidence_used, meta) as JSON text, and a text cell
that starts like a spreadsheet formula prefixed with '. jsonl: one JSON object per row with
the column names as keys, null as null. Column meanings: docs/format/records.md and
docs/format/reports.md.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := requireFlags(cmd, "format"); err != nil {
				return err
			}
			if format != reports.ExportCSV && format != reports.ExportJSONL {
				return usageErrorf("--format %q is not csv or jsonl", format)
			}
			path, tbl, err := exportSource(records, args, table, cmd.Flags().Changed("table"))
			if err != nil {
				return err
			}
			if err := checkReadable(filepath.Dir(path)); err != nil {
				return err // a folder killed while committing may mix two runs' files
			}
			return writeExport(e, out, func(w io.Writer) error { return reports.ExportFile(w, format, tbl, path) })
		},
	}
	f := cmd.Flags()
	f.StringVar(&records, "records", "", "records.parquet of a run (or give a run folder or a Parquet file as the argument)")
	f.StringVar(&format, "format", "", "csv or jsonl (required)")
	f.StringVar(&table, "table", "records", "with a run folder: which file ("+strings.Join(reports.ExportTables, ", ")+"); with a file, checked against its columns")
	f.StringVar(&out, "out", "", "output file (default, or -: stdout)")
	return cmd
}

// exportSource is the file to export and its table: --records, a run
// folder's --table file, or a file named like one of a run's.
func exportSource(records string, args []string, table string, tableSet bool) (string, string, error) {
	switch {
	case records != "" && len(args) > 0:
		return "", "", usageErrorf("export: give --records or a path, not both")
	case records != "":
		return records, "records", nil
	case len(args) == 0:
		return "", "", usageErrorf("export: give a run folder, one of its Parquet files, or --records F")
	}
	if !slices.Contains(reports.ExportTables, table) {
		return "", "", usageErrorf("--table %q is not one of %s", table, strings.Join(reports.ExportTables, ", "))
	}
	p := args[0]
	st, err := os.Stat(p)
	if err != nil {
		return "", "", &exitError{code: exitInput, err: err}
	}
	if st.IsDir() {
		return filepath.Join(p, table+".parquet"), table, nil
	}
	if tableSet {
		return p, table, nil // checked against the file's columns
	}
	return p, "", nil // told from the file's columns
}

// writeExport runs write into --out (atomically) or stdout.
func writeExport(e *env, out string, write func(io.Writer) error) error {
	if out != "" {
		if err := writeTarget(out); err != nil {
			return err
		}
	}
	inputErr := func(err error) error {
		var re *reports.ErrReadExport
		if errors.As(err, &re) {
			return &exitError{code: exitInput, err: fmt.Errorf("read %w", re.Err)}
		}
		return err
	}
	if out == "" || out == "-" {
		w := bufio.NewWriter(e.stdout)
		if err := write(w); err != nil {
			return inputErr(err)
		}
		return w.Flush()
	}
	f, err := reports.CreateAtomic(filepath.Clean(out))
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	if err := write(w); err != nil {
		f.Abort()
		return inputErr(err)
	}
	if err := w.Flush(); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}
