package main

import (
	"context"
	"fmt"
	"os"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/adjudicate/lexical"
	"github.com/claimaudit/claimaudit/audit"
	"github.com/claimaudit/claimaudit/claims"
	"github.com/claimaudit/claimaudit/corpus"
)

func main() {
	var sets []lexical.Set
	for _, d := range os.Args[1:] {
		s, err := lexical.SetFromDir(d)
		if err != nil {
			panic(err)
		}
		sets = append(sets, s)
	}
	p := lexical.Pipeline{IndexRoot: ".cache/lexical/index", Retrieve: func(ctx context.Context, ix *corpus.Index, cs []claims.Claim, k int) ([]adjudicate.Pair, error) {
		return audit.Retriever{Index: ix, K: k}.Pairs(ctx, cs, 0)
	}}
	ps, err := p.Prepare(context.Background(), sets)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%-28s", "feature")
	for _, s := range ps {
		fmt.Printf(" %10.10s", s.Name)
	}
	fmt.Println()
	for j, name := range lexical.FeatureNames {
		fmt.Printf("%-28s", name)
		for _, s := range ps {
			sc := make([]float64, len(s.Y))
			pos := make([]bool, len(s.Y))
			for i := range s.Y {
				sc[i] = s.X[i][j]
				pos[i] = s.Y[i] == 0
			}
			fmt.Printf(" %10.3f", lexical.ROCAUC(sc, pos))
		}
		fmt.Println()
	}
}
