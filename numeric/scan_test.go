package numeric

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/claimaudit/claimaudit/sentence"
)

// equalToRegexp fails t where the scanner and the regular expressions
// differ on text: each pattern's matches, NumberPrefix, and FindNumbers'
// mentions. It returns the number of mentions.
func equalToRegexp(t testing.TB, text string) int {
	a := anchorsOf(text, nil)
	for i, p := range patterns {
		require.Equal(t, spansOf(p.re.FindAllStringIndex(text, -1)),
			scannedSpans(text, a.at, scanOrder[i].at, scanOrder[i].end), "pattern %d (%s) in %q", i, p.name, text)
	}
	require.Equal(t, spansOf(reVersionTok.FindAllStringIndex(text, -1)), scannedSpans(text, a.at, atVersion, versionEnd), "versions in %q", text)
	require.Equal(t, spansOf(reBareNumber.FindAllStringIndex(text, -1)), scannedSpans(text, a.at, atDigit, bareNumberEnd), "numbers in %q", text)
	require.Equal(t, numberPrefixRegexp(text), NumberPrefix(text), "NumberPrefix(%q)", text)
	want := findNumbersRegexp(text)
	require.Equal(t, want, FindNumbers(text), "FindNumbers(%q)", text)
	return len(want)
}

func spansOf(locs [][]int) [][2]int {
	var out [][2]int
	for _, l := range locs {
		out = append(out, [2]int{l[0], l[1]})
	}
	return out
}

func scannedSpans(text string, anchors []int, kind int, end func(string, int) int) [][2]int {
	var out [][2]int
	eachMatch(text, anchors, kind, end, func(b, e int) { out = append(out, [2]int{b, e}) })
	return out
}

// The scanner finds what the regular expressions found, on the generated
// texts of every pattern's keywords and symbols (20,000) and the sample
// model outputs; every pattern is exercised.
func TestScannerEqualsRegexp(t *testing.T) {
	texts := append(fuzzTexts(20000), sampleTexts(t)...)
	found, hit := 0, map[string]int{}
	for _, text := range texts {
		found += equalToRegexp(t, text)
		for _, m := range FindNumbers(text) {
			hit[m.Pattern]++
		}
	}
	assert.Greater(t, found, 20000, "the texts exercise the patterns")
	for _, p := range patterns {
		assert.Greater(t, hit[p.name], 10, "pattern %s is exercised", p.name)
	}
	assert.Greater(t, hit["number"], 10)
}

// The scanner on real prose: every claim and corpus document of the real
// sets, each line and each sentence of them (the texts the verifier and
// the numeric check read). DATA names the folder of the sets (the
// Makefile passes it); without it the test is skipped.
func TestScannerEqualsRegexpOnRealSets(t *testing.T) {
	dir := os.Getenv("DATA")
	if dir == "" {
		t.Skip("DATA unset: no real sets to compare on (make test DATA=folder)")
	}
	sets := []string{"sufficient_facts", "fm2", "citint_train", "checkcovid_train"}
	for _, set := range sets {
		texts, mentions := 0, 0
		for _, file := range []string{"claims.jsonl", "corpus.jsonl"} {
			for _, text := range jsonlTexts(t, filepath.Join(dir, set, file)) {
				for _, s := range withParts(text) {
					mentions += equalToRegexp(t, s)
					texts++
				}
			}
		}
		t.Logf("%s: %d texts, %d mentions equal", set, texts, mentions)
		assert.Greater(t, mentions, 100, set)
	}
}

// withParts is a text, its lines and its sentences.
func withParts(text string) []string {
	out := []string{text}
	if strings.Contains(text, "\n") {
		out = append(out, strings.Split(text, "\n")...)
	}
	runes := []rune(text)
	for _, sp := range sentence.Split(runes) {
		out = append(out, string(runes[sp[0]:sp[1]]))
	}
	return out
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

// Only k and s have case folds outside ASCII (the Kelvin sign, the long
// s): the scanner's foldLit knows no others.
func TestOnlyKAndSFoldOutsideASCII(t *testing.T) {
	for c := 'a'; c <= 'z'; c++ {
		var outside []rune
		for r := unicode.SimpleFold(c); r != c; r = unicode.SimpleFold(r) {
			if r > unicode.MaxASCII {
				outside = append(outside, r)
			}
		}
		switch c {
		case 'k':
			assert.Equal(t, []rune{'\u212a'}, outside)
		case 's':
			assert.Equal(t, []rune{'\u017f'}, outside)
		default:
			assert.Empty(t, outside, string(c))
		}
	}
}

// scannerSeeds are texts where a hand-written matcher is easily wrong:
// folds, \b beside non-ASCII letters, backtracking, \s that is not \v.
var scannerSeeds = []string{
	"Score: 87% on the benchmark.", "trust  score:  5 %", "TRUST\tſcore 5%", "xſcore 5%", "score5%", "score: 5 5%",
	"average of 5 percent", "average of x 5", "Average 5percentage", "average  of5", "the average 7.5 %",
	"$29/user", "$29 per user", "$ 29 perx", "€1.5bn deal", "£3 M", "$5 Kelvin", "$5 M.", "$5M/yr", "$5 /  yr",
	"between 5 and 6", "between 5 M and 6 ſtars", "between 5 \u212ax and 6", "between $5 and €6 million people", "between 5% and 6 percent more",
	"between 5 b and 6 \u212a", "between 5 and 6 \u212aelvin's-x", "BETWEEN 1,000 AND 2,000 Km",
	"85-95%", "85 – 95 percent", "1,-2", "3.5 —4", "1- 2percent", "1 -2 %",
	"5 percent", "5 per cent", "5 PER CENT", "5 percentile", "5per cent.",
	"3x faster", "3x", "3 ×.", "3.5x;", "3xl", "2.x", "1.5.x ", "3x rock-", "3x ab-cd9", "3x a9", "3x  it's", "3x \u212aelvin",
	"4x more_", "2.5× cheaper.", "3x over two years", "3x-y", "3x don'", "3x a-",
	"100ms", "5 mſ", "5 hourſ", "5 hourſ.", "5 hourſx", "5 secs", "5 ſecſ", "5 min.", "5 milliseconds", "5 Hrs", "5 hrſ_",
	"25 built-in lint rules", "5M people", "5 M", "5M", "5 million", "48.2 million passengers", "3 presets.", "7 o'clock-ish",
	"v1.0 shipped", "version 3.0.1", "Version\t2.1", "xv1.0", "v1", "V1.2.3.4 and 5 rules", "version 3", "vERSIOn 1.2",
	"in 2021 on 4 May", "May 4 and march 3", "2,021 passengers", "1.5K", "10 thousandth", "10 bn.",
	"\v5\v%", "5\v%", "\x80 5 %", "5\xe2\x80 x", "é5 cats", "5é cats", "_5 cats", "5_ cats",
}

// FuzzScannerEqualsRegexp holds the scanner equal to the regular
// expressions on any text.
func FuzzScannerEqualsRegexp(f *testing.F) {
	for _, s := range scannerSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		equalToRegexp(t, text)
	})
}

func TestScannerSeedsEqualRegexp(t *testing.T) {
	n := 0
	for _, s := range scannerSeeds {
		n += equalToRegexp(t, s)
	}
	assert.Greater(t, n, 60)
}
