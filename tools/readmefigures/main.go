// Command readmefigures keeps the figures a Markdown file quotes from the
// demo true: it reruns the commands the file shows and compares what the
// binary prints (terminal tables, counts, rates, records) with the text.
//
//	readmefigures -bin bin/audit [-update] README.md
//
// A figure lives in a region whose template sits in an HTML comment just
// above it (the comment is invisible where the Markdown is rendered):
//
//	<!-- figures
//	The run decided {{int (metric $d "n")}} claims.
//	-->
//	The run decided 600 claims.
//	<!-- /figures -->
//
// Every region is rendered with text/template, the template's variables
// shared by the regions that follow in the file (a region may use a run an
// earlier one started). Without -update the command prints a unified diff
// of the file against its rendering and exits 1 when any region drifted;
// with -update it rewrites the file. Functions:
//
//	audit "ARGS"             run the binary with ARGS (split as a shell would
//	                         split words in single quotes) in a scratch folder
//	                         that links the repository's top-level entries;
//	                         the same ARGS run once; .Stdout, .Stderr, .Code
//	                         and .Dir (the scratch folder); exit 0 and 1 are
//	                         results, any other code an error
//	rows TEXT FROM TO        the lines of TEXT from the first matching the
//	                         regexp FROM to the next matching TO, inclusive
//	row TEXT RE              the first line of TEXT matching RE
//	find TEXT RE             RE's first group in TEXT
//	table RUN DIR NAME       the rows of DIR/NAME.parquet (DIR relative to
//	                         RUN's folder), read by 'audit export'
//	metric RUN DIR NAME      the calibrated value of metric NAME over all
//	                         claims in DIR/metrics.parquet
//	total RUN DIR RE         the sum of the metrics whose names RE matches
//	where ROWS KEY RE        the rows whose KEY prints as RE matches in full
//	box TEXT RE              the terminal table (┌ … └) holding the first
//	                         line matching RE
//	elided ROW               the table row with its cells blanked, "..." first
//	sum X...                 the numbers' sum
//	f3 X / int X / pct X     X with three decimals / as an integer / as a
//	                         percentage with one decimal (null prints —)
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"text/template"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("readmefigures", flag.ContinueOnError)
	fs.SetOutput(stderr)
	bin := fs.String("bin", "bin/audit", "the audit binary")
	update := fs.Bool("update", false, "rewrite the file with the figures the binary prints now")
	if err := fs.Parse(args); err != nil || fs.NArg() != 1 {
		fmt.Fprintln(stderr, "usage: readmefigures -bin BIN [-update] FILE.md")
		return 2
	}
	path := fs.Arg(0)
	src, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintln(stderr, "readmefigures:", err)
		return 2
	}
	absBin, err := filepath.Abs(*bin)
	if err != nil {
		fmt.Fprintln(stderr, "readmefigures:", err)
		return 2
	}
	scratch, err := os.MkdirTemp("", "readmefigures-")
	if err != nil {
		fmt.Fprintln(stderr, "readmefigures:", err)
		return 2
	}
	defer os.RemoveAll(scratch)
	r := &runner{bin: absBin, root: filepath.Dir(path), scratch: scratch, runs: map[string]*Result{}}
	got, n, err := render(string(src), path, r)
	if err != nil {
		fmt.Fprintln(stderr, "readmefigures:", err)
		return 2
	}
	if got == string(src) {
		fmt.Fprintf(stdout, "readmefigures: %s: the %d regions' figures are what %s prints\n", path, n, *bin)
		return 0
	}
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			fmt.Fprintln(stderr, "readmefigures:", err)
			return 2
		}
		fmt.Fprintf(stdout, "readmefigures: %s updated\n", path)
		return 0
	}
	fmt.Fprintf(stdout, "readmefigures: %s quotes figures %s no longer prints (- the file, + the binary):\n", path, *bin)
	fmt.Fprint(stdout, unifiedDiff(string(src), got))
	fmt.Fprintf(stdout, "readmefigures: run 'make readme-figures UPDATE=1' and commit %s\n", path)
	return 1
}

const (
	open  = "<!-- figures\n"
	start = "\n-->\n"
	end   = "<!-- /figures -->"
)

// render returns src with every region's text replaced by its template's
// rendering, and the number of regions.
func render(src, path string, r *runner) (string, int, error) {
	var out strings.Builder
	n := 0
	for {
		i := strings.Index(src, open)
		if i < 0 {
			out.WriteString(src)
			return out.String(), n, nil
		}
		line := 1 + strings.Count(out.String(), "\n") + strings.Count(src[:i], "\n")
		j := strings.Index(src[i:], start)
		if j < 0 {
			return "", n, fmt.Errorf("%s:%d: a figures template without its closing -->", path, line)
		}
		body := src[i+len(open) : i+j]
		rest := src[i+j+len(start):]
		k := strings.Index(rest, end)
		if k < 0 {
			return "", n, fmt.Errorf("%s:%d: a figures region without %s", path, line, end)
		}
		n++
		t, err := template.New(fmt.Sprintf("%s:%d", path, line)).Funcs(r.funcs()).Parse(body)
		if err != nil {
			return "", n, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		var b bytes.Buffer
		if err := t.Execute(&b, nil); err != nil {
			return "", n, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		text := strings.Trim(b.String(), "\n")
		out.WriteString(src[:i] + open + body + start + text + "\n" + end)
		src = rest[k+len(end):]
	}
}

// Result is one run of the binary.
type Result struct {
	Stdout, Stderr string
	Code           int
	Dir            string // the scratch folder it ran in
}

// runner runs the binary in a scratch folder linking the repository's
// top-level entries, so the paths a README shows (benchdata/demo/...)
// resolve and its outputs (demo-out) land in the scratch folder.
type runner struct {
	bin, root, scratch string
	runs               map[string]*Result
	linked             bool
}

func (r *runner) funcs() template.FuncMap {
	return template.FuncMap{
		"audit":  r.audit,
		"ran":    r.ran,
		"rows":   rows,
		"row":    row,
		"find":   find,
		"table":  r.table,
		"metric": r.metric,
		"total":  r.total,
		"where":  where,
		"box":    box,
		"elided": elided,
		"sum":    sum,
		"f3":     func(x any) (string, error) { return format(x, "%.3f") },
		"int":    func(x any) (string, error) { return format(x, "%.0f") },
		"pct":    func(x any) (string, error) { return format(times100(x), "%.1f") },
	}
}

// audit runs the binary with args once and names the result name.
func (r *runner) audit(name, args string) (*Result, error) {
	if res, ok := r.runs[name]; ok {
		return res, nil
	}
	if err := r.link(); err != nil {
		return nil, err
	}
	words, err := split(args)
	if err != nil {
		return nil, err
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(r.bin, words...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = r.scratch, &stdout, &stderr
	res := &Result{Dir: r.scratch}
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 {
			return nil, fmt.Errorf("audit %s: %v\n%s", args, err, stderr.String())
		}
		res.Code = 1
	}
	res.Stdout, res.Stderr = stdout.String(), stderr.String()
	r.runs[name] = res
	return res, nil
}

// ran is the result an earlier region named name.
func (r *runner) ran(name string) (*Result, error) {
	res, ok := r.runs[name]
	if !ok {
		return nil, fmt.Errorf("ran %q: no region before this one ran it", name)
	}
	return res, nil
}

func (r *runner) link() error {
	if r.linked {
		return nil
	}
	entries, err := os.ReadDir(r.root)
	if err != nil {
		return err
	}
	root, err := filepath.Abs(r.root)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if err := os.Symlink(filepath.Join(root, e.Name()), filepath.Join(r.scratch, e.Name())); err != nil {
			return err
		}
	}
	r.linked = true
	return nil
}

// split splits args into words at spaces; single quotes group words.
func split(args string) ([]string, error) {
	var words []string
	var w strings.Builder
	in, quoted := false, false
	for _, c := range args {
		switch {
		case c == '\'':
			quoted, in = !quoted, true
		case !quoted && (c == ' ' || c == '\n' || c == '\t' || c == '\\'):
			if in {
				words = append(words, w.String())
				w.Reset()
				in = false
			}
		default:
			w.WriteRune(c)
			in = true
		}
	}
	if quoted {
		return nil, fmt.Errorf("unterminated quote in %q", args)
	}
	if in {
		words = append(words, w.String())
	}
	return words, nil
}

func rows(text, from, to string) (string, error) {
	f, err := regexp.Compile(from)
	if err != nil {
		return "", err
	}
	t, err := regexp.Compile(to)
	if err != nil {
		return "", err
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if !f.MatchString(l) {
			continue
		}
		for j := i; j < len(lines); j++ {
			if t.MatchString(lines[j]) {
				return strings.Join(lines[i:j+1], "\n"), nil
			}
		}
		return "", fmt.Errorf("rows: no line after %q matches %q", from, to)
	}
	return "", fmt.Errorf("rows: no line matches %q", from)
}

func row(text, re string) (string, error) {
	x, err := regexp.Compile(re)
	if err != nil {
		return "", err
	}
	for _, l := range strings.Split(text, "\n") {
		if x.MatchString(l) {
			return l, nil
		}
	}
	return "", fmt.Errorf("row: no line matches %q", re)
}

func find(text, re string) (string, error) {
	x, err := regexp.Compile(re)
	if err != nil {
		return "", err
	}
	m := x.FindStringSubmatch(text)
	if len(m) < 2 {
		return "", fmt.Errorf("find: %q (with a group) does not match", re)
	}
	return m[1], nil
}

// table reads DIR/NAME.parquet of a run's folder with 'audit export'.
func (r *runner) table(res *Result, dir, name string) ([]map[string]any, error) {
	cmd := exec.Command(r.bin, "export", filepath.Join(res.Dir, dir), "--table", name, "--format", "jsonl")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("export %s %s: %v: %s", dir, name, err, stderr.String())
	}
	var out []map[string]any
	for _, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var m map[string]any
		if err := json.Unmarshal(l, &m); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

func (r *runner) metric(res *Result, dir, name string) (any, error) {
	ms, err := r.table(res, dir, "metrics")
	if err != nil {
		return nil, err
	}
	for _, m := range ms {
		if m["metric"] == name && m["slice"] == "all" && m["stage"] == "calibrated" {
			return m["value"], nil
		}
	}
	return nil, fmt.Errorf("metric %s: not in %s/metrics.parquet", name, dir)
}

// total is the sum of the calibrated values over all claims of every
// metric in DIR/metrics.parquet whose name RE matches in full (a rule added
// later is counted without a change to the template).
func (r *runner) total(res *Result, dir, re string) (float64, error) {
	x, err := regexp.Compile("^(?:" + re + ")$")
	if err != nil {
		return 0, err
	}
	ms, err := r.table(res, dir, "metrics")
	if err != nil {
		return 0, err
	}
	t, n := 0.0, 0
	for _, m := range ms {
		if name, _ := m["metric"].(string); x.MatchString(name) && m["slice"] == "all" && m["stage"] == "calibrated" {
			if v, ok := m["value"].(float64); ok {
				t += v
			}
			n++
		}
	}
	if n == 0 {
		return 0, fmt.Errorf("total %s: no metric in %s/metrics.parquet matches", re, dir)
	}
	return t, nil
}

// where is the rows whose KEY, printed, matches the regexp RE in full.
func where(rows []map[string]any, key, re string) ([]map[string]any, error) {
	x, err := regexp.Compile("^(?:" + re + ")$")
	if err != nil {
		return nil, err
	}
	var out []map[string]any
	for _, r := range rows {
		if x.MatchString(fmt.Sprint(r[key])) {
			out = append(out, r)
		}
	}
	return out, nil
}

// box is the terminal table (drawn with ┌ … └) holding the first line of
// text that matches re.
func box(text, re string) (string, error) {
	x, err := regexp.Compile(re)
	if err != nil {
		return "", err
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if !x.MatchString(l) {
			continue
		}
		top, bottom := i, i
		for top > 0 && !strings.HasPrefix(lines[top], "┌") {
			top--
		}
		for bottom < len(lines)-1 && !strings.HasPrefix(lines[bottom], "└") {
			bottom++
		}
		if !strings.HasPrefix(lines[top], "┌") || !strings.HasPrefix(lines[bottom], "└") {
			return "", fmt.Errorf("box: the line matching %q is in no table", re)
		}
		return strings.Join(lines[top:bottom+1], "\n"), nil
	}
	return "", fmt.Errorf("box: no line matches %q", re)
}

// elided is a table row with its cells blank but the first, "...": it
// stands for rows left out.
func elided(rowText string) string {
	cells := strings.Split(rowText, "│")
	for i := 1; i < len(cells)-1; i++ {
		n := len([]rune(cells[i]))
		fill := ""
		if i == 1 {
			fill = " ..."
		}
		cells[i] = fill + strings.Repeat(" ", max(0, n-len(fill)))
	}
	return strings.Join(cells, "│")
}

func sum(xs ...any) (float64, error) {
	t := 0.0
	for _, x := range xs {
		v, ok := x.(float64)
		if !ok {
			return 0, fmt.Errorf("sum: %v (%T) is not a number", x, x)
		}
		t += v
	}
	return t, nil
}

func times100(x any) any {
	if v, ok := x.(float64); ok {
		return 100 * v
	}
	return x
}

// format prints a number; null (undefined) prints as —, as the tables do.
func format(x any, verb string) (string, error) {
	switch v := x.(type) {
	case nil:
		return "—", nil
	case float64:
		if math.IsNaN(v) {
			return "—", nil
		}
		return fmt.Sprintf(verb, v), nil
	case int:
		return fmt.Sprintf(verb, float64(v)), nil
	}
	return "", fmt.Errorf("%v (%T) is not a number", x, x)
}

// unifiedDiff is diff -u of the file against its rendering; without diff,
// the first line that differs.
func unifiedDiff(a, b string) string {
	dir, err := os.MkdirTemp("", "readmefigures-diff-")
	if err == nil {
		defer os.RemoveAll(dir)
		pa, pb := filepath.Join(dir, "a"), filepath.Join(dir, "b")
		if os.WriteFile(pa, []byte(a), 0o644) == nil && os.WriteFile(pb, []byte(b), 0o644) == nil {
			out, _ := exec.Command("diff", "-u", "--label", "README (quoted)", "--label", "binary (prints)", pa, pb).Output()
			if len(out) > 0 {
				return string(out)
			}
		}
	}
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return fmt.Sprintf("line %d:\n- %s\n+ %s\n", i+1, la[i], lb[i])
		}
	}
	return fmt.Sprintf("%d lines against %d\n", len(la), len(lb))
}
