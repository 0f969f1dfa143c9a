package metrics

import (
	"math"
	"testing"
)

func TestWilson(t *testing.T) {
	for _, c := range []struct {
		k, n   int
		lo, hi float64
	}{{5, 10, 0.2366, 0.7634}, {0, 4, 0, 0.4899}, {4, 4, 0.5101, 1}, {1, 1, 0.2065, 1}} {
		lo, hi, ok := Wilson(c.k, c.n)
		if !ok || math.Abs(lo-c.lo) > 1e-4 || math.Abs(hi-c.hi) > 1e-4 {
			t.Errorf("Wilson(%d, %d) = [%.4f, %.4f], want [%.4f, %.4f]", c.k, c.n, lo, hi, c.lo, c.hi)
		}
	}
	if _, _, ok := Wilson(0, 0); ok {
		t.Error("Wilson(0, 0) is defined")
	}
}
