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

// TestSplitHardCases: abbreviations that end sentences and ones that do not.
func TestSplitHardCases(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		// The extraction failure this guards: a question after "U.S." was
		// merged into the sentence before it.
		{"The film earned $60 million in the U.S. Is it any good?", []string{"The film earned $60 million in the U.S.", "Is it any good?"}},
		{"I work for the U.S. Government in Virginia.", []string{"I work for the U.S. Government in Virginia."}},
		{"The U.S. economy grew. It slowed later.", []string{"The U.S. economy grew.", "It slowed later."}},
		{"Sales rose in the U.K. The U.S. lagged.", []string{"Sales rose in the U.K.", "The U.S. lagged."}},
		{"Fruit, e.g. Apples, sells well.", []string{"Fruit, e.g. Apples, sells well."}},
		{"Dr. Smith arrived. Dr. Jones left.", []string{"Dr. Smith arrived.", "Dr. Jones left."}},
		{"It is listed as No. 5 in the ranking.", []string{"It is listed as No. 5 in the ranking."}},
		{"Track No. 12 was a hit. It charted.", []string{"Track No. 12 was a hit.", "It charted."}},
		{"See p. 55 for details.", []string{"See p. 55 for details."}},
		{"It was founded by Smith and Co. They sold it in 1990.", []string{"It was founded by Smith and Co.", "They sold it in 1990."}},
		{"Apple Inc. The company grew.", []string{"Apple Inc.", "The company grew."}},
		{"Apple Inc. Reported record sales.", []string{"Apple Inc. Reported record sales."}},
		{"Mail Jane.Doe@example.com. She replies.", []string{"Mail Jane.Doe@example.com.", "She replies."}},
		{"It ended.... Then it began.", []string{"It ended....", "Then it began."}},
		{"It was . . . I forget.", []string{"It was . . . I forget."}},
		{"The show starts at 8 p.m. It ends at ten.", []string{"The show starts at 8 p.m.", "It ends at ten."}},
		{"We met, you and I. Did you see Albert I. Jones?", []string{"We met, you and I.", "Did you see Albert I. Jones?"}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, sentenceTexts(tt.in), "%q", tt.in)
	}
}
