package lint

import (
	"bytes"
	"context"
	"testing"
)

// FuzzReadFacts feeds arbitrary bytes as a facts file: ReadFacts never
// panics, and what it accepts has an id for every fact.
func FuzzReadFacts(f *testing.F) {
	f.Add([]byte(`{"id":"f1","subject":"Quavor Harbour","predicate":"population","value":"870,000","unit":"people"}` + "\n"))
	f.Add([]byte("{\"id\":\"f\",\"value\":\"$29\"}\n{\"id\":\"f\",\"value\":1e999}\n\xEF\xBB\xBF{}"))
	f.Fuzz(func(t *testing.T, b []byte) {
		facts, err := ReadFacts(context.Background(), bytes.NewReader(b), "facts.jsonl")
		if err != nil {
			return
		}
		for _, fact := range facts {
			if fact.ID == "" {
				t.Fatalf("accepted a fact without an id: %+v", fact)
			}
		}
	})
}
