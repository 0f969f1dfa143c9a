package reports

import (
	"math"

	"github.com/claimaudit/claimaudit/metrics"
)

// CalibrationFit is calibration_fit.json, written by `audit calibrate`: the
// cross-fitted temperature of a run's labelled claims and calibration
// before and after it, the "after" numbers out of sample.
type CalibrationFit struct {
	RunID            string            `json:"run_id"`
	Fitted           bool              `json:"fitted"`
	Reason           string            `json:"reason,omitempty"` // why no temperature was fitted
	Labelled         int               `json:"labelled"`
	MinLabelled      int               `json:"min_labelled"`
	Folds            int               `json:"folds"`
	Seed             uint64            `json:"seed"`
	FoldTemperatures []metrics.FoldFit `json:"fold_temperatures"`
	FullTemperature  *float64          `json:"full_temperature"`
	FullAtBound      bool              `json:"full_at_bound"`
	ECE10Before      *float64          `json:"ece_10_before"`
	NLLBefore        *float64          `json:"nll_before"`
	BrierBefore      *float64          `json:"brier_before"`
	ECE10After       *float64          `json:"ece_10_after,omitempty"`
	NLLAfter         *float64          `json:"nll_after,omitempty"`
	BrierAfter       *float64          `json:"brier_after,omitempty"`
	// WouldApply says whether `audit run --calibrate auto` would apply
	// the fit at the given ECE threshold.
	WouldApply bool `json:"would_apply_at_threshold"`

	// Before and After are the full reports behind the numbers.
	Before, After metrics.CalibrationReport `json:"-"`
}

// FitCalibration cross-fits a temperature to outcomes (as `audit run`
// does, so the "after" numbers equal the run's calibrated ones when it
// applied the fit).
func FitCalibration(runID string, outs []metrics.Outcome, opts metrics.CrossFitOptions, threshold float64) (CalibrationFit, metrics.CrossFitResult) {
	cf := metrics.CrossFit(outs, opts)
	f := CalibrationFit{RunID: runID, Fitted: cf.Fitted, Labelled: cf.Labelled, MinLabelled: cf.Min, Folds: cf.K,
		Seed: cf.Seed, FoldTemperatures: cf.Folds, FullAtBound: cf.FullAtBound,
		Before: metrics.Calibration(outs, 1), After: metrics.Calibration(metrics.Scaled(outs, cf.PerOutcome), 1)}
	f.ECE10Before, f.NLLBefore, f.BrierBefore = fp(f.Before.ECE10), fp(f.Before.NLL), fp(f.Before.Brier)
	f.WouldApply = cf.Fitted && f.Before.ECE10 > threshold
	if f.FoldTemperatures == nil {
		f.FoldTemperatures = []metrics.FoldFit{}
	}
	if cf.Fitted {
		f.FullTemperature = fp(cf.Full)
		f.ECE10After, f.NLLAfter, f.BrierAfter = fp(f.After.ECE10), fp(f.After.NLL), fp(f.After.Brier)
	} else {
		f.Reason = cf.Reason
	}
	return f, cf
}

// Nullable is v, or nil when it is NaN or infinite.
func Nullable(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}
