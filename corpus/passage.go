package corpus

import (
	"fmt"
	"strings"
	"unicode"
)

// Passage is the unit of retrieval: either an evidence span (ID = span id)
// or a window of consecutive sentences of a document (ID = doc id + "#w" + n).
// Offsets are code points into the document text, half-open.
type Passage struct {
	ID     string `json:"passage_id"`
	DocID  string `json:"doc_id"`
	SpanID string `json:"span_id,omitempty"`
	Start  int    `json:"start"`
	End    int    `json:"end"`
	Text   string `json:"text"`
}

// Kind is "span" or "window".
func (p Passage) Kind() string {
	if p.SpanID != "" {
		return "span"
	}
	return "window"
}

// PassageSettings shape the sentence windows. They are part of the index
// manifest: changing them rebuilds the index.
type PassageSettings struct {
	WindowSentences int `json:"window_sentences"` // sentences per window
	WindowStride    int `json:"window_stride"`    // sentences between window starts
	MaxChars        int `json:"max_chars"`        // longest window, in code points
}

// DefaultPassageSettings: windows of three sentences overlapping by one, so a
// fact stated across a sentence boundary is still inside one passage.
var DefaultPassageSettings = PassageSettings{WindowSentences: 3, WindowStride: 2, MaxChars: 1200}

// Validate reports settings that cannot produce covering windows.
func (s PassageSettings) Validate() error {
	switch {
	case s.WindowSentences < 1:
		return fmt.Errorf("window sentences must be >= 1, got %d", s.WindowSentences)
	case s.WindowStride < 1 || s.WindowStride > s.WindowSentences:
		return fmt.Errorf("window stride must be between 1 and the window size %d, got %d", s.WindowSentences, s.WindowStride)
	case s.MaxChars < 16:
		return fmt.Errorf("max passage chars must be >= 16, got %d", s.MaxChars)
	}
	return nil
}

// Passages returns every passage of the corpus: all spans, then for each
// document the sentence windows that cover all of its non-space text. A
// window with exactly the range of a span of the same document is left out:
// it would only duplicate that span in the results.
func (c *Corpus) Passages(s PassageSettings, yield func(Passage) error) error {
	spanRanges := make(map[string]map[[2]int]bool)
	for _, sp := range c.Spans {
		d, _ := c.Doc(sp.DocID)
		if err := yield(Passage{ID: sp.SpanID, DocID: sp.DocID, SpanID: sp.SpanID, Start: sp.Start, End: sp.End, Text: Slice(d.Text, sp.Start, sp.End)}); err != nil {
			return err
		}
		if spanRanges[sp.DocID] == nil {
			spanRanges[sp.DocID] = map[[2]int]bool{}
		}
		spanRanges[sp.DocID][[2]int{sp.Start, sp.End}] = true
	}
	for i := range c.Docs {
		d := &c.Docs[i]
		runes := []rune(d.Text)
		for n, w := range Windows(runes, s) {
			if spanRanges[d.DocID][w] {
				continue
			}
			p := Passage{ID: fmt.Sprintf("%s#w%d", d.DocID, n), DocID: d.DocID, Start: w[0], End: w[1], Text: string(runes[w[0]:w[1]])}
			if err := yield(p); err != nil {
				return err
			}
		}
	}
	return nil
}

// Windows groups the sentences of text into overlapping windows and returns
// their [start, end) code-point ranges. Every non-space code point lies in at
// least one window; no window is longer than s.MaxChars.
func Windows(text []rune, s PassageSettings) [][2]int {
	sents := chunkLong(text, Sentences(text), s.MaxChars)
	var out [][2]int
	for i := 0; i < len(sents); {
		j := i
		end := sents[i][1]
		for j+1 < len(sents) && j+1 < i+s.WindowSentences && sents[j+1][1]-sents[i][0] <= s.MaxChars {
			j++
			end = sents[j][1]
		}
		out = append(out, [2]int{sents[i][0], end})
		if j+1 >= len(sents) {
			break
		}
		next := i + s.WindowStride
		if next > j { // a window cut short by MaxChars: resume right after it
			next = j + 1
		}
		i = next
	}
	return out
}

// Sentences splits text into sentence ranges [start, end) in code points,
// trimmed of surrounding white space. Boundaries are line breaks and
// sentence-final punctuation followed by white space and an upper-case
// letter, digit, quote or bracket — except after common abbreviations
// ("Dr.", "e.g.", "U.S.") and single-letter initials.
func Sentences(text []rune) [][2]int {
	var out [][2]int
	start := 0
	emit := func(end int) {
		s, e := start, end
		for s < e && unicode.IsSpace(text[s]) {
			s++
		}
		for e > s && unicode.IsSpace(text[e-1]) {
			e--
		}
		if s < e {
			out = append(out, [2]int{s, e})
		}
		start = end
	}
	for i := 0; i < len(text); i++ {
		r := text[i]
		if r == '\n' {
			emit(i + 1)
			continue
		}
		if r != '.' && r != '!' && r != '?' {
			continue
		}
		j := i + 1
		for j < len(text) && strings.ContainsRune("\"')]”’»", text[j]) {
			j++
		}
		if j >= len(text) || !unicode.IsSpace(text[j]) {
			continue // "5.7", "U.S.A", end of text
		}
		k := j
		for k < len(text) && unicode.IsSpace(text[k]) && text[k] != '\n' {
			k++
		}
		if k < len(text) && text[k] != '\n' {
			next := text[k]
			if !(unicode.IsUpper(next) || unicode.IsDigit(next) || strings.ContainsRune("\"'([“‘«", next)) {
				continue
			}
		}
		if r == '.' && isAbbreviation(text[start:i]) {
			continue
		}
		emit(j)
		i = j - 1
	}
	emit(len(text))
	return out
}

var abbreviations = map[string]bool{
	"mr": true, "mrs": true, "ms": true, "dr": true, "prof": true, "sr": true, "jr": true, "st": true,
	"vs": true, "etc": true, "e.g": true, "i.e": true, "cf": true, "al": true, "inc": true, "ltd": true,
	"co": true, "corp": true, "no": true, "nos": true, "fig": true, "approx": true, "est": true,
	"jan": true, "feb": true, "mar": true, "apr": true, "jun": true, "jul": true, "aug": true,
	"sep": true, "sept": true, "oct": true, "nov": true, "dec": true, "gen": true, "gov": true,
	"sen": true, "rep": true, "mt": true, "ft": true, "u.s": true, "u.k": true, "u.n": true,
	"a.m": true, "p.m": true, "ph.d": true, "vol": true, "pp": true,
}

// isAbbreviation reports whether the word just before a period is an
// abbreviation or an initial ("J." in "J. Smith").
func isAbbreviation(before []rune) bool {
	w := len(before)
	for w > 0 && !unicode.IsSpace(before[w-1]) && before[w-1] != '(' {
		w--
	}
	orig := before[w:]
	if len(orig) == 0 {
		return false
	}
	if len(orig) == 1 && unicode.IsUpper(orig[0]) {
		return true
	}
	word := strings.ToLower(string(orig))
	if abbreviations[word] {
		return true
	}
	// Dotted acronyms such as "U.S.A" or "e.g".
	return strings.Contains(word, ".") && !strings.ContainsFunc(word, unicode.IsDigit)
}

// chunkLong splits sentences longer than max code points at white space (or
// hard, when a run has none) so that every window fits the limit.
func chunkLong(text []rune, sents [][2]int, max int) [][2]int {
	var out [][2]int
	for _, s := range sents {
		for s[1]-s[0] > max {
			cut := s[0] + max
			for c := cut; c > s[0]+max/2; c-- {
				if unicode.IsSpace(text[c]) {
					cut = c
					break
				}
			}
			out = append(out, [2]int{s[0], cut})
			next := cut
			for next < s[1] && unicode.IsSpace(text[next]) {
				next++
			}
			s[0] = next
		}
		if s[0] < s[1] {
			out = append(out, s)
		}
	}
	return out
}
