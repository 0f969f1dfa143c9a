package corpus

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestGlossaryRestate(t *testing.T) {
	g := &Glossary{}
	g.add("A business day is a weekday that is not a public holiday.", "s1")
	g.add("Net income means revenue minus all operating expenses.", "s2")
	g.add("The tower is tall.", "s3") // one content word: not a definition
	g.add("In this policy, a dependant means a child under 18 who lives at home.", "s4")
	if len(g.Defs) != 3 || g.Defs[0].Term != "business day" || g.Defs[1].Term != "net income" || g.Defs[2].Term != "dependant" {
		t.Fatalf("definitions %+v", g.Defs)
	}
	for _, tc := range []struct {
		claim, want string
		changed     bool
	}{
		{"Refunds are issued within 3 weekdays, not counting public holidays.", "Refunds are issued within 3 business days.", true},
		{"Orders ship within 2 weekdays that are not public holidays.", "Orders ship within 2 business days.", true},
		{"Refunds are issued within 3 weekdays, including public holidays.", "Refunds are issued within 3 weekdays, including public holidays.", false},
		{"Refunds are issued within 3 business days.", "Refunds are issued within 3 business days.", false},
		{"The firm reported revenue minus operating expenses of $4 million.", "The firm reported net income of $4 million.", true},
		{"Public holidays fall on weekdays, mostly.", "Public holidays fall on weekdays, mostly.", false},
		// the definition's words out of its order are not the definition
		{"Halvern Foods' revenue rose 8% while all operating expenses fell, minus one-off costs.", "Halvern Foods' revenue rose 8% while all operating expenses fell, minus one-off costs.", false},
	} {
		got, _, changed := g.Restate(tc.claim)
		if got != tc.want || changed != tc.changed {
			t.Errorf("Restate(%q) = %q, %v; want %q, %v", tc.claim, got, changed, tc.want, tc.changed)
		}
	}
}

func TestReadGlossary(t *testing.T) {
	dir := t.TempDir()
	corpusPath, spansPath := filepath.Join(dir, "corpus.jsonl"), filepath.Join(dir, "spans.jsonl")
	os.WriteFile(corpusPath, []byte(`{"doc_id":"g","title":"Glossary","text":"A business day is a weekday that is not a public holiday. Gross margin is revenue minus the cost of goods sold.","meta":{"kind":"glossary"}}
{"doc_id":"p","title":"Policy","text":"Refunds are issued within 3 business days. A refund is money paid back."}
`), 0o644)
	os.WriteFile(spansPath, []byte(`{"span_id":"s1","doc_id":"p","start":0,"end":10,"quote":"A refund is money paid back to a customer.","tags":["definition"]}
{"span_id":"s2","doc_id":"p","start":0,"end":10,"quote":"Refunds are issued within 3 business days.","tags":["policy"]}
`), 0o644)
	g, err := ReadGlossary(context.Background(), corpusPath, spansPath)
	if err != nil {
		t.Fatal(err)
	}
	var terms []string
	for _, d := range g.Defs {
		terms = append(terms, d.Term)
	}
	// The policy document's "A refund is money paid back." is not read: it
	// is neither a glossary nor a span tagged definition.
	if want := []string{"business day", "gross margin", "refund"}; !slices.Equal(terms, want) {
		t.Errorf("terms %q, want %q", terms, want)
	}
}
