package corpus

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"

	"github.com/claimaudit/claimaudit/sentence"
)

// longDocument is a made-up document of about words words in sentences of
// 3 to 40 words, with one sentence of 600 words and one 2,000-letter word.
func longDocument(words int) string {
	r := rand.New(rand.NewPCG(41, 5000))
	var b strings.Builder
	n := 0
	for s := 0; n < words; s++ {
		k := 3 + r.IntN(38)
		if s == 40 {
			k = 600
		}
		for i := 0; i < k; i++ {
			if i > 0 {
				b.WriteByte(' ')
			}
			w := fmt.Sprintf("w%dx%d", s, i)
			if s == 70 && i == 1 {
				w = strings.Repeat("z", 2000)
			}
			if i == 0 {
				w = "The" + w
			}
			b.WriteString(w)
			n++
		}
		b.WriteString(". ")
		if s%9 == 8 {
			b.WriteString("\n\n- ")
		}
	}
	return b.String()
}

func TestChunksCoverAFiveThousandWordDocument(t *testing.T) {
	doc := longDocument(5000)
	if n := len(strings.Fields(doc)); n < 5000 {
		t.Fatalf("document has %d words", n)
	}
	text := []rune(doc)
	for _, budget := range []int{64, 256, 500} {
		t.Run(fmt.Sprint(budget), func(t *testing.T) {
			chunks := Chunks(text, ChunkOptions{Tokens: budget})
			if len(chunks) < 5000/budget {
				t.Fatalf("%d chunks of %d tokens for 5,000 words", len(chunks), budget)
			}
			covered := make([]bool, len(text))
			for i, c := range chunks {
				if c[0] >= c[1] {
					t.Fatalf("chunk %d is empty: %v", i, c)
				}
				if n := CountTokens(string(text[c[0]:c[1]])); n > budget {
					t.Errorf("chunk %d has %d tokens, budget %d", i, n, budget)
				}
				if i > 0 && c[0] <= chunks[i-1][0] {
					t.Errorf("chunk %d starts at %d, not after chunk %d's start %d", i, c[0], i-1, chunks[i-1][0])
				}
				for k := c[0]; k < c[1]; k++ {
					covered[k] = true
				}
			}
			for k, r := range text {
				if !unicode.IsSpace(r) && !covered[k] {
					t.Fatalf("code point %d (%q) is in no chunk: lost", k, r)
				}
			}
			// Consecutive chunks share a sentence wherever the earlier one
			// holds more than one.
			overlapping := 0
			for i := 1; i < len(chunks); i++ {
				if chunks[i][0] < chunks[i-1][1] {
					overlapping++
				}
			}
			if overlapping < len(chunks)/2 {
				t.Errorf("only %d of %d chunks overlap the one before", overlapping, len(chunks))
			}
		})
	}
}

func TestChunksAreSentenceAligned(t *testing.T) {
	text := []rune("Alpha beta gamma. Delta epsilon zeta. Eta theta iota. Kappa lambda mu. Nu xi omicron.")
	starts := map[int]bool{}
	for _, s := range sentence.Split(text) {
		starts[s[0]] = true
	}
	chunks := Chunks(text, ChunkOptions{Tokens: 9})
	want := [][2]int{{0, 37}, {18, 53}, {38, 70}, {54, 85}}
	if fmt.Sprint(chunks) != fmt.Sprint(want) {
		t.Fatalf("chunks %v, want %v", chunks, want)
	}
	for _, c := range chunks {
		if !starts[c[0]] {
			t.Errorf("chunk %v starts inside a sentence", c)
		}
	}
	if got := Chunks(text, ChunkOptions{Tokens: 9, Overlap: -1}); fmt.Sprint(got) != "[[0 37] [38 70] [71 85]]" {
		t.Errorf("without overlap: %v", got)
	}
}

func TestCountTokens(t *testing.T) {
	for s, want := range map[string]int{"": 0, "It rose 4.5%.": 7, "  naïve  café ": 2, "e-mail": 3} {
		if got := CountTokens(s); got != want {
			t.Errorf("CountTokens(%q) = %d, want %d", s, got, want)
		}
	}
}

// ScoreText gives an indexed passage's text the score Search gave it.
func TestScoreTextMatchesSearch(t *testing.T) {
	ix := demoIndex(t)
	ctx := t.Context()
	checked := 0
	for _, q := range []string{"population of the city in 2020", "hospital beds", "lake depth"} {
		hits, err := ix.Search(ctx, q, 5)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hits {
			got, err := ix.ScoreText(q, h.Text)
			if err != nil {
				t.Fatal(err)
			}
			if got != h.Score {
				t.Errorf("%q on %s: ScoreText %v, Search %v", q, h.ID, got, h.Score)
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("no hits to compare")
	}
	if s, _ := ix.ScoreText("the of and", "the of and"); s != 0 {
		t.Errorf("a query without content words scores %v", s)
	}
}

// A TextScorer's scores are Search's whichever texts were analysed before
// (the analysed texts are kept across scorers and queries): every hit of
// every query scored by every query's scorer, twice, in two orders.
func TestTextScorerKeptTexts(t *testing.T) {
	ix := demoIndex(t)
	ctx := t.Context()
	queries := []string{"population of the city in 2020", "hospital beds", "lake depth", "the bridge was completed"}
	want := map[[2]string]float64{} // (query, text) → Search's score
	var texts []string
	for _, q := range queries {
		hits, err := ix.Search(ctx, q, 8)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hits {
			want[[2]string{q, h.Text}] = h.Score
			texts = append(texts, h.Text)
		}
	}
	if len(want) < 2*len(queries) {
		t.Fatalf("only %d (query, text) pairs to compare", len(want))
	}
	for round := range 2 {
		for qi := range queries {
			q := queries[(qi+round)%len(queries)]
			ts, err := ix.TextScorer(Query{Text: q})
			if err != nil {
				t.Fatal(err)
			}
			for i := range texts {
				text := texts[(i*7+round)%len(texts)]
				s, ok := want[[2]string{q, text}]
				if !ok {
					continue // not a hit of q: Search gave it no score
				}
				if got := ts.Score(text); got != s {
					t.Errorf("round %d, %q on %.40q: %v, Search %v", round, q, text, got, s)
				}
			}
		}
	}
}
