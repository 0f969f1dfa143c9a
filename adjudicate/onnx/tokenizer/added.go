package tokenizer

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

type addedTokenJSON struct {
	ID         int64  `json:"id"`
	Content    string `json:"content"`
	SingleWord bool   `json:"single_word"`
	LStrip     bool   `json:"lstrip"`
	RStrip     bool   `json:"rstrip"`
	Normalized bool   `json:"normalized"`
	Special    bool   `json:"special"`
}

// addedVocab finds added tokens in text before the model sees it, as
// tokenizers' AddedVocabulary does: tokens with normalized=false in the raw
// text, the others in the normalised text, leftmost-longest.
type addedVocab struct {
	ids        map[string]int64
	raw, normd matcher
}

type matcher struct {
	byFirst map[byte][]addedTokenJSON // longest first
}

type segment struct {
	text string
	off  int
	id   int64 // -1: text for the model
}

func newAddedVocab(tokens []addedTokenJSON, n normalizer) (*addedVocab, error) {
	a := &addedVocab{ids: map[string]int64{}}
	a.raw.byFirst, a.normd.byFirst = map[byte][]addedTokenJSON{}, map[byte][]addedTokenJSON{}
	for _, t := range tokens {
		a.ids[t.Content] = t.ID
		if t.Content == "" {
			continue
		}
		m := &a.raw
		if t.Normalized {
			if n != nil {
				t.Content = n.normalize(t.Content)
				if t.Content == "" {
					continue
				}
			}
			m = &a.normd
		}
		m.byFirst[t.Content[0]] = append(m.byFirst[t.Content[0]], t)
	}
	for _, m := range []*matcher{&a.raw, &a.normd} {
		for k, l := range m.byFirst {
			sort.SliceStable(l, func(i, j int) bool { return len(l[i].Content) > len(l[j].Content) })
			m.byFirst[k] = l
		}
	}
	return a, nil
}

func (a *addedVocab) split(s string) []segment           { return a.raw.split(s) }
func (a *addedVocab) splitNormalized(s string) []segment { return a.normd.split(s) }

func isWordChar(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Other_Alphabetic, r)
}

func (m *matcher) split(s string) []segment {
	if len(m.byFirst) == 0 {
		return []segment{{text: s, id: -1}}
	}
	var out []segment
	startOff := 0
	for i := 0; i < len(s); {
		var hit *addedTokenJSON
		for k, t := range m.byFirst[s[i]] {
			if strings.HasPrefix(s[i:], t.Content) {
				hit = &m.byFirst[s[i]][k]
				break
			}
		}
		if hit == nil {
			i++
			continue
		}
		start, stop := i, i+len(hit.Content)
		if hit.SingleWord {
			before, _ := utf8.DecodeLastRuneInString(s[:start])
			after, _ := utf8.DecodeRuneInString(s[stop:])
			if (start > 0 && isWordChar(before)) || (stop < len(s) && isWordChar(after)) {
				i++
				continue
			}
		}
		if hit.LStrip {
			start = max(len(strings.TrimRightFunc(s[:start], unicode.IsSpace)), startOff)
		}
		if hit.RStrip {
			stop = len(s) - len(strings.TrimLeftFunc(s[stop:], unicode.IsSpace))
		}
		if startOff < start {
			out = append(out, segment{text: s[startOff:start], off: startOff, id: -1})
		}
		out = append(out, segment{off: start, id: hit.ID})
		startOff, i = stop, stop
	}
	if startOff < len(s) || len(out) == 0 {
		out = append(out, segment{text: s[startOff:], off: startOff, id: -1})
	}
	return out
}
