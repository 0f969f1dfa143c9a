package corpus

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claimaudit/claimaudit/jsonl"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Hostile input must end in an error list or a valid corpus — never a panic,
// a hang or an I/O error — and a valid corpus must index.
func TestHostileInputNeverCrashes(t *testing.T) {
	demoDocs, err := os.ReadFile("testdata/small/corpus.jsonl")
	require.NoError(t, err)
	demoSpans, err := os.ReadFile("testdata/small/spans.jsonl")
	require.NoError(t, err)

	damaged := func(seed uint64, in []byte, n int) []byte {
		rng := rand.New(rand.NewPCG(seed, 7))
		out := bytes.Clone(in)
		for i := 0; i < n; i++ {
			out[rng.IntN(len(out))] = byte(rng.IntN(256))
		}
		return out
	}
	cases := map[string][2][]byte{
		"empty corpus":             {nil, nil},
		"NUL bytes":                {[]byte("\x00\x00{\"doc_id\":\"a\x00\",\"text\":\"b\"}\x00\n"), nil},
		"20 MB line":               {[]byte(`{"doc_id":"big","text":"` + strings.Repeat("word ", 4<<20) + "\"}\n"), nil},
		"20 MB of one unclosed {":  {bytes.Repeat([]byte("{"), 20<<20), nil},
		"100k-deep nesting":        {[]byte(`{"doc_id":"d","text":"x","meta":` + strings.Repeat(`{"a":`, 100000) + "1" + strings.Repeat("}", 100000) + "}\n"), nil},
		"100k-deep nesting spans":  {demoDocs, []byte(strings.Repeat("[", 100000))},
		"binary garbage":           {damaged(1, bytes.Repeat([]byte{0}, 4096), 4096), nil},
		"damaged spans":            {demoDocs, damaged(3, demoSpans, 40)},
		"only a BOM and CRLF":      {[]byte("\ufeff\r\n"), nil},
		"numbers where text lives": {[]byte(`{"doc_id":1e400,"text":-0}` + "\n"), nil},
	}
	for seed := uint64(0); seed < 20; seed++ {
		cases["damaged corpus "+string(rune('a'+seed))] = [2][]byte{damaged(seed, demoDocs, 1+int(seed)*5), demoSpans}
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			cp, sp := filepath.Join(dir, "c.jsonl"), filepath.Join(dir, "s.jsonl")
			require.NoError(t, os.WriteFile(cp, in[0], 0o644))
			require.NoError(t, os.WriteFile(sp, in[1], 0o644))
			res, err := EnsureIndex(context.Background(), EnsureRequest{Dir: filepath.Join(dir, "idx"), CorpusPath: cp, SpansPath: sp})
			if err != nil {
				var list *jsonl.ErrorList
				require.True(t, errors.As(err, &list), "want an input error list, got %v", err)
				require.NotZero(t, list.Total)
				for _, e := range list.Errors {
					assert.Contains(t, []string{cp, sp}, e.File, "every defect names its file")
				}
				_, statErr := os.Stat(filepath.Join(dir, "idx"))
				assert.True(t, os.IsNotExist(statErr), "no index is written for invalid input")
				return
			}
			assert.Positive(t, res.Manifest.Counts.Passages)
		})
	}
}
