package metrics

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
)

// Per-output verdicts: seed 002's quality gates applied to one output's
// claims (evidence coverage >= 0.85, unsupported rate <= 0.05, no critical
// claim not found, no contradiction) pass, or the output needs revising.
const (
	OutputPass   = "pass"
	OutputRevise = "revise"
)

// OutputScore is one model output's claims, judged: the row of
// outputs.parquet. An output is the claims sharing a source id (the id of
// the model output `audit extract` read them from); claims without one
// belong to no output.
type OutputScore struct {
	OutputID string
	Claims   int
	// Predicted counts answered claims by predicted label; Abstained the
	// rest.
	Predicted [3]int
	Abstained int
	// SupportedFraction is FActScore's precision: claims predicted
	// supported ÷ claims (an abstention is not supported).
	SupportedFraction float64
	AnyUnsupported    bool   // some claim was predicted unsupported
	Verdict           string // OutputPass or OutputRevise
	// Gold: the same from gold labels, over the labelled claims; Labelled
	// is how many there are. GoldSupportedFraction is NaN and GoldVerdict
	// "" when none is labelled; GoldVerdict is also "" unless every claim
	// is (a gate needs every claim).
	Labelled              int
	Gold                  [3]int
	GoldSupportedFraction float64
	GoldAnyUnsupported    bool
	GoldVerdict           string
}

// goldVerdict is seed 002's verdict a claim's gold label implies:
// supported → supported, unsupported → contradicted, insufficient → not
// found.
func goldVerdict(g Class) string {
	switch g {
	case Supported:
		return VerdictSupported
	case Unsupported:
		return VerdictContradicted
	}
	return VerdictNotFound
}

// gatesPass applies seed 002's quality gates to verdicts of claims with
// their importance.
func gatesPass(verdicts []string, importance []string) bool {
	material, covered, notFound := 0, 0, 0
	for i, v := range verdicts {
		if v == VerdictContradicted {
			return false
		}
		if importance[i] == "critical" && v == VerdictNotFound {
			return false
		}
		if importance[i] == "minor" {
			continue
		}
		material++
		switch v {
		case VerdictSupported, VerdictWeak:
			covered++
		case VerdictNotFound:
			notFound++
		}
	}
	return material == 0 || ratio(covered, material) >= 0.85 && ratio(notFound, material) <= 0.05
}

// Outputs scores every output (claims with a non-empty Source, grouped by
// it) at temperature t, sorted by output id.
func Outputs(outs []Outcome, t float64) []OutputScore {
	var scores []OutputScore
	eachOutput(outs, t, func(s *OutputScore) { scores = append(scores, *s) })
	if scores == nil {
		scores = []OutputScore{}
	}
	return scores
}

// groupBySource groups the claims by source (none for ""): names[id]
// is a source, members[start[id]:start[id+1]] its claims in order, and
// order the ids by name.
func groupBySource(outs []Outcome) (names []string, start, members, order []int32) {
	ids := map[string]int32{}
	// start: sizes, then offsets into members.
	group := make([]int32, len(outs))
	// An output's claims are mostly next to each other: the last source's
	// id is reused without a map lookup.
	last, lastID := "", int32(-1)
	for i := range outs {
		src := outs[i].Source
		if src == "" {
			group[i] = -1
			continue
		}
		if src == last {
			group[i] = lastID
			start[lastID]++
			continue
		}
		id, ok := ids[src]
		if !ok {
			id = int32(len(names))
			ids[src] = id
			names = append(names, src)
			start = append(start, 0)
		}
		group[i] = id
		start[id]++
		last, lastID = src, id
	}
	start = append(start, 0)
	total := int32(0)
	for id := range names {
		n := start[id]
		start[id] = total
		total += n
	}
	start[len(names)] = total
	members = make([]int32, total)
	next := slices.Clone(start[:len(names)])
	for i, id := range group {
		if id >= 0 {
			members[next[id]] = int32(i)
			next[id]++
		}
	}
	order = make([]int32, len(names))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return strings.Compare(names[a], names[b]) })
	return names, start, members, order
}

// eachOutput calls fn with every output's score in order of output id.
// The claims are grouped by a counting sort on an id per distinct source
// (4 bytes a claim, nothing allocated per output): a run of a million
// claims has hundreds of thousands of outputs, and the metrics group
// them once per slice.
func eachOutput(outs []Outcome, t float64, fn func(*OutputScore)) {
	names, start, members, order := groupBySource(outs)
	var verdicts, gverdicts, imp []string
	for _, id := range order {
		claims := members[start[id]:start[id+1]]
		s := OutputScore{OutputID: names[id], Claims: len(claims)}
		verdicts, gverdicts, imp = verdicts[:0], gverdicts[:0], imp[:0]
		for _, i := range claims {
			o := &outs[i]
			if o.Abstained {
				s.Abstained++
			} else {
				s.Predicted[o.Predicted]++
			}
			verdicts = append(verdicts, VerdictOf(*o, t))
			imp = append(imp, o.Importance.String())
			if o.Gold != Unknown {
				s.Labelled++
				s.Gold[o.Gold]++
				gverdicts = append(gverdicts, goldVerdict(o.Gold))
			}
		}
		s.SupportedFraction = ratio(s.Predicted[Supported], s.Claims)
		s.AnyUnsupported = s.Predicted[Unsupported] > 0
		s.Verdict = OutputRevise
		if gatesPass(verdicts, imp) {
			s.Verdict = OutputPass
		}
		s.GoldSupportedFraction = ratio(s.Gold[Supported], s.Labelled)
		s.GoldAnyUnsupported = s.Gold[Unsupported] > 0
		if s.Labelled == s.Claims {
			s.GoldVerdict = OutputRevise
			if gatesPass(gverdicts, imp) {
				s.GoldVerdict = OutputPass
			}
		}
		fn(&s)
	}
}

// OutputMetrics are the headline numbers over outputs, in Names. The first
// four are predicted, the rest from gold labels (over outputs with at
// least one labelled claim).
var OutputMetrics = []string{"outputs", "output_supported_fraction", "output_any_unsupported_rate", "output_pass_rate",
	"gold_output_supported_fraction", "gold_output_any_unsupported_rate", "gold_output_pass_rate"}

// outputCell groups outputs with equal contributions to every headline
// metric, so a resample is a multinomial draw of cell counts (exact: no
// rounding).
type outputCell struct {
	supported, claims, goldSupported, labelled int
	any, pass, goldAny                         bool
	goldPass                                   int8 // -1: no gold verdict
	n                                          int
}

// cellCounter counts outputs by cell.
type cellCounter struct {
	idx   map[outputCell]int
	cells []outputCell
}

func (c *cellCounter) add(s *OutputScore) {
	if c.idx == nil {
		c.idx = map[outputCell]int{}
	}
	k := outputCell{supported: s.Predicted[Supported], claims: s.Claims, goldSupported: s.Gold[Supported], labelled: s.Labelled,
		any: s.AnyUnsupported, pass: s.Verdict == OutputPass, goldAny: s.GoldAnyUnsupported && s.Labelled > 0, goldPass: -1}
	switch s.GoldVerdict {
	case OutputPass:
		k.goldPass = 1
	case OutputRevise:
		k.goldPass = 0
	}
	i, ok := c.idx[k]
	if !ok {
		i = len(c.cells)
		c.idx[k] = i
		c.cells = append(c.cells, k)
	}
	c.cells[i].n++
}

// sorted is the cells in a fixed order (so the resamples do not depend on
// the order outputs came in).
func (c *cellCounter) sorted() []outputCell {
	cells := c.cells
	slices.SortFunc(cells, func(a, b outputCell) int {
		for _, d := range []int{a.claims - b.claims, a.supported - b.supported, a.labelled - b.labelled, a.goldSupported - b.goldSupported,
			b2i(a.any) - b2i(b.any), b2i(a.pass) - b2i(b.pass), b2i(a.goldAny) - b2i(b.goldAny), int(a.goldPass) - int(b.goldPass)} {
			if d != 0 {
				return d
			}
		}
		return 0
	})
	return cells
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// outputValues are OutputMetrics from cells weighted by counts.
func outputValues(cells []outputCell, counts []int) []float64 {
	var n, any, pass, gn, gany, gpassN, gpass int
	var frac, gfrac float64
	for i, c := range cells {
		k := counts[i]
		if k == 0 {
			continue
		}
		n += k
		frac += float64(k) * float64(c.supported) / float64(c.claims)
		any += k * b2i(c.any)
		pass += k * b2i(c.pass)
		if c.labelled > 0 {
			gn += k
			gfrac += float64(k) * float64(c.goldSupported) / float64(c.labelled)
			gany += k * b2i(c.goldAny)
		}
		if c.goldPass >= 0 {
			gpassN += k
			gpass += k * int(c.goldPass)
		}
	}
	mean := func(sum float64, d int) float64 {
		if d == 0 {
			return math.NaN()
		}
		return sum / float64(d)
	}
	return []float64{float64(n), mean(frac, n), ratio(any, n), ratio(pass, n), mean(gfrac, gn), ratio(gany, gn), ratio(gpass, gpassN)}
}

// evaluateOutputs is OutputMetrics with percentile bootstrap intervals that
// resample outputs (clusters of claims), not claims.
func evaluateOutputs(outs []Outcome, t float64, opts BootstrapOptions) (map[string]float64, map[string]Interval) {
	var cc cellCounter
	nOutputs := 0
	eachOutput(outs, t, func(s *OutputScore) { cc.add(s); nOutputs++ })
	cells := cc.sorted()
	full := make([]int, len(cells))
	for i, c := range cells {
		full[i] = c.n
	}
	point := outputValues(cells, full)
	v := map[string]float64{}
	for i, name := range OutputMetrics {
		v[name] = point[i]
	}
	ci := map[string]Interval{}
	if nOutputs == 0 || opts.None {
		return v, ci
	}
	if opts.Resamples <= 0 {
		opts.Resamples = 1000
	}
	if opts.Level == 0 {
		opts.Level = 0.95
	}
	values := make([][]float64, len(OutputMetrics))
	counts := make([]int, len(cells))
	for b := 0; b < opts.Resamples; b++ {
		// A stream of its own, apart from the claim-level resamples.
		src := rand.NewPCG(opts.Seed, uint64(b)|1<<44)
		multinomial(len(cells), func(i int) int { return cells[i].n }, nOutputs, src, counts)
		for i, x := range outputValues(cells, counts) {
			values[i] = append(values[i], x)
		}
	}
	alpha := (1 - opts.Level) / 2
	for i, name := range OutputMetrics[1:] {
		if math.IsNaN(point[i+1]) {
			continue
		}
		x := slices.DeleteFunc(values[i+1], math.IsNaN)
		sort.Float64s(x)
		if len(x) > 0 {
			ci[name] = Interval{Low: percentileSorted(x, alpha), High: percentileSorted(x, 1-alpha)}
		}
	}
	return v, ci
}

// Wilson is the Wilson score interval of k successes in n trials at 95%
// (z = 1.96): an output's faithfulness interval over its claims. ok is
// false when n is 0 (undefined).
func Wilson(k, n int) (lo, hi float64, ok bool) {
	if n <= 0 {
		return 0, 0, false
	}
	const z = 1.959963984540054
	p, nn := float64(k)/float64(n), float64(n)
	d := 1 + z*z/nn
	c := (p + z*z/(2*nn)) / d
	h := z * math.Sqrt(p*(1-p)/nn+z*z/(4*nn*nn)) / d
	return math.Max(0, c-h), math.Min(1, c+h), true
}
