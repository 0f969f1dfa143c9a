package rules

// definition flags a claim that was judged through the corpus's
// definitions: it restated a defined term through its definition
// ("within 3 weekdays, not counting public holidays" where the corpus
// defines a business day), so it was retrieved and verified with the term
// ("within 3 business days"). The label stands: the verifier judged the
// claim so restated; the flag says the corpus's definition was used.
func definition(in Input, _ Options) (finding, bool) {
	if len(in.Definitions) == 0 {
		return finding{}, false
	}
	return finding{flags: []string{FlagDefinition}}, true
}
