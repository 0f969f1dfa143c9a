package estimate

import (
	"fmt"
	"math"
	"testing"
)

// Krippendorff's own worked example (Krippendorff 2011, "Computing
// Krippendorff's alpha-reliability", nominal data, 4 coders, 12 units with
// missing values): α = 0.743.
func TestKrippendorffAlphaReference(t *testing.T) {
	units := [][]string{
		{"1", "1", "1"}, {"2", "2", "3", "2"}, {"3", "3", "3", "3"}, {"3", "3", "3", "3"},
		{"2", "2", "2", "2"}, {"1", "2", "3", "4"}, {"4", "4", "4", "4"}, {"1", "1", "2", "1"},
		{"2", "2", "2", "2"}, {"5", "5", "5"}, {"1", "1"}, {"3"},
	}
	if got := KrippendorffAlpha(units); math.Abs(got-0.743) > 0.0005 {
		t.Errorf("alpha = %.4f, want 0.743", got)
	}
	if got := KrippendorffAlpha([][]string{{"a", "a"}, {"a", "a"}}); !math.IsNaN(got) {
		t.Errorf("one category only: alpha = %v, want NaN", got)
	}
}

// scikit-learn: cohen_kappa_score(["a","a","b","b","c"], ["a","b","b","b","c"]) = 0.6875.
func TestCohenKappaReference(t *testing.T) {
	got := CohenKappa([]string{"a", "a", "b", "b", "c"}, []string{"a", "b", "b", "b", "c"})
	if math.Abs(got-0.6875) > 1e-12 {
		t.Errorf("kappa = %v, want 0.6875", got)
	}
	if got := CohenKappa(nil, nil); !math.IsNaN(got) {
		t.Errorf("no items: %v, want NaN", got)
	}
}

func ExampleKrippendorffAlpha() {
	// Two reviewers agree on three of four claims; a third reviewed one.
	units := [][]string{
		{"supported", "supported"},
		{"unsupported", "unsupported", "unsupported"},
		{"insufficient", "supported"},
		{"supported", "supported"},
	}
	fmt.Printf("%.3f\n", KrippendorffAlpha(units))
	// Output: 0.652
}
