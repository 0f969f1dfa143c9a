package null

import (
	"context"
	"testing"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/adjudicate/adjudicatetest"
)

func TestConformance(t *testing.T) {
	adjudicatetest.Run(t, func(*testing.T) adjudicate.Verifier { return Verifier{} })
}

// TestConstant: the verdict is the same for every pair, whatever its
// claim and evidence, and names no passage.
func TestConstant(t *testing.T) {
	v, err := adjudicate.NewRegistry(Backend())
	if err != nil {
		t.Fatal(err)
	}
	ver, err := v.New("null", adjudicate.Env{})
	if err != nil {
		t.Fatal(err)
	}
	pairs := adjudicatetest.Pairs()
	got, err := ver.Verify(context.Background(), pairs)
	if err != nil {
		t.Fatal(err)
	}
	for i, vd := range got {
		if vd.Logits != Logits || vd.Passage != -1 || vd.Rationale != Rationale || vd.Err != nil {
			t.Errorf("pair %d (%d passages): %+v", i, len(pairs[i].Passages), vd)
		}
	}
}
