package benchdata

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claimaudit/claimaudit/jsonl"
)

func TestConvertGroundedDedupesDocuments(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "pairs.jsonl")
	lines := `{"doc": "The ferry resumed service on Monday.", "claim": "The ferry resumed service.", "label": 1, "dataset": "news"}
{"doc": "The ferry resumed service on Monday.", "claim": "The ferry stopped.", "label": 0, "dataset": "news"}
{"doc": "Another document.", "claim": "A claim.", "label": 0}
`
	if err := os.WriteFile(in, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := ConvertGrounded(context.Background(), in, filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Pairs != 3 || c.Docs != 2 || c.Datasets["news"] != 2 || c.Datasets[""] != 1 {
		t.Fatalf("counts %+v", c)
	}
	b, err := os.ReadFile(filepath.Join(dir, "out", "claims.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(got) != 3 || !strings.Contains(got[0], `"id":"news:1"`) || !strings.Contains(got[2], `"id":"pair:3"`) ||
		!strings.Contains(got[1], `"label":"unsupported"`) || strings.Contains(got[2], `"meta"`) {
		t.Fatalf("claims:\n%s", b)
	}
}

// FuzzConvertGrounded: any bytes are converted or refused with positioned
// errors, never a panic, and a refused file leaves nothing written.
func FuzzConvertGrounded(f *testing.F) {
	f.Add([]byte(`{"doc": "D.", "claim": "C.", "label": 1, "dataset": "x"}` + "\n"))
	f.Add([]byte(`{"doc": "D.", "claim": "C.", "label": 2}` + "\n" + `{"id": "a", "doc": "D", "claim": "C", "label": 0}`))
	f.Add([]byte("not json\n{}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		in := filepath.Join(dir, "in.jsonl")
		if err := os.WriteFile(in, data, 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "out")
		c, err := ConvertGrounded(context.Background(), in, out)
		if err != nil {
			var list *jsonl.ErrorList
			if errors.As(err, &list) {
				if _, serr := os.Stat(filepath.Join(out, "claims.jsonl")); serr == nil {
					t.Fatalf("a refused file wrote claims.jsonl: %v", err)
				}
			}
			return
		}
		b, err := os.ReadFile(filepath.Join(out, "claims.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(b), "\n"); n != c.Pairs {
			t.Fatalf("%d claim lines for %d pairs", n, c.Pairs)
		}
	})
}
