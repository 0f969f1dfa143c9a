package tokenizer

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// refLine is one encoding by the Hugging Face tokenizers library
// (testdata/reference.cjs).
type refLine struct {
	Tok     string  `json:"tok"`
	A       string  `json:"a"`
	B       *string `json:"b"`
	Max     int     `json:"max"`
	IDs     []int64 `json:"ids"`
	TypeIDs []int64 `json:"type_ids"`
	Mask    []int64 `json:"mask"`
}

// tokenizerFiles are the tokenizer.json files the reference covers: the
// committed fixtures, the onnx backend's tiny model and the shipped
// verifier (models/; a BERT uncased WordPiece that declares a truncation
// length, which the reference's lines override).
var tokenizerFiles = map[string]string{
	"wordpiece.json":                    "testdata/wordpiece.json",
	"wordpiece_cased.json":              "testdata/wordpiece_cased.json",
	"bpe.json":                          "testdata/bpe.json",
	"unigram.json":                      "testdata/unigram.json",
	"unigram_xlmr.json":                 "testdata/unigram_xlmr.json",
	"tiny/tokenizer.json":               "../testdata/tiny/tokenizer.json",
	"minilm-l6-verifier/tokenizer.json": "../../../models/minilm-l6-verifier/tokenizer.json",
}

func readReference(t *testing.T) []refLine {
	path := os.Getenv("TOKENIZER_REF")
	if path == "" {
		t.Skip("TOKENIZER_REF not set: `make test` writes the tokenizers library's reference (make tokenizer-ref) and runs this test")
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []refLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var l refLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("%s:%d: %v", path, len(lines)+1, err)
		}
		lines = append(lines, l)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

// Every id, type id and attention mask equals the Rust library's, for
// every string and pair, for each tokenizer family.
func TestMatchesTokenizersReference(t *testing.T) {
	lines := readReference(t)
	toks := map[string]*Tokenizer{}
	for name, p := range tokenizerFiles {
		tk, err := Load(filepath.FromSlash(p))
		if err != nil {
			t.Fatal(err)
		}
		toks[name] = tk
	}
	count := map[string]int{}
	for i, l := range lines {
		tk := toks[l.Tok]
		if tk == nil {
			t.Fatalf("reference line %d: unknown tokenizer %q", i+1, l.Tok)
		}
		count[l.Tok]++
		var e Encoding
		var err error
		what := fmt.Sprintf("%s line %d: %q", l.Tok, i+1, l.A)
		if l.B == nil {
			e, err = tk.Encode(l.A)
		} else {
			e, err = tk.EncodePair(l.A, *l.B, l.Max)
			what += fmt.Sprintf(" + %q max %d", *l.B, l.Max)
		}
		if err != nil {
			t.Errorf("%s: %v", what, err)
			continue
		}
		mask := make([]int64, len(e.IDs))
		for j := range mask {
			mask[j] = 1
		}
		if !slices.Equal(e.IDs, l.IDs) {
			t.Errorf("%s:\n ids  %v\n want %v", what, e.IDs, l.IDs)
		} else if !slices.Equal(e.TypeIDs, l.TypeIDs) {
			t.Errorf("%s:\n type ids %v\n want     %v", what, e.TypeIDs, l.TypeIDs)
		} else if !slices.Equal(mask, l.Mask) {
			t.Errorf("%s: mask differs", what)
		}
	}
	for name := range tokenizerFiles {
		if count[name] == 0 {
			t.Errorf("the reference has no encodings by %s", name)
		}
	}
	t.Logf("%d encodings compared: %v", len(lines), count)
}
