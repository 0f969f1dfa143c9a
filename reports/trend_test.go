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
