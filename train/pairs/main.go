// Command pairs writes, for each labelled claim of one or more data sets, the
// passages the harness itself retrieves for it (audit.Retriever, the BM25
// index `audit run` builds, k per claim, cited passages first), so that the
// Python trainer under train/ fits the cross-encoder on exactly the
// (passage, claim) inputs that `audit run --verifier onnx` scores.
//
//	go run ./train/pairs --index .cache/model/index --out pairs.jsonl --set DIR [--set DIR ...]
//
// One JSON object per claim: {"set", "claim_id", "label", "claim",
// "passages": [{"text", "cited", "score"}]}, claims in file order, sets in
// flag order. Same inputs, same output.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/claimaudit/claimaudit/adjudicate/lexical"
	"github.com/claimaudit/claimaudit/audit"
	"github.com/claimaudit/claimaudit/claims"
	"github.com/claimaudit/claimaudit/corpus"
)

type setFlags []string

func (s *setFlags) String() string     { return strings.Join(*s, ",") }
func (s *setFlags) Set(v string) error { *s = append(*s, v); return nil }

type passage struct {
	Text  string  `json:"text"`
	Cited bool    `json:"cited"`
	Score float64 `json:"score"`
}

type record struct {
	Set      string    `json:"set"`
	ClaimID  string    `json:"claim_id"`
	Label    string    `json:"label"`
	Claim    string    `json:"claim"`
	Passages []passage `json:"passages"`
}

func main() {
	var sets setFlags
	index := flag.String("index", "", "folder for the sets' indexes, one sub-folder per set (built or reused)")
	out := flag.String("out", "", "JSONL file to write")
	k := flag.Int("k", 5, "passages retrieved per claim (audit run's default)")
	flag.Var(&sets, "set", "a data set folder (repeatable)")
	flag.Parse()
	if *index == "" || *out == "" || len(sets) == 0 || *k < 1 {
		fmt.Fprintln(os.Stderr, "usage: pairs --index DIR --out FILE --set DIR [--set DIR ...] [--k N]")
		os.Exit(2)
	}
	if err := run(context.Background(), sets, *index, *out, *k); err != nil {
		fmt.Fprintln(os.Stderr, "pairs:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, dirs []string, index, out string, k int) error {
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	tmp := out + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, d := range dirs {
		if err = writeSet(ctx, enc, d, index, k); err != nil {
			break
		}
	}
	err = errors.Join(err, w.Flush(), f.Close())
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, out)
}

func writeSet(ctx context.Context, enc *json.Encoder, dir, index string, k int) error {
	s, err := lexical.SetFromDir(dir)
	if err != nil {
		return err
	}
	ixDir := filepath.Join(index, s.Name)
	if _, err := corpus.EnsureIndex(ctx, corpus.EnsureRequest{Dir: ixDir, CorpusPath: s.Corpus, SpansPath: s.Spans}); err != nil {
		return fmt.Errorf("data set %s: %w", s.Name, err)
	}
	ix, err := corpus.OpenIndex(ixDir)
	if err != nil {
		return err
	}
	defer ix.Close()
	cs, err := claims.Load(ctx, s.Claims, s.Gold)
	if err != nil {
		return err
	}
	var labelled []claims.Claim
	for _, c := range cs {
		if c.Label != "" {
			labelled = append(labelled, c)
		}
	}
	pairs, err := audit.Retriever{Index: ix, K: k}.Pairs(ctx, labelled, 0)
	if err != nil {
		return err
	}
	for i, p := range pairs {
		r := record{Set: s.Name, ClaimID: p.ClaimID, Label: string(labelled[i].Label), Claim: p.Claim, Passages: []passage{}}
		for _, ps := range p.Passages {
			r.Passages = append(r.Passages, passage{Text: ps.Text, Cited: ps.Cited, Score: ps.Score})
		}
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "pairs: %s: %d labelled claims\n", s.Name, len(pairs))
	return nil
}
