package metrics

// TemperaturePoint is one row of a temperature sweep.
type TemperaturePoint struct {
	Temperature float64
	ECE10       float64
	NLL         float64
}

// SweepTemperature measures ECE (10 bins) and NLL at each temperature.
func SweepTemperature(outs []Outcome, temps []float64) []TemperaturePoint {
	pts := make([]TemperaturePoint, len(temps))
	for i, t := range temps {
		s := answeredScored(outs, t)
		pts[i] = TemperaturePoint{Temperature: t, ECE10: ECEOf(ReliabilityWidth(s, 10)), NLL: NLL(s, t)}
	}
	return pts
}

// DefaultTemperatureGrid spans 0.25 to 4 geometrically (a factor of 2^(1/4)).
func DefaultTemperatureGrid() []float64 { return TemperatureGrid(0.25, 4) }

// TemperatureGrid spans lo to hi geometrically, 2^(1/4) apart.
func TemperatureGrid(lo, hi float64) []float64 {
	var g []float64
	for t := lo; t <= hi*1.0001; t *= 1.189207115002721 {
		g = append(g, t)
	}
	return g
}

// ThresholdPoint is one row of an abstain-threshold sweep.
type ThresholdPoint struct {
	Threshold            float64
	Coverage             float64
	SelectiveRisk        float64
	Tier1FAConditional   float64
	Tier1FAUnconditional float64
	Tier2FAConditional   float64
	Tier2FAUnconditional float64
}

// SweepAbstain re-decides each threshold τ: a claim is answered when it was
// answered and its confidence at temperature t is at least τ.
func SweepAbstain(outs []Outcome, t float64, thresholds []float64) []ThresholdPoint {
	pts := make([]ThresholdPoint, len(thresholds))
	work := make([]Outcome, len(outs))
	conf := make([]float64, len(outs))
	for i, o := range outs {
		if o.Scored {
			p := Softmax(o.Logits, t)
			conf[i] = p[Argmax(p)]
		}
	}
	for j, tau := range thresholds {
		for i, o := range outs {
			work[i] = o
			if !o.Abstained && conf[i] < tau {
				work[i].Abstained = true
			}
		}
		c := Count(work)
		pts[j] = ThresholdPoint{
			Threshold: tau, Coverage: c.Coverage(), SelectiveRisk: c.SelectiveRisk(),
			Tier1FAConditional: c.Tier1FAConditional(), Tier1FAUnconditional: c.Tier1FAUnconditional(),
			Tier2FAConditional: c.Tier2FAConditional(), Tier2FAUnconditional: c.Tier2FAUnconditional(),
		}
	}
	return pts
}

// DefaultThresholdGrid is 0.34 (barely above chance for three classes) to
// 0.99 by 0.01, plus 0 (never abstain on confidence).
func DefaultThresholdGrid() []float64 {
	g := []float64{0}
	for k := 34; k <= 99; k++ {
		g = append(g, float64(k)/100)
	}
	return g
}
