package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/claimaudit/claimaudit/metrics"
	"github.com/claimaudit/claimaudit/reports"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, v))
}

// The calibrated ECE `run` reports is the cross-fitted one `calibrate`
// measures on its records, and every record's calibrated probabilities
// come from its raw logits and the temperature of its fold, fitted without
// it.
func TestRunCalibrationIsOutOfSample(t *testing.T) {
	demo := "../../benchdata/demo/"
	dir := t.TempDir()
	out, cal := filepath.Join(dir, "out"), filepath.Join(dir, "cal")
	// A threshold of ~0 makes auto apply the temperature it fits.
	code, _, stderr := runBackends(t, defaultBackends(), "run", "--log-level", "warn", "--corpus", demo+"corpus.jsonl",
		"--spans", demo+"spans.jsonl", "--claims", demo+"claims.jsonl", "--gold", demo+"gold.jsonl", "--out", out,
		"--ece-threshold", "1e-9", "--seed", "7", "--json")
	require.Equal(t, exitOK, code, stderr)
	code, _, stderr = runBackends(t, defaultBackends(), "calibrate", "--records", filepath.Join(out, "records.parquet"),
		"--out", cal, "--seed", "7", "--json")
	require.Equal(t, exitOK, code, stderr)

	var summary struct {
		Metrics     map[string]*float64 `json:"metrics"`
		RawMetrics  map[string]*float64 `json:"raw_metrics"`
		Calibration struct {
			Applied string `json:"applied"`
		} `json:"calibration"`
	}
	readJSON(t, filepath.Join(out, "summary.json"), &summary)
	var fit struct {
		Before *float64 `json:"ece_10_before"`
		After  *float64 `json:"ece_10_after"`
	}
	readJSON(t, filepath.Join(cal, "calibration_fit.json"), &fit)
	require.Equal(t, reports.AppliedCrossFitted, summary.Calibration.Applied)
	require.NotNil(t, fit.After)
	assert.InDelta(t, *fit.After, *summary.Metrics["ece_10"], 1e-12, "run's calibrated ECE is calibrate's cross-fitted one")
	assert.InDelta(t, *fit.Before, *summary.RawMetrics["ece_10"], 1e-12)

	rs, err := reports.ReadParquet[reports.Record](filepath.Join(out, "records.parquet"))
	require.NoError(t, err)
	outs := make([]metrics.Outcome, len(rs))
	for i, r := range rs {
		outs[i] = reports.OutcomeOf(r)
	}
	cf := metrics.CrossFit(outs, metrics.CrossFitOptions{Seed: 7})
	require.True(t, cf.Fitted)
	temps := map[float64]bool{}
	for i, r := range rs {
		fold := metrics.FoldOf(r.ClaimID, 7, cf.K)
		require.NotNil(t, r.GoldLabel)
		assert.Equal(t, cf.Folds[fold].Temperature, r.Temperature, "claim %s: the T of its fold", r.ClaimID)
		assert.Equal(t, cf.PerOutcome[i], r.Temperature)
		temps[r.Temperature] = true
		if r.LogitSupported == nil {
			continue
		}
		p := metrics.Softmax([3]float64{*r.LogitSupported, *r.LogitUnsupp, *r.LogitInsuff}, r.Temperature)
		assert.InDelta(t, p[0], *r.PSupported, 1e-12)
		assert.InDelta(t, p[1], *r.PUnsupported, 1e-12)
		assert.InDelta(t, p[2], *r.PInsufficient, 1e-12)
	}
	assert.Len(t, temps, cf.K, "one temperature per fold, none fitted on all claims")
	assert.NotContains(t, temps, cf.Full, "no labelled claim is scaled by the T fitted on it")
}
