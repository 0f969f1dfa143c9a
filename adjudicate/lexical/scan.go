package lexical

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Hand-written scanners for the feature patterns. They replaced regular
// expressions that were ~10 s of a 100k-claim run's 100 s; the
// expressions are kept in features_oracle_test.go, and scan_test.go
// asserts that both find the same on generated text, the real sets and a
// fuzz target. Each function says which expression it stands for.

// runeAt decodes the rune at byte i as regexp does: an invalid byte is
// U+FFFD of width 1.
func runeAt(s string, i int) (rune, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

// isLetterOrNumber is [\p{L}\p{N}].
func isLetterOrNumber(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsNumber(r)
}

func isLetter(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z'
	}
	return unicode.IsLetter(r)
}

// nextWord returns the bytes [start, end) of the first word at or after
// byte i, or start < 0 when there is none: the leftmost-first match of
// `[\p{L}\p{N}]+(?:['’][\p{L}]+)?`. The run of letters and digits is
// greedy and the apostrophe part is taken when a letter follows it; the
// parts cannot overlap, so there is no backtracking to mirror.
func nextWord(s string, i int) (start, end int) {
	for i < len(s) {
		r, n := runeAt(s, i)
		if !isLetterOrNumber(r) {
			i += n
			continue
		}
		start = i
		for i += n; i < len(s); i += n {
			if r, n = runeAt(s, i); !isLetterOrNumber(r) {
				break
			}
		}
		if i < len(s) {
			if r, n = runeAt(s, i); r == '\'' || r == '’' {
				j := i + n
				for j < len(s) {
					r, m := runeAt(s, j)
					if !isLetter(r) {
						break
					}
					j += m
				}
				if j > i+n {
					i = j
				}
			}
		}
		return start, i
	}
	return -1, -1
}

// isWordByte is RE2's \w, which \b is defined by: ASCII only, so every
// byte of a multi-byte rune is a non-word byte.
func isWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}

// boundary is \b at byte i of s.
func boundary(s string, i int) bool {
	before := i > 0 && isWordByte(s[i-1])
	after := i < len(s) && isWordByte(s[i])
	return before != after
}

// eachYear calls fn with each year of s, in order: the matches of
// `\b(1[0-9]{3}|20[0-9]{2})\b`. Both alternatives are four digits, so a
// match is four digits with a boundary either side; one cannot start
// inside another (a digit precedes it).
func eachYear(s string, fn func(year int)) {
	for i := 0; i+4 <= len(s); i++ {
		c := s[i]
		if c != '1' && c != '2' || !boundary(s, i) || !boundary(s, i+4) {
			continue
		}
		d1, d2, d3 := s[i+1], s[i+2], s[i+3]
		if !isDigit(d1) || !isDigit(d2) || !isDigit(d3) || c == '2' && d1 != '0' {
			continue
		}
		fn(int(c-'0')*1000 + int(d1-'0')*100 + int(d2-'0')*10 + int(d3-'0'))
		i += 3
	}
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// cueWords is a case-insensitive list of words or phrases with a word
// boundary either side: `(?i)\b(w1|w2|...)\b`, for MatchString only (so
// any match will do, whichever alternative leftmost-first would take).
// (?i) folds as RE2 does, with unicode.SimpleFold: besides ASCII case,
// the Kelvin sign K matches k and the long s ſ matches s. \b stays ASCII:
// before a K or ſ there is a boundary only after a word byte.
type cueWords struct {
	byFirst [26][]string // lower-case words by their first letter
}

func newCueWords(words ...string) *cueWords {
	c := &cueWords{}
	for _, w := range words {
		c.byFirst[w[0]-'a'] = append(c.byFirst[w[0]-'a'], w)
	}
	return c
}

const (
	kelvin = "\u212A" // K, folds to k
	longS  = "\u017F" // ſ, folds to s
)

// foldedLetter returns the ASCII lower-case letter the rune at byte i
// folds to, and its width; 0 when it folds to none.
func foldedLetter(s string, i int) (byte, int) {
	switch c := s[i]; {
	case 'a' <= c && c <= 'z':
		return c, 1
	case 'A' <= c && c <= 'Z':
		return c + 'a' - 'A', 1
	case c == kelvin[0] && strings.HasPrefix(s[i:], kelvin):
		return 'k', len(kelvin)
	case c == longS[0] && strings.HasPrefix(s[i:], longS):
		return 's', len(longS)
	}
	return 0, 1
}

// match reports whether s holds one of the words. The bytes scanned one
// by one are the positions regexp tries: a K, ſ or ASCII byte is never
// inside another rune, valid or not.
func (c *cueWords) match(s string) bool {
	for i := 0; i < len(s); i++ {
		f, _ := foldedLetter(s, i)
		if f == 0 || !boundary(s, i) {
			continue
		}
		for _, w := range c.byFirst[f-'a'] {
			if end := matchFolded(s, i, w); end >= 0 && boundary(s, end) {
				return true
			}
		}
	}
	return false
}

// matchFolded returns the end of w matched at byte i of s, letters
// case-folded and other bytes exact, or -1.
func matchFolded(s string, i int, w string) int {
	for k := 0; k < len(w); k++ {
		if i >= len(s) {
			return -1
		}
		if p := w[k]; 'a' <= p && p <= 'z' {
			f, n := foldedLetter(s, i)
			if f != p {
				return -1
			}
			i += n
			continue
		}
		if s[i] != w[k] {
			return -1
		}
		i++
	}
	return i
}

// The cue words of the features (their expressions: features_oracle_test.go).
var (
	hedgeWords     = newCueWords("may", "might", "could", "possibly", "perhaps", "probably", "likely", "reportedly", "allegedly", "it is possible")
	qualifierWords = newCueWords("about", "around", "approximately", "roughly", "nearly", "almost", "between", "some")
	absoluteWords  = newCueWords("only", "never", "always", "all", "every", "entirely", "solely", "exclusively", "first", "last", "sole", "none", "nobody", "nothing", "completely", "totally")
	negationWords  = newCueWords("not", "no", "never", "none", "neither", "nor", "cannot", "without", "isn't", "aren't", "wasn't", "weren't", "doesn't", "don't", "didn't", "can't", "won't", "need not")
)
