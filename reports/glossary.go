package reports

// GlossaryEntry defines one headline term of the terminal tables and
// report.html.
type GlossaryEntry struct{ Term, Meaning string }

// Glossary defines every headline metric as report.html shows it (README's
// glossary says the same). Counts: n claims, answered = n − abstained,
// "labelled" = with a gold label; rates over gold use labelled claims only.
var Glossary = []GlossaryEntry{
	{"coverage", "answered ÷ all claims: the share the audit decided rather than abstained on."},
	{"accuracy", "answered, labelled claims whose predicted label equals gold ÷ answered, labelled claims. Beside it: the majority-class baseline (always predict the most frequent gold label), balanced accuracy (mean recall over the three labels) and Cohen's kappa (agreement beyond chance)."},
	{"macro-F1", "the mean of the per-label F1 scores (supported, unsupported, insufficient)."},
	{"tier-1 FA rate (÷ gold negatives)", "tier1_fa_of_gold_negatives: claims predicted supported whose gold label is unsupported or insufficient ÷ every claim whose gold label is unsupported or insufficient. This is the false-accept rate most readers mean: of the claims that should not pass, the share that passed."},
	{"tier-1 FA (of answered) / (of all)", "tier1_fa_conditional / tier1_fa_unconditional: the same false accepts ÷ every answered labelled claim (conditional) or ÷ every labelled claim (unconditional), as the claims-audit method defines its tiers. They are shares of all claims, not of the negatives, so they are smaller than the rate above whenever some claims are supported."},
	{"tier-2 FA rate (÷ gold unsupported)", "tier2_fa_of_gold_unsupported: claims predicted supported or insufficient whose gold label is unsupported ÷ every claim whose gold label is unsupported: a contradiction the audit did not catch."},
	{"tier-2 FA (of answered) / (of all)", "tier2_fa_conditional / tier2_fa_unconditional: the same ÷ answered labelled claims / ÷ labelled claims."},
	{"ECE (10 bins)", "expected calibration error: answered claims binned by confidence (the top probability) into ten equal-width bins; the mean over bins, weighted by bin size, of |accuracy − mean confidence|. 0 is perfectly calibrated; the calibration gate is 0.10."},
	{"AURC", "area under the risk–coverage curve: answered claims sorted by confidence, the error rate among the k most confident, averaged over k. Lower is better; it rewards confidence that ranks right answers above wrong ones."},
	{"pass rate", "answered claims predicted supported ÷ all claims: what share would pass a verifier that ships supported claims."},
	{"false-positive / false-negative rate", "gold unsupported predicted supported ÷ gold unsupported; gold supported predicted unsupported ÷ gold supported."},
	{"degenerate verifier", "YES when one predicted label covers at least 95% of at least 100 answered claims: the verifier may have collapsed to one answer."},
	{"built-in quality gates", "the verification workflow's fixed thresholds over the verdicts: evidence coverage ≥ 0.85, unsupported rate ≤ 0.05, no critical unsupported claim, no contradiction. Informational: they never set the exit code (metric quality_gates_pass in --fail-on does)."},
	{"gates (--fail-on)", "the comparisons you give, e.g. tier1_fa_of_gold_negatives>0.05,ece_10>0.10; any that holds (or whose metric is undefined) makes the command exit 1."},
	{"95% interval", "a percentile bootstrap over claims (1,000 resamples, fixed seed): where the number would fall on another sample of the same kind of claims."},
	{"raw / calibrated", "raw uses the verifier's probabilities (T = 1); calibrated divides the logits by the fitted temperature, each labelled claim by a temperature fitted on the other folds (out of sample)."},
}
