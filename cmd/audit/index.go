package main

import (
	"fmt"
	"time"

	"github.com/claimaudit/claimaudit/corpus"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func newIndexCmd(e *env) *cobra.Command {
	var req corpus.EnsureRequest
	cmd := &cobra.Command{
		Use: "index --corpus F [--spans F] --index DIR [--force]",
		Example: `  audit index --corpus corpus.jsonl --spans spans.jsonl --index shared/index
  audit index --corpus corpus.jsonl --index idx --window-sentences 3 --force`,
		Short: "Build (or reuse) the BM25 passage index of a corpus",
		Long: `index validates the corpus and spans and builds a bleve BM25 index of passages in
DIR: every evidence span plus sentence windows that cover every document.

DIR/manifest.json records the inputs' sha256, the mapping version and the passage
settings. When they all match, the existing index is reused and the command returns
at once; when anything changed, or with --force, the index is rebuilt in a temporary
folder and moved into place, so an interrupted build never leaves a folder that
looks complete. Invalid input is refused with exit status 2 and the old index is
left as it was.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := requireFlags(cmd, "corpus", "index"); err != nil {
				return err
			}
			if err := requireRegular(cmd.Flags(), "corpus", "spans"); err != nil {
				return err
			}
			if err := req.Index.Passages.Or(corpus.DefaultPassageSettings).Validate(); err != nil {
				return usageErrorf("%v", err)
			}
			began := time.Now()
			req.Index.Progress = newProgress(e, "indexing passages")
			res, err := corpus.EnsureIndex(cmd.Context(), req)
			if err != nil {
				return err
			}
			c := res.Manifest.Counts
			if res.Reused {
				fmt.Fprintf(e.stdout, "index %s is up to date (%d passages from %d documents, %d spans); use --force to rebuild\n",
					req.Dir, c.Passages, c.Documents, c.Spans)
				return nil
			}
			secs := time.Since(began).Seconds()
			fmt.Fprintf(e.stdout, "indexed %d passages (%d spans, %d sentence windows) from %d documents into %s in %.2fs (%s)\n",
				c.Passages, c.Spans, c.Windows, c.Documents, req.Dir, secs, res.Reason)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&req.CorpusPath, "corpus", "", "corpus documents, JSONL (required)")
	f.StringVar(&req.SpansPath, "spans", "", "evidence spans, JSONL")
	f.StringVar(&req.Dir, "index", "", "index folder to create or reuse (required)")
	f.BoolVar(&req.Force, "force", false, "rebuild even when the index is up to date")
	passageFlags(f, &req.Index.Passages)
	return cmd
}

// passageFlags binds the passage settings. Unset, each keeps what an
// existing index was built with (the default for a new one), so pointing a
// command at an index never rebuilds it with other settings by surprise.
func passageFlags(f *pflag.FlagSet, p *corpus.PassageSettings) {
	d := corpus.DefaultPassageSettings
	f.IntVar(&p.WindowSentences, "window-sentences", 0, fmt.Sprintf("sentences per document window (default %d, or the existing index's)", d.WindowSentences))
	f.IntVar(&p.WindowStride, "window-stride", 0, fmt.Sprintf("sentences between the starts of consecutive windows (default %d, or the existing index's)", d.WindowStride))
	f.IntVar(&p.MaxChars, "max-passage-chars", 0, fmt.Sprintf("longest window, in characters (default %d, or the existing index's)", d.MaxChars))
}
