package corpus

// Query is what a claim is retrieved by: its text, and the claim's fields
// that name what it is about (normalization.entities, subject).
//
// The fields add to the text's query (QueryTerms) the analysed terms of
// their words that it does not already hold, each term once, weighted as
// a word of the text other than its first would be: numbers and
// capitalised words 1.5, other content words 1, stop words left out
// (docs/format/index.md). A term the text already has keeps the text's
// weight, so a claim whose fields only repeat its own words is retrieved
// exactly as by its text alone, and one whose text leaves its subject
// implicit ("It opened in 1990.", subject "Louvre") or names it otherwise
// is retrieved by both.
type Query struct {
	Text   string
	Fields []string
}

// analyse is the query's analysed terms with their weights: the text's,
// then the fields' new ones.
func (ix *Index) analyse(q Query) []weightedTerm {
	terms := analyseQuery(ix.analyzer, QueryTerms(q.Text))
	if len(q.Fields) == 0 {
		return terms
	}
	have := make(map[string]bool, len(terms))
	for _, t := range terms {
		have[t.term] = true
	}
	for _, f := range q.Fields {
		for _, w := range words(f) {
			boost, ok := wordBoost(w, false)
			if !ok {
				continue
			}
			for _, tok := range ix.analyzer.Analyze([]byte(w)) {
				if term := string(tok.Term); !have[term] {
					have[term] = true
					terms = append(terms, weightedTerm{term, boost})
				}
			}
		}
	}
	return terms
}
