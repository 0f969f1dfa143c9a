package cascade

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"

	"github.com/claimaudit/claimaudit/userfile"
)

// BandVersion is the version of the band file's format.
const BandVersion = 1

// Band says which claims the second verifier decides: those whose first
// verifier's p(supported) lies strictly between Low and High. Low ≥ High
// sends none; Low < 0 and High > 1 send every claim.
type Band struct {
	Version int     `json:"version"`
	Low     float64 `json:"low"`
	High    float64 `json:"high"`
	// Passages is the m the band was fitted at: the second verifier reads
	// a claim's first m passages (0: all).
	Passages int `json:"passages"`
	// Exit, when above 0, is the evidence (the second verifier's passage
	// strength: the larger of p(supported) and p(unsupported) for most
	// models) at which its verdict on a claim's first passages, read in the
	// rounds of ExitAfter, decides the claim without the rest being read
	// (the cascade's default --cascade-exit); 0: every passage read at once.
	Exit float64 `json:"exit"`
	// ExitAfter are the passage counts after which the exit is checked,
	// ascending (the rounds the second verifier reads a claim's passages
	// in); empty: after the first passage only.
	ExitAfter []int `json:"exit_after,omitempty"`
	// Tolerance is the most balanced accuracy the cascade was allowed to
	// lose against the second verifier alone on the fit's sets.
	Tolerance float64 `json:"tolerance"`
	// First and Second name the verifiers (and their versions) the band
	// was fitted for: informative, a run warns on none of it.
	First  string `json:"first"`
	Second string `json:"second"`
	// Sets are the labelled sets the band was fitted on, and the fit's
	// figures on them.
	Sets []string `json:"sets"`
	// SentFraction is the fraction of the fit's claims the band sends to
	// the second verifier; BalancedAccuracy the cascade's and
	// SecondBalancedAccuracy the second verifier's alone (mean over Sets).
	SentFraction float64 `json:"sent_fraction"`
	// PairFraction is the fraction of the (claim, passage) pairs the second
	// verifier alone would score that the cascade sends it (mean over Sets).
	PairFraction           float64 `json:"pair_fraction"`
	BalancedAccuracy       float64 `json:"balanced_accuracy"`
	SecondBalancedAccuracy float64 `json:"second_balanced_accuracy"`
}

// Everything is the band that sends every claim to the second verifier.
var Everything = Band{Version: BandVersion, Low: -1, High: 2}

// Sends reports whether a claim whose first verifier gave p(supported)
// p goes to the second verifier.
func (b Band) Sends(p float64) bool { return p > b.Low && p < b.High }

// SendsAll says the band sends every claim whatever its p(supported)
// (Low < 0 and High > 1: "all", or a fitted exit alone): the first
// verifier's verdicts would all be replaced, so the cascade does not ask
// for them.
func (b Band) SendsAll() bool { return b.Low < 0 && b.High > 1 }

// Check validates a band read from a file.
func (b Band) Check() error {
	switch {
	case b.Version != BandVersion:
		return fmt.Errorf("version %d, want %d", b.Version, BandVersion)
	case math.IsNaN(b.Low) || math.IsNaN(b.High) || math.IsInf(b.Low, 0) || math.IsInf(b.High, 0):
		return errors.New("low and high must be finite numbers")
	case b.Passages < 0:
		return fmt.Errorf("passages %d is negative", b.Passages)
	case math.IsNaN(b.Exit) || b.Exit < 0 || b.Exit > 1:
		return fmt.Errorf("exit %g: want a probability in [0, 1] (0: every passage read)", b.Exit)
	}
	if err := checkExitAfter(b.ExitAfter); err != nil {
		return fmt.Errorf("exit_after %v: %w", b.ExitAfter, err)
	}
	return nil
}

// checkExitAfter checks the passage counts after which an exit is
// checked: positive and ascending.
func checkExitAfter(after []int) error {
	for i, n := range after {
		if n < 1 {
			return fmt.Errorf("%d is not a positive number of passages", n)
		}
		if i > 0 && n <= after[i-1] {
			return errors.New("want ascending passage counts")
		}
	}
	return nil
}

// ReadBand reads and checks a band file.
func ReadBand(path string) (Band, error) {
	raw, err := userfile.ReadFile(path, userfile.MaxSmall)
	if err != nil {
		return Band{}, fmt.Errorf("cascade band: %w", err)
	}
	var b Band
	if err := json.Unmarshal(raw, &b); err != nil {
		return Band{}, fmt.Errorf("cascade band: %s: %w", path, err)
	}
	if err := b.Check(); err != nil {
		return Band{}, fmt.Errorf("cascade band: %s: %w", path, err)
	}
	return b, nil
}

// WriteBand writes b to path atomically (aside, then renamed).
func WriteBand(path string, b Band) error {
	raw, err := json.MarshalIndent(b, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(raw, '\n'), 0o644); err != nil {
		return fmt.Errorf("write cascade band: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write cascade band: %w", err)
	}
	return nil
}
