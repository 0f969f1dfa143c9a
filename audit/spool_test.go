package audit

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/claims"
	"github.com/claimaudit/claimaudit/metrics"
)

// fillRandom sets every settable field reachable from v (structs, pointers,
// slices, arrays, maps, strings, numbers, booleans) to random values,
// choosing nil, empty and non-empty for slices, maps and pointers, and
// strings that are sometimes empty or invalid UTF-8. Interfaces (error)
// are left nil.
func fillRandom(v reflect.Value, r *rand.Rand, depth int) {
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fillRandom(v.Field(i), r, depth)
			}
		}
	case reflect.Pointer:
		if r.IntN(3) == 0 || depth > 4 {
			v.SetZero()
			return
		}
		p := reflect.New(v.Type().Elem())
		fillRandom(p.Elem(), r, depth+1)
		v.Set(p)
	case reflect.Slice:
		switch r.IntN(4) {
		case 0:
			v.SetZero()
		case 1:
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
		default:
			s := reflect.MakeSlice(v.Type(), 1+r.IntN(4), 5)
			for i := range s.Len() {
				fillRandom(s.Index(i), r, depth+1)
			}
			v.Set(s)
		}
	case reflect.Array:
		for i := range v.Len() {
			fillRandom(v.Index(i), r, depth+1)
		}
	case reflect.Map:
		switch r.IntN(4) {
		case 0:
			v.SetZero()
		case 1:
			v.Set(reflect.MakeMap(v.Type()))
		default:
			m := reflect.MakeMap(v.Type())
			for range 1 + r.IntN(4) {
				k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
				fillRandom(k, r, depth+1)
				fillRandom(e, r, depth+1)
				m.SetMapIndex(k, e)
			}
			v.Set(m)
		}
	case reflect.String:
		if v.Type() == reflect.TypeFor[claims.Label]() {
			v.SetString(string([]claims.Label{"", claims.Supported, claims.Unsupported, claims.Insufficient}[r.IntN(4)]))
			return
		}
		pieces := []string{"", "a", "claim 42", "ünï", "\xff", "x\xc3", "€", "<&>", "\"q\"", "\n\t", "\u2028"}
		s := ""
		for range r.IntN(4) {
			s += pieces[r.IntN(len(pieces))]
		}
		v.SetString(s)
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 1)
	case reflect.Int, reflect.Int32, reflect.Int64:
		v.SetInt(r.Int64N(1<<40) - 1<<39)
	case reflect.Float64:
		switch r.IntN(5) {
		case 0:
			v.SetFloat(0)
		case 1:
			v.SetFloat(math.Copysign(0, -1))
		default:
			v.SetFloat(r.NormFloat64() * math.Pow(10, float64(r.IntN(40)-20)))
		}
	}
}

// The spool's binary records give back exactly what the JSON spool they
// replace gave: every field of a verified claim filled at random (nil,
// empty and full lists and maps, invalid UTF-8, negative zero), decoded
// from the codec, equals the same value after a JSON round trip. A field
// added to verified (or to a type it holds) that the codec does not write
// fails this test.
func TestSpoolCodecEqualsJSONRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 3000 {
		var v verified
		fillRandom(reflect.ValueOf(&v).Elem(), r, 0)
		b, err := json.Marshal(v)
		require.NoError(t, err)
		var want verified
		require.NoError(t, json.Unmarshal(b, &want))

		var c spoolCodec
		c.verified(&v)
		d := spoolCodec{b: c.b}
		var got verified
		d.readVerified(&got)
		require.NoError(t, d.err)
		require.Empty(t, d.b, "case %d: bytes left over", i)
		require.Equal(t, want, got, "case %d", i)
		// Bits, not values: negative zero must stay negative.
		for j := range got.Verdict.Logits {
			require.Equal(t, math.Float64bits(want.Verdict.Logits[j]), math.Float64bits(got.Verdict.Logits[j]))
		}
	}
}

// The filler reaches every field: a verified value filled by it has no
// zero field left at the top two levels on some draw, so the round-trip
// test above exercises each of them.
func TestFillRandomSetsEveryField(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	seen := map[string]bool{}
	var walk func(prefix string, v reflect.Value)
	walk = func(prefix string, v reflect.Value) {
		for v.Kind() == reflect.Pointer && !v.IsNil() {
			v = v.Elem()
		}
		if v.Kind() != reflect.Struct {
			return
		}
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if !f.IsExported() || f.Type.Kind() == reflect.Interface {
				continue
			}
			name := prefix + f.Name
			if !v.Field(i).IsZero() {
				seen[name] = true
			}
			walk(name+".", v.Field(i))
		}
	}
	for range 200 {
		var v verified
		fillRandom(reflect.ValueOf(&v).Elem(), r, 0)
		walk("", reflect.ValueOf(v))
	}
	for _, name := range []string{"Claim.Qualifiers.Quantity", "Claim.Timeframe.AsOf", "Claim.Normalization.Entities", "Claim.Meta",
		"Passages", "Verdict.PassageLogits", "Verdict.Usage.CompletionTokens", "Fallback.Rationale", "Verdict.DecidedBy", "GoldEvidence", "LatencyMS"} {
		require.True(t, seen[name], name)
	}
}

// A spool written and read back through its file gives the claims in
// order, and a damaged record is an error, not a silently short run.
func TestSpoolFileRoundTripAndCorruption(t *testing.T) {
	dir := t.TempDir()
	sp, err := newSpool(dir)
	require.NoError(t, err)
	defer sp.remove()
	for i := range 50 {
		require.NoError(t, sp.add(verified{Claim: claims.Claim{ID: "c" + string(rune('a'+i%26)), Text: "t"}, Index: i,
			Passages: []adjudicate.Passage{{ID: "p", Text: "passage", Score: float64(i)}}, Verdict: adjudicate.Verdict{Passage: i % 3}}))
	}
	var got []int
	require.NoError(t, sp.each(func(i int, v verified) error {
		require.Equal(t, i, v.Index)
		require.Equal(t, float64(i), v.Passages[0].Score)
		got = append(got, i)
		return nil
	}))
	require.Len(t, got, 50)
	// Read twice: each pass starts from the beginning.
	n := 0
	require.NoError(t, sp.each(func(int, verified) error { n++; return nil }))
	require.Equal(t, 50, n)

	// Cut the file inside the last record.
	require.NoError(t, sp.w.Flush())
	st, err := sp.f.Stat()
	require.NoError(t, err)
	require.NoError(t, sp.f.Truncate(st.Size()-3))
	err = sp.each(func(int, verified) error { return nil })
	require.Error(t, err)
	require.Contains(t, err.Error(), "read spool: record 49")
}

// The calibrate stage's wiring: rows made as claims are verified, with the
// run's fold count and seed, calibrate (calibrateScores, the stage's rule)
// as metrics.Calibrate does on the full outcomes, for the default, a
// small, a too-small (1: CrossFit's default) and a large fold count. (That
// the Score-based fit equals the outcome-based code it replaced is
// metrics.TestCalibrateScoresEqualsOutcomes.)
func TestCalibrateRowsAsOutcomes(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	outs := make([]metrics.Outcome, 3000)
	for i := range outs {
		o := metrics.Outcome{ID: fmt.Sprintf("claim-%d", i), Gold: metrics.Class(r.IntN(4) - 1), Scored: r.IntN(10) > 0,
			RuleLabel: metrics.Unknown, VerifierLabel: metrics.Unknown}
		if o.Scored {
			o.Logits = [3]float64{r.NormFloat64() * 3, r.NormFloat64() * 3, r.NormFloat64()}
			if o.Gold >= 0 && r.IntN(3) > 0 {
				o.Logits[o.Gold] += 2 // a verifier better than chance, so T is fitted inside its bounds
			}
			o.Predicted = metrics.Argmax(metrics.Softmax(o.Logits, 1))
		}
		o.Abstained = !o.Scored || r.IntN(8) == 0
		outs[i] = o
	}
	for _, folds := range []int{0, 1, 3, 5, 200} {
		var rows []metrics.Score
		for _, o := range outs {
			rows = append(rows, metrics.ScoreOf(o, folds, 42)) // as retrieveAndVerify makes them
		}
		opts := metrics.CalibrateOptions{Threshold: 0.01, Folds: folds, Seed: 42}
		want := metrics.Calibrate(outs, opts)
		o := Options{ECEThreshold: opts.Threshold, Folds: folds, Seed: 42, Calibrate: CalibrateAuto}
		got := o.calibrateScores(rows).result
		// Printed, so that the NaN of an empty bin equals itself.
		require.True(t, fmt.Sprint(want) == fmt.Sprint(got), "folds %d: the calibration differs", folds)
		require.Equal(t, want.CrossFit.PerOutcome, got.CrossFit.PerOutcome)
		require.True(t, want.CrossFit.Fitted)
	}
}

// BenchmarkSpoolRecord writes and reads back one claim as the run spools
// it (a claim of the generated set with five ~600-byte passages): the JSON
// the spool used to hold against its binary record.
func BenchmarkSpoolRecord(b *testing.B) {
	text := strings.Repeat("The mayor of Karo Ridge is Olga Briel, elected in 2019 with 54% of the vote. ", 8)
	v := verified{Claim: claims.Claim{ID: "c_0000001", SourceID: "out_0000001", Text: "The mayor of Karo Ridge is Olga Briel.",
		Subject: "Karo Ridge", Predicate: "mayor", Modality: "assertion", Polarity: "positive", Type: "fact", Importance: "minor",
		Normalization: claims.Normalization{Entities: []string{"Karo Ridge"}}}, Index: 1, LatencyMS: 1.25,
		Verdict: adjudicate.Verdict{Logits: [3]float64{1.5, -0.25, 0.125}, Passage: 0, Rationale: "passage 1 matches 5 of 6 content words"}}
	for i := range 5 {
		v.Passages = append(v.Passages, adjudicate.Passage{ID: fmt.Sprintf("d%d#w%d", i, i), DocID: fmt.Sprintf("d%d", i), Start: 100 * i, End: 100*i + len(text), Text: text, Score: 12.5 - float64(i)})
	}
	b.Run("json", func(b *testing.B) {
		for b.Loop() {
			buf, err := json.Marshal(v)
			if err != nil {
				b.Fatal(err)
			}
			var got verified
			if err := json.Unmarshal(buf, &got); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("binary", func(b *testing.B) {
		var c spoolCodec
		for b.Loop() {
			c.b = c.b[:0]
			c.verified(&v)
			d := spoolCodec{b: c.b}
			var got verified
			d.readVerified(&got)
			if d.err != nil {
				b.Fatal(d.err)
			}
		}
	})
}
