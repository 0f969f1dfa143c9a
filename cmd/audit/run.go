package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/adjudicate/remote"
	"github.com/claimaudit/claimaudit/audit"
	"github.com/claimaudit/claimaudit/claims"
	"github.com/claimaudit/claimaudit/corpus"
	"github.com/claimaudit/claimaudit/extract/llm"
	"github.com/claimaudit/claimaudit/lint"
	"github.com/claimaudit/claimaudit/metrics"
	"github.com/claimaudit/claimaudit/numeric"
	"github.com/claimaudit/claimaudit/outdir"
	"github.com/claimaudit/claimaudit/reports"
	"github.com/claimaudit/claimaudit/userfile"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

const runLong = `run validates the inputs (exit 2 with every defect at file:line:col), builds or reuses the
passage index (DIR/index unless --index; an existing index keeps its passage settings
unless a --window-* or --max-passage-chars flag contradicts them, which rebuilds it),
retrieves the top-k passages for each claim (passages named in its cite anchors first),
verifies the claims in batches, and decides: the predicted label is the argmax of the
calibrated probabilities, and a claim is abstained when retrieval found nothing, when
the best passage scores below --min-retrieval-score, when the confidence is below
--abstain-below, or when the verifier failed on it. Each claim also gets an action
(CONTINUE, HALT, BRANCH or ABSTAIN), a verdict (supported, weak, contradicted or
not_found) and, when it states a number, a numeric check against the retrieved
passages. Every input claim is one row of DIR/records.parquet.

Model outputs: --outputs F in place of --claims extracts the claims of each output (JSONL
{id, text, query?, query_id?, attempt?, cites?}, or a plain-text file; --split,
--include-hedged, --include-contextual and --extractor as in 'audit extract', the LLM
extractor's options prefixed --extract-) into DIR/extracted_claims.jsonl, audits them, and
decides per output in DIR/outputs.parquet: overall action (the worst claim's, counting the
output's attempt as branches tried) and confidence (the least), evidence coverage,
revision ship / revise / abstain with the reason and instructions, the structured
abstention message, critical claims without a citation, risk flags; per query the
abstain rate and the branch success rate (gateable: output_ship_rate,
output_revise_rate, output_abstain_rate, output_uncited_critical_rate, queries,
query_abstain_rate, branches, branch_success_rate).

Numbers: a claim's number is checked against the numbers of its retrieved passages
(verified, mismatch, consistent — within a bound the evidence states, not entailed by
it — or unverifiable; a passage's number must be about the same year,
unit and entity). --numeric-policy decides when two values agree: auto (default)
reads the claim as written — a bound ("more than 100", "up to 5%", "nearly 40%",
"between X and Y") by its bound, "about N" within 5%, a bare number at the precision
it is written in ("48 million" agrees with 48.2 million) — or any of exact, rounded,
abbr, tolerance, percent, range, ratio, year. --numeric-effect says what the check
does to the label: rule (default: the numeric labelling rule decides — a number that
a passage about the same entity, quantity and year gives otherwise makes the claim
unsupported, flag numeric_mismatch; a number the evidence only bounds, "more than
1,000" for 5,000, makes it insufficient, flag numeric_bound), flag (the rule only
flags), none (recorded only), override (any retrieved passage's mismatch makes the
claim unsupported before the rules; a verified number keeps the verifier alone from
calling it unsupported, which becomes insufficient; abstentions stand). The record
names the matched passage's value, unit and year, the reason, the verifier's own label
and the rule that decided (decided_by).

Labelling rules (--rules, default all; docs/rules.md), applied after calibration for
every backend: a hedged claim (may, might, modality possibility…) is insufficient
unless its passage states the possibility; a claim whose passage does not address its
entities, place, population, condition or timeframe is insufficient (as_of is when
the claim was made, not a qualifier); a number the evidence about the same entity
and year gives otherwise is unsupported (the numeric rule); a number without its
year, where the evidence's values differ by year, is insufficient; documents about
the claim's entity that disagree make a claim insufficient unless an authority
(meta.authority, or --authority KEY=VALUE) decides; nothing retrieved is insufficient
(--no-evidence abstain keeps the abstention); NaN/Inf logits are decided by the
lexical verifier; evidence older than the claim's date (or --as-of, default today) by
--max-evidence-age is flagged with its age; a claim that restates a term the corpus
defines (a glossary document, a span tagged definition) is judged with the term
(flag definition). --rule-effect flag records what the rules would do without applying it.
Records say what decided (decided_by rule:NAME, fallback) and every rule that fired
(flags); each rule's count and accuracy beside the verifier's are metrics. A verifier
that calls more than half of 100+ answered claims unsupported branches only from
confidence 0.9.

Calibration: auto fits a temperature on the labelled claims and applies it when the
raw 10-bin ECE exceeds --ece-threshold (the ECE after scaling is measured out of
sample, by cross-fitting); off keeps T = 1; fixed uses --temperature.

--resume keeps verdicts in DIR/.cache/verdicts.db, so a run killed part way (even by
SIGKILL) picks up where it stopped. The run's files are written into a staging folder
inside DIR and committed as a whole when the run ends, so DIR always holds one complete
run: Ctrl-C (or SIGTERM) in any stage stops with exit 130 and commits nothing, and the
files of an older run there (calibrate's included) are replaced. One command at a time
holds DIR; a DIR holding files audit did not write is refused unless --force.
If more than 1% of the claims could not be adjudicated the run exits 3 (the records
are written, each saying why).

Each verifier backend has its own options (listed below, prefixed with the backend's
name); giving an option of another backend than --verifier's is an error.`

// runCmd is `audit run`: its flags, and the run they configure.
type runCmd struct {
	e        *env
	o        audit.Options
	verifier string
	failOn   string
	asJSON   bool

	numericEffect string
	tempFrom      string
	rules         ruleFlags
	// priceIn, priceOut: --price-input, --price-output (per million tokens).
	priceIn, priceOut float64

	shard  string
	shards int

	// --outputs: the extractor and its options (LLM ones prefixed
	// "extract-", apart from the openai verifier's).
	extractor string
	extractGo *flag.FlagSet
	llm       *llm.Options

	force    bool
	out      outputFlags
	backends *backendFlags
	bErr     error // a backend's options could not be bound
}

func newRunCmd(e *env) *cobra.Command {
	r := &runCmd{e: e}
	cmd := &cobra.Command{
		Use: "run --corpus F [--spans F] (--claims F | --outputs F) [--gold F] --out DIR",
		Example: `  audit run --corpus corpus.jsonl --spans spans.jsonl --claims claims.jsonl --gold gold.jsonl --out out
  audit run --corpus corpus.jsonl --outputs outputs.jsonl --out out --temperature-from labelled-run
  audit run --corpus corpus.jsonl --claims claims.jsonl --gold gold.jsonl --out out \
    --fail-on 'tier1_fa_conditional.hi>0.05,ece_10>0.10' --resume`,
		Short: "Audit claims: retrieve evidence, verify in batches, decide, write records.parquet",
		Long:  runLong,
		Args:  cobra.NoArgs,
		RunE:  r.run,
	}
	r.flags(cmd.Flags())
	// Over 80 flags: grouped by purpose, each backend's options under it.
	cmd.SetUsageFunc(groupedUsage(runFlagGroups, r.backends))
	return cmd
}

func (r *runCmd) flags(f *pflag.FlagSet) {
	o := &r.o
	f.StringVar(&o.CorpusPath, "corpus", "", "corpus documents, JSONL (required, unless --outputs carry their \"contexts\": each output's claims are then judged against its own contexts only)")
	f.StringVar(&o.SpansPath, "spans", "", "evidence spans, JSONL")
	f.StringVar(&o.ClaimsPath, "claims", "", "claims, JSONL (this or --outputs)")
	f.StringVar(&o.OutputsPath, "outputs", "", "model outputs to extract claims from and decide per output (this or --claims): JSONL {id, text, query?, query_id?, attempt?, cites?, contexts?} or a plain-text file")
	extractFlags(f, &o.Extract, &r.extractor)
	r.extractGo = flag.NewFlagSet("extract", flag.ContinueOnError)
	r.llm = llm.Flags(r.extractGo, "extract-")
	f.AddGoFlagSet(r.extractGo)
	f.StringVar(&o.GoldPath, "gold", "", "gold labels {claim_id, label}, JSONL")
	f.StringVar(&o.OutDir, "out", "", "output folder (required)")
	f.StringVar(&o.IndexDir, "index", "", "index folder (default OUT/index)")
	passageFlags(f, &o.Passages)
	f.IntVar(&o.K, "k", 5, "passages retrieved per claim")
	f.StringVar(&o.Evidence, "evidence", claims.EvidenceCorpus, "where a claim's evidence comes from: corpus (BM25 over the whole corpus, cited passages first), cited (only the spans and whole documents it cites, every chunk verified; a claim citing nothing is insufficient, flagged uncited) or cited-or-corpus (cited, and retrieval for a claim citing nothing, flagged); a claim's own evidence field overrides it")
	f.StringVar(&o.VerifierQuery, "verifier-query", adjudicate.QueryAuto, "in a run over model outputs (--outputs), whether the user's query reaches the verifier with each claim of its output: auto (the openai judge reads it in its prompt as context; a pair model (onnx, tei, triton) does not), on (pair models too, as a third segment after the claim: \"<claim>\\nQuestion: <query>\"), off (none). The lexical and cascade verifiers never read it")
	f.IntVar(&o.BatchSize, "batch-size", 0, "claims per verifier call (default: the verifier's preference)")
	f.IntVar(&o.Workers, "workers", 0, "concurrent verifier calls (0: the verifier's choice: 2 for the onnx backend when its batches run side by side, see --ort-runs, else 1; each call then shares the cores, so a call takes longer: mind --verify-timeout)")
	f.Float64Var(&r.priceIn, "price-input", 0, "cost of a million input (prompt) tokens of a remote judge or LLM extractor, in your currency: the records' cost and summary.json's usage.cost (null without it); give --price-output too")
	f.Float64Var(&r.priceOut, "price-output", 0, "cost of a million output (completion) tokens; with --price-input")
	f.Float64Var(&o.AbstainBelow, "abstain-below", 0, "abstain when the calibrated confidence is below this")
	f.Float64Var(&o.MinRetrievalScore, "min-retrieval-score", 0, "a claim whose best (uncited) passage's BM25 score is below this found nothing relevant: it abstains (abstain_reason weak_retrieval), or is insufficient under --weak-retrieval insufficient")
	f.StringVar(&o.WeakRetrieval, "weak-retrieval", audit.WeakRetrievalAbstain, "what a claim under --min-retrieval-score gets: abstain (undecided, abstain_reason weak_retrieval) or insufficient (decided insufficient, decided_by weak_retrieval, flag weak_retrieval), so the run goes on deciding it")
	f.DurationVar(&o.VerifyTimeout, "verify-timeout", 0, "bound on one verifier call (e.g. 30s; 0: none): the claims of a slower call — with --outputs, every claim of their outputs — are skipped and logged (abstain_reason verify_timeout, the error column says how long it took), and do not count as errors")
	f.BoolVar(&o.AllowDegenerateVerifier, "allow-degenerate-verifier", false, "do not fail a run whose verifier is degenerate (one label for at least 99% of 100 or more answered claims): by default the run says the verifier is disabled for decisions and exits 3 after writing its files")
	f.StringVar(&o.Calibrate, "calibrate", "auto", "temperature scaling: auto, off or fixed")
	f.Float64Var(&o.Temperature, "temperature", 0, "the temperature for --calibrate fixed")
	f.StringVar(&r.tempFrom, "temperature-from", "", "apply the temperature fitted by an earlier run (its output folder's summary.json) to every claim: --calibrate fixed with that T, for unlabelled runs")
	f.IntVar(&o.Folds, "folds", metrics.DefaultFolds, "cross-fitting folds: each labelled claim is calibrated by a temperature fitted on the other folds")
	f.IntVar(&o.MinCalibration, "min-calibration", metrics.DefaultMinCalibration,
		"fewest labelled claims a temperature is fitted on; below it T = 1 and the output says so (with fewer, fold fits of ~20 claims are noise and T runs to its bounds)")
	f.Float64Var(&o.ECEThreshold, "ece-threshold", 0.10, "auto calibration applies when the raw 10-bin ECE exceeds this")
	f.Uint64Var(&o.Seed, "seed", 1, "seed for calibration cross-fitting folds")
	f.IntVar(&o.SourceSlices, "source-slices", metrics.DefaultMaxSourceSlices, sourceSlicesHelp)
	f.BoolVar(&o.Resume, "resume", false, "cache verdicts in OUT/.cache and reuse them")
	f.StringVar(&o.NumericPolicy, "numeric-policy", numeric.PolicyAuto, "when a passage's number agrees with a claim's: "+strings.Join(numeric.Policies, ", "))
	f.StringVar(&r.numericEffect, "numeric-effect", string(lint.EffectRule), "what the numeric check does to the label: rule (the numeric labelling rule decides: a number the evidence gives otherwise is unsupported, one it only bounds insufficient), flag (flag only), none, or override (any retrieved passage's mismatch is unsupported, before the rules)")
	r.rules.add(f)
	f.StringVar(&r.failOn, "fail-on", "", "gates, e.g. \"tier1_fa_conditional>0.05,ece_10>0.10,coverage<0.8\": exit 1 when any holds")
	f.BoolVar(&o.StrictGold, "strict-gold", false, "a gold label for a claim not in --claims is an error (default: ignored, and counted in a warning, so a sample of the claims runs with the full gold file)")
	f.BoolVar(&r.asJSON, "json", false, "print summary.json on stdout instead of tables")
	f.BoolVar(&r.force, "force", false, "write into an --out folder that holds files audit did not write (they are left alone)")
	r.out.add(f, true)
	f.StringVar(&r.shard, "shard", "", "audit only shard i of N (\"i/N\", 0 ≤ i < N): the claims whose id hashes to i; 'audit report' over all N shards' records reports the whole run")
	f.IntVar(&r.shards, "shards", 0, "split the run N ways and audit the shard named by $JOB_COMPLETION_INDEX (Kubernetes Indexed Job) or $SLURM_ARRAY_TASK_ID (Slurm job array 0 to N-1)")
	// Each backend declares its own options; cmd/audit knows none of them.
	r.backends, r.bErr = addBackendFlags(f, r.e.backends)
	if r.bErr == nil {
		f.StringVar(&r.verifier, "verifier", "lexical", r.backends.help())
	}
}

// check validates the flags before any work; every failure is exit 2.
func (r *runCmd) check(cmd *cobra.Command) error {
	if err := r.checkInputs(cmd); err != nil {
		return err
	}
	if err := r.checkCalibration(cmd); err != nil {
		return err
	}
	if err := r.checkDecisions(); err != nil {
		return err
	}
	if err := r.checkPrices(cmd); err != nil {
		return err
	}
	if err := r.checkSharding(); err != nil {
		return err
	}
	var err error
	r.o.PlotFormats, r.o.SliceBy, err = r.out.parse()
	return err
}

// checkInputs decides which inputs the run reads: the corpus, the claims or
// the model outputs (one of them), regular files all.
func (r *runCmd) checkInputs(cmd *cobra.Command) error {
	if err := requireFlags(cmd, "out"); err != nil {
		return err
	}
	if r.o.CorpusPath == "" && r.o.OutputsPath == "" {
		return usageErrorf("%s: give --corpus (or --outputs whose outputs carry their \"contexts\")", cmd.CommandPath())
	}
	if r.o.CorpusPath == "" && r.o.SpansPath != "" {
		return usageErrorf("--spans belong to a --corpus")
	}
	if err := requireClaims(r.o.ClaimsPath); err != nil {
		return err
	}
	o := &r.o
	if (o.ClaimsPath == "") == (o.OutputsPath == "") {
		return usageErrorf("%s: give --claims (atomic claims) or --outputs (model outputs to extract claims from), one of them", cmd.CommandPath())
	}
	if err := requireRegular(cmd.Flags(), "corpus", "spans", "claims", "gold", "outputs"); err != nil {
		return err
	}
	if o.OutputsPath == "" && (cmd.Flags().Changed("split") || cmd.Flags().Changed("extractor")) {
		return usageErrorf("--split and --extractor apply to --outputs")
	}
	if o.WeakRetrieval != audit.WeakRetrievalAbstain && o.WeakRetrieval != audit.WeakRetrievalInsufficient {
		return usageErrorf("--weak-retrieval %q is not abstain or insufficient", o.WeakRetrieval)
	}
	if o.VerifyTimeout < 0 {
		return usageErrorf("--verify-timeout %s is negative (0: no bound)", o.VerifyTimeout)
	}
	return nil
}

// checkCalibration decides the temperature: fitted (auto), none (off) or
// given (fixed, by --temperature or an earlier run's --temperature-from),
// and the cross-fitting that measures it.
func (r *runCmd) checkCalibration(cmd *cobra.Command) error {
	o := &r.o
	if r.tempFrom != "" {
		if cmd.Flags().Changed("calibrate") && o.Calibrate != audit.CalibrateFixed || cmd.Flags().Changed("temperature") {
			return usageErrorf("--temperature-from sets the temperature: it cannot be combined with --temperature or --calibrate %s", o.Calibrate)
		}
		t, err := temperatureFrom(r.tempFrom)
		if err != nil {
			return &exitError{code: exitInput, err: fmt.Errorf("--temperature-from: %w", err)}
		}
		o.Calibrate, o.Temperature, o.TemperatureFrom = audit.CalibrateFixed, t, r.tempFrom
	}
	if o.Folds < 2 || o.Folds > metrics.MaxFolds || o.MinCalibration < 1 {
		return usageErrorf("--folds must be from 2 to %d and --min-calibration >= 1", metrics.MaxFolds)
	}
	if math.IsNaN(o.Temperature) || math.IsInf(o.Temperature, 0) || o.Temperature < 0 {
		return usageErrorf("--temperature %v is not a positive number", o.Temperature)
	}
	if err := checkFloats(cmd.Flags(), "abstain-below", "min-retrieval-score", "temperature", "ece-threshold"); err != nil {
		return err
	}
	switch o.Calibrate {
	case audit.CalibrateAuto, audit.CalibrateOff:
	case audit.CalibrateFixed:
		if !(o.Temperature >= metrics.MinTemperature && o.Temperature <= metrics.MaxTemperature) {
			return usageErrorf("--calibrate fixed needs --temperature in [%v, %v], got %v", metrics.MinTemperature, metrics.MaxTemperature, o.Temperature)
		}
	default:
		return usageErrorf("--calibrate %q is not auto, off or fixed", o.Calibrate)
	}
	return nil
}

// checkPrices sets the token prices: both or neither, each a finite
// number >= 0.
func (r *runCmd) checkPrices(cmd *cobra.Command) error {
	in, out := cmd.Flags().Changed("price-input"), cmd.Flags().Changed("price-output")
	if in != out {
		return usageErrorf("--price-input and --price-output go together (a cost needs both)")
	}
	if !in {
		return nil
	}
	for _, p := range []float64{r.priceIn, r.priceOut} {
		if !(p >= 0) || math.IsInf(p, 0) { // NaN too
			return usageErrorf("--price-input %v, --price-output %v: prices are numbers >= 0", r.priceIn, r.priceOut)
		}
	}
	r.o.Prices = reports.Prices{InputPerM: &r.priceIn, OutputPerM: &r.priceOut}
	return nil
}

// checkDecisions decides how claims are retrieved, verified and labelled:
// passages, k, batches, abstention, the ECE above which auto calibration
// applies, the numeric check, the rules and the gates (in the order the
// checks always ran, so that of two bad flags the same one is reported).
func (r *runCmd) checkDecisions() error {
	o := &r.o
	if err := o.Passages.Or(corpus.DefaultPassageSettings).Validate(); err != nil {
		return usageErrorf("%v", err)
	}
	if !(o.ECEThreshold > 0 && o.ECEThreshold < 1) {
		return usageErrorf("--ece-threshold must be in (0, 1), got %v", o.ECEThreshold)
	}
	if o.K < 1 || o.Workers < 0 || o.BatchSize < 0 || o.AbstainBelow < 0 || o.AbstainBelow > 1 {
		return usageErrorf("--k must be >= 1, --workers and --batch-size >= 0, --abstain-below in [0, 1]")
	}
	if err := intRanges(intRange{"k", o.K, 1, maxK}, intRange{"workers", o.Workers, 0, maxWorkers}, intRange{"batch-size", o.BatchSize, 0, maxBatchSize},
		intRange{"source-slices", o.SourceSlices, -1, math.MaxInt32}); err != nil {
		return err
	}
	if !slices.Contains(claims.EvidenceScopes, o.Evidence) {
		return usageErrorf("--evidence %q is not one of %s", o.Evidence, strings.Join(claims.EvidenceScopes, ", "))
	}
	if !slices.Contains(adjudicate.QueryModes, o.VerifierQuery) {
		return usageErrorf("--verifier-query %q is not one of %s", o.VerifierQuery, strings.Join(adjudicate.QueryModes, ", "))
	}
	if !slices.Contains(numeric.Policies, o.NumericPolicy) {
		return usageErrorf("--numeric-policy %q is not one of %s", o.NumericPolicy, strings.Join(numeric.Policies, ", "))
	}
	effect, err := lint.ParseNumericEffect(r.numericEffect)
	if err != nil {
		return usageErrorf("--numeric-effect: %v", err)
	}
	o.NumericEffect = effect
	if o.Rules, err = r.rules.parse(); err != nil {
		return usageErrorf("%v", err)
	}
	if o.Gates, err = reports.ParseGates(r.failOn); err != nil {
		return usageErrorf("%v", err)
	}
	return nil
}

// checkSharding decides the shard this run audits, and refuses what only
// the whole run can do (per-output decisions, gates).
func (r *runCmd) checkSharding() error {
	o := &r.o
	var err error
	if o.Shard, err = shardOf(r.shard, r.shards, r.e.getenv); err != nil {
		return usageErrorf("%v", err)
	}
	if o.Shard.Sharded() && o.OutputsPath != "" {
		return usageErrorf("--outputs decides per output over the whole run: run it unsharded (or extract with 'audit extract' and shard the claims)")
	}
	if o.Shard.Sharded() && len(o.Gates) > 0 {
		return usageErrorf("--fail-on is checked on the whole run: give it to 'audit report' over all the shards")
	}
	return nil
}

// shardOf is the shard --shard i/N names, or --shards N with i from the
// scheduler's environment: a Kubernetes Indexed Job's JOB_COMPLETION_INDEX,
// or a Slurm job array's SLURM_ARRAY_TASK_ID: the array's task ids are the
// shard indices (--array=0-3 for 4 shards). Not less SLURM_ARRAY_TASK_MIN:
// a task resubmitted alone (--array=3) has MIN 3 and is still shard 3.
// The zero Shard is the whole run.
func shardOf(spec string, n int, getenv func(string) string) (audit.Shard, error) {
	switch {
	case spec != "" && n != 0:
		return audit.Shard{}, fmt.Errorf("--shard and --shards: give one")
	case spec != "":
		return audit.ParseShard(spec)
	case n == 0:
		return audit.Shard{}, nil
	case n < 1:
		return audit.Shard{}, fmt.Errorf("--shards %d: want N ≥ 1", n)
	}
	from, v, hint := "JOB_COMPLETION_INDEX", getenv("JOB_COMPLETION_INDEX"), ""
	if v == "" {
		from, v = "SLURM_ARRAY_TASK_ID", getenv("SLURM_ARRAY_TASK_ID")
		hint = fmt.Sprintf(" (the array's task ids are the shard indices: --array=0-%d)", n-1)
	}
	if v == "" {
		return audit.Shard{}, fmt.Errorf("--shards %d: neither JOB_COMPLETION_INDEX nor SLURM_ARRAY_TASK_ID is set (outside a scheduler, use --shard i/%d)", n, n)
	}
	i, err := strconv.Atoi(v)
	if err != nil {
		return audit.Shard{}, fmt.Errorf("--shards: %s=%q is not a number", from, v)
	}
	sh := audit.Shard{Index: i, Count: n}
	if err := sh.Validate(); err != nil {
		return audit.Shard{}, fmt.Errorf("--shards %d with %s=%s: %w%s", n, from, v, err, hint)
	}
	return sh, nil
}

func (r *runCmd) run(cmd *cobra.Command, _ []string) error {
	if r.bErr != nil {
		return r.bErr
	}
	if err := r.check(cmd); err != nil {
		return err
	}
	o, closeSrc, err := r.options(cmd)
	if err != nil {
		return err
	}
	defer closeSrc()
	internal, err := runInternal(o.OutDir, o.IndexDir)
	if err != nil {
		return err
	}
	out, err := openOut(o.OutDir, r.force, internal...)
	if err != nil {
		return err
	}
	defer out.Close()
	o.WriteDir = out.Stage()
	res, err := audit.Run(cmd.Context(), o)
	if errors.Is(err, context.Canceled) {
		return r.interrupted(cmd, o, err)
	}
	if err != nil && !errors.Is(err, audit.ErrTooManyErrors) && !errors.Is(err, audit.ErrDegenerateVerifier) {
		return err
	}
	if res.Tables != nil {
		// A gate over a slice no claim is in is a misspelling: nothing is
		// committed, exit 2.
		if serr := reports.UnknownSlices(o.Gates, &res.Tables.Summary); serr != nil {
			return usageErrorf("--fail-on: %v", serr)
		}
	}
	// The run's files enter --out as a whole, or (interrupted) not at all.
	if cerr := out.Commit(cmd.Context(), outdir.Commit{MadeBy: "audit run", RunID: res.RunID}); cerr != nil {
		return cerr
	}
	return r.summarise(res, o, err)
}

// options are the pipeline's options for the checked flags: the verifier
// and the extractor they name, the terminal's progress and stage lines.
// closeSrc releases the extractor.
func (r *runCmd) options(cmd *cobra.Command) (o audit.Options, closeSrc func(), err error) {
	factory, err := r.backends.factory(r.verifier, cmd.Flags())
	if err != nil {
		return o, nil, err
	}
	src, closeSrc, err := extractorOf(cmd.Flags(), r.extractGo, r.extractor, r.llm, "extract-")
	if err != nil {
		return o, nil, err
	}
	o = r.o
	o.Extract.Source, o.Extract.Workers = src, r.llm.Client.MaxInflight
	o.VerifierName = r.verifier
	// The verifier is built once, by the pipeline, after the index is open
	// (backends may use its statistics). A verifier that cannot load (bad
	// weights, model folder, device) is a usage error.
	o.NewVerifier = func(stats adjudicate.CorpusStats) (adjudicate.Verifier, error) {
		v, err := factory(r.backends.env(stats))
		if err != nil {
			return nil, &exitError{code: exitInput, err: err}
		}
		return v, nil
	}
	o.ToolVersion, o.Log = version(), r.e.log
	o.Progress = newProgressUnit(r.e, "verifying claims", "claims")
	o.DecideProgress = newProgressUnit(r.e, "deciding and writing", "claims")
	o.IndexProgress = newProgressUnit(r.e, "indexing", "passages")
	o.ReportsProgress = newProgressUnit(r.e, "metrics per slice", "")
	o.Stage = newStages(r.e)
	return o, closeSrc, nil
}

// interrupted is the exit of a run stopped by Ctrl-C or SIGTERM: the
// command that resumes it, on stderr, and exit 130.
func (r *runCmd) interrupted(cmd *cobra.Command, o audit.Options, err error) error {
	if isTerminal(r.e.stderr) {
		// The bar's line does not end until it finishes: start afresh.
		fmt.Fprintln(r.e.stderr)
	}
	fmt.Fprintln(r.e.stderr, interruptedMessage(cmd, o, r.e.argv0))
	// The message says it all; no "context canceled" after it.
	return &exitError{code: exitInterrupted, err: err, quiet: true}
}

// summarise prints what a committed run found and decides its exit code:
// a shard points at 'audit report', a whole run prints its tables (or
// summary.json); too many failed claims exit 3, a failed gate 1.
func (r *runCmd) summarise(res *audit.Result, o audit.Options, runErr error) error {
	if o.Resume {
		r.e.log.Info("--resume: cached verdicts reused", "verdicts", res.CacheHits, "cache", filepath.Join(o.OutDir, ".cache"))
	}
	if o.Shard.Sharded() {
		if res.Fallbacks > 0 {
			// A whole run logs it with the summary's warnings; a shard has none.
			logWarnings(r.e, []string{audit.FallbackWarning(res.Fallbacks, o.Rules.FallbackName)})
		}
		fmt.Fprintf(r.e.stdout, "%s of shard %s → %s (run %s); calibration and reports: audit report --records over every shard's records.parquet\n",
			plural(res.Records, "claim"), o.Shard, o.OutDir, res.RunID)
		if runErr != nil {
			return &exitError{code: exitInternal, err: runErr}
		}
		return nil
	}
	if perr := printRunSummary(r.e, res, o, r.asJSON); perr != nil {
		return perr
	}
	logWarnings(r.e, res.Tables.Summary.Warnings)
	if runErr != nil {
		return &exitError{code: exitInternal, err: runErr}
	}
	return gateError(res.Tables.Summary.Gates)
}

// temperatureFrom reads the full-data temperature an earlier run fitted
// from its summary.json.
func temperatureFrom(dir string) (float64, error) {
	if err := outdir.Check(dir); err != nil {
		return 0, err // a folder killed while committing may mix two runs' files
	}
	path := filepath.Join(dir, "summary.json")
	b, err := userfile.ReadFile(path, userfile.MaxLarge)
	if err != nil {
		return 0, err
	}
	var s struct {
		Calibration *struct {
			Fitted          bool     `json:"fitted"`
			Reason          string   `json:"reason"`
			FullTemperature *float64 `json:"full_temperature"`
		} `json:"calibration"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	switch c := s.Calibration; {
	case c == nil:
		return 0, fmt.Errorf("%s has no calibration section (written by an older version?)", path)
	case !c.Fitted || c.FullTemperature == nil:
		return 0, fmt.Errorf("%s: that run fitted no temperature (%s)", path, c.Reason)
	case !(*c.FullTemperature >= metrics.MinTemperature && *c.FullTemperature <= metrics.MaxTemperature):
		// A fit never leaves [MinTemperature, MaxTemperature]: the file was
		// edited or damaged, and the message says which file and field.
		return 0, fmt.Errorf("%s: calibration.full_temperature %v is outside [%v, %v], the range a fit searches: that file was not written by a run's fit", path, *c.FullTemperature, metrics.MinTemperature, metrics.MaxTemperature)
	}
	return *s.Calibration.FullTemperature, nil
}

// interruptedMessage says what an interrupted run kept and the exact
// command that picks up where it stopped, with the program as invoked
// (argv0; "audit" when unknown).
func interruptedMessage(cmd *cobra.Command, o audit.Options, argv0 string) string {
	if argv0 == "" {
		argv0 = "audit"
	}
	args := []string{shellQuote(argv0), "run"}
	cmd.Flags().Visit(func(f *pflag.Flag) {
		switch v := f.Value.(type) {
		case pflag.SliceValue: // --slice-by a,b: not pflag's "[a,b]"
			args = append(args, "--"+f.Name, shellQuote(strings.Join(v.GetSlice(), ",")))
		default:
			if f.Name != "resume" {
				args = append(args, "--"+f.Name, shellQuote(withoutUserinfo(f.Value.String())))
			}
		}
	})
	args = append(args, "--resume")
	kept := "no records were written and no verdicts were kept (the run had no --resume)"
	if o.Resume {
		kept = "no records were written; the verdicts finished so far are kept in " + filepath.Join(o.OutDir, ".cache")
	}
	return fmt.Sprintf("interrupted: %s.\nTo continue (reusing cached verdicts from now on):\n  %s", kept, strings.Join(args, " "))
}

// withoutUserinfo drops user:password@ and the query's values (a token) from
// a value that is a URL (an --endpoint): a message printed to a terminal or a log never carries it
// (the rerun supplies credentials as the first run did).
func withoutUserinfo(v string) string {
	if u, err := url.Parse(v); err == nil && (u.User != nil || u.RawQuery != "") && u.Host != "" {
		return remote.RedactURL(v)
	}
	return v
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == ',' || r == '=' || r == ':' ||
			(r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z'))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func printJSON(e *env, v any) error {
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// gateError is exit 1 naming every failed gate (an undefined metric fails
// its gate, saying why), or nil.
func gateError(results []reports.GateResult) error {
	if err := reports.Failures(results); err != nil {
		return &exitError{code: exitGate, err: err}
	}
	return nil
}

func printRunSummary(e *env, res *audit.Result, o audit.Options, asJSON bool) error {
	if asJSON {
		return printJSON(e, res.Tables.Summary)
	}
	fmt.Fprintf(e.stdout, "%s → %s (run %s)\n", claimsHeadline(res.Records, res.Tables.Summary.Labelled, "claim"), o.OutDir, res.RunID)
	if err := reports.PrintTables(e.stdout, &res.Tables.Summary); err != nil {
		return err
	}
	tm := res.Timings
	var stages []string
	for _, s := range []struct {
		name string
		d    reports.Seconds
	}{{"validate", tm.Validate}, {"index", tm.Index}, {"retrieve_and_verify", tm.RetrieveAndVerify},
		{"calibrate", tm.Calibrate}, {"decide_and_write", tm.DecideAndWrite}, {"reports", tm.Reports}} {
		stages = append(stages, fmt.Sprintf("%s %.2fs", s.name, time.Duration(s.d).Seconds()))
	}
	total, busy := tm.Total().Seconds(), time.Duration(tm.VerifyBusy).Seconds()
	// Two lines of under 80 columns: a terminal never breaks a number.
	fmt.Fprintf(e.stdout, "time: %s,\n      %s\n", strings.Join(stages[:3], ", "), strings.Join(stages[3:], ", "))
	fmt.Fprintf(e.stdout, "%.0f claims/s over %.2fs; the verifier was busy %.2fs (%.0f%%)\n",
		float64(res.Records)/total, total, busy, 100*busy/total)
	return nil
}

// claimsHeadline is the count of claims as a headline states it, with the
// labelled ones when not all are: "600 claims (300 of 600 labelled)".
func claimsHeadline(n, labelled int, noun string) string {
	switch {
	case n == 0 || labelled == n:
		return plural(n, noun)
	case labelled == 0:
		return plural(n, noun) + " (no gold labels)"
	}
	return fmt.Sprintf("%s (%s)", plural(n, noun), reports.LabelledOf(labelled, n))
}
