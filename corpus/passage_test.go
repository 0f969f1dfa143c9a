package corpus

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// covered checks that every non-space rune lies in some window and that no
// window exceeds the limit.
func covered(t testing.TB, text []rune, wins [][2]int, s PassageSettings) {
	in := make([]bool, len(text))
	for _, w := range wins {
		require.True(t, 0 <= w[0] && w[0] < w[1] && w[1] <= len(text), "window %v of %d", w, len(text))
		require.LessOrEqual(t, w[1]-w[0], s.MaxChars)
		for i := w[0]; i < w[1]; i++ {
			in[i] = true
		}
	}
	for i, r := range text {
		if !unicode.IsSpace(r) {
			require.True(t, in[i], "rune %d %q of %q not covered", i, r, string(text))
		}
	}
}

func TestWindowsCoverEveryDocument(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"alpha", "Beta", "5.7", "Dr.", "e.g.", "end.", "Q?", "x!", "\n", "  ", "🌍", "naïve", "U.S.", "\n1.", "\n-", "\na)"}
	settings := []PassageSettings{DefaultPassageSettings, {1, 1, 16}, {4, 1, 40}, {2, 2, 30}}
	for i := 0; i < 500; i++ {
		var b strings.Builder
		for n := rng.IntN(80); n > 0; n-- {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteByte(' ')
		}
		text := []rune(b.String())
		s := settings[i%len(settings)]
		covered(t, text, Windows(text, s), s)
	}
}

func TestWindowsOverlap(t *testing.T) {
	text := []rune("S1 a. S2 b. S3 c. S4 d. S5 e.")
	got := Windows(text, PassageSettings{WindowSentences: 3, WindowStride: 2, MaxChars: 1000})
	var texts []string
	for _, w := range got {
		texts = append(texts, string(text[w[0]:w[1]]))
	}
	assert.Equal(t, []string{"S1 a. S2 b. S3 c.", "S3 c. S4 d. S5 e."}, texts)
}

func TestPassagesSkipWindowsThatDuplicateSpans(t *testing.T) {
	c := mustLoad(t, `{"doc_id":"d","text":"Only one sentence here."}`, `{"span_id":"s","doc_id":"d","start":0,"end":23}`)
	var ps []Passage
	require.NoError(t, c.Passages(DefaultPassageSettings, func(p Passage) error { ps = append(ps, p); return nil }))
	require.Len(t, ps, 1)
	assert.Equal(t, "s", ps[0].ID)
	assert.Equal(t, "span", ps[0].Kind())
	assert.Equal(t, "Only one sentence here.", ps[0].Text)
}

func TestPassageSettingsValidate(t *testing.T) {
	assert.NoError(t, DefaultPassageSettings.Validate())
	assert.Error(t, PassageSettings{0, 1, 100}.Validate())
	assert.Error(t, PassageSettings{2, 3, 100}.Validate())
	assert.Error(t, PassageSettings{2, 1, 3}.Validate())
}

func FuzzWindows(f *testing.F) {
	f.Add("One. Two! Three? Dr. Who.\nNext", 3, 2, 20)
	f.Add("Intro:\n1. One.\n - Two\na) three", 1, 1, 16)
	f.Fuzz(func(t *testing.T, text string, size, stride, max int) {
		s := PassageSettings{WindowSentences: size, WindowStride: stride, MaxChars: max}
		if s.Validate() != nil || max > 5000 {
			return
		}
		r := []rune(text)
		covered(t, r, Windows(r, s), s)
	})
}

func mustLoad(t testing.TB, docs, spans string) *Corpus {
	v := NewValidator(LoadOptions{})
	ctx := context.Background()
	require.NoError(t, v.AddDocuments(ctx, strings.NewReader(docs), "c.jsonl"))
	require.NoError(t, v.AddSpans(ctx, strings.NewReader(spans), "s.jsonl"))
	c, err := v.Corpus()
	require.NoError(t, err)
	return c
}
