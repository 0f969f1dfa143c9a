// Command extract scores claim extraction against a golden set: model
// output sentences with the atomic claims a correct extractor gives. It
// prints claim precision and recall (a claim matches an expected one when
// their texts agree after folding case, white space and closing
// punctuation), by case and overall, and how often the type, quantity,
// unit and cite of matched claims agree.
//
// Usage:
//
//	go run ./bench/extract [-golden F] [-v] [-min 0.9]
//
// It is run by `make eval-extract`, not part of audit.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/claimaudit/claimaudit/claims"
	"github.com/claimaudit/claimaudit/extract"
)

func main() {
	golden := flag.String("golden", "extract/testdata/golden.jsonl", "golden extraction set (JSONL)")
	verbose := flag.Bool("v", false, "list every missed, extra or disagreeing claim")
	minimum := flag.Float64("min", 0, "exit 1 when precision or recall is below this")
	flag.Parse()
	gs, err := readGolden(*golden)
	if err != nil {
		fmt.Fprintln(os.Stderr, "extract:", err)
		os.Exit(2)
	}
	r, err := score(gs, ruleBased)
	if err != nil {
		fmt.Fprintln(os.Stderr, "extract:", err)
		os.Exit(2)
	}
	fmt.Printf("rule-based extractor on %s (%d cases)\n", *golden, len(gs))
	r.print(os.Stdout, *verbose)
	if p, rc := r.all.precision(), r.all.recall(); p < *minimum || rc < *minimum {
		fmt.Fprintf(os.Stderr, "extract: precision %.3f or recall %.3f below %.2f\n", p, rc, *minimum)
		os.Exit(1)
	}
}

// ruleBased is the default extractor with its default options.
func ruleBased(g Golden) ([]claims.Claim, error) {
	var st extract.ExtractStats
	return extract.Extract(extract.Output{ID: g.ID, Text: g.Text, Query: g.Query}, extract.ExtractOptions{}, &st), nil
}
