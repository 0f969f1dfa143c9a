package audit

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/corpus"
	"github.com/claimaudit/claimaudit/memo"
)

// windowed is a verifier with a 40-token window that counts words.
type windowed struct{ adjudicate.Verifier }

func (windowed) PassageTokens(claim string) int { return 40 - corpus.CountTokens(claim) }
func (windowed) CountTokens(text string) int    { return corpus.CountTokens(text) }

// The chunks of a cited document are sized to the verifier's window, also
// through the --resume cache; a verifier without one gets the default.
func TestChunkOptionsFollowTheVerifiersWindow(t *testing.T) {
	claim := "Drug X was approved in 2019." // 7 tokens
	if got := chunkOptions(windowed{}, claim); got.Tokens != 33 || got.Count == nil {
		t.Errorf("windowed: %+v, want 33 tokens", got)
	}
	if got := chunkOptions(WithCache(windowed{}, nil), claim); got.Tokens != 33 {
		t.Errorf("behind the cache: %d tokens, want 33", got.Tokens)
	}
	if got := chunkOptions(nullVerifier{}, claim); got.Tokens != 0 || got.Count != nil {
		t.Errorf("no window: %+v, want the defaults", got)
	}
	if got := chunkOptions(windowed{}, "a b c d e f g h i j k l m n o p q r s t u v w x y z a b c d e f g h i j k l"); got.Tokens != 16 {
		t.Errorf("a claim filling the window: %d tokens, want the floor of 16", got.Tokens)
	}
}

type nullVerifier struct{}

func (nullVerifier) Verify(_ context.Context, b []adjudicate.Pair) ([]adjudicate.Verdict, error) {
	out := make([]adjudicate.Verdict, len(b))
	for i, p := range b {
		out[i] = adjudicate.Verdict{Logits: [3]float64{float64(len(p.Passages)), 0, 0}, Passage: -1}
	}
	return out, nil
}

// chunkwise verifies each passage of a PerPassage pair on its own and
// passes other pairs through whole.
func TestChunkwiseSplitsOnlyScopedPairs(t *testing.T) {
	ps := []adjudicate.Passage{{ID: "a", Score: 1}, {ID: "b", Score: 2}, {ID: "c", Score: 0}}
	cw := newChunkwise(nullVerifier{}, "null")
	cw.batch = 2 // the flat pairs cross batch boundaries
	got, err := cw.Verify(context.Background(), []adjudicate.Pair{
		{ClaimID: "x", Passages: ps, PerPassage: true},
		{ClaimID: "y", Passages: ps},
		{ClaimID: "z", PerPassage: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("%d verdicts for 3 pairs", len(got))
	}
	if len(got[0].PassageLogits) != 3 || got[0].PassageLogits[2] != [3]float64{1, 0, 0} {
		t.Errorf("scoped pair: each chunk alone (1 passage each), got %+v", got[0])
	}
	if got[1].Logits != [3]float64{3, 0, 0} || got[1].PassageLogits != nil {
		t.Errorf("corpus pair: judged whole, got %+v", got[1])
	}
	if got[2].Logits != [3]float64{0, 0, 0} {
		t.Errorf("scoped pair without passages: judged as it is, got %+v", got[2])
	}
}

// A run keeps each cited document's chunks by document and size: a claim
// whose window leaves another size gets its own size's chunks, and a
// document read again gets the chunks it got the first time.
func TestDocChunksKeptBySize(t *testing.T) {
	doc := ""
	for i := range 40 {
		doc += fmt.Sprintf("Sentence %d of the report says the plant made %d tonnes in 2019. ", i, 100+i)
	}
	kept := Retriever{chunks: memo.New[docChunkKey, []adjudicate.Passage](2)}
	for _, tokens := range []int{20, 60, 20, 33, 60, 20} {
		opts := corpus.ChunkOptions{Tokens: tokens, Count: corpus.CountTokens}
		got, want := kept.docChunks("d1", doc, opts), Retriever{}.docChunks("d1", doc, opts)
		if len(want) < 3 {
			t.Fatalf("%d tokens: %d chunks, the test wants several", tokens, len(want))
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%d tokens: kept chunks %d, made afresh %d (first %+v / %+v)", tokens, len(got), len(want), got[0], want[0])
		}
	}
}
