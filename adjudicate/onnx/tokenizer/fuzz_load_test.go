package tokenizer

import (
	"os"
	"testing"
)

// FuzzParse feeds arbitrary bytes as tokenizer.json (seeded with the test
// model's and damaged copies of it): Parse never panics, and a tokenizer
// it accepts encodes a pair without panicking.
func FuzzParse(f *testing.F) {
	good, err := os.ReadFile("../testdata/tiny/tokenizer.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add([]byte(`{"model":{"type":"WordPiece","vocab":{"[UNK]":0}},"normalizer":null}`))
	f.Add([]byte(`{"model":{"type":"BPE","vocab":{},"merges":[]}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		tok, err := Parse(b)
		if err != nil || tok == nil {
			return
		}
		_, _ = tok.EncodePair("Lake Orrin is 18 metres deep.", "Is it deep?", 64)
	})
}
