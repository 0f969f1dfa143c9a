package rules

import (
	"bufio"
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/claimaudit/claimaudit/benchdata"
	"github.com/claimaudit/claimaudit/claims"
	"github.com/claimaudit/claimaudit/label"
	"github.com/claimaudit/claimaudit/lint"
	"github.com/claimaudit/claimaudit/numeric"
	"github.com/claimaudit/claimaudit/sentence"
	"github.com/stretchr/testify/require"
)

// unmemoised is Apply with every text read again on each use (Input.claim
// nil: each helper then reads the claim and the passages itself): the
// oracle of the reading-once memo (claimText) that Apply uses.
func unmemoised(in Input, o Options) Result { return apply(in, o, false) }

// ruleCase is a claim with the passages the rules see, built from a set's
// claims and documents: the documents that name the claim's subject (the
// retrieved ones, mostly) and one that does not, each whole or as its
// sentences, with random authority, dates, per-passage probabilities, a
// deciding passage and a label so far.
func ruleCases(r *rand.Rand, cs []claims.Claim, docs []string, n int) []Input {
	bySubject := map[string][]int{}
	var out []Input
	for len(out) < n {
		c := cs[r.IntN(len(cs))]
		subject := c.Subject
		if len(c.Normalization.Entities) > 0 {
			subject = c.Normalization.Entities[0]
		}
		ids, ok := bySubject[subject]
		if !ok && subject != "" {
			for i, d := range docs {
				if strings.Contains(d, subject) && len(ids) < 8 {
					ids = append(ids, i)
				}
			}
			bySubject[subject] = ids
		}
		ids = append(slices.Clone(ids), r.IntN(len(docs)))
		in := Input{Claim: c, Deciding: r.IntN(len(ids)+1) - 1, Label: label.Of(r.IntN(4) - 1)}
		if in.Label == label.None {
			in.Abstain = "low_confidence"
		}
		for _, id := range ids {
			if r.IntN(4) == 0 {
				continue // not retrieved
			}
			text := docs[id]
			if r.IntN(2) == 0 {
				runes := []rune(text)
				sps := sentence.Split(runes)
				if len(sps) > 0 {
					sp := sps[r.IntN(len(sps))]
					text = string(runes[sp[0]:sp[1]])
				}
			}
			p := Passage{DocID: string(rune('a' + id%7)), Text: text, Doc: Doc{Authority: r.IntN(5) == 0}}
			p.Facts = lint.Prepare(lint.FactsFromText(p.DocID+"#p", text))
			if r.IntN(3) == 0 {
				p.Doc.CreatedAt = time.Date(2015+r.IntN(10), 1, 1, 0, 0, 0, 0, time.UTC)
			}
			if r.IntN(4) == 0 {
				a, b := r.Float64(), r.Float64()
				p.Probs = &[3]float64{a, (1 - a) * b, (1 - a) * (1 - b)}
			}
			in.Passages = append(in.Passages, p)
		}
		if in.Deciding >= len(in.Passages) {
			in.Deciding = -1
		}
		out = append(out, in)
	}
	return out
}

// equalToOldRules fails t where Apply differs from unmemoised on in, under
// every rule, each rule alone, both effects, both policies, and with the
// caller's numeric check of the claim given (under another policy) or not.
func equalToOldRules(t testing.TB, in Input) (fired int) {
	all, _ := Parse("all")
	for _, enabled := range []map[string]bool{all, {Conflict: true}, {Qualifier: true}, {Underspecified: true}} {
		for _, effect := range []Effect{EffectOverride, EffectFlag} {
			for _, policy := range []string{"", numeric.PolicyAuto} {
				o := Options{Enabled: enabled, Effect: effect, NumericPolicy: policy}
				want := unmemoised(in, o)
				in.Check = nil
				require.Equal(t, want, Apply(in, o), "claim %q", in.Claim.Text)
				in.Check = lint.PrepareClaim(in.Claim.Text, lint.MatchOptions{Policy: numeric.PolicyAuto})
				require.Equal(t, want, Apply(in, o), "claim %q with its check", in.Claim.Text)
				fired += len(want.Flags)
			}
		}
	}
	return fired
}

// The rules with the claim read once equal the rules reading it on each use, on
// 2,000 claims of a generated set (its rule cases included) with the
// passages of their subjects' documents.
func TestRulesEqualOldRules(t *testing.T) {
	dir := t.TempDir()
	_, err := benchdata.Generate(context.Background(), dir, benchdata.Options{Claims: 2000, Docs: 800, Seed: 25, RuleCases: 300})
	require.NoError(t, err)
	cs, err := claims.Load(context.Background(), filepath.Join(dir, "claims.jsonl"), "")
	require.NoError(t, err)
	docs := jsonlTexts(t, filepath.Join(dir, "corpus.jsonl"))
	flags := map[string]int{}
	// Claims whose numeric votes differ by policy: 640,000 is 638,000
	// within 5% but not as written.
	kael := claims.Claim{Text: "Kael Falls had 638,000 residents in 2023.", Normalization: claims.Normalization{Entities: []string{"Kael Falls"}}}
	near := passage("a", "Kael Falls had 640,000 residents in 2023.")
	far := passage("b", "Kael Falls had 812,000 residents in 2023.")
	cases := []Input{{Claim: kael, Passages: []Passage{near, far}, Label: label.Supported, Deciding: 0}}
	kael.Timeframe = &claims.Timeframe{Start: "2022-01-01", End: "2023-12-31"}
	kael.Text = "Kael Falls had 638,000 residents."
	cases = append(cases, Input{Claim: kael, Passages: []Passage{near, far}, Label: label.Supported, Deciding: 1})
	for _, in := range append(cases, ruleCases(rand.New(rand.NewPCG(25, 2)), cs, docs, 2000)...) {
		equalToOldRules(t, in)
		for _, f := range unmemoised(in, Options{Enabled: map[string]bool{Conflict: true, Qualifier: true, Underspecified: true}}).Flags {
			flags[f]++
		}
	}
	t.Log(flags)
	for _, f := range []string{FlagConflict, FlagAuthority, FlagQualifierMissing, FlagPolarity, FlagUnderspecified} {
		require.Greater(t, flags[f], 5, "flag %s is exercised", f)
	}
}

// The same on the real sets' claims with their documents, when DATA
// names their folder.
func TestRulesEqualOldRulesOnRealSets(t *testing.T) {
	dir := os.Getenv("DATA")
	if dir == "" {
		t.Skip("DATA unset: no real sets to compare on (make test DATA=folder)")
	}
	r := rand.New(rand.NewPCG(25, 3))
	for _, set := range []string{"sufficient_facts", "fm2", "citint_train", "checkcovid_train"} {
		cs, err := claims.Load(context.Background(), filepath.Join(dir, set, "claims.jsonl"), "")
		require.NoError(t, err)
		docs := jsonlTexts(t, filepath.Join(dir, set, "corpus.jsonl"))
		fired := 0
		for _, in := range ruleCases(r, cs, docs, 300) {
			fired += equalToOldRules(t, in)
		}
		t.Logf("%s: 300 claims, %d flags", set, fired)
	}
}

func jsonlTexts(t testing.TB, path string) []string {
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var texts []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var o struct {
			Text string `json:"text"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &o))
		texts = append(texts, o.Text)
	}
	require.NoError(t, sc.Err())
	return texts
}

// BenchmarkApply applies every rule to 1,000 claims of a generated set
// with their passages: old is the rules as they were (oldApply), new is
// Apply (the claim read once per Apply; audit also gives it the claim's
// numeric check, which this leaves to Apply).
func BenchmarkApply(b *testing.B) {
	dir := b.TempDir()
	_, err := benchdata.Generate(context.Background(), dir, benchdata.Options{Claims: 2000, Docs: 800, Seed: 25, RuleCases: 300})
	require.NoError(b, err)
	cs, err := claims.Load(context.Background(), filepath.Join(dir, "claims.jsonl"), "")
	require.NoError(b, err)
	ins := ruleCases(rand.New(rand.NewPCG(25, 4)), cs, jsonlTexts(b, filepath.Join(dir, "corpus.jsonl")), 1000)
	all, _ := Parse("all")
	o := Options{Enabled: all, Effect: EffectOverride}
	b.Run("old", func(b *testing.B) {
		start := cpuTime()
		for b.Loop() {
			for _, in := range ins {
				unmemoised(in, o)
			}
		}
		b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
	})
	b.Run("new", func(b *testing.B) {
		start := cpuTime()
		for b.Loop() {
			for _, in := range ins {
				Apply(in, o)
			}
		}
		b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
	})
}
