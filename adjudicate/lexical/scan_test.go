package lexical

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// scanEqualsRegexp fails t where a scanner of scan.go and the regular
// expression it replaced (features_oracle_test.go) differ on text.
func scanEqualsRegexp(t testing.TB, text string) {
	var words [][2]int
	for i := 0; ; {
		b, e := nextWord(text, i)
		if b < 0 {
			break
		}
		words = append(words, [2]int{b, e})
		i = e
	}
	var want [][2]int
	for _, l := range reWord.FindAllStringIndex(text, -1) {
		want = append(want, [2]int{l[0], l[1]})
	}
	require.Equal(t, want, words, "words of %q", text)

	var years, wantYears []string
	eachYear(text, func(y int) { years = append(years, strconv.Itoa(y)) })
	wantYears = reYear.FindAllString(text, -1)
	require.Equal(t, wantYears, years, "years of %q", text)

	for _, c := range []struct {
		name string
		re   interface{ MatchString(string) bool }
		cue  *cueWords
	}{{"hedge", reHedge, hedgeWords}, {"qualifier", reQual, qualifierWords}, {"absolute", reAbs, absoluteWords}, {"negation", reNeg, negationWords}} {
		require.Equal(t, c.re.MatchString(text), c.cue.match(text), "%s in %q", c.name, text)
	}
}

// scanPieces are what the patterns turn on: every cue word (and pieces of
// them), years and near-years, letters and digits of other scripts and
// number categories, both apostrophes, the runes (?i) folds to ASCII
// letters (K, ſ) and ones it does not (İ, ı), word bytes \b sees (_,
// digits), punctuation, and invalid UTF-8.
var scanPieces = func() []string {
	p := []string{" ", " ", " ", "  ", ".", ",", "-", "_", "'", "’", "‘", "\"", "(", ")", "\n", "\t",
		"1999", "2023", "2099", "2100", "1000", "999", "0999", "19999", "12345", "1", "20", "x1999", "1999x", "_2001", "2001_", "é1999",
		"é", "ß", "日本", "Ω", "²", "Ⅻ", "٣", "İ", "ı", "\u212A", "\u017F", "\uFFFD", "\xff", "\xe2", "\xe2\x84", "\xc5", "\xc5\xbf\xbf",
		"a", "s", "k", "x", "t", "n", "don", "isn", "can", "it", "is", "need", "poss", "ible", "al", "most", "Some", "ALL", "NoT"}
	for _, c := range []*cueWords{hedgeWords, qualifierWords, absoluteWords, negationWords} {
		for _, ws := range c.byFirst {
			p = append(p, ws...)
		}
	}
	return p
}()

// scanText joins n random pieces; some words are varied in case or have
// an s or k replaced by the runes that fold to them.
func scanText(r *rand.Rand, n int) string {
	var b strings.Builder
	for range n {
		w := scanPieces[r.IntN(len(scanPieces))]
		switch r.IntN(6) {
		case 0:
			w = strings.ToUpper(w)
		case 1:
			if w != "" {
				w = strings.ToUpper(w[:1]) + w[1:]
			}
		case 2:
			w = strings.ReplaceAll(w, "s", "\u017F")
		case 3:
			w = strings.ReplaceAll(strings.ReplaceAll(w, "k", "\u212A"), "K", "\u212A")
		}
		b.WriteString(w)
	}
	return b.String()
}

// The scanners find what the regular expressions found, on 30,000
// generated texts.
func TestScannersEqualRegexps(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	matched := map[string]int{}
	for range 30000 {
		text := scanText(r, 1+r.IntN(12))
		scanEqualsRegexp(t, text)
		for name, re := range map[string]interface{ MatchString(string) bool }{"hedge": reHedge, "negation": reNeg, "year": reYear, "word": reWord} {
			if re.MatchString(text) {
				matched[name]++
			}
		}
		if reNeg.MatchString(text) != reNeg.MatchString(strings.ToLower(text)) {
			matched["folding matters"]++
		}
	}
	for _, name := range []string{"hedge", "negation", "year", "word", "folding matters"} {
		require.Greater(t, matched[name], 100, "the texts exercise %s", name)
	}
}

// The scanners on real prose: every text of the demo and, with DATA, of
// the real sets (claims, documents, their lines and sentences).
func TestScannersEqualRegexpsOnRealText(t *testing.T) {
	n := 0
	for _, text := range realTexts(t) {
		scanEqualsRegexp(t, text)
		n++
	}
	require.Greater(t, n, 1000)
}

func FuzzScanners(f *testing.F) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 50 {
		f.Add(scanText(r, 8))
	}
	f.Add("It isn't \u212Anown whether ſome 1999 figures don’t apply.")
	f.Fuzz(func(t *testing.T, text string) {
		scanEqualsRegexp(t, text)
	})
}
