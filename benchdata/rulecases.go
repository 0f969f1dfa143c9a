package benchdata

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/claimaudit/claimaudit/claims"
	"github.com/claimaudit/claimaudit/label"
)

// ruleCase is one extra labelled claim for the labelling rules, with the
// document it needs (none for most).
type ruleCase struct {
	claim genClaim
	doc   map[string]any
}

// ruleCaseKinds are the cases Options.RuleCases cycles through, each
// labelled as the labelling rules say (docs/rules.md):
//   - conflict: a second document dates the entity's founding differently;
//     the claim states the first document's year → insufficient;
//   - conflict-authority: the same, the second document marked
//     meta.authority; the claim states its year → supported;
//   - conflict-authority-other: … the claim states the other year → unsupported;
//   - no-evidence: a claim of words no document holds → insufficient;
//   - location: a true statement qualified by a place the document never
//     names → insufficient;
//   - stale: a true yearly value whose claim is as of 2026 → supported
//     (the stale rule only flags).
var ruleCaseKinds = []string{"conflict", "conflict-authority", "conflict-authority-other", "no-evidence", "location", "stale"}

// ruleCases draws n extra claims (ids r_0000001…) and their documents
// (doc_r000001…) from a stream of their own: the rest of the set is the
// same with or without them.
func (w *world) ruleCases(seed uint64, n int) []ruleCase {
	rng := rand.New(rand.NewPCG(seed, 0x2A1E5))
	var out []ruleCase
	for i := 0; len(out) < n && i < 50*n; i++ {
		kind := ruleCaseKinds[len(out)%len(ruleCaseKinds)]
		c, ok := w.ruleCase(rng, kind, len(out)+1)
		if !ok {
			continue
		}
		c.claim.ID = fmt.Sprintf("r_%07d", len(out)+1)
		c.claim.SourceID = fmt.Sprintf("out_r%06d", len(out)+1)
		out = append(out, c)
	}
	return out
}

func (w *world) ruleCase(rng *rand.Rand, kind string, n int) (ruleCase, bool) {
	g := claimGen{w: w, rng: rng}
	e := w.entities[rng.IntN(len(w.entities))]
	f := e.facts[rng.IntN(len(e.facts))]
	switch kind {
	case "conflict", "conflict-authority", "conflict-authority-other":
		if f.a.kind != kYear {
			return ruleCase{}, false
		}
		other := f
		other.value = f.value + float64((5+rng.IntN(30))*(1-2*rng.IntN(2)))
		docID := fmt.Sprintf("doc_r%06d", n)
		meta := map[string]string{"kind": e.kind.name}
		if kind != "conflict" {
			meta["authority"] = "true"
		}
		doc := map[string]any{"doc_id": docID, "title": e.name + " (history)",
			"text":   fill(f.a.docs[rng.IntN(len(f.a.docs))], e.name, other, other.valueText()),
			"source": "https://example.org/" + docID, "created_at": "2024-06-01", "meta": meta}
		t := g.template(f.a.claims)
		l, stated := label.Insufficient, f
		switch kind {
		case "conflict-authority":
			l, stated = label.Supported, other
		case "conflict-authority-other":
			l = label.Unsupported
		}
		c := g.claim(l, kind, e, stated, fill(t, e.name, stated, stated.valueText()), stated.valueText(), stated.value, false)
		return ruleCase{claim: c, doc: doc}, true
	case "no-evidence":
		words := []string{name(rng), "quibbles", "over", name(rng), "zephyrs"}
		c := genClaim{label: label.Insufficient, variant: kind}
		c.Text = strings.Join(words, " ") + "."
		c.Type, c.Importance, c.Modality, c.Polarity = "fact", "minor", "assertion", "positive"
		return ruleCase{claim: c}, true
	case "location":
		if numeric(f.a.kind) || f.a.kind == kYear {
			return ruleCase{}, false
		}
		place := w.cities[rng.IntN(len(w.cities))]
		c := g.claim(label.Insufficient, kind, e, f, fill(g.template(f.a.claims), e.name, f, f.valueText()), f.valueText(), 0, false)
		c.Text = strings.TrimSuffix(c.Text, ".") + " in " + place + "."
		c.Qualifiers.Location = place
		return ruleCase{claim: c}, true
	case "stale":
		if f.year == 0 || !numeric(f.a.kind) {
			return ruleCase{}, false
		}
		t := g.template(f.a.claims)
		if !strings.Contains(t, "{Y}") {
			return ruleCase{}, false
		}
		c := g.claim(label.Supported, kind, e, f, fill(t, e.name, f, f.a.format(f.value)), f.a.format(f.value), f.value, false)
		c.Timeframe = &claims.Timeframe{Start: fmt.Sprintf("%d-01-01", f.year), End: fmt.Sprintf("%d-12-31", f.year), AsOf: "2026-06-30"}
		return ruleCase{claim: c}, true
	}
	return ruleCase{}, false
}
