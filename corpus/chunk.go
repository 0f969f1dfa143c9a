package corpus

import (
	"unicode"

	"github.com/claimaudit/claimaudit/sentence"
)

// DefaultChunkTokens is the chunk size for a verifier that states no
// window of its own (the lexical verifier reads any length): 256 tokens,
// about the size of the index's windows (three sentences, at most 1,200
// code points), so that a chunk's coverage, overlap and BM25 features are
// on the scale the verifier's weights were fitted on, and a chunk plus a
// claim fit a 512-token cross-encoder too.
const DefaultChunkTokens = 256

// ChunkOptions size the chunks a whole document is read in.
type ChunkOptions struct {
	// Tokens is the most tokens of a chunk (0: DefaultChunkTokens).
	Tokens int
	// Count counts a text's tokens as the verifier reads them (nil:
	// CountTokens). It is applied to single sentences and words, and a
	// chunk's size is the sum over its sentences.
	Count func(string) int
	// Overlap is how many sentences consecutive chunks share (0: 1; -1:
	// none), so that a fact stated across a sentence boundary is whole in
	// one chunk.
	Overlap int
}

// CountTokens counts tokens as BERT's basic tokenizer splits text before
// word pieces: each run of letters and digits, and each other character
// that is not white space.
func CountTokens(s string) int {
	n, inWord := 0, false
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			if !inWord {
				n++
			}
			inWord = true
		case unicode.IsSpace(r):
			inWord = false
		default:
			n++
			inWord = false
		}
	}
	return n
}

// Chunks splits text into overlapping, sentence-aligned chunks of at most
// o.Tokens tokens and returns their [start, end) code-point ranges in
// order. Sentences are packed greedily; the next chunk starts o.Overlap
// sentences before the previous one ended (always after its start), and a
// sentence longer than the budget is cut at white space (or, in a run
// without any, hard) into pieces that fit. Every non-space code point of
// text lies in at least one chunk: nothing is dropped.
func Chunks(text []rune, o ChunkOptions) [][2]int {
	if o.Tokens <= 0 {
		o.Tokens = DefaultChunkTokens
	}
	if o.Count == nil {
		o.Count = CountTokens
	}
	overlap := o.Overlap
	if overlap == 0 {
		overlap = 1
	}
	overlap = max(overlap, 0)
	// A token covers at least one code point, so pieces of at most
	// Tokens code points never exceed the budget whatever the counter.
	sents := chunkLong(text, withMarkers(text, sentence.Split(text)), max(16, 4*o.Tokens))
	var units [][2]int
	var sizes []int
	for _, s := range sents {
		for _, p := range fitSentence(text, s, o) {
			units = append(units, p)
			sizes = append(sizes, o.Count(string(text[p[0]:p[1]])))
		}
	}
	var out [][2]int
	for i := 0; i < len(units); {
		j, total := i, sizes[i]
		for j+1 < len(units) && total+sizes[j+1] <= o.Tokens {
			j++
			total += sizes[j]
		}
		out = append(out, [2]int{units[i][0], units[j][1]})
		if j+1 >= len(units) {
			break
		}
		i = max(i+1, j+1-overlap)
	}
	return out
}

// fitSentence cuts sentence s into pieces of at most o.Tokens tokens at
// white space: words are added while the sum of their counts fits, and a
// single word over the budget is cut every o.Tokens code points.
func fitSentence(text []rune, s [2]int, o ChunkOptions) [][2]int {
	if o.Count(string(text[s[0]:s[1]])) <= o.Tokens {
		return [][2]int{s}
	}
	var out [][2]int
	start, total := -1, 0
	flush := func(end int) {
		if start >= 0 {
			out = append(out, [2]int{start, end})
		}
		start, total = -1, 0
	}
	lastEnd := s[0]
	for i := s[0]; i < s[1]; {
		if unicode.IsSpace(text[i]) {
			i++
			continue
		}
		j := i
		for j < s[1] && !unicode.IsSpace(text[j]) {
			j++
		}
		n := o.Count(string(text[i:j]))
		if n > o.Tokens { // one word over the budget: hard cuts
			flush(lastEnd)
			for k := i; k < j; k += o.Tokens {
				out = append(out, [2]int{k, min(j, k+o.Tokens)})
			}
			lastEnd, i = j, j
			continue
		}
		if start >= 0 && total+n > o.Tokens {
			flush(lastEnd)
		}
		if start < 0 {
			start = i
		}
		total += n
		lastEnd, i = j, j
	}
	flush(lastEnd)
	return out
}
