package audit

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/claimaudit/claimaudit/metrics"
)

// randomOutcome fills every field of an outcome (fillRandom does not draw
// the int8 fields, classes and the fold, nor the names).
func randomOutcome(r *rand.Rand) metrics.Outcome {
	var o metrics.Outcome
	fillRandom(reflect.ValueOf(&o).Elem(), r, 0)
	o.Fold = int8(r.IntN(256) - 128)
	o.Gold, o.Predicted = metrics.Class(r.IntN(4)-1), metrics.Class(r.IntN(3))
	o.RuleLabel, o.VerifierLabel = metrics.Class(r.IntN(4)-1), metrics.Class(r.IntN(4)-1)
	name := func() metrics.Name {
		return metrics.NameOf([]string{"", "fact", "critical", "numeric_mismatch", "x\xff"}[r.IntN(5)])
	}
	o.Type, o.Importance, o.Rule = name(), name(), name()
	o.Tags = metrics.TagsName([]string{"numeric", "fact"}[:r.IntN(3)])
	return o
}

// An outcome spooled between decide+write and the reports comes back
// equal, field for field (nil and empty ranks and metadata kept apart,
// invalid UTF-8 kept as it was, negative zero kept): a field added to
// metrics.Outcome that the codec does not write fails this test.
func TestOutcomeCodecRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	seen := map[string]bool{}
	for i := range 3000 {
		o := randomOutcome(r)
		v := reflect.ValueOf(o)
		for f := range v.NumField() {
			if !v.Field(f).IsZero() {
				seen[v.Type().Field(f).Name] = true
			}
		}
		var c spoolCodec
		c.outcome(&o)
		d := spoolCodec{b: c.b}
		var got metrics.Outcome
		d.readOutcome(&got, interner{})
		require.NoError(t, d.err)
		require.Empty(t, d.b, "case %d: bytes left over", i)
		require.Equal(t, o, got, "case %d", i)
		for k := range o.Logits {
			require.Equal(t, math.Float64bits(o.Logits[k]), math.Float64bits(got.Logits[k]))
		}
		require.Equal(t, math.Float64bits(o.LatencyMS), math.Float64bits(got.LatencyMS))
	}
	v := reflect.ValueOf(metrics.Outcome{})
	for f := range v.NumField() {
		require.True(t, seen[v.Type().Field(f).Name], "field %s never filled", v.Type().Field(f).Name)
	}
}

// The spool file gives the outcomes back in order, as one slice of the
// run's length whose repeated strings share one copy; a damaged record is
// an error naming it.
func TestOutcomeSpoolLoad(t *testing.T) {
	s, err := newOutcomeSpool(t.TempDir())
	require.NoError(t, err)
	defer s.remove()
	r := rand.New(rand.NewPCG(9, 10))
	var want []metrics.Outcome
	for range 500 {
		o := randomOutcome(r)
		o.Source = "out-1"
		want = append(want, o)
		require.NoError(t, s.add(&o))
	}
	got, err := s.load(context.Background())
	require.NoError(t, err)
	require.Len(t, got, 500)
	require.Equal(t, 500, cap(got))
	require.Equal(t, want, got)
	require.Equal(t, unsafe.StringData(got[0].Source), unsafe.StringData(got[499].Source), "one copy of a repeated string")

	require.NoError(t, s.w.Flush())
	st, err := s.f.Stat()
	require.NoError(t, err)
	require.NoError(t, s.f.Truncate(st.Size()-2))
	_, err = s.load(context.Background())
	require.ErrorContains(t, err, "read outcome spool: record 499")
}
