package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// fakeAudit is a stand-in binary: "run" prints a terminal table and a
// time line, and writes out/metrics.jsonl; "export DIR --table metrics"
// prints it.
const fakeAudit = `#!/bin/sh
case "$1" in
run)
  mkdir -p "$3"
  printf '%s\n' '{"metric":"accuracy","slice":"all","stage":"calibrated","value":0.8483}' '{"metric":"accuracy","slice":"all","stage":"raw","value":0.5}' \
    '{"metric":"rule_a_count","slice":"all","stage":"calibrated","value":40}' '{"metric":"rule_b_count","slice":"all","stage":"calibrated","value":2}' \
    '{"metric":"rule_b_count","slice":"all","stage":"raw","value":7}' '{"metric":"rule_b_count","slice":"x=1","stage":"calibrated","value":9}' > "$3/metrics.jsonl"
  echo "600 claims → $3"
  echo "┌──────────┬───────┐"
  echo "│  metric  │ value │"
  echo "├──────────┼───────┤"
  echo "│ accuracy │ $ACC │"
  echo "└──────────┴───────┘"
  echo "time: 0.12s" ;;
export) cat "$2/metrics.jsonl" ;;
*) exit 3 ;;
esac
`

const readme = `# title

<!-- figures
{{$d := audit "demo" "run --out 'demo out'"}}
` + "```" + `
{{box $d.Stdout "accuracy"}}
` + "```" + `
-->
%s
<!-- /figures -->

Prose.

<!-- figures
Accuracy is {{f3 (metric (ran "demo") "demo out" "accuracy")}} ({{row (ran "demo").Stdout "claims →"}}); rules decided {{int (total (ran "demo") "demo out" "rule_.*_count")}}.
-->
Accuracy is %s (600 claims → demo out); rules decided 42.
<!-- /figures -->
`

func table(acc string) string {
	return "```\n┌──────────┬───────┐\n│  metric  │ value │\n├──────────┼───────┤\n│ accuracy │ " + acc + " │\n└──────────┴───────┘\n```"
}

func setup(t *testing.T, quoted, acc string) (bin, md string) {
	t.Helper()
	dir := t.TempDir()
	bin = filepath.Join(dir, "audit")
	if err := os.WriteFile(bin, []byte(fakeAudit), 0o755); err != nil {
		t.Fatal(err)
	}
	md = filepath.Join(dir, "README.md")
	if err := os.WriteFile(md, []byte(strings.Replace(strings.Replace(readme, "%s", table(quoted), 1), "%s", quoted, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("ACC", acc)
	return bin, md
}

func TestFiguresHold(t *testing.T) {
	bin, md := setup(t, "0.848", "0.848")
	var out, errOut bytes.Buffer
	if code := run([]string{"-bin", bin, md}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errOut.String())
	}
	if !strings.Contains(out.String(), "the 2 regions' figures are what") {
		t.Errorf("output: %s", out.String())
	}
}

func TestFiguresDrift(t *testing.T) {
	bin, md := setup(t, "0.848", "0.700")
	before, _ := os.ReadFile(md)
	var out, errOut bytes.Buffer
	if code := run([]string{"-bin", bin, md}, &out, &errOut); code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", code, out.String(), errOut.String())
	}
	for _, want := range []string{"-│ accuracy │ 0.848 │", "+│ accuracy │ 0.700 │", "make readme-figures UPDATE=1"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the diff lacks %q:\n%s", want, out.String())
		}
	}
	// The metric comes from the file the run wrote, not the table: it
	// still holds, so its line is not in the diff.
	if strings.Contains(out.String(), "-Accuracy is") {
		t.Errorf("the prose figure did not drift, yet is in the diff:\n%s", out.String())
	}
	if after, _ := os.ReadFile(md); !bytes.Equal(before, after) {
		t.Error("a check rewrote the file")
	}

	out.Reset()
	if code := run([]string{"-bin", bin, "-update", md}, &out, &errOut); code != 0 {
		t.Fatalf("-update: exit %d\n%s", code, errOut.String())
	}
	after, _ := os.ReadFile(md)
	if !strings.Contains(string(after), table("0.700")) || !strings.Contains(string(after), "{{box $d.Stdout") {
		t.Errorf("-update wrote:\n%s", after)
	}
	out.Reset()
	if code := run([]string{"-bin", bin, md}, &out, &errOut); code != 0 {
		t.Errorf("after -update: exit %d\n%s", code, out.String())
	}
}

func TestTemplateErrors(t *testing.T) {
	for name, text := range map[string]string{
		"ran before audit":  "<!-- figures\n{{(ran \"demo\").Stdout}}\n-->\nx\n<!-- /figures -->\n",
		"unclosed template": "<!-- figures\n{{1}}\n",
		"no end marker":     "<!-- figures\n{{1}}\n-->\nx\n",
		"failed command":    "<!-- figures\n{{(audit \"x\" \"frobnicate\").Stdout}}\n-->\nx\n<!-- /figures -->\n",
	} {
		t.Run(name, func(t *testing.T) {
			bin, md := setup(t, "0.848", "0.848")
			if err := os.WriteFile(md, []byte("# t\n\n"+text), 0o644); err != nil {
				t.Fatal(err)
			}
			var out, errOut bytes.Buffer
			if code := run([]string{"-bin", bin, md}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "README.md:3") {
				t.Errorf("exit %d, stderr %q: want 2 naming README.md:3", code, errOut.String())
			}
		})
	}
}

func TestSplitAndElided(t *testing.T) {
	got, err := split("run --out 'demo out' --fail-on 'a>b,c<d' \\\n  --k 5")
	if err != nil || !reflect.DeepEqual(got, []string{"run", "--out", "demo out", "--fail-on", "a>b,c<d", "--k", "5"}) {
		t.Errorf("split: %q, %v", got, err)
	}
	if _, err := split("run 'open"); err == nil {
		t.Error("an unterminated quote split")
	}
	if got := elided("│ accuracy │ 0.848 │"); got != "│ ...      │       │" {
		t.Errorf("elided: %q", got)
	}
}
