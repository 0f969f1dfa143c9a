package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"unicode"

	"github.com/rogpeppe/go-internal/testscript"
)

// longDoc FILE DOC_ID WORDS appends to FILE a corpus line: document DOC_ID
// of at least WORDS words, in sentences of 3 to 40 words (one of 300), each
// word unique (sN wM), so that every chunk can be told apart.
func longDoc(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: longDoc FILE DOC_ID WORDS")
	}
	words, err := strconv.Atoi(args[2])
	ts.Check(err)
	var b strings.Builder
	n, seed := 0, uint32(41)
	for s := 0; n < words; s++ {
		seed = seed*1664525 + 1013904223
		k := 3 + int(seed>>16)%38
		if s == 20 {
			k = 300
		}
		for i := range k {
			if i > 0 {
				b.WriteByte(' ')
			}
			if i == 0 {
				b.WriteString("Then ")
			}
			fmt.Fprintf(&b, "s%dw%d", s, i)
			n++
		}
		b.WriteString(". ")
	}
	line, err := json.Marshal(map[string]string{"doc_id": args[1], "title": "long", "text": b.String()})
	ts.Check(err)
	f, err := os.OpenFile(ts.MkAbs(args[0]), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	ts.Check(err)
	defer f.Close()
	_, err = fmt.Fprintf(f, "%s\n", line)
	ts.Check(err)
}

// chunksCover RECORDS_JSONL CORPUS CLAIM_ID DOC_ID MIN_CHUNKS: the claim's
// evidence in the exported records is document DOC_ID's chunks only, at
// least MIN_CHUNKS of them, and together they cover every non-space code
// point of the document: no chunk was lost.
func chunksCover(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 5 {
		ts.Fatalf("usage: chunksCover RECORDS_JSONL CORPUS CLAIM_ID DOC_ID MIN_CHUNKS")
	}
	minChunks, err := strconv.Atoi(args[4])
	ts.Check(err)
	var text []rune
	for _, line := range strings.Split(ts.ReadFile(args[1]), "\n") {
		var d struct {
			DocID string `json:"doc_id"`
			Text  string `json:"text"`
		}
		if line != "" && json.Unmarshal([]byte(line), &d) == nil && d.DocID == args[3] {
			text = []rune(d.Text)
		}
	}
	if text == nil {
		ts.Fatalf("no document %s in %s", args[3], args[1])
	}
	sc := bufio.NewScanner(strings.NewReader(ts.ReadFile(args[0])))
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		var r struct {
			ClaimID  string `json:"claim_id"`
			Evidence []struct {
				DocID      string `json:"doc_id"`
				PassageID  string `json:"passage_id"`
				Start, End int
			} `json:"evidence"`
		}
		ts.Check(json.Unmarshal(sc.Bytes(), &r))
		if r.ClaimID != args[2] {
			continue
		}
		if len(r.Evidence) < minChunks {
			ts.Fatalf("claim %s has %d passages, want at least %d", r.ClaimID, len(r.Evidence), minChunks)
		}
		covered := make([]bool, len(text))
		for _, e := range r.Evidence {
			if e.DocID != args[3] {
				ts.Fatalf("claim %s was judged against %s (passage %s), not only %s", r.ClaimID, e.DocID, e.PassageID, args[3])
			}
			for k := e.Start; k < e.End && k < len(text); k++ {
				covered[k] = true
			}
		}
		for k, c := range text {
			if !unicode.IsSpace(c) && !covered[k] {
				ts.Fatalf("code point %d (%q) of %s is in no chunk of claim %s's evidence", k, c, args[3], r.ClaimID)
			}
		}
		ts.Logf("claim %s: %d chunks cover %s (%d code points)", r.ClaimID, len(r.Evidence), args[3], len(text))
		return
	}
	ts.Fatalf("no record of claim %s", args[2])
}
