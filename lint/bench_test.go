package lint

import "testing"

func BenchmarkVerifyNumeric(b *testing.B) {
	facts := FactsFromText("p", "Meridian Rail carried 48.2 million passengers in 2023, up 6% from 2022. Punctuality reached 91.4% on regional lines. The company operated 412 trains and employed 5,700 staff.")
	for b.Loop() {
		VerifyNumeric("Meridian Rail carried 48 million passengers in 2023.", facts, MatchOptions{})
	}
}
