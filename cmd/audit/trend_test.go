package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claimaudit/claimaudit/reports"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTrendOverElevenRuns: ten nightly runs of one generated set with
// different seeds and settings, then an eleventh whose gold labels were
// corrupted (every other label rotated: a planted accuracy drop). trend
// writes one trend.parquet row per metrics.parquet row of every run, flags
// the eleventh run's accuracy, and its drop gate fails while a looser one
// passes.
func TestTrendOverElevenRuns(t *testing.T) {
	dir := t.TempDir()
	cli := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := run(context.Background(), args, strings.NewReader(""), &out, &errOut)
		return code, out.String(), errOut.String()
	}
	data, index, nightly := filepath.Join(dir, "d"), filepath.Join(dir, "index"), filepath.Join(dir, "nightly")
	code, _, stderr := cli("gen", "--out", data, "--claims", "60", "--docs", "40", "--seed", "11")
	require.Equal(t, exitOK, code, stderr)
	settings := [][]string{{"--seed", "1"}, {"--seed", "2"}, {"--seed", "3", "--k", "4"}, {"--seed", "4"}, {"--seed", "5", "--abstain-below", "0.35"},
		{"--seed", "6"}, {"--seed", "7", "--k", "6"}, {"--seed", "8"}, {"--seed", "9", "--abstain-below", "0.3"}, {"--seed", "10"}}
	gold := filepath.Join(data, "gold.jsonl")
	runDirs := []string{}
	for i := 0; i < 11; i++ {
		extra := []string{"--seed", "11"}
		if i < len(settings) {
			extra = settings[i]
		} else {
			gold = corruptGold(t, gold, filepath.Join(dir, "bad-gold.jsonl"))
		}
		out := filepath.Join(nightly, fmt.Sprintf("run-%02d", i+1))
		args := append([]string{"run", "--corpus", filepath.Join(data, "corpus.jsonl"), "--spans", filepath.Join(data, "spans.jsonl"),
			"--claims", filepath.Join(data, "claims.jsonl"), "--gold", gold, "--index", index, "--out", out, "--log-level", "warn"}, extra...)
		code, _, stderr := cli(args...)
		require.Equal(t, exitOK, code, "run %d: %s", i+1, stderr)
		runDirs = append(runDirs, out)
	}

	// The eleventh run's gold file differs: refused as audit diff refuses
	// it, unless --allow-different-inputs.
	code, _, refusal := cli("trend", nightly, "--out", filepath.Join(dir, "refused"))
	require.Equal(t, exitInput, code, refusal)
	assert.Contains(t, refusal, "inputs differ")
	assert.Contains(t, refusal, "run-01 against the latest")
	assert.NoDirExists(t, filepath.Join(dir, "refused"))

	trendDir := filepath.Join(dir, "trend")
	code, stdout, stderr := cli("trend", nightly, "--out", trendDir, "--fail-on", "accuracy.drop>0.02", "--allow-different-inputs")
	require.Equal(t, exitGate, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	assert.Contains(t, stderr, "gate failed: accuracy.drop>0.02")

	wantRows := 0
	for _, d := range runDirs {
		rows, err := reports.ReadParquet[reports.MetricRow](filepath.Join(d, "metrics.parquet"))
		require.NoError(t, err)
		wantRows += len(rows)
	}
	rows, err := reports.ReadParquet[reports.TrendRow](filepath.Join(trendDir, "trend.parquet"))
	require.NoError(t, err)
	assert.Equal(t, wantRows, len(rows), "one trend row per metrics row of every run")
	instances := map[string]bool{}
	var acc []reports.TrendRow
	for _, r := range rows {
		instances[r.RunInstance] = true
		if r.Metric == "accuracy" && r.Slice == "all" && r.Stage == reports.StageCalibrated {
			acc = append(acc, r)
		}
	}
	assert.Len(t, instances, 11, "each run its own run_instance")
	require.Len(t, acc, 11)
	last := acc[10]
	assert.Equal(t, filepath.Join(nightly, "run-11"), last.Run, "ordered by started_at")
	require.NotNil(t, last.BandLow)
	assert.True(t, last.Flagged, "the corrupted run's accuracy %v leaves the band [%v, %v]", *last.Value, *last.BandLow, *last.BandHigh)
	assert.Less(t, *last.Value, *last.BandLow)
	for _, f := range []string{"trend.html", "trend_accuracy.png", "trend_accuracy.svg", "trend_ece_10.png"} {
		_, err := os.Stat(filepath.Join(trendDir, f))
		assert.NoError(t, err, f)
	}
	page, err := os.ReadFile(filepath.Join(trendDir, "trend.html"))
	require.NoError(t, err)
	assert.Contains(t, string(page), "accuracy <small>(lower is worse)</small> — 1 run(s) worse")

	code, _, stderr = cli("trend", nightly, "--out", filepath.Join(dir, "trend2"), "--fail-on", "accuracy.drop>0.9", "--allow-different-inputs")
	assert.Equal(t, exitOK, code, stderr)
	code, _, _ = cli("trend", nightly, "--out", filepath.Join(dir, "trend3"), "--fail-on", "acuracy.drop>0.1", "--allow-different-inputs")
	assert.Equal(t, exitInput, code, "an unknown metric is a usage error")
}

// corruptGold writes src with every other label rotated to the next label.
func corruptGold(t *testing.T, src, dst string) string {
	f, err := os.Open(src)
	require.NoError(t, err)
	defer f.Close()
	next := map[string]string{"supported": "unsupported", "unsupported": "insufficient", "insufficient": "supported"}
	var b strings.Builder
	sc := bufio.NewScanner(f)
	for i := 0; sc.Scan(); i++ {
		var g map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &g))
		if i%2 == 0 {
			g["label"] = next[g["label"].(string)]
		}
		line, err := json.Marshal(g)
		require.NoError(t, err)
		b.Write(append(line, '\n'))
	}
	require.NoError(t, os.WriteFile(dst, []byte(b.String()), 0o644))
	return dst
}
