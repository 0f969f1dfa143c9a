package lexical

import (
	"math/bits"
	"sort"
	"strings"
	"sync"
)

// vocabulary interns the words and stems of the analysed passages, so that
// an analysed passage holds integer ids in sorted slices instead of maps of
// strings (a generated window: ~2 KB against ~10 KB), and a word is
// lower-cased and stemmed once per run instead of once per occurrence.
//
// It grows with the vocabulary of the passages analysed — all from the
// corpus, so it is bounded by the corpus vocabulary (5,258 words from
// 15,000 generated spans) — and is never evicted: a cached passage's ids
// must keep their meaning. Claim words are looked up, never added, so
// 100k claims do not grow it; a claim stem no passage has gets noID, which
// no passage holds. Ids depend on the order passages were analysed, but
// features only test ids for equality and membership, so they cannot
// change a feature.
type vocabulary struct {
	mu    sync.RWMutex
	words map[string]lexeme // keyed by the word as written (case kept: no lower-casing to look it up)
	stems map[string]uint32
	names []string // stem by id
}

// lexeme is what the features need of a word.
type lexeme struct {
	stop      bool   // a stop word: not a content word, breaks bigrams
	stem      uint32 // its stem's id (content words)
	emptyStem bool   // the stem is "": it starts no bigram (as the string code had it)
	antonym   uint64 // its bit in antonymBit, 0 when it is in no antonym pair
}

const noID = ^uint32(0)

func newVocabulary() *vocabulary {
	return &vocabulary{words: map[string]lexeme{}, stems: map[string]uint32{}}
}

// lexemeOf returns the lexeme of word w (as written), adding it.
func (v *vocabulary) lexemeOf(w string) lexeme {
	v.mu.RLock()
	l, ok := v.words[w]
	v.mu.RUnlock()
	if ok {
		return l
	}
	lw := strings.ToLower(w)
	l = lexeme{stop: stop[lw], antonym: antonymBit[lw]}
	var st string
	if !l.stop {
		st = stem(lw)
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if l, ok := v.words[w]; ok {
		return l
	}
	if !l.stop {
		id, ok := v.stems[st]
		if !ok {
			id = uint32(len(v.names))
			st = strings.Clone(st)
			v.names = append(v.names, st)
			v.stems[st] = id
		}
		l.stem, l.emptyStem = id, st == ""
	}
	v.words[strings.Clone(w)] = l
	return l
}

// lookup returns the lexeme of w if an analysed passage had it.
func (v *vocabulary) lookup(w string) (lexeme, string, bool) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	l, ok := v.words[w]
	if !ok || l.stop {
		return l, "", ok
	}
	return l, v.names[l.stem], true
}

// stemID is the id of stem s, or noID when no analysed passage has it.
func (v *vocabulary) stemID(s string) uint32 {
	v.mu.RLock()
	defer v.mu.RUnlock()
	if id, ok := v.stems[s]; ok {
		return id
	}
	return noID
}

// antonymBit gives each word of an antonym pair a bit, and antonymOf the
// bit of its opposite by bit number (antonyms is one map both ways), so the words of a
// sentence the antonym feature reads are one uint64.
var antonymBit, antonymOf = func() (map[string]uint64, [64]uint64) {
	var words []string
	for w := range antonyms {
		words = append(words, w)
	}
	sort.Strings(words)
	if len(words) > 64 {
		panic("lexical: more than 64 antonym words")
	}
	bit := map[string]uint64{}
	for i, w := range words {
		bit[w] = 1 << i
	}
	var of [64]uint64
	for w, a := range antonyms {
		of[bits.TrailingZeros64(bit[w])] = bit[a]
	}
	return bit, of
}()

// antonymCrosses is the antonym feature: a word of the claim whose
// opposite the sentence has and which the sentence lacks.
func antonymCrosses(claim, sentence uint64) bool {
	for m := claim; m != 0; m &= m - 1 {
		i := bits.TrailingZeros64(m)
		if sentence&antonymOf[i] != 0 && sentence&(1<<i) == 0 {
			return true
		}
	}
	return false
}
