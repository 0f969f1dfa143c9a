package metrics

import (
	"cmp"
	"math"
)

// RCPoint is one point of the risk–coverage curve: accepting every answered
// labelled claim with confidence >= Threshold gives Coverage (share of
// them accepted) and Risk (errors ÷ accepted).
type RCPoint struct {
	Threshold float64
	Coverage  float64
	Risk      float64
}

// RiskCoverage sorts answered, labelled claims by confidence (highest
// first); claims with equal confidence enter together, so the curve has one
// point per distinct confidence.
func RiskCoverage(outs []Outcome, t float64) []RCPoint {
	s := answeredScored(outs, t)
	return riskCoverage(s)
}

// riskCoverage is the curve of s (left in its order): confidences
// highest first, ties entering together. The right and the wrong
// answers' confidences are sorted apart (a plain float sort) and walked
// together from the top, a group of equal confidence at a time.
func riskCoverage(s []scored) []RCPoint {
	nw := 0
	for i := range s {
		if !s[i].correct {
			nw++
		}
	}
	right, wrong := make([]float64, 0, len(s)-nw), make([]float64, 0, nw)
	for i := range s {
		if s[i].correct {
			right = append(right, s[i].conf)
		} else {
			wrong = append(wrong, s[i].conf)
		}
	}
	sortFloats(right)
	sortFloats(wrong)
	var pts []RCPoint
	errs, j := 0, 0
	for r, w := len(right)-1, len(wrong)-1; r >= 0 || w >= 0; {
		// The group's confidence: the higher of the next right and wrong.
		var x float64
		switch {
		case r < 0:
			x = wrong[w]
		case w < 0 || cmp.Less(wrong[w], right[r]):
			x = right[r]
		default:
			x = wrong[w]
		}
		for ; r >= 0 && cmp.Compare(right[r], x) == 0; r-- {
			j++
		}
		for ; w >= 0 && cmp.Compare(wrong[w], x) == 0; w-- {
			j++
			errs++
		}
		pts = append(pts, RCPoint{Threshold: x, Coverage: float64(j) / float64(len(s)), Risk: float64(errs) / float64(j)})
	}
	return pts
}

// CurvePoints bounds the points a risk–coverage curve keeps for its table
// and plot (ThinCurve): one per 1/CurvePoints of coverage, so the stored
// curve does not grow with the claims. AURC is computed from every point.
const CurvePoints = 1000

// ThinCurve keeps, of a risk–coverage curve, its last point and the first
// point in each 1/n of coverage: at most n+2 points, each an exact point of
// the curve (nothing is interpolated). A curve of at most n+2 points (a
// run of fewer claims) is kept whole.
func ThinCurve(pts []RCPoint, n int) []RCPoint {
	if len(pts) <= n+2 {
		return pts
	}
	out := make([]RCPoint, 0, n+2)
	last := -1
	for i, p := range pts {
		if b := CurveBucket(p.Coverage, n); b > last || i == len(pts)-1 {
			out = append(out, p)
			last = b
		}
	}
	return out
}

// CurveBucket is the 1/n share of coverage a point falls in (0 to n).
func CurveBucket(coverage float64, n int) int {
	return int(math.Floor(coverage*float64(n) + 1e-9))
}

// AURC is the area under the risk–coverage curve: the mean over claims of
// the risk at the point where each claim enters (claims tied in confidence
// share their group's risk); NaN for no claims.
func AURC(pts []RCPoint, n int) float64 {
	if n == 0 {
		return math.NaN()
	}
	sum, prev := 0.0, 0.0
	for _, p := range pts {
		sum += (p.Coverage - prev) * p.Risk
		prev = p.Coverage
	}
	return sum
}

// OracleAURC is the AURC of the best possible ordering of n claims with e
// errors: every correct claim first; NaN for no claims.
func OracleAURC(n, e int) float64 {
	if n == 0 {
		return math.NaN()
	}
	sum := 0.0
	c := n - e
	for i := c + 1; i <= n; i++ {
		sum += float64(i-c) / float64(i)
	}
	return sum / float64(n)
}

// RiskCoverageOf is the risk–coverage curve of confidences against
// correctness, for callers that have no logits.
func RiskCoverageOf(conf []float64, correct []bool) []RCPoint {
	return riskCoverage(fromConfidences(conf, correct))
}

// riskCoverageRanked is riskCoverage given rankByConf(s): the ranks
// walked from the top, a group of equal confidence at a time.
func riskCoverageRanked(s []scored, rank []ranked) []RCPoint {
	var pts []RCPoint
	errs, j := 0, 0
	for r := len(rank) - 1; r >= 0; {
		x := rank[r].conf
		for ; r >= 0 && cmp.Compare(rank[r].conf, x) == 0; r-- {
			j++
			if !s[rank[r].i].correct {
				errs++
			}
		}
		pts = append(pts, RCPoint{Threshold: x, Coverage: float64(j) / float64(len(s)), Risk: float64(errs) / float64(j)})
	}
	return pts
}
