package extract

import (
	"bytes"
	"context"
	"testing"
)

// FuzzReadOutputs feeds arbitrary bytes as an outputs file: ReadOutputs
// never panics, and every output it passes on comes with a line number.
func FuzzReadOutputs(f *testing.F) {
	f.Add([]byte(`{"id":"o1","text":"Revenue rose 12% in 2023. It was a record."}` + "\n"))
	f.Add([]byte("{\"id\":\"o\",\"text\":\"\\ud800\"}\n{\"id\":\"o\",\"text\":\"x\"}\n\n\xEF\xBB\xBF{\"id\":1}"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_ = ReadOutputsAt(context.Background(), bytes.NewReader(b), "outputs.jsonl", func(line int, o Output) error {
			if line < 1 {
				t.Fatalf("output at line %d", line)
			}
			return nil
		})
	})
}
