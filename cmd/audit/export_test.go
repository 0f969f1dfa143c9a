package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"os"
	"strings"

	"github.com/claimaudit/claimaudit/reports"
	"github.com/parquet-go/parquet-go"
	"github.com/rogpeppe/go-internal/testscript"
)

// exportsAll (testscript): each FILE.parquet exports, with no --table, as
// CSV whose header is the file's columns, all of them in file order, and
// one row per Parquet row; and as JSONL with as many lines.
func exportsAll(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("exportsAll has no negation")
	}
	seen := map[string]bool{}
	for _, a := range args {
		path := ts.MkAbs(a)
		cols, err := reports.ParquetColumns(path)
		ts.Check(err)
		f, err := os.Open(path)
		ts.Check(err)
		st, err := f.Stat()
		ts.Check(err)
		pf, err := parquet.OpenFile(f, st.Size())
		ts.Check(err)
		rows := int(pf.NumRows())
		f.Close()
		var out, errb bytes.Buffer
		if code := run(context.Background(), []string{"export", path, "--format", "csv"}, strings.NewReader(""), &out, &errb); code != 0 {
			ts.Fatalf("export %s: exit %d: %s", a, code, errb.String())
		}
		recs, err := csv.NewReader(&out).ReadAll()
		ts.Check(err)
		if strings.Join(recs[0], ",") != strings.Join(cols, ",") {
			ts.Fatalf("export %s: header %v, the file's columns %v", a, recs[0], cols)
		}
		if len(recs)-1 != rows || rows == 0 {
			ts.Fatalf("export %s: %d CSV rows, %d in the file", a, len(recs)-1, rows)
		}
		out.Reset()
		if code := run(context.Background(), []string{"export", path, "--format", "jsonl"}, strings.NewReader(""), &out, &errb); code != 0 {
			ts.Fatalf("export %s as jsonl: exit %d: %s", a, code, errb.String())
		}
		if n := strings.Count(out.String(), "\n"); n != rows {
			ts.Fatalf("export %s: %d JSONL lines, %d rows", a, n, rows)
		}
		seen[strings.TrimSuffix(a[strings.LastIndex(a, "/")+1:], ".parquet")] = true
	}
	for _, t := range reports.ExportTables {
		if !seen[t] {
			ts.Fatalf("table %s was not exported: every Parquet file the tool writes must be", t)
		}
	}
}
