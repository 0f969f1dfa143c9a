package metrics

import "testing"

func benchOutcomes(b *testing.B) []Outcome {
	b.Helper()
	outs := synthetic(1_000_000, 2.5, 99)
	b.ResetTimer()
	return outs
}

// BenchmarkAllMetrics1M is what a report needs for one stage and slice:
// every metric, the calibration tables, and 1,000 bootstrap resamples.
func BenchmarkAllMetrics1M(b *testing.B) {
	outs := benchOutcomes(b)
	for b.Loop() {
		if _, err := Evaluate(outs, 1, BootstrapOptions{Resamples: 1000, Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPointMetrics1M is every metric without intervals.
func BenchmarkPointMetrics1M(b *testing.B) {
	outs := benchOutcomes(b)
	for b.Loop() {
		pointValues(outs, 1, Count(outs))
	}
}

func BenchmarkCrossFit1M(b *testing.B) {
	outs := benchOutcomes(b)
	for b.Loop() {
		CrossFit(outs, CrossFitOptions{Seed: 1})
	}
}

func BenchmarkBootstrap1M(b *testing.B) {
	outs := benchOutcomes(b)
	for b.Loop() {
		if _, err := Bootstrap(outs, 1, BootstrapOptions{Resamples: 1000, Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFitTemperature1M(b *testing.B) {
	outs := benchOutcomes(b)
	for b.Loop() {
		FitTemperature(outs)
	}
}
