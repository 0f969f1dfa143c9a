package corpus

import (
	"fmt"
	"unicode"

	"github.com/claimaudit/claimaudit/sentence"
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

// Or fills s's zero fields from d.
func (s PassageSettings) Or(d PassageSettings) PassageSettings {
	if s.WindowSentences == 0 {
		s.WindowSentences = d.WindowSentences
	}
	if s.WindowStride == 0 {
		s.WindowStride = d.WindowStride
	}
	if s.MaxChars == 0 {
		s.MaxChars = d.MaxChars
	}
	return s
}

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
	sents := chunkLong(text, withMarkers(text, sentence.Split(text)), s.MaxChars)
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

// withMarkers moves the start of a sentence that follows a list marker back
// to the marker, so that windows cover every non-space character.
func withMarkers(text []rune, sents [][2]int) [][2]int {
	prevEnd := 0
	for i, s := range sents {
		j := s[0]
		for j > prevEnd && text[j-1] != '\n' {
			j--
		}
		for j < s[0] && unicode.IsSpace(text[j]) {
			j++
		}
		sents[i][0] = j
		prevEnd = s[1]
	}
	return sents
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
