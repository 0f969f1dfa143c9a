package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/claimaudit/claimaudit/reports"
	"github.com/rogpeppe/go-internal/txtar"
)

// TestRuleCases runs the labelling rules' case suite (rules/testdata/cases):
// each case is a small corpus, claims, and the label (and flags) the
// labelling rules give each claim. Every case runs with the lexical
// verifier and, when ORT_LIB names ONNX Runtime (make test fetches it),
// with the shipped onnx model: the rules must give the same labels
// whichever verifier ran. AUDIT_BIN runs another audit binary instead of
// this one (how the cases were shown to fail on the code before them).
//
// A case file holds corpus.jsonl, claims.jsonl, optionally spans.jsonl and
// args (extra run flags, one per line), and want: one line per claim,
// "ID LABEL [FLAGS]" — LABEL a label, "~label" (the verifier's own label,
// no rule deciding: that label with the lexical verifier) or "*" (the
// verifier's own label, whatever it is); FLAGS comma-separated, "-" for
// none, left out when the flags are not checked.
func TestRuleCases(t *testing.T) {
	files, err := filepath.Glob("../../rules/testdata/cases/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no rule cases: %v", err)
	}
	verifiers := [][]string{{"--verifier", "lexical"}}
	if os.Getenv("ORT_LIB") != "" {
		verifiers = append(verifiers, []string{"--verifier", "onnx", "--model", "../../models/minilm-l6-verifier"})
	} else {
		t.Log("ORT_LIB not set: the cases run with the lexical verifier only (make test runs both)")
	}
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		for _, v := range verifiers {
			t.Run(name+"/"+v[1], func(t *testing.T) { runRuleCase(t, ar, v) })
		}
	}
}

func runRuleCase(t *testing.T, ar *txtar.Archive, verifier []string) {
	dir := t.TempDir()
	files := map[string]string{}
	for _, f := range ar.Files {
		files[f.Name] = string(f.Data)
		if strings.HasSuffix(f.Name, ".jsonl") {
			if err := os.WriteFile(filepath.Join(dir, f.Name), f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	out := filepath.Join(dir, "out")
	args := []string{"run", "--corpus", filepath.Join(dir, "corpus.jsonl"), "--claims", filepath.Join(dir, "claims.jsonl"),
		"--out", out, "--log-level", "error"}
	if _, ok := files["spans.jsonl"]; ok {
		args = append(args, "--spans", filepath.Join(dir, "spans.jsonl"))
	}
	args = append(args, strings.Fields(files["args"])...)
	args = append(args, verifier...)
	var stdout, stderr bytes.Buffer
	if bin := os.Getenv("AUDIT_BIN"); bin != "" {
		cmd := exec.Command(bin, args...)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s %v: %v\n%s", bin, args, err, stderr.String())
		}
	} else if code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("audit %v: exit %d\n%s", args, code, stderr.String())
	}
	recs, err := reports.ReadParquet[reports.Record](filepath.Join(out, "records.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]reports.Record{}
	for _, r := range recs {
		byID[r.ClaimID] = r
	}
	lines := 0
	for _, line := range strings.Split(files["want"], "\n") {
		fs := strings.Fields(line)
		if len(fs) == 0 || strings.HasPrefix(fs[0], "#") {
			continue
		}
		lines++
		r, ok := byID[fs[0]]
		if !ok {
			t.Errorf("claim %s: no record", fs[0])
			continue
		}
		got := "undecided"
		if r.PredictedLabel != nil {
			got = *r.PredictedLabel
		}
		decided := ""
		if r.DecidedBy != nil {
			decided = *r.DecidedBy
		}
		// "~L": the verifier's own label, no rule deciding — L with the
		// lexical verifier, whatever another verifier said; "*": the
		// verifier's own label, whatever it is.
		want, own := strings.CutPrefix(fs[1], "~")
		if want == "*" {
			own, want = true, got
		}
		switch {
		case own && strings.HasPrefix(decided, "rule:"):
			t.Errorf("claim %s (%q): decided by %s (%s, flags %v), want the verifier's own label", fs[0], r.Text, decided, got, r.Flags)
		case (!own || verifier[1] == "lexical") && got != want:
			t.Errorf("claim %s (%q): %s (decided by %s, flags %v), want %s", fs[0], r.Text, got, decided, r.Flags, want)
		}
		if len(fs) > 2 {
			want := []string{}
			if fs[2] != "-" {
				want = strings.Split(fs[2], ",")
			}
			var gotFlags []string
			for _, f := range r.Flags {
				if !strings.HasPrefix(f, "evidence_age=") || slices.ContainsFunc(want, func(w string) bool { return strings.HasPrefix(w, "evidence_age=") }) {
					gotFlags = append(gotFlags, f)
				}
			}
			slices.Sort(gotFlags)
			slices.Sort(want)
			if !slices.Equal(gotFlags, want) && !(len(gotFlags) == 0 && len(want) == 0) {
				t.Errorf("claim %s (%q): flags %v, want %v", fs[0], r.Text, r.Flags, want)
			}
		}
	}
	if lines == 0 {
		t.Fatal("the case names no claim in want")
	}
}
