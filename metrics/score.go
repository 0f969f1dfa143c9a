package metrics

// Score is what temperature fitting and calibration read of an outcome:
// its logits, gold label, decision and cross-fitting fold, 32 bytes where
// an Outcome is 120. A run's calibrate stage holds one per claim
// (CrossFitScores, CalibrateScores) instead of a whole outcome.
type Score struct {
	Logits [3]float64
	// Fold is the claim's cross-fitting fold + 1 (FoldOf, for the seed and
	// K the fit uses) when it has gold and logits; 0 otherwise.
	Fold            int32
	Gold, Predicted Class
	Abstained       bool
	Scored          bool
}

// ScoreOf is what calibration reads of o, for cross-fitting with folds
// and seed (folds below 2: DefaultFolds, as CrossFit): o.Fold when set,
// else the fold of o.ID.
func ScoreOf(o Outcome, folds int, seed uint64) Score {
	s := Score{Logits: o.Logits, Gold: o.Gold, Predicted: o.Predicted, Abstained: o.Abstained, Scored: o.Scored}
	if o.Gold == Unknown || !o.Scored {
		return s
	}
	if o.Fold > 0 {
		s.Fold = int32(o.Fold)
	} else {
		if folds < 2 {
			folds = DefaultFolds
		}
		s.Fold = int32(FoldOf(o.ID, seed, folds) + 1)
	}
	return s
}

// ScoresOf is ScoreOf of every outcome.
func ScoresOf(outs []Outcome, folds int, seed uint64) []Score {
	s := make([]Score, len(outs))
	for i, o := range outs {
		s[i] = ScoreOf(o, folds, seed)
	}
	return s
}

// labelledScored says the score takes part in the temperature fit.
func (s *Score) labelledScored() bool { return s.Gold != Unknown && s.Scored }

// answeredScoredOf is answeredScored on scores.
func answeredScoredOf(ss []Score, t float64) []scored {
	n := 0
	for i := range ss {
		if !ss[i].Abstained && ss[i].labelledScored() {
			n++
		}
	}
	s := make([]scored, 0, n)
	for i := range ss {
		o := &ss[i]
		if o.Abstained || !o.labelledScored() {
			continue
		}
		p := Softmax(o.Logits, t)
		pred := Argmax(p)
		s = append(s, scored{probs: p, conf: p[pred], correct: pred == o.Gold, gold: o.Gold, logits: o.Logits})
	}
	return s
}

// CalibrationOfScores is Calibration on scores.
func CalibrationOfScores(ss []Score, t float64) CalibrationReport {
	return calibrationOf(answeredScoredOf(ss, t), t)
}
