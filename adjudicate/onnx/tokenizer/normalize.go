package tokenizer

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"github.com/rivo/uniseg"
	"golang.org/x/text/unicode/norm"
)

// normalizer rewrites text before pre-tokenisation (no offsets are kept:
// ids are all this package needs).
type normalizer interface {
	normalize(s string) string
}

type normalizerFunc func(string) string

func (f normalizerFunc) normalize(s string) string { return f(s) }

type normalizerSeq []normalizer

func (q normalizerSeq) normalize(s string) string {
	for _, n := range q {
		s = n.normalize(s)
	}
	return s
}

// pattern is tokenizers' {"String": s} or {"Regex": r}.
type pattern struct {
	String *string `json:"String"`
	Regex  *string `json:"Regex"`
}

func (p pattern) compile() (*regexp.Regexp, error) {
	switch {
	case p.String != nil:
		return regexp.Compile(regexp.QuoteMeta(*p.String))
	case p.Regex != nil:
		re, err := regexp.Compile(*p.Regex)
		if err != nil {
			return nil, fmt.Errorf("%w: regex %q (Go's regexp syntax lacks it): %v", ErrUnsupported, *p.Regex, err)
		}
		return re, nil
	}
	return nil, fmt.Errorf("pattern has neither String nor Regex")
}

func parseNormalizer(raw json.RawMessage) (normalizer, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var n struct {
		Type                string            `json:"type"`
		Normalizers         []json.RawMessage `json:"normalizers"`
		CleanText           *bool             `json:"clean_text"`
		HandleChineseChars  *bool             `json:"handle_chinese_chars"`
		StripAccents        *bool             `json:"strip_accents"`
		Lowercase           *bool             `json:"lowercase"`
		Pattern             pattern           `json:"pattern"`
		Content             string            `json:"content"`
		Prepend             string            `json:"prepend"`
		Left                bool              `json:"left"`
		Right               bool              `json:"right"`
		PrecompiledCharsmap []byte            `json:"precompiled_charsmap"`
	}
	if err := json.Unmarshal(raw, &n); err != nil {
		return nil, err
	}
	switch n.Type {
	case "Sequence":
		var q normalizerSeq
		for i, r := range n.Normalizers {
			x, err := parseNormalizer(r)
			if err != nil {
				return nil, fmt.Errorf("normalizers[%d]: %w", i, err)
			}
			if x != nil {
				q = append(q, x)
			}
		}
		return q, nil
	case "BertNormalizer":
		b := func(p *bool, def bool) bool {
			if p == nil {
				return def
			}
			return *p
		}
		lower := b(n.Lowercase, true)
		bn := bertNormalizer{clean: b(n.CleanText, true), chinese: b(n.HandleChineseChars, true), strip: b(n.StripAccents, lower), lower: lower}
		return bn, nil
	case "Lowercase":
		return normalizerFunc(lowercase), nil
	case "NFC":
		return normalizerFunc(norm.NFC.String), nil
	case "NFD":
		return normalizerFunc(norm.NFD.String), nil
	case "NFKC":
		return normalizerFunc(norm.NFKC.String), nil
	case "NFKD":
		return normalizerFunc(norm.NFKD.String), nil
	case "StripAccents":
		// tokenizers removes combining marks (Mn) without decomposing first.
		return normalizerFunc(func(s string) string { return strings.Map(dropMn, s) }), nil
	case "Strip":
		return normalizerFunc(func(s string) string {
			if n.Left {
				s = strings.TrimLeftFunc(s, unicode.IsSpace)
			}
			if n.Right {
				s = strings.TrimRightFunc(s, unicode.IsSpace)
			}
			return s
		}), nil
	case "Replace":
		re, err := n.Pattern.compile()
		if err != nil {
			return nil, err
		}
		content := n.Content
		return normalizerFunc(func(s string) string { return re.ReplaceAllLiteralString(s, content) }), nil
	case "Prepend":
		p := n.Prepend
		return normalizerFunc(func(s string) string {
			if s == "" {
				return s
			}
			return p + s
		}), nil
	case "Nmt":
		return normalizerFunc(nmt), nil
	case "Precompiled":
		if len(n.PrecompiledCharsmap) == 0 {
			return nil, nil
		}
		return newPrecompiled(n.PrecompiledCharsmap)
	}
	return nil, fmt.Errorf("%w: normalizer %q", ErrUnsupported, n.Type)
}

// lowercase is Rust's char::to_lowercase, char by char: İ becomes i̇ and
// no final-sigma rule applies.
func lowercase(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if r == 'İ' {
			b.WriteString("i\u0307")
			continue
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

func dropMn(r rune) rune {
	if unicode.Is(unicode.Mn, r) {
		return -1
	}
	return r
}

type bertNormalizer struct{ clean, chinese, strip, lower bool }

// isControl is tokenizers' BERT test: \t \n \r are not control, and the
// categories Cc, Cf and Co are (unassigned code points are kept).
func isControl(r rune) bool {
	switch r {
	case '\t', '\n', '\r':
		return false
	}
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Co)
}

func isChinese(r rune) bool {
	return (r >= 0x4E00 && r <= 0x9FFF) || (r >= 0x3400 && r <= 0x4DBF) || (r >= 0x20000 && r <= 0x2A6DF) ||
		(r >= 0x2A700 && r <= 0x2B73F) || (r >= 0x2B740 && r <= 0x2B81F) || (r >= 0x2B920 && r <= 0x2CEAF) ||
		(r >= 0xF900 && r <= 0xFAFF) || (r >= 0x2F800 && r <= 0x2FA1F)
}

func (n bertNormalizer) normalize(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	if ascii { // the common case, without Unicode tables
		for i := 0; i < len(s); i++ {
			c := s[i]
			switch {
			case n.clean && (c == 0 || (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f):
				continue
			case n.clean && (c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'):
				c = ' '
			case n.lower && c >= 'A' && c <= 'Z':
				c += 'a' - 'A'
			}
			b.WriteByte(c)
		}
		return b.String()
	}
	for _, r := range s {
		if n.clean {
			if r == 0 || r == 0xFFFD || isControl(r) {
				continue
			}
			if unicode.IsSpace(r) {
				r = ' '
			}
		}
		if n.chinese && isChinese(r) {
			b.WriteByte(' ')
			b.WriteRune(r)
			b.WriteByte(' ')
			continue
		}
		b.WriteRune(r)
	}
	out := b.String()
	if n.strip {
		out = strings.Map(dropMn, norm.NFD.String(out))
	}
	if n.lower {
		out = lowercase(out)
	}
	return out
}

// nmt is tokenizers' Nmt normaliser: drop some control characters, map
// others and some spaces to ' '.
func nmt(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 0x0001 && r <= 0x0008, r == 0x000B, r >= 0x000E && r <= 0x001F, r == 0x007F, r == 0x008F, r == 0x009F:
			return -1
		case r == 0x0009, r == 0x000A, r == 0x000C, r == 0x000D, r == 0x1680, r >= 0x200B && r <= 0x200F,
			r == 0x2028, r == 0x2029, r == 0x2581, r == 0xFEFF, r == 0xFFFD:
			return ' '
		}
		return r
	}, s)
}

// precompiled is SentencePiece's normaliser as tokenizers runs it: a
// darts-clone double-array trie over UTF-8 bytes whose values index
// NUL-terminated replacements. Each grapheme shorter than 6 bytes is
// replaced whole when the trie knows a prefix of it (the shortest such
// prefix's replacement, as tokenizers does); otherwise each of its
// characters is looked up alone.
type precompiled struct {
	array []uint32
	pool  []byte
}

func newPrecompiled(raw []byte) (*precompiled, error) {
	if len(raw) < 4 {
		return nil, fmt.Errorf("precompiled_charsmap: %d bytes", len(raw))
	}
	size := int(binary.LittleEndian.Uint32(raw))
	if size%4 != 0 || 4+size > len(raw) {
		return nil, fmt.Errorf("precompiled_charsmap: trie of %d bytes in %d", size, len(raw))
	}
	p := &precompiled{array: make([]uint32, size/4), pool: raw[4+size:]}
	for i := range p.array {
		p.array[i] = binary.LittleEndian.Uint32(raw[4+4*i:])
	}
	return p, nil
}

func dartsOffset(u uint32) int { return int((u >> 10) << ((u & (1 << 9)) >> 6)) }

// transform returns the replacement of the shortest key that prefixes s.
func (p *precompiled) transform(s string) (string, bool) {
	if len(p.array) == 0 {
		return "", false
	}
	pos := dartsOffset(p.array[0])
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == 0 {
			return "", false
		}
		pos ^= int(c)
		if pos < 0 || pos >= len(p.array) {
			return "", false
		}
		u := p.array[pos]
		if u&(1<<31|0xff) != uint32(c) {
			return "", false
		}
		pos ^= dartsOffset(u)
		if (u>>8)&1 == 1 {
			if pos < 0 || pos >= len(p.array) {
				return "", false
			}
			start := int(p.array[pos] & 0x7fffffff)
			if start > len(p.pool) {
				return "", false
			}
			end := start
			for end < len(p.pool) && p.pool[end] != 0 {
				end++
			}
			return string(p.pool[start:end]), true
		}
	}
	return "", false
}

func (p *precompiled) normalize(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	g := uniseg.NewGraphemes(s)
	for g.Next() {
		gr := g.Str()
		if len(gr) < 6 {
			if rep, ok := p.transform(gr); ok {
				b.WriteString(rep)
				continue
			}
		}
		for i, r := range gr {
			part := gr[i : i+len(string(r))]
			if rep, ok := p.transform(part); ok {
				b.WriteString(rep)
			} else {
				b.WriteString(part)
			}
		}
	}
	return b.String()
}
