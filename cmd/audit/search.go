package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/claimaudit/claimaudit/corpus"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
	"github.com/spf13/cobra"
)

func newSearchCmd(e *env) *cobra.Command {
	var dir string
	var k, width int
	var asJSON bool
	cmd := &cobra.Command{
		Use: "search --index DIR [--k N] QUERY...",
		Example: `  audit search --index demo-out/index "population of Quavor Harbour"
  audit search --index demo-out/index --k 10 nitrate 2022`,
		Short: "Show the passages the index retrieves for a query",
		Long: `search runs one query against an index built by 'audit index' and prints the top-k
passages with their BM25 scores and provenance (doc_id, span_id, offsets). The query
is reduced to content words: stop words are dropped; numbers and capitalised
entities are kept and weighted up.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := requireFlags(cmd, "index"); err != nil {
				return err
			}
			if err := intRanges(intRange{"k", k, 1, maxK}, intRange{"width", width, 1, 1 << 20}); err != nil {
				return err
			}
			ix, err := corpus.OpenIndex(dir)
			if err != nil {
				return err
			}
			defer ix.Close()
			query := strings.Join(args, " ")
			hits, err := ix.Search(cmd.Context(), query, k)
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(e.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(struct {
					Query string       `json:"query"`
					Hits  []corpus.Hit `json:"hits"`
				}{query, nonNil(hits)})
			}
			if len(hits) == 0 {
				fmt.Fprintf(e.stdout, "no passages match %q\n", query)
				return nil
			}
			t := tablewriter.NewTable(e.stdout, tablewriter.WithHeaderAutoFormat(tw.Off))
			t.Header("rank", "score", "passage", "doc_id", "range", "text")
			for _, h := range hits {
				t.Append(strconv.Itoa(h.Rank), fmt.Sprintf("%.3f", h.Score), termSafe(h.ID), termSafe(h.DocID),
					fmt.Sprintf("[%d,%d)", h.Start, h.End), termSafe(clipText(h.Text, width)))
			}
			return t.Render()
		},
	}
	f := cmd.Flags()
	f.StringVar(&dir, "index", "", "index folder built by 'audit index' (required)")
	f.IntVar(&k, "k", 5, "passages to return")
	f.IntVar(&width, "width", 70, "characters of passage text to show")
	f.BoolVar(&asJSON, "json", false, "print hits as JSON")
	return cmd
}

func nonNil(h []corpus.Hit) []corpus.Hit {
	if h == nil {
		return []corpus.Hit{}
	}
	return h
}

func clipText(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if n > 1 && len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func newTable(e *env) *tablewriter.Table {
	return tablewriter.NewTable(e.stdout, tablewriter.WithHeaderAutoFormat(tw.Off))
}

func mustJSON(v any) []byte {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		panic(err) // only called with maps of plain values
	}
	return append(b, '\n')
}
