package rules

import (
	"bufio"
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
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

// The rules as they were before a claim's text was read once per Apply
// (claimText): every use read the claim, and the passages, again; the hedge
// rule with its regular expression. They are the oracle of the rules that
// read text (conflict, qualifier, underspecified, hedge); the others did
// not change.
var oldTable = map[string]rule{
	Fallback: fallback, NoEvidence: noEvidence, Conflict: oldConflict, Qualifier: oldQualifier,
	Underspecified: oldUnderspecified, Hedge: oldHedge, Stale: stale,
}

// oldApply is Apply over oldTable.
func oldApply(in Input, o Options) Result {
	if o.MaxAge == 0 {
		o.MaxAge = DefaultMaxAge
	}
	if o.ConflictMin == 0 {
		o.ConflictMin = DefaultConflictMin
	}
	r := Result{Label: in.Label}
	for _, name := range Names {
		if !o.Enabled[name] {
			continue
		}
		f, fired := oldTable[name](in, o)
		if !fired {
			continue
		}
		r.Flags = append(r.Flags, f.flags...)
		if f.label == label.None || f.label == in.Label || r.Rule != "" ||
			(in.Label == label.None && name != NoEvidence && name != Fallback) {
			continue
		}
		r.Rule, r.RuleLabel = name, f.label
		if o.Effect == EffectFlag {
			continue
		}
		r.Label = f.label
		r.DecidedBy = DecidedBy(name)
		in.Label, in.Abstain = f.label, ""
	}
	return r
}

func oldConflict(in Input, o Options) (finding, bool) {
	votes := passageVotes(in, o)
	if len(votes) == 0 {
		votes = oldNumericVotes(in, o)
	}
	if len(votes) == 0 {
		votes = oldYearVotes(in)
	}
	var seen, auth [3]bool
	for _, v := range votes {
		seen[v.label.Index()] = true
		if v.authority {
			auth[v.label.Index()] = true
		}
	}
	if !seen[0] || !seen[1] {
		return finding{}, false
	}
	switch {
	case auth[0] && !auth[1]:
		return finding{label: label.Supported, flags: []string{FlagConflict, FlagAuthority}}, true
	case auth[1] && !auth[0]:
		return finding{label: label.Unsupported, flags: []string{FlagConflict, FlagAuthority}}, true
	}
	return finding{label: label.Insufficient, flags: []string{FlagConflict}}, true
}

func oldHasNumber(text string) bool {
	years := map[float64]bool{}
	for _, y := range numeric.YearsIn(text) {
		years[float64(y)] = true
	}
	for _, m := range numeric.FindNumbers(text) {
		if !years[m.Value] {
			return true
		}
	}
	return false
}

func oldNumericVotes(in Input, o Options) []vote {
	if !oldHasNumber(in.Claim.Text) {
		return nil
	}
	var order []string
	facts := map[string][]lint.Fact{}
	authority := map[string]bool{}
	for _, p := range in.Passages {
		if _, seen := facts[p.DocID]; !seen {
			order = append(order, p.DocID)
		}
		facts[p.DocID] = append(facts[p.DocID], p.Facts...)
		authority[p.DocID] = authority[p.DocID] || p.Doc.Authority
	}
	if len(order) < 2 {
		return nil
	}
	var out []vote
	for _, d := range order {
		if len(facts[d]) == 0 {
			continue
		}
		nc := lint.VerifyNumeric(in.Claim.Text, facts[d], lint.MatchOptions{Policy: o.NumericPolicy})
		if nc.Fact == nil || !oldAboutSubject(in, nc.Fact.Context, nc.Fact.Description) || !oldSameYears(in.Claim, nc.Fact.Years) {
			continue
		}
		switch nc.Status {
		case lint.NumericVerified:
			out = append(out, vote{label.Supported, authority[d]})
		case lint.NumericMismatch:
			out = append(out, vote{label.Unsupported, authority[d]})
		}
	}
	return out
}

func oldSameYears(c claims.Claim, years []int) bool {
	want := numeric.YearsIn(c.Text)
	if lo, hi, ok := timeframeYears(c.Timeframe); ok {
		for y := lo; y <= hi && y-lo < 200; y++ {
			want = append(want, y)
		}
	}
	if len(want) == 0 {
		return len(years) == 0
	}
	for _, y := range years {
		for _, w := range want {
			if y == w {
				return true
			}
		}
	}
	return false
}

func oldYearVotes(in Input) []vote {
	years := numeric.YearsIn(in.Claim.Text)
	if len(years) != 1 || oldHasNumber(in.Claim.Text) {
		return nil
	}
	y := years[0]
	var words []string
	for _, w := range contentWords(in.Claim.Text) {
		if w != strconv.Itoa(y) {
			words = append(words, w)
		}
	}
	if len(words) < 2 {
		return nil
	}
	seen := map[string]bool{}
	var out []vote
	for _, p := range in.Passages {
		if seen[p.DocID] {
			continue
		}
		for _, s := range sentenceEnd.Split(p.Text, -1) {
			ys := numeric.YearsIn(s)
			if len(ys) == 0 || !sameEvent(in.Claim, words, s) {
				continue
			}
			seen[p.DocID] = true
			l := label.Unsupported
			if slices.Contains(ys, y) {
				l = label.Supported
			}
			out = append(out, vote{l, p.Doc.Authority})
			break
		}
	}
	return out
}

func oldQualifier(in Input, _ Options) (finding, bool) {
	p, ok := in.deciding()
	if !ok {
		return finding{}, false
	}
	c := in.Claim
	supported := in.Label == label.Supported
	if oldMissing(c, p.Text) && !oldAnyHolds(c, in.Passages) {
		return finding{label: pick(supported, label.Insufficient), flags: []string{FlagQualifierMissing}}, true
	}
	if c.Polarity == "negative" && !negated(p.Text) {
		return finding{label: pick(supported, label.Unsupported), flags: []string{FlagPolarity}}, true
	}
	return finding{}, false
}

func oldMissing(c claims.Claim, text string) bool {
	for _, e := range c.Normalization.Entities {
		if !contains(text, e) {
			return true
		}
	}
	for _, q := range []string{c.Qualifiers.Location, c.Qualifiers.Population, c.Qualifiers.Condition} {
		for _, w := range contentWords(q) {
			if !contains(text, w) {
				return true
			}
		}
	}
	if lo, hi, ok := timeframeYears(c.Timeframe); ok {
		for _, y := range numeric.YearsIn(text) {
			if y >= lo && y <= hi {
				return false
			}
		}
		return true
	}
	return false
}

func oldAnyHolds(c claims.Claim, ps []Passage) bool {
	for _, p := range ps {
		if !oldMissing(c, p.Text) {
			return true
		}
	}
	return false
}

func oldUnderspecified(in Input, _ Options) (finding, bool) {
	c := in.Claim
	if c.Timeframe != nil || len(numeric.YearsIn(c.Text)) > 0 || !oldHasNumber(c.Text) {
		return finding{}, false
	}
	byYear := map[int]float64{}
	for _, p := range in.Passages {
		for _, f := range p.Facts {
			if len(f.Years) != 1 || float64(f.Years[0]) == f.Value || !oldSameQuantity(c.Text, f) || !oldAboutSubject(in, f.Context, f.Description) {
				continue
			}
			byYear[f.Years[0]] = f.Value
		}
	}
	first, set := 0.0, false
	for _, v := range byYear {
		if !set {
			first, set = v, true
			continue
		}
		if math.Abs(v-first) > 0.005*math.Max(math.Abs(v), math.Abs(first)) {
			return finding{label: label.Insufficient, flags: []string{FlagUnderspecified}}, true
		}
	}
	return finding{}, false
}

func oldSameQuantity(claimText string, f lint.Fact) bool {
	for _, m := range numeric.FindNumbers(claimText) {
		s, ok := lint.Similarity(claimText, m.Value, m.Unit, f, 0.05)
		if ok && s >= 0.3 {
			return true
		}
	}
	return false
}

func oldAboutSubject(in Input, context, description string) bool {
	names := in.Claim.Normalization.Entities
	if len(names) == 0 && in.Claim.Subject != "" {
		names = []string{in.Claim.Subject}
	}
	if context == "" {
		context = description
	}
	for _, n := range names {
		if !contains(context, n) {
			return false
		}
	}
	return true
}

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

// equalToOldRules fails t where Apply differs from oldApply on in, under
// every rule, each rule alone, both effects, both policies, and with the
// caller's numeric check of the claim given (under another policy) or not.
func equalToOldRules(t testing.TB, in Input) (fired int) {
	all, _ := Parse("all")
	for _, enabled := range []map[string]bool{all, {Conflict: true}, {Qualifier: true}, {Underspecified: true}} {
		for _, effect := range []Effect{EffectOverride, EffectFlag} {
			for _, policy := range []string{"", numeric.PolicyAuto} {
				o := Options{Enabled: enabled, Effect: effect, NumericPolicy: policy}
				want := oldApply(in, o)
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

// The rules with the claim read once equal the rules as they were, on
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
		for _, f := range oldApply(in, Options{Enabled: map[string]bool{Conflict: true, Qualifier: true, Underspecified: true}}).Flags {
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
				oldApply(in, o)
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
