package lint

import (
	"slices"
	"strings"

	"github.com/claimaudit/claimaudit/extract"
	"github.com/claimaudit/claimaudit/numeric"
	"github.com/claimaudit/claimaudit/sentence"
)

// factWords are the words of a fact that matching reads for every claim
// checked against it: its description's content words (the similarity)
// and its context's stems and whether the context names an entity (the
// entity guard). A passage's facts are compared with each claim that
// retrieves the passage; read once, they are kept with the fact.
type factWords struct {
	description, context string // what the words were read from
	content              []string
	contextStems         stems
	contextNames         bool
}

// stems is a set of stemmed words, sorted and distinct: a fact cache
// holds one per sentence of tens of thousands of passages, and a sorted
// slice of substrings of one lower-cased text takes a third of a map's
// memory and is built without hashing.
type stems []string

func (s stems) has(w string) bool {
	_, ok := slices.BinarySearch(s, w)
	return ok
}

// Prepare reads the words of each fact once, for facts that will be
// compared with many claims. It changes no result: a fact whose
// description or context is changed afterwards is read again.
// Facts of one sentence share the words read for the first of them.
func Prepare(facts []Fact) []Fact {
	var last *factWords
	for i := range facts {
		f := &facts[i]
		ctx := f.entityContext()
		if last == nil || last.description != f.Description || last.context != ctx {
			last = readFactWords(f.Description, ctx)
		}
		f.words = last
	}
	return facts
}

// readFactWords reads a fact's words: extract.ContentWords of the
// description, stemSet of the context and whether entityWords finds a
// name in it. A text of ASCII alone (the usual passage) is read in one
// pass over one lower-cased copy, with no map and no word allocated; any
// other text by those functions themselves (Unicode's case rules can
// change a word's length or split it: "İ" lowers to "i̇").
func readFactWords(description, ctx string) *factWords {
	w := &factWords{description: description, context: ctx}
	if !isASCII(description) || !isASCII(ctx) {
		w.content = extract.ContentWords(description)
		w.contextStems = stemSet(ctx)
		w.contextNames = entityWords(ctx, numeric.Mention{}).names
		return w
	}
	lower := strings.ToLower(ctx)
	ldesc := strings.ToLower(description)
	if strings.HasSuffix(lower, ldesc) {
		ldesc = lower[len(lower)-len(ldesc):] // a passage fact's context ends with its sentence: share the copy
	}
	w.content = asciiContentWords(ldesc)
	w.contextStems, w.contextNames = asciiContextWords(ctx, lower)
	return w
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// isAlnum is unicode.IsLetter || unicode.IsDigit on an ASCII byte.
func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// isSpace is unicode.IsSpace on an ASCII byte (strings.Fields' separators).
func isSpace(c byte) bool {
	return c == ' ' || '\t' <= c && c <= '\r'
}

// asciiContentWords is extract.ContentWords of an ASCII text already
// lower-cased: its words of three letters or more, stopwords aside, each
// once in order of first appearance.
func asciiContentWords(lower string) []string {
	var out []string
	for i := 0; i < len(lower); {
		if !isAlnum(lower[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(lower) && isAlnum(lower[j]) {
			j++
		}
		w := lower[i:j]
		i = j
		if len(w) < 3 || sentence.IsStopword(w) || slices.Contains(out, w) {
			continue
		}
		out = append(out, w)
	}
	return slices.Clip(out)
}

// asciiContextWords is stemSet(ctx) and entityWords(ctx,
// numeric.Mention{}).names of an ASCII context, lower its lower-cased copy
// (same offsets). A name ends the entity reading (only whether there is
// one is kept); the words read before it that were not names are the
// ones entityWords' seen set would skip later.
func asciiContextWords(ctx, lower string) (stems, bool) {
	var out stems
	var seen []string
	names, first, inToken := false, true, false
	for i := 0; i < len(ctx); {
		c := ctx[i]
		if !isAlnum(c) {
			if isSpace(c) {
				if inToken {
					first = false // past strings.Fields' first token
				}
			} else {
				inToken = true
			}
			i++
			continue
		}
		inToken = true
		j := i + 1
		for j < len(ctx) && isAlnum(ctx[j]) {
			j++
		}
		lw := lower[i:j]
		out = append(out, stem(lw))
		if !names && !slices.Contains(seen, lw) && !skipEntityWord(lw) {
			seen = append(seen, lw)
			names = 'A' <= c && c <= 'Z' && !(first && sentence.IsCommonOpener(lw))
		}
		i = j
	}
	slices.Sort(out)
	// Kept for the life of a cache entry: exactly the distinct stems
	// (Compact and Clip would keep the array of every word).
	return slices.Clone(slices.Compact(out)), names
}

// skipEntityWord says whether entityWords leaves out a lower-cased word of
// a context (of a mention with no text, qualifier or unit).
func skipEntityWord(lw string) bool {
	return len([]rune(lw)) < 2 || sentence.IsStopword(lw) || extract.IsVerb(lw) || extract.IsClauseStarter(lw) ||
		numeric.IsMonth(lw) || numeric.IsNumberWord(lw) || (len(lw) > 4 && strings.HasSuffix(lw, "ed")) || comparatorWord[lw]
}

// entityContext is the text that names what the fact is about.
func (f *Fact) entityContext() string {
	if f.Context == "" {
		return f.Description
	}
	return f.Context
}

// prepared is the fact's words when Prepare read them from its present
// text, else nil.
func (f *Fact) prepared() *factWords {
	if w := f.words; w != nil && w.description == f.Description && w.context == f.entityContext() {
		return w
	}
	return nil
}

func (f *Fact) contentWords() []string {
	if w := f.prepared(); w != nil {
		return w.content
	}
	return extract.ContentWords(f.Description)
}

func (f *Fact) contextStems() stems {
	if w := f.prepared(); w != nil {
		return w.contextStems
	}
	return stemSet(f.entityContext())
}

func (f *Fact) contextNamesEntity() bool {
	if w := f.prepared(); w != nil {
		return w.contextNames
	}
	return entityWords(f.entityContext(), numeric.Mention{}).names
}

// stemSet is the stems of a text's words.
func stemSet(s string) stems {
	var out stems
	for _, w := range wordsOf(s) {
		out = append(out, stem(w))
	}
	slices.Sort(out)
	return slices.Compact(out)
}
