package reports

import (
	"fmt"
	"math"

	"github.com/claimaudit/claimaudit/metrics"
)

// CheckRecord says what in a record read back would make its metrics
// meaningless: a temperature that is not a positive finite number, logits
// that are not finite, or probabilities derived from them at the record's
// temperature (or at any temperature a fit may try) that are not finite.
func CheckRecord(r Record) error {
	if !(r.Temperature > 0) || math.IsInf(r.Temperature, 0) {
		return fmt.Errorf("temperature %v is not a positive finite number", r.Temperature)
	}
	z := []*float64{r.LogitSupported, r.LogitUnsupp, r.LogitInsuff}
	set := 0
	for _, v := range z {
		if v != nil {
			set++
			if math.IsNaN(*v) || math.IsInf(*v, 0) {
				return fmt.Errorf("logit %v is not finite", *v)
			}
		}
	}
	if set == 0 {
		return nil
	}
	if set != 3 {
		return fmt.Errorf("%d of the 3 logits are set", set)
	}
	logits := [3]float64{*z[0], *z[1], *z[2]}
	// The lowest temperature a fit tries divides the logits the most.
	for _, t := range []float64{1, r.Temperature, metrics.MinTemperature} {
		for _, p := range metrics.Softmax(logits, t) {
			if math.IsNaN(p) || math.IsInf(p, 0) {
				return fmt.Errorf("logits %v give probabilities that are not finite at temperature %v", logits, t)
			}
		}
	}
	return nil
}
