package lint

import (
	"github.com/claimaudit/claimaudit/extract"
	"github.com/claimaudit/claimaudit/numeric"
)

// factWords are the words of a fact that matching reads for every claim
// checked against it: its description's content words (the similarity)
// and its context's stems and whether the context names an entity (the
// entity guard). A passage's facts are compared with each claim that
// retrieves the passage; read once, they are kept with the fact.
type factWords struct {
	description, context string // what the words were read from
	content              []string
	contextStems         map[string]bool
	contextNames         bool
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
			last = &factWords{description: f.Description, context: ctx, content: extract.ContentWords(f.Description),
				contextStems: stemSet(ctx), contextNames: entityWords(ctx, numeric.Mention{}).names}
		}
		f.words = last
	}
	return facts
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

func (f *Fact) contextStems() map[string]bool {
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

func stemSet(s string) map[string]bool {
	have := map[string]bool{}
	for _, w := range wordsOf(s) {
		have[stem(w)] = true
	}
	return have
}
