package corpus

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"github.com/claimaudit/claimaudit/sentence"
	"github.com/claimaudit/claimaudit/userfile"
)

// Definitions in the corpus: a span tagged "definition", or a sentence of
// a glossary document (meta.kind "glossary"), of the form "A business day
// is a weekday that is not a public holiday." (also "… means …", "…
// refers to …", "Term: …"). A claim that restates a defined term through
// its definition ("within 3 weekdays, not counting public holidays") is
// judged with the term the corpus uses ("within 3 business days"):
// Glossary.Restate.

// Definition is one defined term and what defines it.
type Definition struct {
	Term       string // "business day", as written (lower-cased)
	Definition string // "a weekday that is not a public holiday"
	Source     string // the span or document it came from
	words      []string
}

// Glossary is a corpus's definitions.
type Glossary struct {
	Defs []Definition
}

// definitionTags are the span tags that mark a definition.
var definitionTags = map[string]bool{"definition": true}

// ReadGlossary reads the definitions of a corpus and its spans file (""
// for none). It reads only the lines that can hold one (their text names
// "glossary" or "definition"), so a corpus without definitions costs a
// scan of its bytes.
func ReadGlossary(ctx context.Context, corpusPath, spansPath string) (*Glossary, error) {
	g := &Glossary{}
	scan := func(path string, want []byte, fn func([]byte) error) error {
		if path == "" {
			return nil
		}
		f, err := userfile.Open(ctx, path)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<30)
		for line := 1; sc.Scan(); line++ {
			if line%4096 == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			b := sc.Bytes()
			if !bytes.Contains(b, want) {
				continue
			}
			if err := fn(b); err != nil {
				return fmt.Errorf("%s:%d: %w", path, line, err)
			}
		}
		return sc.Err()
	}
	err := scan(corpusPath, []byte("glossary"), func(b []byte) error {
		var d struct {
			DocID string          `json:"doc_id"`
			Text  string          `json:"text"`
			Meta  json.RawMessage `json:"meta"`
		}
		if err := json.Unmarshal(b, &d); err != nil {
			return err
		}
		var meta struct {
			Kind string `json:"kind"`
		}
		if json.Unmarshal(d.Meta, &meta) != nil || !strings.EqualFold(meta.Kind, "glossary") {
			return nil
		}
		runes := []rune(d.Text)
		for _, sp := range sentence.Split(runes) {
			g.add(string(runes[sp[0]:sp[1]]), d.DocID)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = scan(spansPath, []byte("definition"), func(b []byte) error {
		var s struct {
			SpanID string   `json:"span_id"`
			Quote  string   `json:"quote"`
			Tags   []string `json:"tags"`
		}
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		for _, t := range s.Tags {
			if definitionTags[strings.ToLower(t)] {
				g.add(s.Quote, s.SpanID)
				break
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return g, nil
}

// definitionVerbs join a term to what defines it, longest first.
var definitionVerbs = []string{" is defined as ", " are defined as ", " refers to ", " refer to ", " means ", " mean ", " is ", " are ", ": "}

// add reads one sentence as a definition, if it is one.
func (g *Glossary) add(s, source string) {
	s = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(s), ".;"))
	lower := strings.ToLower(s)
	for _, v := range definitionVerbs {
		i := strings.Index(lower, v)
		if i <= 0 {
			continue
		}
		head := lower[:i]
		if c := strings.LastIndex(head, ", "); c >= 0 {
			head = head[c+2:] // "in this policy, a dependant means …"
		}
		term := trimArticle(head)
		def := strings.TrimSpace(lower[i+len(v):])
		ws := contentStems(def)
		if term == "" || len(strings.Fields(term)) > 4 || len(ws) < 2 {
			return
		}
		g.Defs = append(g.Defs, Definition{Term: term, Definition: def, Source: source, words: ws})
		return
	}
}

func trimArticle(s string) string {
	s = strings.TrimSpace(s)
	for _, a := range []string{"a ", "an ", "the "} {
		s = strings.TrimPrefix(s, a)
	}
	return strings.TrimSpace(s)
}

// contentStems are a text's content words (not stopwords, not
// negations), stemmed by dropping a plural s.
func contentStems(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len(w) < 3 || sentence.IsStopword(w) || w == "not" || w == "non" {
			continue
		}
		out = append(out, stemPlural(w))
	}
	return out
}

func stemPlural(w string) string {
	if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
		return w[:len(w)-1]
	}
	return w
}

// Restate rewrites a claim that restates a defined term through its
// definition: the shortest run of the claim's words that holds every
// content word of a definition (at most twice as many words as the
// definition has, plus three) is replaced by the term — plural when the
// run's first word is. It returns the claim as restated, the terms used,
// and whether anything changed. A claim that already names the term is
// left alone.
func (g *Glossary) Restate(claim string) (string, []string, bool) {
	if g == nil || len(g.Defs) == 0 {
		return claim, nil, false
	}
	out, changed := claim, false
	var terms []string
	for _, d := range g.Defs {
		if strings.Contains(strings.ToLower(out), d.Term) {
			continue
		}
		spans := wordSpans(out)
		from, to, ok := shortestCover(spans, out, d.words, 2*len(d.words)+3)
		if !ok || negates(out[spans[from][0]:spans[to][1]]) != negates(d.Definition) {
			continue // "weekdays including public holidays" is not "a weekday that is not a public holiday"
		}
		term := d.Term
		if w := strings.ToLower(out[spans[from][0]:spans[from][1]]); len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
			term += "s"
		}
		out = out[:spans[from][0]] + term + out[spans[to][1]:]
		terms = append(terms, d.Term)
		changed = true
	}
	return out, terms, changed
}

// negates says whether a text holds a negation or an exclusion.
func negates(s string) bool {
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' }) {
		switch w {
		case "not", "no", "non", "never", "nor", "without", "except", "excluding", "excludes", "exclude", "isn't", "aren't":
			return true
		}
	}
	return false
}

// wordSpans are the byte spans of a text's words.
func wordSpans(s string) [][2]int {
	var out [][2]int
	start := -1
	for i, r := range s {
		word := unicode.IsLetter(r) || unicode.IsDigit(r)
		if word && start < 0 {
			start = i
		} else if !word && start >= 0 {
			out = append(out, [2]int{start, i})
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, [2]int{start, len(s)})
	}
	return out
}

// shortestCover is the shortest run of words [from, to] of s that holds
// every stem of want in want's order, no longer than max words.
func shortestCover(spans [][2]int, s string, want []string, max int) (from, to int, ok bool) {
	stems := make([]string, len(spans))
	for i, sp := range spans {
		stems[i] = stemPlural(strings.ToLower(s[sp[0]:sp[1]]))
	}
	best := -1
	for i := range stems {
		need := map[string]bool{}
		for _, w := range want {
			need[w] = true
		}
		for j := i; j < len(stems) && j-i < max; j++ {
			delete(need, stems[j])
			if len(need) == 0 {
				if inOrder(stems[i:j+1], want) && (best < 0 || j-i < to-from) {
					from, to, best = i, j, 1
				}
				break
			}
		}
	}
	if best < 0 {
		return 0, 0, false
	}
	return from, to, true
}

// inOrder says whether want's stems appear in run in want's order.
func inOrder(run, want []string) bool {
	k := 0
	for _, w := range run {
		if k < len(want) && w == want[k] {
			k++
		}
	}
	return k == len(want)
}
