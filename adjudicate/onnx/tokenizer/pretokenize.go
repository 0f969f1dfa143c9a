package tokenizer

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// piece is a pre-token: its text, and its offset in the normalised
// sequence (Metaspace's "first" scheme needs to know which piece starts it).
type piece struct {
	s   string
	off int
}

type preTokenizer interface {
	split(in []piece) []piece
}

type preSeq []preTokenizer

func (q preSeq) split(in []piece) []piece {
	for _, p := range q {
		in = p.split(in)
	}
	return in
}

// span is a stretch of a piece, matched by a split pattern or not.
type span struct {
	lo, hi int
	match  bool
}

type behavior int

const (
	removed behavior = iota
	isolated
	mergedWithPrevious
	mergedWithNext
	contiguous
)

func parseBehavior(s string) (behavior, error) {
	switch strings.ToLower(s) {
	case "removed":
		return removed, nil
	case "isolated", "":
		return isolated, nil
	case "merged_with_previous", "mergedwithprevious":
		return mergedWithPrevious, nil
	case "merged_with_next", "mergedwithnext":
		return mergedWithNext, nil
	case "contiguous":
		return contiguous, nil
	}
	return 0, fmt.Errorf("%w: split behavior %q", ErrUnsupported, s)
}

// apply turns spans covering s into pieces as tokenizers' split does.
func (b behavior) apply(p piece, spans []span, out []piece) []piece {
	var merged []span
	switch b {
	case removed:
		for _, s := range spans {
			if !s.match {
				merged = append(merged, s)
			}
		}
	case isolated:
		merged = spans
	case mergedWithPrevious:
		prev := false
		for _, s := range spans {
			if s.match && !prev && len(merged) > 0 {
				merged[len(merged)-1].hi = s.hi
			} else {
				merged = append(merged, s)
			}
			prev = s.match
		}
	case mergedWithNext:
		prev := false
		for i := len(spans) - 1; i >= 0; i-- {
			s := spans[i]
			if s.match && !prev && len(merged) > 0 {
				merged[len(merged)-1].lo = s.lo
			} else {
				merged = append(merged, s)
			}
			prev = s.match
		}
		for i, j := 0, len(merged)-1; i < j; i, j = i+1, j-1 {
			merged[i], merged[j] = merged[j], merged[i]
		}
	case contiguous:
		prev := false
		for _, s := range spans {
			if s.match == prev && len(merged) > 0 {
				merged[len(merged)-1].hi = s.hi
			} else {
				merged = append(merged, s)
			}
			prev = s.match
		}
	}
	for _, s := range merged {
		if s.hi > s.lo {
			out = append(out, piece{s: p.s[s.lo:s.hi], off: p.off + s.lo})
		}
	}
	return out
}

// runeSpans marks each rune for which match is true as its own match.
func runeSpans(s string, match func(rune) bool, spans []span) []span {
	prev := 0
	for i, r := range s {
		if match(r) {
			if prev < i {
				spans = append(spans, span{prev, i, false})
			}
			n := utf8.RuneLen(r)
			if n < 0 {
				n = 1
			}
			spans = append(spans, span{i, i + n, true})
			prev = i + n
		}
	}
	if prev < len(s) {
		spans = append(spans, span{prev, len(s), false})
	}
	return spans
}

type runeSplit struct {
	match func(rune) bool
	b     behavior
}

func (r runeSplit) split(in []piece) []piece {
	var out []piece
	var spans []span
	for _, p := range in {
		spans = runeSpans(p.s, r.match, spans[:0])
		out = r.b.apply(p, spans, out)
	}
	return out
}

type regexSplit struct {
	re     *regexp.Regexp
	b      behavior
	invert bool
}

func (r regexSplit) split(in []piece) []piece {
	var out []piece
	for _, p := range in {
		var spans []span
		prev := 0
		for _, m := range r.re.FindAllStringIndex(p.s, -1) {
			if prev < m[0] {
				spans = append(spans, span{prev, m[0], r.invert})
			}
			spans = append(spans, span{m[0], m[1], !r.invert})
			prev = m[1]
		}
		if prev < len(p.s) {
			spans = append(spans, span{prev, len(p.s), r.invert})
		}
		out = r.b.apply(p, spans, out)
	}
	return out
}

func isBertPunct(r rune) bool {
	if r < 0x80 {
		return (r >= 33 && r <= 47) || (r >= 58 && r <= 64) || (r >= 91 && r <= 96) || (r >= 123 && r <= 126)
	}
	return unicode.IsPunct(r)
}

// bertPre splits on white space (dropped) and around punctuation.
type bertPre struct{}

func (bertPre) split(in []piece) []piece {
	var out []piece
	for _, p := range in {
		s := p.s
		start := -1
		for i, r := range s {
			switch {
			case unicode.IsSpace(r):
				if start >= 0 {
					out = append(out, piece{s[start:i], p.off + start})
					start = -1
				}
			case isBertPunct(r):
				if start >= 0 {
					out = append(out, piece{s[start:i], p.off + start})
					start = -1
				}
				n := max(utf8.RuneLen(r), 1)
				out = append(out, piece{s[i : i+n], p.off + i})
			default:
				if start < 0 {
					start = i
				}
			}
		}
		if start >= 0 {
			out = append(out, piece{s[start:], p.off + start})
		}
	}
	return out
}

func isWord(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsMark(r) || unicode.Is(unicode.Nd, r) || unicode.Is(unicode.Nl, r) ||
		unicode.Is(unicode.Pc, r) || unicode.Is(unicode.Other_Alphabetic, r) || unicode.Is(unicode.Join_Control, r)
}

// whitespacePre is the regex \w+|[^\w\s]+, matches kept.
type whitespacePre struct{}

func (whitespacePre) split(in []piece) []piece {
	var out []piece
	for _, p := range in {
		s := p.s
		start, kind := -1, 0 // kind 1: word run, 2: other run
		for i, r := range s {
			k := 2
			if unicode.IsSpace(r) {
				k = 0
			} else if isWord(r) {
				k = 1
			}
			if k != kind && start >= 0 {
				out = append(out, piece{s[start:i], p.off + start})
				start = -1
			}
			if k != 0 && start < 0 {
				start = i
			}
			kind = k
		}
		if start >= 0 {
			out = append(out, piece{s[start:], p.off + start})
		}
	}
	return out
}

// metaspace replaces ' ' by the replacement (▁), prepends one, and splits
// before each.
type metaspace struct {
	rep     string
	prepend string // always, first, never
	doSplit bool
}

func (m metaspace) split(in []piece) []piece {
	var out []piece
	for _, p := range in {
		s := strings.ReplaceAll(p.s, " ", m.rep)
		if !strings.HasPrefix(s, m.rep) && (m.prepend == "always" || (m.prepend == "first" && p.off == 0)) {
			s = m.rep + s
		}
		if !m.doSplit {
			out = append(out, piece{s, p.off})
			continue
		}
		// MergedWithNext on each replacement.
		start := 0
		for i := 0; i < len(s); {
			j := strings.Index(s[i:], m.rep)
			if j < 0 {
				break
			}
			j += i
			if j > start {
				out = append(out, piece{s[start:j], p.off})
				start = j
			}
			i = j + len(m.rep)
		}
		if start < len(s) {
			out = append(out, piece{s[start:], p.off})
		}
	}
	return out
}

// byteLevel is GPT-2's pre-tokeniser: the regex
// 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// (hand-written: Go's regexp has no look-ahead), then every byte mapped to
// its printable stand-in.
type byteLevel struct {
	prefixSpace bool
	useRegex    bool
}

func (b byteLevel) split(in []piece) []piece {
	var out []piece
	for _, p := range in {
		s := p.s
		if b.prefixSpace && !strings.HasPrefix(s, " ") {
			s = " " + s
		}
		if !b.useRegex {
			out = append(out, piece{byteChars(s), p.off})
			continue
		}
		for i := 0; i < len(s); {
			j := gpt2Next(s, i)
			out = append(out, piece{byteChars(s[i:j]), p.off + i})
			i = j
		}
	}
	return out
}

type class int

const (
	clSpace class = iota
	clLetter
	clNumber
	clOther
)

func classOf(r rune) class {
	switch {
	case unicode.IsSpace(r):
		return clSpace
	case unicode.IsLetter(r):
		return clLetter
	case unicode.IsNumber(r):
		return clNumber
	}
	return clOther
}

func runAt(s string, i int, c class) int {
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if classOf(r) != c {
			break
		}
		i += n
	}
	return i
}

// gpt2Next returns the end of the regex match that starts at i.
func gpt2Next(s string, i int) int {
	if s[i] == '\'' && i+1 < len(s) {
		switch s[i+1] {
		case 's', 't', 'm', 'd':
			return i + 2
		}
		if i+2 < len(s) {
			switch s[i+1 : i+3] {
			case "re", "ve", "ll":
				return i + 3
			}
		}
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	c := classOf(r)
	if r == ' ' && i+1 < len(s) {
		r2, _ := utf8.DecodeRuneInString(s[i+1:])
		if c2 := classOf(r2); c2 != clSpace {
			return runAt(s, i+1, c2)
		}
	}
	if c != clSpace {
		return runAt(s, i+n, c)
	}
	j := runAt(s, i, clSpace)
	if j == len(s) {
		return j
	}
	// \s+(?!\S): leave the last white space to the next match, unless
	// there is only one.
	_, last := utf8.DecodeLastRuneInString(s[i:j])
	if j-last > i {
		return j - last
	}
	return j
}

var byteToChar = func() [256]string {
	var t [256]string
	n := 0
	for b := 0; b < 256; b++ {
		if (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF) {
			t[b] = string(rune(b))
		} else {
			t[b] = string(rune(256 + n))
			n++
		}
	}
	return t
}()

func byteChars(s string) string {
	var b strings.Builder
	b.Grow(len(s) * 2)
	for i := 0; i < len(s); i++ {
		b.WriteString(byteToChar[s[i]])
	}
	return b.String()
}

func parsePreTokenizer(raw json.RawMessage) (preTokenizer, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var p struct {
		Type             string            `json:"type"`
		PreTokenizers    []json.RawMessage `json:"pretokenizers"`
		AddPrefixSpace   *bool             `json:"add_prefix_space"`
		UseRegex         *bool             `json:"use_regex"`
		Replacement      string            `json:"replacement"`
		PrependScheme    string            `json:"prepend_scheme"`
		Split            *bool             `json:"split"`
		Behavior         string            `json:"behavior"`
		Pattern          pattern           `json:"pattern"`
		Invert           bool              `json:"invert"`
		IndividualDigits bool              `json:"individual_digits"`
		Delimiter        string            `json:"delimiter"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, err
	}
	switch p.Type {
	case "Sequence":
		var q preSeq
		for i, r := range p.PreTokenizers {
			x, err := parsePreTokenizer(r)
			if err != nil {
				return nil, fmt.Errorf("pretokenizers[%d]: %w", i, err)
			}
			if x != nil {
				q = append(q, x)
			}
		}
		return q, nil
	case "BertPreTokenizer":
		return bertPre{}, nil
	case "Whitespace":
		return whitespacePre{}, nil
	case "WhitespaceSplit":
		return runeSplit{match: unicode.IsSpace, b: removed}, nil
	case "Punctuation":
		b, err := parseBehavior(p.Behavior)
		if err != nil {
			return nil, err
		}
		return runeSplit{match: isBertPunct, b: b}, nil
	case "Digits":
		b := contiguous
		if p.IndividualDigits {
			b = isolated
		}
		return runeSplit{match: unicode.IsNumber, b: b}, nil
	case "CharDelimiterSplit":
		d, n := utf8.DecodeRuneInString(p.Delimiter)
		if n == 0 || n != len(p.Delimiter) {
			return nil, fmt.Errorf("CharDelimiterSplit delimiter %q is not one character", p.Delimiter)
		}
		return runeSplit{match: func(r rune) bool { return r == d }, b: removed}, nil
	case "Split":
		b, err := parseBehavior(p.Behavior)
		if err != nil {
			return nil, err
		}
		re, err := p.Pattern.compile()
		if err != nil {
			return nil, err
		}
		return regexSplit{re: re, b: b, invert: p.Invert}, nil
	case "ByteLevel":
		bl := byteLevel{prefixSpace: true, useRegex: true}
		if p.AddPrefixSpace != nil {
			bl.prefixSpace = *p.AddPrefixSpace
		}
		if p.UseRegex != nil {
			bl.useRegex = *p.UseRegex
		}
		return bl, nil
	case "Metaspace":
		m := metaspace{rep: p.Replacement, prepend: strings.ToLower(p.PrependScheme), doSplit: true}
		if m.rep == "" {
			m.rep = "▁"
		}
		if p.Split != nil {
			m.doSplit = *p.Split
		}
		if m.prepend == "" {
			m.prepend = "always"
			if p.AddPrefixSpace != nil && !*p.AddPrefixSpace {
				m.prepend = "never"
			}
		}
		switch m.prepend {
		case "always", "first", "never":
		default:
			return nil, fmt.Errorf("%w: Metaspace prepend_scheme %q", ErrUnsupported, p.PrependScheme)
		}
		return m, nil
	}
	return nil, fmt.Errorf("%w: pre-tokenizer %q", ErrUnsupported, p.Type)
}

// wordLocal reports whether a pre-tokeniser splits text at white space
// before anything else, so no token spans white space.
func wordLocal(p preTokenizer) bool {
	switch p := p.(type) {
	case bertPre, whitespacePre:
		return true
	case runeSplit:
		return p.b == removed && p.match(' ') && p.match('\n')
	case byteLevel:
		return p.useRegex
	case metaspace:
		return p.doSplit
	case preSeq:
		return len(p) > 0 && wordLocal(p[0])
	}
	return false
}
