package reports

import (
	"bytes"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/claimaudit/claimaudit/metrics"
)

//go:embed report.html.tmpl
var reportTemplate string

var reportTmpl = template.Must(template.New("report").Funcs(template.FuncMap{"num": num}).Parse(reportTemplate))

// minSliceClaims is the fewest answered, labelled claims a slice needs to
// be named the worst-calibrated: the ECE of a handful of claims is noise.
const minSliceClaims = 30

// htmlReport is what report.html shows.
type htmlReport struct {
	S           *Summary
	M           Manifest
	Calibration string
	Headline    []htmlMetric
	Predicted   []htmlPredicted
	Confusion   [3]htmlConfRow
	Labelled    int
	Figures     []htmlFigure
	Slices      []htmlSlice
	Worst       *htmlSlice
	SmallSlices int // slices left out of the table: too few claims
	Errors      []htmlError
	ErrorsShown int
	Rules       []RuleRow
	Bounds      []BoundRow
	Decisions   *htmlDecisions // per-output decisions; nil unless the run decided outputs
	// Header lines: when, on what, with which settings.
	Date, ClaimsLine string
	Inputs           []string
	Settings         string
	Abstained        string
	Glossary         []GlossaryEntry
	// Unlabelled: no claim has a gold label. The page then leads with
	// what it knows (the label distribution, per-output decisions, rule
	// flags, evidence coverage), says once what needs gold, and leaves
	// out the tables and plots that would be empty (rows of —, a 0 / —
	// confusion, "no claim was misclassified").
	Unlabelled bool
	NeedsGold  string
	Warnings   []string
	// PerOutput is the headline over model outputs (claims grouped by
	// their source_id); OutputsN how many outputs.
	PerOutput []htmlMetric
	OutputsN  string
}

// needsGold is what an unlabelled report says once in place of the
// numbers it cannot give.
const needsGold = "No claim has a gold label, so this report cannot say how often the verifier is right: " +
	"accuracy and its baselines, the false-accept rates, calibration error (ECE), AURC, the confusion matrix, " +
	"the reliability and risk–coverage plots, the calibration bounds and the misclassified claims all need gold " +
	"labels (--gold; or 'audit review' on a sample and 'audit estimate' for estimates with intervals). " +
	"They are null in summary.json and metrics.parquet, and no temperature is fitted: the probabilities are " +
	"the verifier's own (--temperature-from reuses one fitted on a labelled run). What a run can tell without gold is below."

// htmlDecisions is report.html's account of the per-output decisions: the
// rates, and the outputs that are not shipped (revise first, then abstain,
// by output id), up to OutputsShown.
type htmlDecisions struct {
	Outputs                                  int
	Ship, Revise, Abstain, Uncited           string
	Queries, QueryAbstain, Branches, Success string
	Rows                                     []htmlOutput
	More                                     int // not shipped and left out
}

type htmlOutput struct {
	ID, Attempt, Faithfulness, Action, Confidence, Coverage, Revision, Reason string
	Instructions, Flags                                                       []string
	Abstention, NoEvidence                                                    string
	Warnings, Unsupported                                                     []string
	Decision                                                                  string
}

// flagsWithSeverity are risk flags with their severity ("no_evidence
// (high)"); a flag without one (a file written before severities) as it is.
func flagsWithSeverity(flags, sev []string) []string {
	if len(sev) != len(flags) {
		return flags
	}
	out := make([]string, len(flags))
	for i, f := range flags {
		out[i] = f + " (" + sev[i] + ")"
	}
	return out
}

// OutputsShown bounds the outputs report.html lists.
const OutputsShown = 50

type htmlMetric struct {
	Label, Value, Interval, Raw string
	Baseline                    bool
}

type htmlPredicted struct{ Label, Count, Share, Interval string }

type htmlConfRow struct {
	Gold  string
	Cells [3]htmlConfCell
}

type htmlConfCell struct {
	Count int
	Share string
	Alpha string // background opacity, by row share
	Dark  bool   // white text
}

type htmlFigure struct {
	Title string
	Src   template.URL
}

type htmlSlice struct {
	Name                                          string
	N, Coverage, Accuracy, Majority, MacroF1, ECE string
	Tier1FA                                       string
	// The binary view (supported vs not) of the grounded benchmarks.
	BinaryBA, BinaryAUC string
	// 95% bootstrap intervals (empty below metrics.MinBootstrapClaims).
	AccuracyCI, MacroF1CI, Tier1FACI, ECECI, BinaryBACI, BinaryAUCCI string
	ece                                                              float64
	answered                                                         float64
}

type htmlError struct {
	Rank        int
	ClaimID     string
	Text        string
	Gold, Pred  string
	Confidence  string
	Verdict     string
	Source      string
	Meta        string
	Passage     []htmlSegment // the deciding passage's snippet, claim words marked
	PassageFrom string
	Rationale   string
}

// htmlSegment is a run of passage text; Hit marks a word the claim shares.
type htmlSegment struct {
	Text string
	Hit  bool
}

func interval(s *Summary, name string) string {
	if ci := s.Intervals[name]; ci != nil {
		return fmt.Sprintf("[%.3f, %.3f]", ci[0], ci[1])
	}
	return ""
}

// html renders report.html: one self-contained file, the plots embedded
// as SVG data, no scripts and nothing fetched.
func (t *Tables) html(figs []*figure) ([]byte, error) {
	s := &t.Summary
	r := htmlReport{S: s, M: t.manifest, Calibration: calibrationLine(s), ErrorsShown: ReportErrors, Glossary: Glossary,
		Rules: ruleRows(s), Bounds: boundRows(s)}
	r.Date, r.ClaimsLine, r.Inputs, r.Settings = htmlHeader(s, &t.manifest)
	r.Unlabelled = s.Labelled == 0 && s.Claims > 0
	r.Warnings = s.Warnings
	if r.Unlabelled {
		r.NeedsGold = needsGold
		r.Warnings = slices.DeleteFunc(slices.Clone(s.Warnings), func(w string) bool {
			return strings.HasPrefix(w, "no gold labels:") || strings.HasPrefix(w, "no temperature fitted: no labelled claims")
		})
	}
	r.Abstained = "—"
	if v := s.Metrics["abstained"]; v != nil {
		r.Abstained = fmt.Sprintf("%.0f", *v)
	}
	for _, h := range headline {
		v, raw := num(s.Metrics[h.name]), num(s.RawMetrics[h.name])
		if h.name == "degenerate_verifier" {
			v = map[string]string{"—": "—", "1.000": "YES", "0.000": "no"}[v]
			raw = ""
		}
		label := strings.TrimPrefix(h.label, "↳ ")
		if r.Unlabelled && v == "—" && (raw == "—" || raw == "") {
			continue // needs gold: said once, above
		}
		r.Headline = append(r.Headline, htmlMetric{Label: label, Value: v, Interval: interval(s, h.name), Raw: raw, Baseline: label != h.label})
	}
	for _, k := range metrics.ClassNames {
		r.Predicted = append(r.Predicted, htmlPredicted{Label: k, Count: fmt.Sprintf("%.0f", deref(s.Metrics["pred_count_"+k])),
			Share: num(s.Metrics["pred_rate_"+k]), Interval: interval(s, "pred_rate_"+k)})
	}
	r.Confusion, r.Labelled = htmlConfusion(s)
	figures, err := htmlFigures(figs, r.Unlabelled)
	if err != nil {
		return nil, err
	}
	r.Figures = figures
	if n := deref(s.Metrics["outputs"]); n > 0 {
		r.OutputsN = fmt.Sprintf("%.0f", n)
		for _, m := range [][2]string{{"mean supported fraction", "output_supported_fraction"},
			{"share with an unsupported claim", "output_any_unsupported_rate"}, {"share passing the quality gates", "output_pass_rate"}} {
			r.PerOutput = append(r.PerOutput, htmlMetric{Label: m[0], Value: num(s.Metrics[m[1]]), Interval: interval(s, m[1]), Raw: num(s.Metrics["gold_"+m[1]])})
		}
	}
	r.Slices, r.Worst, r.SmallSlices = t.htmlSlices()
	r.Decisions = t.htmlDecisions()
	for i, rec := range t.errors {
		r.Errors = append(r.Errors, htmlErrorOf(i+1, rec))
	}
	var buf bytes.Buffer
	if err := reportTmpl.Execute(&buf, r); err != nil {
		return nil, fmt.Errorf("render report.html: %w", err)
	}
	return buf.Bytes(), nil
}

// htmlConfusion is the confusion table's rows (gold by predicted, each
// cell's count and its share of the gold row) and the labelled claims it
// counts.
func htmlConfusion(s *Summary) (rows [3]htmlConfRow, labelled int) {
	for g, gold := range metrics.ClassNames {
		row := htmlConfRow{Gold: gold}
		total := 0
		for _, p := range metrics.ClassNames {
			total += s.Confusion[gold][p]
		}
		labelled += total
		for p, pred := range metrics.ClassNames {
			c := htmlConfCell{Count: s.Confusion[gold][pred], Share: "—", Alpha: "0"}
			if total > 0 {
				f := float64(c.Count) / float64(total)
				c.Share, c.Alpha, c.Dark = fmt.Sprintf("%.1f%%", 100*f), fmt.Sprintf("%.2f", 0.85*f), f > 0.55
			}
			row.Cells[p] = c
		}
		rows[g] = row
	}
	return rows, labelled
}

// htmlFigures are the plots embedded as SVG data; an unlabelled run's
// report leaves out those that are empty without gold.
func htmlFigures(figs []*figure, unlabelled bool) ([]htmlFigure, error) {
	var out []htmlFigure
	titles := map[string]string{"reliability": "Reliability diagram", "risk_coverage": "Risk–coverage",
		"confusion": "Confusion matrix", "confidence": "Confidence by predicted label"}
	for _, f := range figs {
		if unlabelled && (f.name == "reliability" || f.name == "risk_coverage" || f.name == "confusion") {
			continue // empty without gold
		}
		b, err := f.render(FormatSVG)
		if err != nil {
			return nil, fmt.Errorf("plot %s.svg: %w", f.name, err)
		}
		out = append(out, htmlFigure{Title: titles[f.name],
			Src: template.URL("data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString(b))})
	}
	return out, nil
}

// htmlSlices are the slice table's rows (calibrated stage): "all" and the
// slices with at least minSliceClaims answered, labelled claims; the one
// of those with the highest ECE; and how many smaller slices were left
// out (metrics.parquet has them all).
func (t *Tables) htmlSlices() ([]htmlSlice, *htmlSlice, int) {
	vals := map[string]map[string]*float64{}
	ivs := map[string]map[string]string{}
	var names []string
	for _, m := range t.Metrics {
		if m.Stage != StageCalibrated {
			continue
		}
		if vals[m.Slice] == nil {
			vals[m.Slice] = map[string]*float64{}
			ivs[m.Slice] = map[string]string{}
			names = append(names, m.Slice)
		}
		vals[m.Slice][m.Metric] = m.Value
		if m.CILow != nil && m.CIHigh != nil {
			ivs[m.Slice][m.Metric] = fmt.Sprintf("[%.3f, %.3f]", *m.CILow, *m.CIHigh)
		}
	}
	labelled := map[string]int64{} // answered, labelled claims per slice
	for _, c := range t.Confusion {
		labelled[c.Slice] += c.Count
	}
	var rows []htmlSlice
	var worst *htmlSlice
	small := 0
	for _, name := range names {
		v := vals[name]
		n := "—"
		if v["n"] != nil {
			n = fmt.Sprintf("%.0f", *v["n"])
		}
		row := htmlSlice{Name: name, N: n, Coverage: num(v["coverage"]), Accuracy: num(v["accuracy"]),
			Majority: num(v["majority_accuracy"]), MacroF1: num(v["macro_f1"]), ECE: num(v["ece_10"]),
			Tier1FA: num(v["tier1_fa_conditional"]), ece: math.NaN(),
			AccuracyCI: ivs[name]["accuracy"], MacroF1CI: ivs[name]["macro_f1"], Tier1FACI: ivs[name]["tier1_fa_conditional"], ECECI: ivs[name]["ece_10"],
			BinaryBA: num(v["binary_balanced_accuracy"]), BinaryAUC: num(v["binary_auc"]),
			BinaryBACI: ivs[name]["binary_balanced_accuracy"], BinaryAUCCI: ivs[name]["binary_auc"]}
		if v["ece_10"] != nil {
			row.ece = *v["ece_10"]
		}
		row.answered = float64(labelled[name])
		if name == "all" || row.answered >= minSliceClaims {
			rows = append(rows, row)
		} else {
			small++
		}
		if name != "all" && !math.IsNaN(row.ece) && row.answered >= minSliceClaims && (worst == nil || row.ece > worst.ece) {
			w := row
			worst = &w
		}
	}
	return rows, worst, small
}

func htmlErrorOf(rank int, r Record) htmlError {
	e := htmlError{Rank: rank, ClaimID: r.ClaimID, Text: r.Text, Verdict: r.Verdict, Source: r.SourceID, Rationale: r.Rationale}
	if r.GoldLabel != nil {
		e.Gold = *r.GoldLabel
	}
	if r.PredictedLabel != nil {
		e.Pred = *r.PredictedLabel
	}
	e.Confidence = num(r.Confidence)
	if len(r.Meta) > 0 {
		keys := make([]string, 0, len(r.Meta))
		for k := range r.Meta {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for i, k := range keys {
			keys[i] = k + "=" + r.Meta[k]
		}
		e.Meta = strings.Join(keys, ", ")
	}
	if u := r.EvidenceUsed; u != nil && u.Rank >= 1 && int(u.Rank) <= len(r.Evidence) {
		ev := r.Evidence[u.Rank-1]
		e.Passage = markShared(ev.Snippet, r.Text)
		e.PassageFrom = fmt.Sprintf("passage %s (rank %d, document %s, characters %d–%d)", u.PassageID, u.Rank, ev.DocID, ev.Start, ev.End)
	}
	return e
}

// markShared splits a passage into runs, marking the words (of four or
// more letters or digits, case-folded) it shares with the claim.
func markShared(passage, claim string) []htmlSegment {
	isWord := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
	words := map[string]bool{}
	for _, w := range strings.FieldsFunc(claim, func(r rune) bool { return !isWord(r) }) {
		if len([]rune(w)) >= 4 {
			words[strings.ToLower(w)] = true
		}
	}
	var out []htmlSegment
	add := func(s string, hit bool) {
		if s == "" {
			return
		}
		if n := len(out); n > 0 && out[n-1].Hit == hit {
			out[n-1].Text += s
			return
		}
		out = append(out, htmlSegment{Text: s, Hit: hit})
	}
	rs := []rune(passage)
	for i := 0; i < len(rs); {
		j := i
		for j < len(rs) && isWord(rs[j]) == isWord(rs[i]) {
			j++
		}
		seg := string(rs[i:j])
		add(seg, isWord(rs[i]) && words[strings.ToLower(seg)])
		i = j
	}
	return out
}

// writeHTML writes report.html.
func (t *Tables) writeHTML(dir string, figs []*figure) error {
	b, err := t.html(figs)
	if err != nil {
		return err
	}
	f, err := CreateAtomic(filepath.Join(dir, "report.html"))
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}

// htmlHeader are report.html's header lines: when the run started (or,
// without an instance, when the report was written), the claim count with the labelled ones, the
// inputs (role, file name, sha256 prefix) and the settings that decide
// the numbers.
func htmlHeader(s *Summary, m *Manifest) (date, claims string, inputs []string, settings string) {
	date = "started " + s.StartedAt
	if s.StartedAt == "" {
		date = "written " + time.Now().UTC().Format(time.RFC3339)
	}
	claims = fmt.Sprintf("%d claims", s.Claims)
	if s.Claims > 0 {
		claims += " (" + LabelledOf(s.Labelled, s.Claims) + ")"
	}
	for _, f := range m.Inputs {
		inputs = append(inputs, fmt.Sprintf("%s %s (sha256 %s)", f.Role, filepath.Base(f.Path), short(f.SHA256)))
	}
	for _, f := range m.Records {
		inputs = append(inputs, "records "+f)
	}
	if st := m.Settings; st != nil {
		settings = fmt.Sprintf("k %d · calibrate %s · ECE threshold %g · abstain below %g · min retrieval score %g · seed %d · folds %d",
			st.K, st.Calibrate, st.ECEThreshold, st.AbstainBelow, st.MinRetrievalScore, st.Seed, st.Folds)
		if st.NumericPolicy != "" {
			settings += fmt.Sprintf(" · numeric %s/%s", st.NumericPolicy, st.NumericEffect)
		}
	}
	return date, claims, inputs, settings
}

// htmlDecisions summarises the per-output decisions (nil when none).
// faithfulness is an output's supported fraction with its interval
// ("0.50 [0.24, 0.76]"), — without claims.
func faithfulness(o OutputRow) string {
	if o.Claims == 0 || o.SupportedFractionLo == nil || o.SupportedFractionHi == nil {
		return "—"
	}
	return fmt.Sprintf("%.2f [%.2f, %.2f] of %d", o.SupportedFraction, *o.SupportedFractionLo, *o.SupportedFractionHi, o.Claims)
}

func (t *Tables) htmlDecisions() *htmlDecisions {
	s := &t.Summary
	if _, ok := s.Metrics["output_ship_rate"]; !ok {
		return nil
	}
	count := func(name string) string {
		if v := s.Metrics[name]; v != nil {
			return fmt.Sprintf("%.0f", *v)
		}
		return "—"
	}
	d := &htmlDecisions{Outputs: len(t.OutputRows()), Ship: num(s.Metrics["output_ship_rate"]), Revise: num(s.Metrics["output_revise_rate"]),
		Abstain: num(s.Metrics["output_abstain_rate"]), Uncited: num(s.Metrics["output_uncited_critical_rate"]),
		Queries: count("queries"), QueryAbstain: num(s.Metrics["query_abstain_rate"]), Branches: count("branches"),
		Success: num(s.Metrics["branch_success_rate"])}
	for _, want := range []string{"revise", "abstain"} {
		for _, o := range t.OutputRows() {
			if o.Revision == nil || *o.Revision != want {
				continue
			}
			if len(d.Rows) == OutputsShown {
				d.More++
				continue
			}
			row := htmlOutput{ID: o.OutputID, Attempt: "—", Faithfulness: faithfulness(o), Action: deref2(o.OverallAction), Confidence: num(o.OverallConfidence),
				Coverage: num(o.EvidenceCoverage), Revision: want, Reason: deref2(o.RevisionReason), Instructions: o.Instructions,
				Flags: flagsWithSeverity(o.RiskFlags, o.RiskSeverities), Abstention: deref2(o.AbstentionMessage), NoEvidence: deref2(o.NoEvidenceResponse),
				Warnings: o.TerminationWarnings, Unsupported: o.UnsupportedClaims, Decision: deref2(o.QueryDecisionReason)}
			if o.Attempt != nil {
				row.Attempt = fmt.Sprint(*o.Attempt)
			}
			d.Rows = append(d.Rows, row)
		}
	}
	return d
}
