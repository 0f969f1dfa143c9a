package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"sort"

	"github.com/claimaudit/claimaudit/extract"
	"github.com/claimaudit/claimaudit/extract/llm"
	"github.com/claimaudit/claimaudit/reports"
	"github.com/claimaudit/claimaudit/userfile"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Extractors: the rules (default) or an LLM over an OpenAI-compatible API.
const (
	extractorRules  = "rules"
	extractorOpenAI = "openai"
)

const extractLong = `extract reads model outputs and writes their atomic claims as claims JSONL. The input is
JSONL ({id, text, query?, query_id?, attempt?, cites?}; "output_id" is accepted for "id"),
or a plain-text file (.txt, .text, .md): the whole file is one output named after the
file, or with --split paragraphs each paragraph (text between blank lines) is one,
NAME-1, NAME-2…

--extractor rules (default, deterministic, no network): sentences are segmented (decimals,
list markers and abbreviations such as "Dr.", "No.", "e.g." survive; Markdown headings
are dropped), non-factual sentences dropped (questions, imperatives such as "Close the
door." and second-person advice, opinions such as "I think" or "is a must-see",
acknowledgements such as "Thank you for asking…", meta-statements about the response),
compound sentences split into atomic claims between two clauses ("Paris is in France and
Berlin is in Germany" gives two) and between two verb phrases with their own objects
("employs 10,000 people and operates in 40 countries" gives two, the subject repeated;
"designs and builds bridges" stays whole), duplicates removed.

A claim that opens with a pronoun ("It grossed $467 million") takes the subject of the
sentence before when that is unambiguous ("The Matrix grossed…"; "he" and "she" only for
a name); an expletive "it" ("It is important that…", "It takes 3 hours to…") is left as
written; an unresolved pronoun is kept and marked "contextual: unresolved pronoun" in
notes. Each claim gets a stable id (output id + hash of its text), its type (numeric,
temporal, definitional, policy, fact), importance (critical, material, minor), the
subject, predicate, object and named entities the rules find, [cite:X] anchors (and the
output's cites) as cite, and for numeric claims the quantity as written ("5 or 6
issues", "more than 10,000 people"; a number that labels, as in "Line 2", is not the
quantity), unit and normalised value.

Hedged claims ("may", "maybe", "might", "about 40%") are skipped unless they carry a
[cite:X] anchor or --include-hedged is given; contextual ones ("for example") are skipped
unless --include-contextual. Kept hedged and contextual claims are marked in notes.

--extractor openai asks an LLM for each output's atomic facts, in the manner of FActScore
(a documented prompt returning {"facts": [...]}; --prompt replaces it), at temperature 0
with a fixed seed, over an OpenAI-compatible chat completions API (--endpoint, --model,
the API key from the variable --api-key-env names: never logged or written). Answers are
cached in --cache when given. Each fact becomes a claim typed and weighed by the rules
above. An output whose answer is malformed, refused or timed out is listed in
OUT.errors.jsonl ({id, line, error}) and the command exits 3; the claims of the other
outputs are written.

The output file is written only when every input line is valid.`

func newExtractCmd(e *env) *cobra.Command {
	var in, out, extractor string
	var opts extract.ExtractOptions
	var asJSON bool
	gofs := flag.NewFlagSet("extract", flag.ContinueOnError)
	lo := llm.Flags(gofs, "")
	cmd := &cobra.Command{
		Use: "extract --input outputs.jsonl|answer.txt --out claims.jsonl",
		Example: `  audit extract --input outputs.jsonl --out claims.jsonl
  audit extract --input answer.md --split paragraphs --out claims.jsonl
  cat outputs.jsonl | audit extract --input - --out - | head`,
		Short: "Extract atomic claims from model outputs (rule-based and deterministic, or an LLM)",
		Long:  extractLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := requireFlags(cmd, "input", "out"); err != nil {
				return err
			}
			if in != "-" {
				if err := requireRegular(cmd.Flags(), "input"); err != nil {
					return err
				}
			}
			if err := writeTarget(out, in); err != nil {
				return err
			}
			src, closeSrc, err := extractorOf(cmd.Flags(), gofs, extractor, lo, "")
			if err != nil {
				return err
			}
			defer closeSrc()
			opts.Source, opts.Workers = src, lo.Client.MaxInflight
			if in == "-" || out == "-" {
				return extractStream(cmd, e, in, out, opts, asJSON)
			}
			stats, err := extract.ExtractFile(cmd.Context(), in, out, opts)
			if err != nil {
				return err
			}
			if err := printExtractStats(e, stats, out, asJSON); err != nil {
				return err
			}
			return extractErrors(e, stats, out)
		},
	}
	f := cmd.Flags()
	f.StringVar(&in, "input", "", "model outputs: JSONL {id, text, query?, query_id?, attempt?, cites?}, or a plain-text file (.txt, .text, .md); - reads JSONL from stdin (required)")
	f.StringVar(&out, "out", "", "claims file to write, JSONL; - writes them to stdout (the counts then go to stderr) (required)")
	extractFlags(f, &opts, &extractor)
	f.BoolVar(&asJSON, "json", false, "print the counts as JSON")
	f.AddGoFlagSet(gofs)
	return cmd
}

// extractFlags are the extraction options audit extract and audit run share.
func extractFlags(f *pflag.FlagSet, opts *extract.ExtractOptions, extractor *string) {
	f.StringVar(&opts.Split, "split", extract.SplitNone, "plain-text input: none (the file is one output) or paragraphs (each paragraph is one)")
	f.BoolVar(&opts.IncludeHedged, "include-hedged", false, "keep hedged claims (marked \"hedged: <word>\" in notes)")
	f.BoolVar(&opts.IncludeContextual, "include-contextual", false, "keep contextual claims (marked \"contextual: <phrase>\" in notes)")
	f.StringVar(extractor, "extractor", extractorRules, "how outputs become claims: rules (deterministic) or openai (an LLM over an OpenAI-compatible API)")
}

// extractorOf is the LLM fact source --extractor openai asks for (nil for
// the rules), after checking that its options are given only with it.
func extractorOf(f *pflag.FlagSet, gofs *flag.FlagSet, extractor string, lo *llm.Options, prefix string) (extract.FactSource, func(), error) {
	none := func() {}
	switch extractor {
	case extractorRules:
		var given []string
		gofs.VisitAll(func(g *flag.Flag) {
			if pf := f.Lookup(g.Name); pf != nil && pf.Changed {
				given = append(given, "--"+g.Name)
			}
		})
		if len(given) > 0 {
			sort.Strings(given)
			return nil, none, usageErrorf("%v: options of --%sextractor openai", given, prefix)
		}
		return nil, none, nil
	case extractorOpenAI:
		x, err := llm.New(*lo)
		if err != nil {
			return nil, none, usageErrorf("%v", err)
		}
		return x, func() { x.Close() }, nil
	}
	return nil, none, usageErrorf("--extractor %q: want %s or %s", extractor, extractorRules, extractorOpenAI)
}

// extractStream is extract with stdin for --input - and/or stdout for
// --out -. The claims are held until every input line has been read, so
// invalid input writes nothing; with --out - the counts go to stderr and
// failed outputs are listed there (no OUT.errors.jsonl).
func extractStream(cmd *cobra.Command, e *env, in, out string, opts extract.ExtractOptions, asJSON bool) error {
	var r io.Reader = e.stdin
	name := "<stdin>"
	if in != "-" {
		f, err := userfile.Open(cmd.Context(), in)
		if err != nil {
			return &exitError{code: exitInput, err: err}
		}
		defer f.Close()
		r, name = f, in
	}
	var buf bytes.Buffer
	stats, err := extract.ExtractTo(cmd.Context(), r, name, &buf, opts)
	if err != nil {
		return err
	}
	if out != "-" {
		if err := writeAtomic(out, buf.Bytes()); err != nil {
			return err
		}
		if err := printExtractStats(e, stats, out, asJSON); err != nil {
			return err
		}
		return extractErrors(e, stats, out)
	}
	if _, err := e.stdout.Write(buf.Bytes()); err != nil {
		return err
	}
	counts := &env{stdout: e.stderr}
	if err := printExtractStats(counts, stats, "stdout", asJSON); err != nil {
		return err
	}
	if len(stats.Errors) == 0 {
		return nil
	}
	for _, x := range stats.Errors {
		fmt.Fprintf(e.stderr, "output %s (line %d): %s\n", termSafe(x.ID), x.Line, termSafe(x.Error))
	}
	return &exitError{code: exitInternal, err: fmt.Errorf("claims of %d of %d outputs could not be extracted; the others' are on stdout", len(stats.Errors), stats.Outputs)}
}

func printExtractStats(e *env, stats extract.ExtractStats, out string, asJSON bool) error {
	if asJSON {
		return json.NewEncoder(e.stdout).Encode(stats)
	}
	fmt.Fprintf(e.stdout, "%d outputs, %d sentences → %d claims in %s\n", stats.Outputs, stats.Sentences, stats.Claims, out)
	reasons := make([]string, 0, len(stats.Skipped))
	for r := range stats.Skipped {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	for _, r := range reasons {
		fmt.Fprintf(e.stdout, "  skipped %-16s %d\n", r, stats.Skipped[r])
	}
	return nil
}

// extractErrors writes the outputs extraction failed on to OUT.errors.jsonl
// and fails the command (exit 3) when there are any.
func extractErrors(e *env, stats extract.ExtractStats, out string) error {
	if len(stats.Errors) == 0 {
		return nil
	}
	path := out + ".errors.jsonl"
	// Written aside and renamed into place: never through a link at path.
	f, err := reports.CreateAtomic(path)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	enc.SetEscapeHTML(false)
	for _, x := range stats.Errors {
		if err := enc.Encode(x); err != nil {
			f.Abort()
			return err
		}
		fmt.Fprintf(e.stderr, "output %s (line %d): %s\n", termSafe(x.ID), x.Line, termSafe(x.Error))
	}
	if err := f.Commit(); err != nil {
		return err
	}
	return &exitError{code: exitInternal, err: fmt.Errorf("claims of %d of %d outputs could not be extracted (listed in %s); the others' are in %s",
		len(stats.Errors), stats.Outputs, path, out)}
}
