package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
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
	band     string
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
		Use: "fit --set NAME=FIRST,SECOND[,PREFIX1,PREFIX2...] ... --out FILE",
		Example: `  audit cascade fit --set covid=lex-covid,onnx-covid --set facts=lex-facts,onnx-facts \
    --set cites=lex-cites,onnx-cites --out models/my-model/cascade.json
  # the exit alone, checked after the first passage (p1-*: runs on the first passage)
  audit cascade fit --band all --tolerance 0.0025 --set covid=lex-covid,onnx-covid,p1-covid \
    --set facts=lex-facts,onnx-facts,p1-facts --out models/my-model/cascade.json`,
		Short: "Fit the cascade's band and exit on labelled runs of its verifiers, leaving one set out",
		Long: `fit reads, for each labelled set, two run folders over the same claims: FIRST run
with the lexical verifier and SECOND with the model the cascade sends claims to (at the
--k and --passages the cascade will use, --rules none). It keeps the claims both runs
scored that have a gold label, and chooses the band on the lexical verifier's
p(supported) inside which the model decides: the one that sends the smallest mean fraction
of each set's (claim, passage) pairs to the model while the cascade's balanced accuracy
(supported against not, the verifiers' own labels) stays within --tolerance of the model's
alone on every set.

It prints the leave-one-set-out table (the band fitted on every set but one, measured on
the one left out: balanced accuracy of the lexical verifier, the model alone and the
cascade, and the fractions of claims and pairs sent) and writes the band fitted on every set to
--out, the file 'audit run --verifier cascade --cascade-band FILE' reads (cascade.json in
the model's folder is the default band). Refit it for a new model with one command.

With more run folders, PREFIX1, PREFIX2, … (the model on each claim's first passage alone,
its first two, and so on: audit run --verifier cascade --cascade-band all
--cascade-passages N --cascade-exit 0 at the same --k), fit also chooses the exit: the
evidence (p(supported) or p(unsupported)) at which the model's verdict on a claim's first
passages decides the claim without the rest being read, checked after each prefix given.
The band and exit chosen are those that send the fewest of the model's pairs, at the same
tolerance against the model reading every passage.
--band all sends every claim to the model and fits the exit alone.`,
		Args: cobra.NoArgs,
		RunE: c.run,
	}
	f := cmd.Flags()
	f.StringArrayVar(&c.sets, "set", nil, "a labelled set: NAME=FIRST,SECOND[,PREFIX1,...] (run folders or records.parquet files of the lexical verifier, of the model, and optionally of the model on each claim's first 1, 2, … passages); two or more")
	f.StringVar(&c.out, "out", "", "band file to write (required)")
	f.Float64Var(&c.tol, "tolerance", 0.005, "most balanced accuracy the cascade may lose against the model alone, on every set")
	f.StringVar(&c.band, "band", "fit", "fit: fit the band on the lexical p(supported); all: send every claim to the model and fit only the exit (needs PREFIX runs to save anything)")
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
	if c.band != "fit" && c.band != "all" {
		return usageErrorf("--band %q: want fit or all", c.band)
	}
	if len(c.sets) < 2 {
		return usageErrorf("--set: leave one set out needs two sets or more, got %d", len(c.sets))
	}
	var sets []cascade.Set
	var first, second string
	for _, arg := range c.sets {
		s, f, m, err := readCascadeSet(arg, c.passages)
		if err != nil {
			return err
		}
		sets = append(sets, s)
		first, second = f, m
	}
	fit := cascade.Fit
	if c.band == "all" {
		fit = cascade.FitExit
	}
	figs, bands, err := cascade.LeaveOneOut(sets, c.tol, fit)
	if err != nil {
		return usageErrorf("%v", err)
	}
	band, err := fit(sets, c.tol)
	if err != nil {
		return err
	}
	band.Passages, band.First, band.Second = c.passages, first, second
	writeCascadeTable(c.e.stdout, figs, bands)
	where := fmt.Sprintf("p(supported) in (%.4f, %.4f) goes to the model", band.Low, band.High)
	if band.Low < 0 && band.High > 1 {
		where = "every claim goes to the model"
	}
	fmt.Fprintf(c.e.stdout, "\nband on every set: %s%s; %.3f of the claims and %.3f of the model's pairs sent; balanced accuracy %.3f (model alone %.3f)\n",
		where, exitText(band), band.SentFraction, band.PairFraction, band.BalancedAccuracy, band.SecondBalancedAccuracy)
	if err := cascade.WriteBand(c.out, band); err != nil {
		return err
	}
	fmt.Fprintf(c.e.stdout, "wrote %s\n", c.out)
	return nil
}

// readCascadeSet reads NAME=FIRST,SECOND[,PREFIX1,...]: the claims the
// runs all scored that have gold, joined by claim id.
func readCascadeSet(arg string, passages int) (cascade.Set, string, string, error) {
	name, dirs, ok := strings.Cut(arg, "=")
	parts := strings.Split(dirs, ",")
	if !ok || name == "" || len(parts) < 2 || slices.Contains(parts, "") {
		return cascade.Set{}, "", "", usageErrorf("--set %q: want NAME=FIRST,SECOND or NAME=FIRST,SECOND,PREFIX1,PREFIX2,...", arg)
	}
	if err := sameModel(name, parts); err != nil {
		return cascade.Set{}, "", "", err
	}
	runs := make([]map[string]reports.Record, len(parts))
	var ra, rb []reports.Record
	for i, dir := range parts {
		rs, err := readRunRecords(dir)
		if err != nil {
			return cascade.Set{}, "", "", err
		}
		switch i {
		case 0:
			ra = rs
		case 1:
			rb = rs
		}
		runs[i] = make(map[string]reports.Record, len(rs))
		for _, r := range rs {
			runs[i][r.ClaimID] = r
		}
	}
	s := cascade.Set{Name: name}
	for _, r := range rb {
		l, ok := runs[0][r.ClaimID]
		zl, okl := logitsOf(l)
		zm, okm := logitsOf(r)
		if !ok || !okl || !okm || r.GoldLabel == nil {
			continue
		}
		pl := adjudicate.Probabilities(zl)
		x := cascade.Claim{Gold: *r.GoldLabel == "supported", FirstP: pl[adjudicate.Supported],
			FirstSays: argmax(pl) == adjudicate.Supported, SecondSays: argmax(adjudicate.Probabilities(zm)) == adjudicate.Supported,
			Passages: max(1, len(r.Evidence))}
		if passages > 0 {
			x.Passages = min(x.Passages, passages)
		}
		complete := true
		for _, run := range runs[2:] {
			o, ok := run[r.ClaimID]
			zo, oko := logitsOf(o)
			if !ok || !oko {
				complete = false
				break
			}
			po := adjudicate.Probabilities(zo)
			x.Prefixes = append(x.Prefixes, cascade.Prefix{Evidence: adjudicate.EvidenceEitherWay(po), Says: argmax(po) == adjudicate.Supported})
		}
		if complete {
			s.Claims = append(s.Claims, x)
		}
	}
	if len(s.Claims) == 0 {
		return s, "", "", usageErrorf("--set %s: no labelled claim that every run scored", name)
	}
	return s, ra[0].Verifier, rb[0].Verifier, nil
}

// sameModel refuses prefix runs made by another model than the SECOND run
// (a fit over them would predict what no run does): the model's version,
// from each run folder's manifest.json — onnx/<hash>, or inside a cascade's
// version the part after its "+". A run given as a records file, or whose
// manifest names no verifier, is not checked.
func sameModel(name string, parts []string) error {
	if len(parts) < 3 {
		return nil
	}
	want, _ := modelVersion(parts[1])
	for i, dir := range parts[2:] {
		got, read := modelVersion(dir)
		if got != "" && want != "" && got != want {
			return usageErrorf("--set %s: PREFIX%d (%s) was made by %s, SECOND (%s) by %s: the runs must come from the same model", name, i+1, dir, got, parts[1], want)
		}
		if read >= 0 && read != i+1 {
			return usageErrorf("--set %s: PREFIX%d (%s) read %d passages a claim (--cascade-passages %d), want %d", name, i+1, dir, read, read, i+1)
		}
	}
	return nil
}

// modelVersion is the model that made a run folder, from its manifest:
// the verifier's version, or a cascade's second verifier's; and the
// passages a cascade run's model read (its m; -1 when not a cascade run
// or unknown). "" and -1 when the manifest cannot say.
func modelVersion(dir string) (string, int) {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return "", -1
	}
	m, err := reports.ReadManifest(dir)
	if err != nil || m.Verifier == nil {
		return "", -1
	}
	v := m.Verifier.Version
	rest, ok := strings.CutPrefix(v, "cascade/")
	if !ok {
		return v, -1
	}
	_, second, _ := strings.Cut(rest, "+")
	v, tail, _ := strings.Cut(second, "/band=")
	read := -1
	if _, after, ok := strings.Cut(tail, "/m="); ok {
		num, _, _ := strings.Cut(after, "/")
		if n, err := strconv.Atoi(num); err == nil && n > 0 {
			read = n
		}
	}
	return v, read
}

// exitText names an exit for the fit's summary line.
func exitText(b cascade.Band) string {
	if b.Exit <= 0 {
		return ", every passage read"
	}
	where := "after the first passage"
	if len(b.ExitAfter) > 0 {
		where = fmt.Sprintf("after %v passages", b.ExitAfter)
	}
	return fmt.Sprintf(", which stops %s once the evidence is at least %.2f", where, b.Exit)
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

// exitCell is a band's exit in the table.
func exitCell(exit float64) string {
	if exit <= 0 {
		return "—"
	}
	return fmt.Sprintf("%.2f", exit)
}

// writeCascadeTable prints the leave-one-set-out figures as Markdown: each
// held-out set's with the band (and exit) fitted on the others.
func writeCascadeTable(w io.Writer, figs []cascade.Figures, bands []cascade.Band) {
	fmt.Fprintln(w, "| held-out set | n | lexical: bal. acc | model: bal. acc | cascade: bal. acc | cascade − model | claims sent to the model | model's pairs scored | exit |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|")
	var m [6]float64
	for i, f := range figs {
		fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s | %.3f | %.3f | %s |\n", f.Set, f.N, num(f.First), num(f.Second), num(f.Cascade), delta(f.Cascade-f.Second), f.Sent, f.Pairs, exitCell(bands[i].Exit))
		for i, x := range []float64{f.First, f.Second, f.Cascade, f.Cascade - f.Second, f.Sent, f.Pairs} {
			m[i] += x / float64(len(figs))
		}
	}
	fmt.Fprintf(w, "| mean | | %s | %s | %s | %s | %.3f | %.3f | |\n", num(m[0]), num(m[1]), num(m[2]), delta(m[3]), m[4], m[5])
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
