package lint

import (
	"bufio"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/claimaudit/claimaudit/extract"
	"github.com/claimaudit/claimaudit/numeric"
	"github.com/claimaudit/claimaudit/sentence"
	"github.com/stretchr/testify/require"
)

// oldFactWords is how Prepare read a fact's words before the one-pass
// ASCII reading: the oracle of readFactWords. The stems were a map.
func oldFactWords(description, ctx string) (content []string, stems map[string]bool, names bool) {
	stems = map[string]bool{}
	for _, w := range wordsOf(ctx) {
		stems[stem(w)] = true
	}
	return extract.ContentWords(description), stems, entityWords(ctx, numeric.Mention{}).names
}

// oldFactsFromText is FactsFromText as it was, each fact with its own
// copy of its context: the oracle of the facts.
func oldFactsFromText(id, text string) []Fact {
	var facts []Fact
	runes := []rune(text)
	prev := ""
	for _, sp := range sentence.Split(runes) {
		s := string(runes[sp[0]:sp[1]])
		years := numeric.YearsIn(s)
		for _, m := range numeric.FindNumbers(s) {
			facts = append(facts, Fact{ID: id, Description: s, Value: m.Value, Unit: m.Unit, Text: m.Text,
				Years: years, Context: strings.TrimSpace(prev + " " + s), quantity: m.Quantity})
		}
		prev = s
	}
	return facts
}

// equalFactWords fails t where readFactWords differs from the oracle.
func equalFactWords(t testing.TB, description, ctx string) *factWords {
	content, set, names := oldFactWords(description, ctx)
	got := readFactWords(description, ctx)
	require.Equal(t, content, got.content, "content words of %q", description)
	want := stems{}
	for w := range set {
		want = append(want, w)
	}
	slices.Sort(want)
	require.Equal(t, want, append(stems{}, got.contextStems...), "stems of %q", ctx)
	require.Equal(t, names, got.contextNames, "names in %q", ctx)
	for w := range set {
		require.True(t, got.contextStems.has(w), "%q in the stems of %q", w, ctx)
	}
	return got
}

// factWordPieces are what the readings tell apart: names, sentence
// openers, stopwords, verbs, clause starters, months, number words, -ed
// words, comparator words, plurals, digits, punctuation, every ASCII
// space, and text whose case rules are not ASCII's.
var factWordPieces = []string{
	"Meridian", "Rail", "Kael", "Falls", "The", "the", "In", "in", "However", "however", "Over", "over", "It", "it",
	"During", "during", "After", "after", "By", "by", "On", "on", "Since", "Every",
	"Its", "their", "was", "were", "has", "carried", "Carried", "employed", "reached", "May", "may", "march", "March",
	"million", "Million", "thousand", "twelve", "Twelve", "more", "than", "More", "nearly", "Nearly", "about", "not", "Total",
	"totals", "number", "passengers", "Passengers", "census", "Census", "bus", "class", "residents", "beds", "ed", "Red",
	"US", "U.S.", "A", "a", "x", "I", "2023", "48.2", "5,700", "91.4%", "$3.4", "(source:", ")", ",", ".", ";", "-", "'s",
	"n't", "e.g.", "\t", "\n", "\v", "\f", "\r", "  ", "İstanbul", "ÉCOLE", "café", "naïve", "Straße", "\u00a0", "\u0085",
	"ǅ", "K", "Ωmega", "ﬁne", "١٢٣",
}

// factNames are the pieces that are names wherever they stand: most
// texts have none, so that what makes a word a name (capitals, the first
// token, an opener, a word seen before in lower case) decides.
var factNames = map[string]bool{"Meridian": true, "Rail": true, "Kael": true, "Falls": true, "Passengers": true,
	"Census": true, "Red": true, "US": true, "U.S.": true, "İstanbul": true, "ÉCOLE": true, "ǅ": true, "Ωmega": true}

// randomFactText is a text of n pieces, joined mostly by spaces and
// sometimes by nothing.
func randomFactText(r *rand.Rand, n int, ascii bool) string {
	var b strings.Builder
	withNames := r.IntN(4) == 0
	for i := 0; i < n; i++ {
		p := factWordPieces[r.IntN(len(factWordPieces))]
		for ascii && !isASCII(p) || !withNames && factNames[p] {
			p = factWordPieces[r.IntN(len(factWordPieces))]
		}
		b.WriteString(p)
		if r.IntN(5) > 0 {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// The one-pass reading equals the oracle on 20,000 generated sentences
// with their contexts (the sentence alone, or after another, as
// FactsFromText builds them), half of them ASCII.
func TestFactWordsEqualOldReading(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 1))
	names, fast := 0, 0
	for i := 0; i < 20000; i++ {
		ascii := i%2 == 0
		s := randomFactText(r, 1+r.IntN(14), ascii)
		ctx := s
		if r.IntN(3) > 0 {
			ctx = strings.TrimSpace(randomFactText(r, r.IntN(14), ascii) + " " + s)
		}
		if r.IntN(10) == 0 {
			ctx = randomFactText(r, r.IntN(20), ascii) // a context that does not end with the description
		}
		if r.IntN(10) == 0 {
			text := ctx + ". In 2023 it had 41.5 staff, 12% more! " + s + "? "
			require.Equal(t, oldFactsFromText("p", text), FactsFromText("p", text), "facts of %q", text)
		}
		if equalFactWords(t, s, ctx).contextNames {
			names++
		}
		if isASCII(s) && isASCII(ctx) {
			fast++
		}
	}
	require.Greater(t, names, 2000)
	require.Greater(t, fast, 9000)
}

// The same on every sentence of the demo's and, when DATA names their
// folder, the real sets' documents, with the sentence before it.
func TestFactWordsEqualOldReadingOnRealText(t *testing.T) {
	docs := demoTexts(t, "corpus.jsonl")
	if dir := os.Getenv("DATA"); dir != "" {
		for _, set := range []string{"sufficient_facts", "fm2", "citint_train", "checkcovid_train"} {
			docs = append(docs, jsonlTexts(t, filepath.Join(dir, set, "corpus.jsonl"))...)
			docs = append(docs, jsonlTexts(t, filepath.Join(dir, set, "claims.jsonl"))...)
		}
	}
	n := 0
	for _, doc := range docs {
		require.Equal(t, oldFactsFromText("p", doc), FactsFromText("p", doc), "facts of %q", doc)
		runes := []rune(doc)
		prev := ""
		for _, sp := range sentence.Split(runes) {
			s := string(runes[sp[0]:sp[1]])
			equalFactWords(t, s, strings.TrimSpace(prev+" "+s))
			prev = s
			n++
		}
	}
	t.Logf("%d sentences", n)
}

// FuzzFactWords: the one-pass reading of any description and context is
// the oracle's.
func FuzzFactWords(f *testing.F) {
	f.Add("Meridian Rail carried 48.2 million passengers in 2023.", "However, the line was new. Meridian Rail carried 48.2 million passengers in 2023.")
	f.Add("In 2023 the city had 5,700 staff.", "In 2023 the city had 5,700 staff.")
	f.Add("İstanbul had 15 million residents.", "\tThe census: İstanbul had 15 million residents.")
	f.Fuzz(func(t *testing.T, description, ctx string) {
		equalFactWords(t, description, ctx)
	})
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
	require.NotEmpty(t, texts, path)
	return texts
}

// A claim prepared under one policy and moved to another checks as one
// prepared under the other; a context's words read once give Similarity.
func TestWithPolicyAndContextWords(t *testing.T) {
	docs, claims := demoTexts(t, "corpus.jsonl"), demoTexts(t, "claims.jsonl")
	policies := append([]string{""}, numeric.Policies...)
	checked := 0
	for ci, claim := range claims[:120] {
		words := WordsOf(claim)
		ms := numeric.FindNumbers(claim)
		for _, doc := range docs[:40] {
			facts := Prepare(FactsFromText("p", doc))
			from := policies[ci%len(policies)]
			cc := PrepareClaim(claim, MatchOptions{Policy: from})
			for _, policy := range policies {
				want := VerifyNumeric(claim, facts, MatchOptions{Policy: policy})
				require.Equal(t, checkJSON(t, want), checkJSON(t, cc.WithPolicy(policy).Verify(facts)), "%q from %q to %q", claim, from, policy)
				checked++
			}
			for _, m := range ms {
				for _, f := range facts {
					s, ok := Similarity(claim, m.Value, m.Unit, f, 0.05)
					s2, ok2 := words.Similarity(m.Value, m.Unit, f, 0.05)
					require.Equal(t, [2]any{s, ok}, [2]any{s2, ok2})
				}
			}
		}
	}
	require.Greater(t, checked, 10000)
}

// agreesOK is agrees' verdict, under every policy, for the demo claims'
// numbers against the demo passages' facts.
func TestAgreesOKIsAgrees(t *testing.T) {
	docs, claims := demoTexts(t, "corpus.jsonl"), demoTexts(t, "claims.jsonl")
	var facts []Fact
	for _, doc := range docs[:80] {
		facts = append(facts, FactsFromText("p", doc)...)
	}
	policies := append([]string{""}, numeric.Policies...)
	agreed := 0
	for _, claim := range claims {
		for _, m := range numeric.FindNumbers(claim) {
			for _, f := range facts {
				for _, policy := range policies {
					opts := MatchOptions{Policy: policy}
					opts.defaults()
					ok, _, _ := agrees(m.Quantity, f, opts)
					require.Equal(t, ok, agreesOK(m.Quantity, f, opts), "%q against %s under %q", m.Text, f, policy)
					if ok {
						agreed++
					}
				}
			}
		}
	}
	require.Greater(t, agreed, 100)
}
