package numeric

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseQuantity(t *testing.T) {
	tests := []struct {
		in    string
		kind  Kind
		value float64
		unit  string
		scale float64
	}{
		{"5.7", KindNumber, 5.7, "", 1},
		{"5,700", KindNumber, 5700, "", 1},
		{"1.5K", KindNumber, 1500, "", 1e3},
		{"2M", KindNumber, 2e6, "", 1e6},
		{"3.2B", KindNumber, 3.2e9, "", 1e9},
		{"1.5 thousand", KindNumber, 1500, "", 1e3},
		{"2 million", KindNumber, 2e6, "", 1e6},
		{"two million", KindNumber, 2e6, "", 1e6},
		{"12%", KindPercent, 12, "%", 1},
		{"12 percent", KindPercent, 12, "%", 1},
		{"0.12", KindNumber, 0.12, "", 1},
		{".5", KindNumber, 0.5, "", 1},
		{"$29", KindMoney, 29, "dollars", 1},
		{"$29/user", KindMoney, 29, "dollars", 1},
		{"$1.9 billion", KindMoney, 1.9e9, "dollars", 1e9},
		{"3x", KindMultiplier, 3, "x", 1},
		{"3x faster", KindMultiplier, 3, "x", 1},
		{"2021", KindYear, 2021, "year", 1},
		{"2021-07-01", KindDate, 2021, "year", 0},
		{"one third", KindRatio, 1.0 / 3, "", 0},
		{"1/3", KindRatio, 1.0 / 3, "", 0},
		{"under 100ms", KindNumber, 100, "ms", 1},
		{"48.2 million passengers", KindNumber, 48.2e6, "passengers", 1e6},
		{"25 built-in rules", KindNumber, 25, "built", 1},
		{"-3.5", KindNumber, -3.5, "", 1},
	}
	for _, tt := range tests {
		q, err := ParseQuantity(tt.in)
		require.NoError(t, err, tt.in)
		assert.Equal(t, tt.kind, q.Kind, tt.in)
		assert.InDelta(t, tt.value, q.Value, 1e-9*math.Max(1, math.Abs(tt.value)), tt.in)
		assert.Equal(t, tt.unit, q.Unit, tt.in)
		if tt.scale != 0 {
			assert.Equal(t, tt.scale, q.Scale, tt.in)
		}
	}
}

func TestParseRanges(t *testing.T) {
	for _, tt := range []struct {
		in     string
		lo, hi float64
		unit   string
	}{
		{"85-95%", 85, 95, "%"},
		{"10–20", 10, 20, ""},
		{"10 to 20", 10, 20, ""},
		{"1.5-2M", 1.5e6, 2e6, ""},
		{"$10-$20", 10, 20, "dollars"},
	} {
		q, err := ParseQuantity(tt.in)
		require.NoError(t, err, tt.in)
		assert.Equal(t, KindRange, q.Kind, tt.in)
		assert.Equal(t, tt.lo, q.Lo, tt.in)
		assert.Equal(t, tt.hi, q.Hi, tt.in)
		assert.Equal(t, tt.unit, q.Unit, tt.in)
	}
}

func TestParseQualifier(t *testing.T) {
	q, err := ParseQuantity("about 5.8")
	require.NoError(t, err)
	assert.Equal(t, "about", q.Qualifier)
	assert.Equal(t, 5.8, q.Value)
	q, err = ParseQuantity("~40%")
	require.NoError(t, err)
	assert.Equal(t, "~", q.Qualifier)
}

func TestParseRejects(t *testing.T) {
	for _, in := range []string{"", "n/a", "lots", "v1.0x", "20-10", "1/0", "about"} {
		_, err := ParseQuantity(in)
		assert.ErrorIs(t, err, ErrNotNumeric, "%q", in)
	}
}

func FuzzParseQuantity(f *testing.F) {
	for _, s := range []string{"5.7", "1.5K", "85-95%", "$29", "one third", "2021-07-01", "about 3x", "1,2,3", "--5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := ParseQuantity(s)
		if err != nil {
			return
		}
		if math.IsNaN(q.Value) {
			t.Fatalf("%q parsed to NaN", s)
		}
		// parse(format(x)) round-trips the value, kind and unit.
		back, err := ParseQuantity(FormatQuantity(q))
		if err != nil {
			t.Fatalf("%q → %q does not parse: %v", s, FormatQuantity(q), err)
		}
		if back.Kind != q.Kind && !(q.Kind == KindRatio && back.Kind == KindNumber) {
			t.Fatalf("%q → %q: kind %s became %s", s, FormatQuantity(q), q.Kind, back.Kind)
		}
		if !Equal(back.Value, q.Value) {
			t.Fatalf("%q → %q: value %v became %v", s, FormatQuantity(q), q.Value, back.Value)
		}
	})
}

func FuzzFormatRoundTrip(f *testing.F) {
	f.Add(5.7, uint8(0))
	f.Add(-1e-7, uint8(1))
	f.Add(1234567.0, uint8(2))
	f.Fuzz(func(t *testing.T, v float64, k uint8) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return
		}
		kinds := []Kind{KindNumber, KindPercent, KindMoney, KindMultiplier}
		kind := kinds[int(k)%len(kinds)]
		if kind != KindNumber && v < 0 {
			v = -v
		}
		q := Quantity{Kind: kind, Value: v}
		s := FormatQuantity(q)
		back, err := ParseQuantity(s)
		if err != nil {
			t.Fatalf("%v as %q: %v", v, s, err)
		}
		if !Equal(back.Value, v) {
			t.Fatalf("%v → %q → %v", v, s, back.Value)
		}
	})
}
