package main

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/adjudicate/cascade"
	"github.com/claimaudit/claimaudit/reports"
	"github.com/spf13/cobra"
)

// cascadeFitCmd is `audit cascade fit`.
type cascadeFitCmd struct {
	e        *env
	sets     []string
	out      string
	tol      float64
	passages int
}

func newCascadeCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cascade",
		Short: "Fit the band of the cascade verifier (audit run --verifier cascade)",
		Example: `  audit cascade fit --set covid=lex-covid,onnx-covid --set facts=lex-facts,onnx-facts --out models/my-model/cascade.json
  audit cascade fit --set covid=lex-covid,onnx-covid --set facts=lex-facts,onnx-facts --tolerance 0.01 --passages 2 --out band.json`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newCascadeFitCmd(e))
	return cmd
}

func newCascadeFitCmd(e *env) *cobra.Command {
	c := &cascadeFitCmd{e: e}
	cmd := &cobra.Command{
		Use: "fit --set NAME=FIRST,SECOND ... --out FILE",
		Example: `  audit cascade fit --set covid=lex-covid,onnx-covid --set facts=lex-facts,onnx-facts \
    --set cites=lex-cites,onnx-cites --out models/my-model/cascade.json`,
		Short: "Fit the cascade's band on labelled runs of its two verifiers, leaving one set out",
		Long: `fit reads, for each labelled set, two run folders over the same claims: FIRST run
with the lexical verifier and SECOND with the model the cascade sends claims to (at the
--k and --passages the cascade will use, --rules none). It keeps the claims both runs
scored that have a gold label, and chooses the band on the lexical verifier's
p(supported) inside which the model decides: the one that sends the smallest mean fraction
of each set's claims to the model while the cascade's balanced accuracy (supported against
not, the verifiers' own labels) stays within --tolerance of the model's alone on every set.

It prints the leave-one-set-out table (the band fitted on every set but one, measured on
the one left out: balanced accuracy of the lexical verifier, the model alone and the
cascade, and the fraction of claims sent) and writes the band fitted on every set to
--out, the file 'audit run --verifier cascade --cascade-band FILE' reads (cascade.json in
the model's folder is the default band). Refit it for a new model with one command.`,
		Args: cobra.NoArgs,
		RunE: c.run,
	}
	f := cmd.Flags()
	f.StringArrayVar(&c.sets, "set", nil, "a labelled set: NAME=FIRST,SECOND (run folders or records.parquet files of the lexical verifier and of the model); two or more")
	f.StringVar(&c.out, "out", "", "band file to write (required)")
	f.Float64Var(&c.tol, "tolerance", 0.005, "most balanced accuracy the cascade may lose against the model alone, on every set")
	f.IntVar(&c.passages, "passages", 0, "passages per claim the model's runs read (their --k): recorded in the band as the cascade's default --cascade-passages (0: all)")
	return cmd
}

func (c *cascadeFitCmd) run(cmd *cobra.Command, _ []string) error {
	if err := requireFlags(cmd, "out"); err != nil {
		return err
	}
	if err := checkFloats(cmd.Flags(), "tolerance"); err != nil {
		return err
	}
	if c.tol < 0 {
		return usageErrorf("--tolerance must not be negative, got %g", c.tol)
	}
	if c.passages < 0 {
		return usageErrorf("--passages must not be negative, got %d", c.passages)
	}
	if len(c.sets) < 2 {
		return usageErrorf("--set: leave one set out needs two sets or more, got %d", len(c.sets))
	}
	var sets []cascade.Set
	var first, second string
	for _, arg := range c.sets {
		s, f, m, err := readCascadeSet(arg)
		if err != nil {
			return err
		}
		sets = append(sets, s)
		first, second = f, m
	}
	figs, _, err := cascade.LeaveOneOut(sets, c.tol)
	if err != nil {
		return err
	}
	band, err := cascade.Fit(sets, c.tol)
	if err != nil {
		return err
	}
	band.Passages, band.First, band.Second = c.passages, first, second
	writeCascadeTable(c.e.stdout, figs)
	fmt.Fprintf(c.e.stdout, "\nband on every set: p(supported) in (%.4f, %.4f) goes to the model; %.3f of the claims sent; balanced accuracy %.3f (model alone %.3f)\n",
		band.Low, band.High, band.SentFraction, band.BalancedAccuracy, band.SecondBalancedAccuracy)
	if err := cascade.WriteBand(c.out, band); err != nil {
		return err
	}
	fmt.Fprintf(c.e.stdout, "wrote %s\n", c.out)
	return nil
}

// readCascadeSet reads NAME=FIRST,SECOND: the claims both runs scored
// that have gold, joined by claim id.
func readCascadeSet(arg string) (cascade.Set, string, string, error) {
	name, dirs, ok := strings.Cut(arg, "=")
	a, b, ok2 := strings.Cut(dirs, ",")
	if !ok || !ok2 || name == "" || a == "" || b == "" {
		return cascade.Set{}, "", "", usageErrorf("--set %q: want NAME=FIRST,SECOND", arg)
	}
	ra, err := readRunRecords(a)
	if err != nil {
		return cascade.Set{}, "", "", err
	}
	rb, err := readRunRecords(b)
	if err != nil {
		return cascade.Set{}, "", "", err
	}
	byID := make(map[string]reports.Record, len(ra))
	for _, r := range ra {
		byID[r.ClaimID] = r
	}
	s := cascade.Set{Name: name}
	for _, r := range rb {
		l, ok := byID[r.ClaimID]
		zl, okl := logitsOf(l)
		zm, okm := logitsOf(r)
		if !ok || !okl || !okm || r.GoldLabel == nil {
			continue
		}
		pl := adjudicate.Probabilities(zl)
		s.Claims = append(s.Claims, cascade.Claim{Gold: *r.GoldLabel == "supported", FirstP: pl[adjudicate.Supported],
			FirstSays: argmax(pl) == adjudicate.Supported, SecondSays: argmax(adjudicate.Probabilities(zm)) == adjudicate.Supported})
	}
	if len(s.Claims) == 0 {
		return s, "", "", usageErrorf("--set %s: no labelled claim that both runs scored", name)
	}
	return s, ra[0].Verifier, rb[0].Verifier, nil
}

func logitsOf(r reports.Record) ([3]float64, bool) {
	if r.LogitSupported == nil || r.LogitUnsupp == nil || r.LogitInsuff == nil {
		return [3]float64{}, false
	}
	return [3]float64{*r.LogitSupported, *r.LogitUnsupp, *r.LogitInsuff}, true
}

func argmax(p [3]float64) int {
	k := 0
	for i := range p {
		if p[i] > p[k] {
			k = i
		}
	}
	return k
}

// writeCascadeTable prints the leave-one-set-out figures as Markdown.
func writeCascadeTable(w io.Writer, figs []cascade.Figures) {
	fmt.Fprintln(w, "| held-out set | n | lexical: bal. acc | model: bal. acc | cascade: bal. acc | cascade − model | sent to the model |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	var m [5]float64
	for _, f := range figs {
		fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s | %.3f |\n", f.Set, f.N, num(f.First), num(f.Second), num(f.Cascade), delta(f.Cascade-f.Second), f.Sent)
		for i, x := range []float64{f.First, f.Second, f.Cascade, f.Cascade - f.Second, f.Sent} {
			m[i] += x / float64(len(figs))
		}
	}
	fmt.Fprintf(w, "| mean | | %s | %s | %s | %s | %.3f |\n", num(m[0]), num(m[1]), num(m[2]), delta(m[3]), m[4])
}

// delta is a difference of balanced accuracies, to the fourth decimal:
// the tolerance it is read against is 0.005.
func delta(x float64) string {
	if math.IsNaN(x) {
		return "—"
	}
	return fmt.Sprintf("%+.4f", x)
}

func num(x float64) string {
	if math.IsNaN(x) {
		return "—"
	}
	return fmt.Sprintf("%.3f", x)
}
