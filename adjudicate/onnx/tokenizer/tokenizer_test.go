package tokenizer

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

func loadAll(tb testing.TB) map[string]*Tokenizer {
	out := map[string]*Tokenizer{}
	for name, p := range tokenizerFiles {
		tk, err := Load(filepath.FromSlash(p))
		if err != nil {
			tb.Fatal(err)
		}
		out[name] = tk
	}
	return out
}

func hardStrings(tb testing.TB) []string {
	var s []string
	b, err := os.ReadFile("testdata/strings.json")
	if err != nil {
		tb.Fatal(err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		tb.Fatal(err)
	}
	return s
}

// demoPairs are the demo set's claims with the text of the document each
// cites (the pairs reference.cjs times, in the same order).
func demoPairs(tb testing.TB, n int) (passages, claims []string) {
	read := func(p string, f func(map[string]any)) {
		file, err := os.Open(p)
		if err != nil {
			tb.Fatal(err)
		}
		defer file.Close()
		sc := bufio.NewScanner(file)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				f(m)
			}
		}
	}
	docs := map[string]string{}
	read("../../../benchdata/demo/corpus.jsonl", func(m map[string]any) { docs[m["doc_id"].(string)], _ = m["text"].(string) })
	read("../../../benchdata/demo/claims.jsonl", func(m map[string]any) {
		if len(claims) >= n {
			return
		}
		doc := ""
		if c, ok := m["cite"].([]any); ok && len(c) > 0 {
			doc = docs[c[0].(string)]
		}
		passages, claims = append(passages, doc), append(claims, m["text"].(string))
	})
	return passages, claims
}

// The truncated pair keeps the claim whole and as much of the passage as
// fits, whatever the text; only a claim too long for the model is cut.
func TestTruncationRule(t *testing.T) {
	for name, tk := range loadAll(t) {
		long := strings.Repeat("The committee met again and discussed the budget in detail. ", 200)
		for _, c := range []struct{ passage, claim string }{
			{long, "Lake Orrin is deep."}, {"The lake is deep.", long}, {long, long}, {"", long}, {long, ""},
		} {
			for _, maxLen := range []int{8, 32, 128} {
				e, err := tk.EncodePair(c.passage, c.claim, maxLen)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if len(e.IDs) > maxLen || len(e.TypeIDs) != len(e.IDs) {
					t.Errorf("%s max %d: %d ids, %d type ids", name, maxLen, len(e.IDs), len(e.TypeIDs))
				}
				full, _ := tk.EncodePair(c.passage, c.claim, 0)
				if len(full.IDs) >= maxLen && len(e.IDs) != maxLen {
					t.Errorf("%s max %d: %d ids, want the budget filled", name, maxLen, len(e.IDs))
				}
			}
		}
		claim, _ := tk.Encode("Lake Orrin is deep.")
		pair, _ := tk.EncodePair(long, "Lake Orrin is deep.", 64)
		n := len(claim.IDs) - 1 // the claim's tokens and its closing special token end the pair
		if got := pair.IDs[len(pair.IDs)-n:]; !equal(got, claim.IDs[1:]) {
			t.Errorf("%s: the claim is not kept whole: %v vs %v", name, got, claim.IDs)
		}
	}
	tk := loadAll(t)["wordpiece.json"]
	if _, err := tk.EncodePair("a", "b", 3); err == nil {
		t.Error("maxLen 3 leaves no room beside [CLS] [SEP] [SEP]: want an error")
	}
}

func equal(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Tokenising a prefix of a long text's words gives a prefix of its tokens.
func TestTokensUpToIsPrefix(t *testing.T) {
	strs := hardStrings(t)
	passages, _ := demoPairs(t, 40)
	strs = append(strs, passages...)
	for name, tk := range loadAll(t) {
		for _, s := range strs {
			full, err := tk.tokens(s)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range []int{1, 3, 10, 50} {
				got, err := tk.tokensUpTo(s, n)
				if err != nil {
					t.Fatal(err)
				}
				k := min(n, len(full))
				if len(got) < k || !equal(got[:k], full[:k]) {
					t.Errorf("%s %q n=%d: %v, want a prefix of %v", name, s, n, got, full)
				}
			}
		}
	}
}

func TestEncodePairsAPI(t *testing.T) {
	tk := loadAll(t)["wordpiece.json"]
	ids, types, masks, err := tk.EncodePairs([]string{"claim one", "claim two"}, []string{"passage one", ""}, 16)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ids {
		want, _ := tk.EncodePair([]string{"passage one", ""}[i], []string{"claim one", "claim two"}[i], 16)
		if !equal(ids[i], want.IDs) || !equal(types[i], want.TypeIDs) || len(masks[i]) != len(ids[i]) {
			t.Errorf("pair %d: %v %v %v, want %v %v", i, ids[i], types[i], masks[i], want.IDs, want.TypeIDs)
		}
	}
	if _, _, _, err := tk.EncodePairs([]string{"a"}, nil, 16); err == nil {
		t.Error("want an error for mismatched lengths")
	}
}

func TestLoadErrors(t *testing.T) {
	for _, c := range []struct{ json, want string }{
		{`{"model": {"type": "Mystery"}}`, "unsupported"},
		{`{"normalizer": {"type": "Nope"}, "model": {"type": "WordLevel", "vocab": {}}}`, "normalizer"},
		{`{"pre_tokenizer": {"type": "Split", "pattern": {"Regex": "(?!x)"}, "behavior": "Isolated"}, "model": {"type": "WordLevel", "vocab": {}}}`, "regex"},
		{`{"model": {"type": "WordPiece", "vocab": {"a": 0}, "unk_token": "[UNK]"}}`, "unk_token"},
		{`{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": ["a b"]}}`, "merges"},
		{`not json`, "invalid"},
		{`{"truncation": {"max_length": -1}, "model": {"type": "WordLevel", "vocab": {"a": 0}, "unk_token": "a"}}`, "max_length"},
	} {
		_, err := Parse([]byte(c.json))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to mention %q", c.json, err, c.want)
		}
	}
	if _, err := Load("testdata/missing.json"); err == nil {
		t.Error("want an error for a missing file")
	}
}

// tokenizer.json's truncation max_length (the length a model was trained
// at) is reported; a file without one reports 0.
func TestMaxLengthFromTruncation(t *testing.T) {
	const model = `"model": {"type": "WordLevel", "vocab": {"a": 0}, "unk_token": "a"}`
	for _, c := range []struct {
		json string
		want int
	}{
		{`{` + model + `}`, 0},
		{`{"truncation": null, ` + model + `}`, 0},
		{`{"truncation": {"direction": "Right", "max_length": 96, "strategy": "OnlyFirst", "stride": 0}, ` + model + `}`, 96},
	} {
		tk, err := Parse([]byte(c.json))
		if err != nil {
			t.Fatal(err)
		}
		if got := tk.MaxLength(); got != c.want {
			t.Errorf("%s: MaxLength %d, want %d", c.json, got, c.want)
		}
	}
}

// No input panics or breaks the length bound.
func FuzzEncodePair(f *testing.F) {
	for _, s := range hardStrings(f) {
		f.Add(s, "claim", 24)
	}
	toks := loadAll(f)
	names := make([]string, 0, len(toks))
	for n := range toks {
		names = append(names, n)
	}
	sort.Strings(names)
	f.Fuzz(func(t *testing.T, passage, claim string, maxLen int) {
		maxLen = 5 + (maxLen&0xff)%200
		for _, n := range names {
			e, err := toks[n].EncodePair(passage, claim, maxLen)
			if err != nil {
				continue
			}
			if len(e.IDs) > maxLen || len(e.TypeIDs) != len(e.IDs) {
				t.Fatalf("%s: %d ids for max %d", n, len(e.IDs), maxLen)
			}
		}
	})
}

// BenchmarkEncodePairs: pairs/s of tokenisation alone on the demo pairs
// (make bench-tokenizer runs it with -cpu 1,N beside the Rust library).
func BenchmarkEncodePairs(b *testing.B) {
	passages, claims := demoPairs(b, 150)
	for _, name := range []string{"wordpiece.json", "bpe.json", "unigram.json"} {
		tk := loadAll(b)[name]
		b.Run(strings.TrimSuffix(name, ".json"), func(b *testing.B) {
			for b.Loop() {
				if _, _, _, err := tk.EncodePairs(claims, passages, 512); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(claims)*b.N)/b.Elapsed().Seconds(), "pairs/s")
		})
	}
}
