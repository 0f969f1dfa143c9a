package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// flagGroup is a heading of --help and the flags under it.
type flagGroup struct {
	title string
	names []string
}

// runFlagGroups are audit run's flags by purpose; the verifier backends'
// own options follow, one group per backend, then the global flags.
var runFlagGroups = []flagGroup{
	{"Inputs", []string{"corpus", "spans", "claims", "outputs", "gold", "strict-gold", "index"}},
	{"Output and gates", []string{"out", "force", "fail-on", "json", "plot-format", "slice-by", "source-slices"}},
	{"Retrieval", []string{"evidence", "k", "min-retrieval-score", "weak-retrieval", "window-sentences", "window-stride", "max-passage-chars"}},
	{"Verifier (its backend's options are below)", []string{"verifier", "batch-size", "workers", "verify-timeout", "allow-degenerate-verifier", "resume", "price-input", "price-output", "verifier-query"}},
	{"Calibration", []string{"calibrate", "temperature", "temperature-from", "folds", "min-calibration", "ece-threshold", "seed"}},
	{"Decisions: abstention, numbers, labelling rules", []string{"abstain-below", "numeric-policy", "numeric-effect", "rules", "rule-effect",
		"no-evidence", "authority", "max-evidence-age", "as-of"}},
	{"Sharding", []string{"shard", "shards"}},
	{"Extraction (with --outputs)", []string{"split", "include-hedged", "include-contextual", "extractor"}},
}

// groupedUsage is a usage function that prints the flags under headings:
// the groups given, then one group per verifier backend for the flags a
// backend declares (owners), then any flag left (prefix "extract-": the
// LLM extractor's, with the extraction group), then the global flags.
func groupedUsage(groups []flagGroup, b *backendFlags) func(*cobra.Command) error {
	return func(c *cobra.Command) error {
		w := c.OutOrStderr()
		fmt.Fprintf(w, "Usage:\n  %s\n", c.UseLine())
		if c.Example != "" {
			fmt.Fprintf(w, "\nExamples:\n%s\n", c.Example)
		}
		placed := map[string]bool{}
		section := func(title string, names []string) {
			fs := pflag.NewFlagSet(title, pflag.ContinueOnError)
			for _, n := range names {
				if f := c.LocalFlags().Lookup(n); f != nil && !placed[n] {
					fs.AddFlag(f)
					placed[n] = true
				}
			}
			if fs.HasFlags() {
				fmt.Fprintf(w, "\n%s:\n%s", wrapLine(title, 100), fs.FlagUsagesWrapped(100))
			}
		}
		for _, g := range groups {
			names := g.names
			if strings.HasPrefix(g.title, "Extraction") {
				c.LocalFlags().VisitAll(func(f *pflag.Flag) {
					if strings.HasPrefix(f.Name, "extract-") {
						names = append(names, f.Name)
					}
				})
			}
			section(g.title, names)
		}
		if b != nil {
			for _, n := range b.reg.Names() {
				be, _ := b.reg.Backend(n)
				var names []string
				for flag, owners := range b.owners {
					if slices.Contains(owners, n) {
						names = append(names, flag)
					}
				}
				slices.Sort(names)
				title := fmt.Sprintf("--verifier %s: %s", n, be.Help)
				if len(names) == 0 {
					fmt.Fprintf(w, "\n%s\n", wrapLine(title+" (no options)", 100))
					continue
				}
				section(title, names)
			}
		}
		var rest []string
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if !placed[f.Name] && f.Name != "help" {
				rest = append(rest, f.Name)
			}
		})
		section("Other", rest)
		global := pflag.NewFlagSet("global", pflag.ContinueOnError)
		global.AddFlagSet(c.InheritedFlags())
		if h := c.LocalFlags().Lookup("help"); h != nil {
			global.AddFlag(h)
		}
		fmt.Fprintf(w, "\nGlobal Flags:\n%s", global.FlagUsagesWrapped(100))
		return nil
	}
}
