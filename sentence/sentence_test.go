package sentence

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func sentenceTexts(s string) []string {
	r := []rune(s)
	var out []string
	for _, sp := range Split(r) {
		out = append(out, string(r[sp[0]:sp[1]]))
	}
	return out
}

func TestSplit(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"One. Two! Three?", []string{"One.", "Two!", "Three?"}},
		{"Revenue grew 5.7 percent. Costs fell.", []string{"Revenue grew 5.7 percent.", "Costs fell."}},
		{"Dr. Patel approved it. The U.S. agreed.", []string{"Dr. Patel approved it.", "The U.S. agreed."}},
		{"Fruit, e.g. apples, sells well. Next.", []string{"Fruit, e.g. apples, sells well.", "Next."}},
		{"J. R. R. Tolkien wrote it. Then more.", []string{"J. R. R. Tolkien wrote it.", "Then more."}},
		{"He said \"stop.\" Then left.", []string{"He said \"stop.\"", "Then left."}},
		{"lower case after. stays together", []string{"lower case after. stays together"}},
		{"Line one\nLine two", []string{"Line one", "Line two"}},
		{"  padded.   ", []string{"padded."}},
		{"In 2021. 2022 was better.", []string{"In 2021.", "2022 was better."}},
		{"", nil},
		{"1. Paris is in France.\n2) Berlin is in Germany.", []string{"Paris is in France.", "Berlin is in Germany."}},
		{"Facts:\n - Rome is old.\n * Oslo is cold.\n• Lima is far.", []string{"Facts:", "Rome is old.", "Oslo is cold.", "Lima is far."}},
		{"a) first item\nb) second item", []string{"first item", "second item"}},
		{"2021. It rained.", []string{"2021.", "It rained."}},
		{"- ", []string{"-"}},
		{"a) \nb) x", []string{"a)", "x"}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, sentenceTexts(tt.in), "%q", tt.in)
	}
}

func FuzzSplit(f *testing.F) {
	f.Add("1. One. Two!\n- Dr. Who? e.g. x")
	f.Fuzz(func(t *testing.T, s string) {
		r := []rune(s)
		last := 0
		for _, sp := range Split(r) {
			if sp[0] < last || sp[0] >= sp[1] || sp[1] > len(r) {
				t.Fatalf("bad range %v after %d in %q", sp, last, s)
			}
			last = sp[1]
		}
	})
}
