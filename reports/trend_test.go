package reports

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func trendRun(id string, day int, acc float64) TrendRun {
	v := acc
	return TrendRun{Dir: id, RunID: "cfg", Instance: Instance{ID: id, StartedAt: time.Date(2026, 5, day, 2, 0, 0, 0, time.UTC)},
		Rows: []MetricRow{{Metric: "accuracy", Slice: "all", Stage: StageCalibrated, Value: &v}}}
}

// The band is the lowest and highest of the previous runs (from three of
// them), and the drop gate compares the latest with their median.
func TestTrendBandAndDropGate(t *testing.T) {
	runs := []TrendRun{trendRun("e", 5, 0.60), trendRun("a", 1, 0.70), trendRun("c", 3, 0.72), trendRun("b", 2, 0.71), trendRun("d", 4, 0.705)}
	tab := Trend(runs, TrendOptions{})
	s := tab.Series("accuracy", "all", StageCalibrated)
	require.Len(t, s, 5)
	for i, id := range []string{"a", "b", "c", "d", "e"} {
		assert.Equal(t, id, s[i].RunInstance, "ordered by started_at")
	}
	assert.Nil(t, s[2].BandLow, "two previous runs make no band")
	assert.False(t, s[3].Flagged, "0.705 is inside [0.70, 0.72]")
	assert.InDelta(t, 0.70, *s[4].BandLow, 1e-12)
	assert.True(t, s[4].Flagged)

	gates, err := ParseTrendGates("accuracy.drop>0.02, accuracy.rise>0, accuracy[type=numeric].drop>0.1")
	require.NoError(t, err)
	res := tab.Check(gates, StageCalibrated)
	assert.InDelta(t, 0.7075-0.60, res[0].Value, 1e-12, "median of 0.70, 0.71, 0.72, 0.705")
	assert.True(t, res[0].Failed)
	assert.False(t, res[1].Failed)
	assert.True(t, res[2].Undefined && res[2].Failed, "a slice no run has fails, saying why")
	assert.Contains(t, res[2].Reason, "no run has accuracy in slice type=numeric")

	for _, bad := range []string{"accuracy>0.2", "acuracy.drop>0.1", "accuracy.fall>0.1", "accuracy.drop>x"} {
		_, err := ParseTrendGates(bad)
		assert.Error(t, err, bad)
	}
}

func TestFormatMetric(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	for _, c := range []struct {
		name   string
		v      *float64
		signed bool
		want   string
	}{
		{"n", f(50000), false, "50000"}, {"pred_count_supported", f(11130), true, "+11130"}, {"accuracy", f(5.551e-17), true, "0"},
		{"accuracy", f(-0.0123), true, "-0.012"}, {"accuracy", nil, false, "—"}, {"accuracy", f(math.NaN()), false, "—"},
		{"mcnemar_p", f(3e-10), false, "< 0.001"}, {"mcnemar_p", f(1), false, "1"}, {"temperature", f(0.5157), false, "0.516"},
	} {
		assert.Equal(t, c.want, FormatMetric(c.name, c.v, c.signed), "%s %v", c.name, c.v)
	}
}

func TestUnknownMetricSuggests(t *testing.T) {
	_, err := ParseGates("acuracy<0.9")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `unknown metric "acuracy": did you mean "accuracy"?`)
	_, err = ParseGates("tier1_fa_conditonal>0.1")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `did you mean "tier1_fa_conditional"?`)
	_, err = ParseGates("zzzzzz>1")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "(known: n, answered", "no close name: every name")
}

func trendRunOf(id string, day int, metric string, v float64, ci *[2]float64, corpus string) TrendRun {
	r := TrendRun{Dir: id, RunID: "cfg", Instance: Instance{ID: id, StartedAt: time.Date(2026, 5, day, 2, 0, 0, 0, time.UTC)},
		Rows:     []MetricRow{{Metric: metric, Slice: "all", Stage: StageCalibrated, Value: &v}},
		Manifest: &Manifest{Inputs: []InputFile{{Role: "corpus", SHA256: corpus}}}}
	if ci != nil {
		r.Rows[0].CILow, r.Rows[0].CIHigh = &ci[0], &ci[1]
	}
	return r
}

// A run that leaves the band the better way is not flagged (it is marked
// improved); the worse way is; a metric with no better direction is
// flagged either way; and the .worse gate reads the metric's direction.
func TestTrendFlagsOnlyTheWorseWay(t *testing.T) {
	series := func(metric string, last float64) TrendRow {
		runs := []TrendRun{trendRunOf("a", 1, metric, 0.70, nil, "x"), trendRunOf("b", 2, metric, 0.71, nil, "x"),
			trendRunOf("c", 3, metric, 0.72, nil, "x"), trendRunOf("d", 4, metric, last, nil, "x")}
		s := Trend(runs, TrendOptions{}).Series(metric, "all", StageCalibrated)
		return s[3]
	}
	up := series("accuracy", 0.80)
	assert.False(t, up.Flagged, "accuracy above the band is better")
	assert.True(t, up.Improved)
	down := series("accuracy", 0.60)
	assert.True(t, down.Flagged)
	assert.False(t, down.Improved)
	ece := series("ece_10", 0.80)
	assert.True(t, ece.Flagged, "ECE above the band is worse")
	assert.True(t, series("ece_10", 0.60).Improved)
	temp := series("temperature", 0.80)
	assert.True(t, temp.Flagged, "no better direction: flagged either way")
	assert.True(t, series("temperature", 0.60).Flagged)

	runs := []TrendRun{trendRunOf("a", 1, "aurc", 0.20, nil, "x"), trendRunOf("b", 2, "aurc", 0.20, nil, "x"), trendRunOf("c", 3, "aurc", 0.25, nil, "x")}
	gates, err := ParseTrendGates("aurc.worse>0.01,accuracy.worse>0.01")
	require.NoError(t, err)
	res := Trend(runs, TrendOptions{}).Check(gates, StageCalibrated)
	assert.InDelta(t, 0.05, res[0].Value, 1e-12, "AURC rose: worse by 0.05")
	assert.True(t, res[0].Failed)
	_, err = ParseTrendGates("temperature.worse>0")
	assert.ErrorContains(t, err, "no worse direction")
	assert.Equal(t, LowerIsWorse, WorseWay("accuracy"))
	assert.Equal(t, HigherIsWorse, WorseWay("tier1_fa_of_gold_negatives"))
	assert.Equal(t, EitherWay, WorseWay("pred_rate_supported"))
}

// Identical earlier runs make a band of zero width: a change within the
// latest run's own 95% interval is not flagged; one whose interval is
// clear of the band is.
func TestTrendZeroWidthBandNeedsMoreThanNoise(t *testing.T) {
	ci := func(lo, hi float64) *[2]float64 { return &[2]float64{lo, hi} }
	runs := []TrendRun{trendRunOf("a", 1, "accuracy", 0.85, ci(0.82, 0.88), "x"), trendRunOf("b", 2, "accuracy", 0.85, ci(0.82, 0.88), "x"),
		trendRunOf("c", 3, "accuracy", 0.85, ci(0.82, 0.88), "x"), trendRunOf("d", 4, "accuracy", 0.84, ci(0.81, 0.87), "x"),
		trendRunOf("e", 5, "accuracy", 0.70, ci(0.66, 0.74), "x")}
	s := Trend(runs, TrendOptions{}).Series("accuracy", "all", StageCalibrated)
	assert.False(t, s[3].Flagged, "0.84 [0.81, 0.87] beside a band [0.85, 0.85]: noise")
	assert.True(t, s[4].Flagged, "0.70 [0.66, 0.74] is clear of the band")
}

// Runs over other inputs than the latest's are named, as audit diff
// refuses them.
func TestTrendInputDifferences(t *testing.T) {
	runs := []TrendRun{trendRunOf("a", 1, "accuracy", 0.8, nil, "x"), trendRunOf("b", 2, "accuracy", 0.8, nil, "y"), trendRunOf("c", 3, "accuracy", 0.8, nil, "y")}
	d := Trend(runs, TrendOptions{}).InputDifferences()
	require.Len(t, d, 1)
	assert.Contains(t, d[0], "a against the latest, c: corpus sha256")
	same := []TrendRun{trendRunOf("a", 1, "accuracy", 0.8, nil, "y"), trendRunOf("b", 2, "accuracy", 0.8, nil, "y")}
	assert.Empty(t, Trend(same, TrendOptions{}).InputDifferences())
}

// diff's warnings name settings as the command line does: the flag, values
// as typed, a duration without trailing zero units; a --rules change does
// not also warn of the stale rule's own setting.
func TestSettingsDiffSpeaksFlags(t *testing.T) {
	a := RunSettings{K: 5, AbstainBelow: 0.6, Rules: []string{"hedge", "stale"}, MaxEvidenceAge: "8760h0m0s"}
	b := RunSettings{K: 5}
	assert.Equal(t, []string{"--abstain-below differs: 0.6 in A, 0 in B", "--rules differs: hedge,stale in A, not set in B"}, settingsDiff(a, b))
	b.Rules = a.Rules
	b.MaxEvidenceAge = "720h0m0s"
	b.AbstainBelow = 0.6
	assert.Equal(t, []string{"--max-evidence-age differs: 8760h in A, 720h in B"}, settingsDiff(a, b))
}
