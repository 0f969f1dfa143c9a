// Package tokenizer encodes text pairs as a Hugging Face tokenizer.json
// says, id for id: the WordPiece (BERT, MiniLM, ELECTRA), byte-level BPE
// (RoBERTa, BART) and Unigram/Metaspace (DeBERTa-v3, XLM-R) families that
// NLI cross-encoders use, with their normalisers, pre-tokenisers, added
// tokens and post-processors (templates, BERT and RoBERTa special tokens).
//
// It is written for this project rather than taken from a Go module: the
// one that loads tokenizer.json (sugarme/tokenizer) calls log.Fatal on
// short sequences, serialises callers behind caches, reads BertNormalizer's
// strip_accents null as false and needed whitespace folding to match
// Unigram ids. Here a Tokenizer is immutable after Load, safe for
// concurrent use, and returns errors, never panics, for any input.
//
// The reference is the Rust library itself (the npm package tokenizers):
// `make tokenizer-ref` writes its ids for a corpus of hard strings and the
// package's tests compare every id, type id and mask.
//
// Pairs are (passage, claim) — premise then hypothesis, as NLI models are
// trained — and truncation shortens the passage first: see EncodePair.
package tokenizer

import (
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"unicode"

	"github.com/claimaudit/claimaudit/userfile"
)

// Tokenizer is a loaded tokenizer.json. It is safe for concurrent use.
type Tokenizer struct {
	added      *addedVocab
	normalizer normalizer   // nil: none
	pre        preTokenizer // nil: the whole text is one piece
	model      model
	post       postProcessor // nil: no special tokens
	padID      int64
	maxLen     int  // truncation.max_length of tokenizer.json; 0: none
	wordLocal  bool // tokens never span white space: see tokensUpTo
}

// Encoding is one encoded sequence or pair, unpadded.
type Encoding struct {
	IDs     []int64
	TypeIDs []int64
}

// ErrUnsupported is returned by Load for a tokenizer.json component this
// package does not implement.
var ErrUnsupported = errors.New("unsupported tokenizer component")

// Load reads a tokenizer.json file.
func Load(path string) (*Tokenizer, error) {
	b, err := userfile.ReadFile(path, userfile.MaxLarge)
	if err != nil {
		return nil, fmt.Errorf("load tokenizer: %w", err)
	}
	t, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("load tokenizer %s: %w", path, err)
	}
	return t, nil
}

type fileJSON struct {
	AddedTokens   []addedTokenJSON `json:"added_tokens"`
	Normalizer    json.RawMessage  `json:"normalizer"`
	PreTokenizer  json.RawMessage  `json:"pre_tokenizer"`
	Model         json.RawMessage  `json:"model"`
	PostProcessor json.RawMessage  `json:"post_processor"`
	Padding       *struct {
		PadID int64 `json:"pad_id"`
	} `json:"padding"`
	Truncation *struct {
		MaxLength int `json:"max_length"`
	} `json:"truncation"`
}

// Parse reads tokenizer.json's contents.
func Parse(b []byte) (*Tokenizer, error) {
	var f fileJSON
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, err
	}
	t := &Tokenizer{}
	var err error
	if t.normalizer, err = parseNormalizer(f.Normalizer); err != nil {
		return nil, fmt.Errorf("normalizer: %w", err)
	}
	if t.pre, err = parsePreTokenizer(f.PreTokenizer); err != nil {
		return nil, fmt.Errorf("pre_tokenizer: %w", err)
	}
	if t.model, err = parseModel(f.Model); err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	if t.post, err = parsePostProcessor(f.PostProcessor); err != nil {
		return nil, fmt.Errorf("post_processor: %w", err)
	}
	t.wordLocal = wordLocal(t.pre)
	if t.added, err = newAddedVocab(f.AddedTokens, t.normalizer); err != nil {
		return nil, fmt.Errorf("added_tokens: %w", err)
	}
	if f.Truncation != nil {
		if f.Truncation.MaxLength < 0 {
			return nil, fmt.Errorf("truncation: max_length %d is negative", f.Truncation.MaxLength)
		}
		t.maxLen = f.Truncation.MaxLength
	}
	if f.Padding != nil {
		t.padID = f.Padding.PadID
	} else {
		for _, name := range []string{"[PAD]", "<pad>", "<PAD>"} {
			if id, ok := t.TokenID(name); ok {
				t.padID = id
				break
			}
		}
	}
	return t, nil
}

// TokenID returns the id of a token of the vocabulary or the added tokens.
func (t *Tokenizer) TokenID(tok string) (int64, bool) {
	if id, ok := t.added.ids[tok]; ok {
		return id, true
	}
	return t.model.tokenID(tok)
}

// MaxLength is the truncation length tokenizer.json declares (its
// truncation.max_length: the length a model was trained at), 0 when it
// declares none.
func (t *Tokenizer) MaxLength() int { return t.maxLen }

// PadID is the padding token's id (0 when the tokenizer names none).
func (t *Tokenizer) PadID() int64 { return t.padID }

// HasTypeIDs reports whether pairs get more than one type id (BERT's
// segments); RoBERTa-style tokenizers give every token type 0.
func (t *Tokenizer) HasTypeIDs() bool {
	e, err := t.EncodePair("a", "b", 0)
	if err != nil {
		return false
	}
	for _, x := range e.TypeIDs {
		if x != 0 {
			return true
		}
	}
	return false
}

// Encode tokenises one text with the tokenizer's special tokens.
func (t *Tokenizer) Encode(text string) (Encoding, error) {
	ids, err := t.tokens(text)
	if err != nil {
		return Encoding{}, err
	}
	if t.post == nil {
		return Encoding{IDs: ids, TypeIDs: make([]int64, len(ids))}, nil
	}
	return t.post.process(ids, nil, false), nil
}

// EncodePair tokenises (passage, claim) — the passage is the first
// sequence (the premise) and the claim the second (the hypothesis) — with
// the tokenizer's special tokens, in at most maxLen tokens (0: no limit).
//
// Truncation shortens the passage first: when the claim and the special
// tokens leave room for at least one passage token, the passage is cut
// from its end to fit — exactly Hugging Face's only_first strategy.
// Otherwise (a claim as long as the model's input) the passage keeps
// min(its length, a quarter of the room) tokens and the claim is cut to
// the rest.
func (t *Tokenizer) EncodePair(passage, claim string, maxLen int) (Encoding, error) {
	var a, b []int64
	var err error
	if maxLen > 0 {
		added := 0
		if t.post != nil {
			added = t.post.added(true)
		}
		if maxLen <= added {
			return Encoding{}, fmt.Errorf("encode pair: maximum length %d leaves no room beside %d special tokens", maxLen, added)
		}
		budget := maxLen - added
		// Tokenise no more of either text than can be kept.
		if b, err = t.tokensUpTo(claim, budget); err != nil {
			return Encoding{}, err
		}
		need := budget - len(b)
		if need <= 0 {
			need = budget / 4
		}
		if a, err = t.tokensUpTo(passage, need); err != nil {
			return Encoding{}, err
		}
		a, b = truncatePair(a, b, budget)
	} else {
		if a, err = t.tokens(passage); err != nil {
			return Encoding{}, err
		}
		if b, err = t.tokens(claim); err != nil {
			return Encoding{}, err
		}
	}
	if t.post == nil {
		ids := append(append([]int64{}, a...), b...)
		types := make([]int64, len(ids))
		for i := len(a); i < len(ids); i++ {
			types[i] = 1
		}
		return Encoding{IDs: ids, TypeIDs: types}, nil
	}
	return t.post.process(a, b, true), nil
}

// truncatePair cuts a (the passage) first, then b, to budget tokens.
func truncatePair(a, b []int64, budget int) ([]int64, []int64) {
	if len(a)+len(b) <= budget {
		return a, b
	}
	if len(b) < budget {
		return a[:budget-len(b)], b
	}
	keep := min(len(a), budget/4)
	return a[:keep], b[:budget-keep]
}

// EncodePairs encodes (passages[i], claims[i]) for every i on all cores
// (EncodePair's rule: the passage is the premise and is truncated first)
// and returns the ids, type ids and attention masks, unpadded.
func (t *Tokenizer) EncodePairs(claims, passages []string, maxLen int) (ids, typeIDs, masks [][]int64, err error) {
	if len(claims) != len(passages) {
		return nil, nil, nil, fmt.Errorf("encode pairs: %d claims but %d passages", len(claims), len(passages))
	}
	encs := make([]Encoding, len(claims))
	errs := make([]error, len(claims))
	t.Parallel(len(claims), func(i int) {
		encs[i], errs[i] = t.EncodePair(passages[i], claims[i], maxLen)
	})
	if err := errors.Join(errs...); err != nil {
		return nil, nil, nil, err
	}
	ids, typeIDs, masks = make([][]int64, len(encs)), make([][]int64, len(encs)), make([][]int64, len(encs))
	for i, e := range encs {
		ids[i], typeIDs[i] = e.IDs, e.TypeIDs
		m := make([]int64, len(e.IDs))
		for j := range m {
			m[j] = 1
		}
		masks[i] = m
	}
	return ids, typeIDs, masks, nil
}

// Parallel calls f(0..n-1) on GOMAXPROCS goroutines, each taking a
// contiguous run of indexes, and returns when all calls have.
func (t *Tokenizer) Parallel(n int, f func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := 0; i < n; i++ {
			f(i)
		}
		return
	}
	var wg sync.WaitGroup
	chunk := (n + workers - 1) / workers
	for lo := 0; lo < n; lo += chunk {
		hi := min(lo+chunk, n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := lo; i < hi; i++ {
				f(i)
			}
		}()
	}
	wg.Wait()
}

// tokensUpTo returns at least the first n tokens of text (all of them when
// there are fewer), tokenising only a prefix of its words when the
// pre-tokeniser splits on white space first — the tokens of a text cut
// before a white space are then a prefix of the whole text's. A word can
// give no token at all (one of control characters), so when the prefix
// falls short the whole text is tokenised.
func (t *Tokenizer) tokensUpTo(text string, n int) ([]int64, error) {
	if !t.wordLocal || n <= 0 {
		return t.tokens(text)
	}
	words, inWord := 0, false
	for i, r := range text {
		if unicode.IsSpace(r) {
			if inWord {
				words++
				if words == n {
					if toks, err := t.tokens(text[:i]); err != nil || len(toks) >= n {
						return toks, err
					}
					break
				}
			}
			inWord = false
		} else {
			inWord = true
		}
	}
	return t.tokens(text)
}

// tokens runs everything but the post-processor: added tokens split out,
// normalisation, pre-tokenisation and the model.
func (t *Tokenizer) tokens(text string) ([]int64, error) {
	text = strings.ToValidUTF8(text, "\uFFFD")
	var out []int64
	for _, seg := range t.added.split(text) {
		if seg.id >= 0 {
			out = append(out, seg.id)
			continue
		}
		s := seg.text
		if t.normalizer != nil {
			s = t.normalizer.normalize(s)
		}
		if s == "" {
			continue
		}
		for _, nseg := range t.added.splitNormalized(s) {
			if nseg.id >= 0 {
				out = append(out, nseg.id)
				continue
			}
			pieces := []piece{{s: nseg.text, off: seg.off + nseg.off}}
			if t.pre != nil {
				pieces = t.pre.split(pieces)
			}
			for _, p := range pieces {
				if p.s == "" {
					continue
				}
				var err error
				if out, err = t.model.tokenize(p.s, out); err != nil {
					return nil, err
				}
			}
		}
	}
	return out, nil
}
