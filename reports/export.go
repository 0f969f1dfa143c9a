package reports

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Export formats of `audit export`.
const (
	ExportCSV   = "csv"
	ExportJSONL = "jsonl"
)

// columnName is a field's Parquet column name.
func columnName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("parquet"), ",")
	if name == "" {
		return f.Name
	}
	return name
}

// RecordColumns are records.parquet's columns, in file order.
func RecordColumns() []string { return columnsOf[Record]() }

// timestampOf writes a timestamp(millisecond) column (started_at) as RFC
// 3339 text, UTC, "" for 0; ok false for any other column.
func timestampOf(f reflect.StructField, v reflect.Value) (string, bool) {
	if v.Kind() == reflect.Pointer && v.Type().Elem().Kind() == reflect.Int64 {
		if v.IsNil() {
			return "", false // null (an optional timestamp: reviewed_at)
		}
		v = v.Elem()
	}
	if !strings.Contains(f.Tag.Get("parquet"), "timestamp(millisecond)") || v.Kind() != reflect.Int64 {
		return "", false
	}
	if v.Int() == 0 {
		return "", true
	}
	return time.UnixMilli(v.Int()).UTC().Format("2006-01-02T15:04:05.000Z07:00"), true
}

// columnsOf are the Parquet columns of rows of T, in file order.
func columnsOf[T any]() []string {
	t := reflect.TypeFor[T]()
	out := make([]string, t.NumField())
	for i := range out {
		out[i] = columnName(t.Field(i))
	}
	return out
}

// jsonValue writes v as JSON with the Parquet column names as keys, in
// column order; nil pointers are null, NaN and Inf are null.
func jsonValue(buf *bytes.Buffer, v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			buf.WriteString("null")
			return
		}
		jsonValue(buf, v.Elem())
	case reflect.Struct:
		buf.WriteByte('{')
		for i := 0; i < v.NumField(); i++ {
			if i > 0 {
				buf.WriteByte(',')
			}
			k, _ := json.Marshal(columnName(v.Type().Field(i)))
			buf.Write(k)
			buf.WriteByte(':')
			if ts, ok := timestampOf(v.Type().Field(i), v.Field(i)); ok {
				t, _ := json.Marshal(ts)
				buf.Write(t)
				continue
			}
			jsonValue(buf, v.Field(i))
		}
		buf.WriteByte('}')
	case reflect.Slice:
		buf.WriteByte('[')
		for i := 0; i < v.Len(); i++ {
			if i > 0 {
				buf.WriteByte(',')
			}
			jsonValue(buf, v.Index(i))
		}
		buf.WriteByte(']')
	case reflect.Map:
		keys := make([]string, 0, v.Len())
		for _, k := range v.MapKeys() {
			keys = append(keys, k.String())
		}
		sort.Strings(keys)
		buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			kb, _ := json.Marshal(k)
			buf.Write(kb)
			buf.WriteByte(':')
			jsonValue(buf, v.MapIndex(reflect.ValueOf(k)))
		}
		buf.WriteByte('}')
	case reflect.Float32, reflect.Float64:
		f := v.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			buf.WriteString("null")
			return
		}
		buf.WriteString(strconv.FormatFloat(f, 'g', -1, 64))
	default:
		b, _ := json.Marshal(v.Interface())
		buf.Write(b)
	}
}

// csvCell is a column's CSV text: scalars as themselves, null as the
// empty string, lists, structs and maps as JSON.
func csvCell(v reflect.Value) string {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return ""
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.String:
		return v.String() // neutralized by CSVWriter
	case reflect.Bool:
		return strconv.FormatBool(v.Bool())
	case reflect.Int, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10)
	case reflect.Float32, reflect.Float64:
		if f := v.Float(); !math.IsNaN(f) && !math.IsInf(f, 0) {
			return strconv.FormatFloat(f, 'g', -1, 64)
		}
		return ""
	case reflect.Map, reflect.Slice:
		if v.Len() == 0 {
			return ""
		}
	}
	var buf bytes.Buffer
	jsonValue(&buf, v)
	return buf.String()
}

// neutralizeFormula prefixes a text cell that a spreadsheet would run as a
// formula (starting with =, +, -, @, a tab, a carriage return or a newline,
// also after leading spaces) with a single quote, as OWASP's CSV-injection
// advice says. The JSONL export keeps text as it is.
func neutralizeFormula(s string) string {
	if s == "" {
		return s
	}
	if strings.ContainsRune("\t\r\n", rune(s[0])) {
		return "'" + s
	}
	if t := strings.TrimLeft(s, " "); t != "" && strings.ContainsRune("=+-@", rune(t[0])) {
		return "'" + s
	}
	return s
}

// UnneutralizeFormula undoes neutralizeFormula for a cell read back (a
// review queue's claim id).
func UnneutralizeFormula(s string) string {
	if t, ok := strings.CutPrefix(s, "'"); ok && neutralizeFormula(t) == s {
		return t
	}
	return s
}

// CSVWriter is the one CSV writer of the files people open in a
// spreadsheet (audit export --format csv, audit review's queue.csv): every
// text cell that would run as a formula is neutralized; the columns named
// numeric hold numbers the caller formatted, written as they are.
type CSVWriter struct {
	w       *csv.Writer
	numeric map[int]bool
	row     []string
}

// NewCSVWriter writes CSV to w; numeric are the 0-based columns of numbers.
func NewCSVWriter(w io.Writer, numeric ...int) *CSVWriter {
	c := &CSVWriter{w: csv.NewWriter(w), numeric: map[int]bool{}}
	for _, i := range numeric {
		c.numeric[i] = true
	}
	return c
}

// Write writes one row, each text cell neutralized.
func (c *CSVWriter) Write(cells []string) error {
	c.row = c.row[:0]
	for i, s := range cells {
		if !c.numeric[i] {
			s = neutralizeFormula(s)
		}
		c.row = append(c.row, s)
	}
	return c.w.Write(c.row)
}

// WriteHeader writes the header row (names, never neutralized numbers).
func (c *CSVWriter) WriteHeader(names []string) error {
	c.row = append(c.row[:0], names...)
	for i := range c.row {
		c.row[i] = neutralizeFormula(c.row[i])
	}
	return c.w.Write(c.row)
}

// Flush writes what is buffered and returns the first error.
func (c *CSVWriter) Flush() error {
	c.w.Flush()
	return c.w.Error()
}

// numericColumns are the columns of T whose cells are numbers or booleans
// (csvCell formats them): written as they are.
func numericColumns[T any]() []int {
	var out []int
	typ := reflect.TypeFor[T]()
	for i := range typ.NumField() {
		k := typ.Field(i).Type
		if k.Kind() == reflect.Pointer {
			k = k.Elem()
		}
		switch k.Kind() {
		case reflect.Bool, reflect.Int, reflect.Int32, reflect.Int64, reflect.Float32, reflect.Float64:
			out = append(out, i)
		}
	}
	return out
}

// ExportRecords writes records as CSV (a header of records.parquet's
// column names, then one row per record; evidence, evidence_used and meta
// as JSON text; null as an empty cell; a text cell that starts like a
// formula prefixed with ') or as JSONL (one object per
// record, keys the column names, null as null).
func ExportRecords(w io.Writer, format string, recs []Record) error {
	return ExportRows(w, format, recs)
}

// ExportRows writes the rows of any of the run's Parquet files as
// ExportRecords writes records.
func ExportRows[T any](w io.Writer, format string, rows []T) error {
	switch format {
	case ExportJSONL:
		var buf bytes.Buffer
		for _, r := range rows {
			buf.Reset()
			jsonValue(&buf, reflect.ValueOf(r))
			buf.WriteByte('\n')
			if _, err := w.Write(buf.Bytes()); err != nil {
				return err
			}
		}
		return nil
	case ExportCSV:
		cols := columnsOf[T]()
		cw := NewCSVWriter(w, numericColumns[T]()...)
		if err := cw.WriteHeader(cols); err != nil {
			return err
		}
		row := make([]string, len(cols))
		for _, r := range rows {
			v := reflect.ValueOf(r)
			for i := range row {
				if ts, ok := timestampOf(v.Type().Field(i), v.Field(i)); ok {
					row[i] = ts
					continue
				}
				row[i] = csvCell(v.Field(i))
			}
			if err := cw.Write(row); err != nil {
				return err
			}
		}
		return cw.Flush()
	}
	return fmt.Errorf("export format %q is not csv or jsonl", format)
}

// exportTable is a Parquet file audit writes: its name without .parquet,
// its columns (by its row type) and its export.
type exportTable struct {
	name   string
	cols   []string
	export func(w io.Writer, format, path string) error
}

func tableOf[T any](name string) exportTable {
	return exportTable{name: name, cols: columnsOf[T](), export: exportFile[T]}
}

// exportTables are every Parquet file the tool writes.
var exportTables = []exportTable{
	tableOf[Record]("records"), tableOf[MetricRow]("metrics"), tableOf[ConfusionRow]("confusion"),
	tableOf[CalibrationRow]("calibration"), tableOf[RiskCoverageRow]("risk_coverage"), tableOf[OutputRow]("outputs"),
	tableOf[TrendRow]("trend"), tableOf[EstimateRow]("estimates"), tableOf[NumberRow]("numbers"),
	tableOf[NumberCountRow]("number_counts"), tableOf[TemperatureSweepRow]("temperature_sweep"),
	tableOf[ThresholdSweepRow]("threshold_sweep"), tableOf[HumanLabelRow]("labels"),
}

// ExportTables are the Parquet files audit export reads (every one the
// tool writes), by their name without .parquet.
var ExportTables = func() []string {
	var out []string
	for _, t := range exportTables {
		out = append(out, t.name)
	}
	return out
}()

// fits says whether a file with columns cols is table t, perhaps written
// by an older version: every column of the file is one of t's (none would
// be dropped), and it has at least half of t's (a later version's new
// columns are exported as null or zero).
func (t exportTable) fits(cols []string) bool {
	if len(cols) == 0 {
		return false
	}
	for _, c := range cols {
		if !slices.Contains(t.cols, c) {
			return false
		}
	}
	// At least half: records.parquet of schema version 2 has 46 of
	// version 6's 72 columns.
	return 2*len(cols) >= len(t.cols)
}

// tableOfColumns is the table a file with these columns is: the one whose
// columns are exactly the file's, else the only one it fits.
func tableOfColumns(cols []string) (exportTable, bool) {
	var fit []exportTable
	for _, t := range exportTables {
		if slices.Equal(t.cols, cols) {
			return t, true
		}
		if t.fits(cols) {
			fit = append(fit, t)
		}
	}
	if len(fit) == 1 {
		return fit[0], true
	}
	return exportTable{}, false
}

// ExportFile writes the rows of a Parquet file the tool wrote, by its own
// schema: table names which (one of ExportTables), or "" to tell it from
// the file's columns. A file that is not that table (it has a column the
// table lacks, which would be dropped, or lacks most of the table's) is
// refused, naming the table it is when it is one.
func ExportFile(w io.Writer, format, table, path string) error {
	cols, err := ParquetColumns(path)
	if err != nil {
		return &ErrReadExport{Err: err}
	}
	found, ok := tableOfColumns(cols)
	if table == "" {
		if !ok {
			return &ErrReadExport{Err: fmt.Errorf("%s: not a Parquet file audit writes (columns %s); it exports %s", path, strings.Join(cols, ", "), strings.Join(ExportTables, ", "))}
		}
		return found.export(w, format, path)
	}
	i := slices.IndexFunc(exportTables, func(t exportTable) bool { return t.name == table })
	if i < 0 {
		return fmt.Errorf("table %q is not one of %s", table, strings.Join(ExportTables, ", "))
	}
	t := exportTables[i]
	if ok && slices.Equal(found.cols, cols) && found.name != t.name || !t.fits(cols) {
		hint := ""
		if ok {
			hint = fmt.Sprintf("; it is %s.parquet (--table %s, or leave --table out)", found.name, found.name)
		}
		return &ErrReadExport{Err: fmt.Errorf("%s is not a %s table: its columns (%s) are not %s.parquet's%s", path, table, strings.Join(cols, ", "), table, hint)}
	}
	return t.export(w, format, path)
}

// ParquetColumns are the top-level columns of a Parquet file, in order. A
// damaged file is an error naming it.
func ParquetColumns(path string) (cols []string, err error) {
	defer func() {
		if p := recover(); p != nil {
			cols, err = nil, fmt.Errorf("read %s: damaged Parquet file (%v)", path, p)
		}
	}()
	f, pf, _, err := openParquet(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	for _, fl := range pf.Schema().Fields() {
		cols = append(cols, fl.Name())
	}
	return cols, nil
}

// ErrReadExport marks a file export could not read (an input error).
type ErrReadExport struct{ Err error }

func (e *ErrReadExport) Error() string { return e.Err.Error() }
func (e *ErrReadExport) Unwrap() error { return e.Err }

func exportFile[T any](w io.Writer, format, path string) error {
	rows, err := ReadParquet[T](path)
	if err != nil {
		return &ErrReadExport{Err: err}
	}
	return ExportRows(w, format, rows)
}
