package tei

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/adjudicate/remote/remotetest"
)

// FuzzPredictAnswer serves arbitrary bytes as the /predict answer: Verify
// never panics, and when it succeeds every verdict is one the scheduler
// accepts or one carrying its error (never a NaN or a skipped pair).
func FuzzPredictAnswer(f *testing.F) {
	f.Add(`[[{"score":3,"label":"entailment"},{"score":1,"label":"contradiction"},{"score":2,"label":"neutral"}]]`)
	f.Add(`[[{"score":1e300,"label":"entailment"},{"score":-1e300,"label":"contradiction"},{"score":0,"label":"neutral"}]]`)
	f.Add(`[[{"score":1,"label":"entailment"},{"score":1,"label":"entailment"}]]`)
	f.Add(`[[{"score":null,"label":"neutral"}]]`)
	var mu sync.Mutex
	answer := ""
	tei := remotetest.NewTEI(remotetest.TextHashScore)
	tei.SetFault(func(w http.ResponseWriter, r *http.Request, _ int64, _ []byte) bool {
		if r.URL.Path != "/predict" {
			return false
		}
		mu.Lock()
		defer mu.Unlock()
		w.Write([]byte(answer))
		return true
	})
	srv := serve(f, tei)
	v, err := New(context.Background(), Options{Client: fastRetries(srv.URL, nil)})
	if err != nil {
		f.Fatal(err)
	}
	defer v.Close()
	batch := []adjudicate.Pair{{ClaimID: "c", Claim: "x", Passages: []adjudicate.Passage{{Text: "y"}}}}
	f.Fuzz(func(t *testing.T, body string) {
		mu.Lock()
		answer = body
		mu.Unlock()
		got, err := v.Verify(context.Background(), batch)
		if err != nil {
			if strings.Contains(err.Error(), "panic") {
				t.Fatal(err)
			}
			return
		}
		if len(got) != 1 {
			t.Fatalf("%d verdicts for 1 pair", len(got))
		}
		if got[0].Err == nil && adjudicate.CheckLogits(got[0].Logits) != nil {
			t.Fatalf("verdict %v passed on unchecked", got[0].Logits)
		}
	})
}
