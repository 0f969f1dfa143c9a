package main

import (
	"context"
	"flag"
	"math"
	"strings"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/adjudicate/lexical"
)

// nanVerifier is the lexical verifier with NaN logits for some claims: a
// corrupted model, for the fallback rule's script.
type nanVerifier struct {
	*lexical.Verifier
	ids map[string]bool
}

func (v nanVerifier) Verify(ctx context.Context, batch []adjudicate.Pair) ([]adjudicate.Verdict, error) {
	out, err := v.Verifier.Verify(ctx, batch)
	for i, p := range batch {
		if err == nil && v.ids[p.ClaimID] {
			out[i].Logits = [3]float64{math.NaN(), 0.2, 0.1}
		}
	}
	return out, err
}

func nanBackend() adjudicate.Backend {
	return adjudicate.Backend{Name: "nan", Help: "the lexical verifier with NaN logits for --nan-ids", Configure: func(fs *flag.FlagSet) adjudicate.Factory {
		ids := fs.String("nan-ids", "", "nan: claim ids (comma-separated) whose logits are NaN")
		return func(env adjudicate.Env) (adjudicate.Verifier, error) {
			lv, err := lexical.New("", env.Stats)
			if err != nil {
				return nil, err
			}
			v := nanVerifier{Verifier: lv, ids: map[string]bool{}}
			for _, id := range strings.Split(*ids, ",") {
				v.ids[id] = true
			}
			return v, nil
		}
	}}
}
