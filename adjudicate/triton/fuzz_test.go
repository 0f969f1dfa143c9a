package triton

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/adjudicate/remote/remotetest"
)

// FuzzInferAnswer serves arbitrary bytes as the /infer answer: Verify never
// panics, and when it succeeds every verdict passes CheckLogits or carries
// its error.
func FuzzInferAnswer(f *testing.F) {
	f.Add(`{"model_name":"nli","outputs":[{"name":"logits","datatype":"FP32","shape":[1,3],"data":[1,2,3]}]}`)
	f.Add(`{"model_name":"nli","outputs":[{"name":"logits","datatype":"FP32","shape":[1,3],"data":[1e300,-1e300,0]}]}`)
	f.Add(`{"outputs":[{"name":"logits","datatype":"FP64","shape":[1,3],"data":[1e7,0,0]}]}`)
	f.Add(`{"outputs":[{"name":"logits","shape":[3,1],"data":[1,2,3]}]}`)
	var mu sync.Mutex
	answer := ""
	tr := remotetest.NewTriton("nli", remotetest.HashScore)
	tr.SetFault(func(w http.ResponseWriter, r *http.Request, _ int64, _ []byte) bool {
		if !strings.HasSuffix(r.URL.Path, "/infer") {
			return false
		}
		mu.Lock()
		defer mu.Unlock()
		w.Write([]byte(answer))
		return true
	})
	srv := serve(f, tr)
	v, err := New(context.Background(), Options{Model: tiny, ModelName: "nli", Client: fastRetries(srv.URL, nil)})
	if err != nil {
		f.Fatal(err)
	}
	defer v.Close()
	batch := []adjudicate.Pair{{ClaimID: "c", Claim: "Lake Orrin is deep.", Passages: []adjudicate.Passage{{Text: "It is 18 metres deep."}}}}
	f.Fuzz(func(t *testing.T, body string) {
		mu.Lock()
		answer = body
		mu.Unlock()
		got, err := v.Verify(context.Background(), batch)
		if err != nil {
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
