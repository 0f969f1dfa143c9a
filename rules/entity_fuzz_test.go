package rules

import (
	"testing"
	"unicode/utf8"
)

// FuzzNames: any text reads without a panic, and every name it gives is
// one the text mentions as a whole name (the two readings agree).
func FuzzNames(f *testing.F) {
	for _, s := range []string{
		"Linarlin Medical Centre has 1,630 beds.", "In 2023, nitrate levels in Kadan Kalo Lake averaged 33.8 mg/L.",
		"Tesbrihal Institute of Technology enrolled 16,600 students.", "O'Neil-Smith met São Paulo's mayor. Zürich!",
		"of Of OF the The", "", "A. B. C.", "International students at Vesu College",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		ws := wordsOfText(s)
		for _, n := range names(s) {
			if !mentions(ws, n) {
				t.Fatalf("names(%q) gives %q, which mentions does not find", s, n)
			}
		}
	})
}
