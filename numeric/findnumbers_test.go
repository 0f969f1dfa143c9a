package numeric

import (
	"bufio"
	"encoding/json"
	"math/rand/v2"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fuzzTexts builds texts from pieces that exercise every pattern's keyword
// and symbol, in both cases, with the non-ASCII letters that case-insensitive
// matching folds to ASCII ones (Kelvin sign, long s) and spacing of every kind.
func fuzzTexts(n int) []string {
	pieces := []string{
		"12", "3.5", "1,250,000", "2023", "4", "0.07", "v2.1", "version 3.0", "V1.2",
		"%", " percent", " per cent", "score", "Score:", "trust score", "ſcore", "SCORE",
		"average", "AVERAGE of", "$", "€", "£", "between", "BETWEEN", "and", "-", "–", "—", " to ",
		"x", "×", "X", "ms", "milliseconds", "sec", "ſec", "mſ", "minutes", "hours", "hrs", "HRS",
		"million", "bn", "K", "\u212a", "M", "passengers", "built-in", "rules", "May", "march",
		"more than", "not", "never", "isn't", "no fewer than", "about", "~", "≈", "up to", "Over",
		" ", "  ", "\t", "\n", ".", ",", ";", "é", "(", ")",
	}
	r := rand.New(rand.NewPCG(7, 11))
	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		for range 3 + r.IntN(25) {
			b.WriteString(pieces[r.IntN(len(pieces))])
			if r.IntN(3) > 0 {
				b.WriteByte(' ')
			}
		}
		out[i] = b.String()
	}
	return out
}

func sampleTexts(t testing.TB) []string {
	// The extractor's sample model outputs: prose with numbers.
	f, err := os.Open("../extract/testdata/extract/outputs.jsonl")
	require.NoError(t, err)
	defer f.Close()
	var texts []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var o struct {
			Text string `json:"text"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &o))
		texts = append(texts, o.Text)
	}
	require.NotEmpty(t, texts)
	return texts
}

// comparatorAtRegex is comparatorAt as it was written first: the whole text
// before the number lowercased and a regular expression for the negation.
func comparatorAtRegex(text string, end int) (Comparator, bool, string) {
	negated := regexp.MustCompile(`(?i)(?:\bnot|n't|\bnever)\s*$`)
	before := strings.TrimRight(text[:end], " \t")
	lower := strings.ToLower(before)
	for _, p := range comparatorPhrases {
		if !strings.HasSuffix(lower, p.phrase) {
			continue
		}
		start := len(lower) - len(p.phrase)
		if start > 0 && p.phrase != "~" && p.phrase != "≈" && isWordByte(lower[start-1]) {
			continue
		}
		return p.cmp, negated.MatchString(before[:start]), before[start:]
	}
	return CmpValue, false, ""
}

func TestComparatorAtEqualsRegexForm(t *testing.T) {
	checked, negated := 0, 0
	for _, text := range fuzzTexts(5000) {
		if strings.Contains(text, "\u212a") || strings.Contains(text, "ſ") {
			continue // ToLower changes their byte length: the old form misindexed
		}
		for end := 0; end <= len(text); end++ {
			c1, n1, p1 := comparatorAtRegex(text, end)
			c2, n2, p2 := comparatorAt(text, end)
			require.Equal(t, []any{c1, n1, p1}, []any{c2, n2, p2}, "%q at %d", text, end)
			checked++
			if n1 {
				negated++
			}
		}
	}
	assert.Greater(t, negated, 100, "negations are exercised")
	assert.Greater(t, checked, 100000)
}

func TestNextToMonthReadsOnlyTheNeighbours(t *testing.T) {
	text := "On 4 May the 12 ships left; march 3 and 7\tJune. 9"
	for _, tc := range []struct {
		num  string
		want bool
	}{{"4", true}, {"12", false}, {"3", true}, {"7", true}, {"9", true}} {
		i := strings.Index(text, tc.num)
		loc := []int{i, i + len(tc.num)}
		assert.Equal(t, tc.want, nextToMonth(text, loc), tc.num)
	}
	assert.False(t, nextToMonth("9", []int{0, 1}))
}
