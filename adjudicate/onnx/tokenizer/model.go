package tokenizer

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"sync"
	"unicode/utf8"
)

// model turns one pre-token into ids, appended to out.
type model interface {
	tokenize(s string, out []int64) ([]int64, error)
	tokenID(tok string) (int64, bool)
}

func parseModel(raw json.RawMessage) (model, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, fmt.Errorf("missing")
	}
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return nil, err
	}
	switch head.Type {
	case "WordPiece":
		return parseWordPiece(raw)
	case "BPE":
		return parseBPE(raw)
	case "Unigram":
		return parseUnigram(raw)
	case "WordLevel":
		var m struct {
			Vocab    map[string]int64 `json:"vocab"`
			UnkToken string           `json:"unk_token"`
		}
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, err
		}
		unk, ok := m.Vocab[m.UnkToken]
		if !ok {
			unk = -1
		}
		return wordLevel{vocab: m.Vocab, unk: unk}, nil
	case "":
		// Old files name the model by its fields only.
		var probe map[string]json.RawMessage
		if err := json.Unmarshal(raw, &probe); err != nil {
			return nil, err
		}
		if _, ok := probe["merges"]; ok {
			return parseBPE(raw)
		}
		if _, ok := probe["max_input_chars_per_word"]; ok {
			return parseWordPiece(raw)
		}
	}
	return nil, fmt.Errorf("%w: model %q", ErrUnsupported, head.Type)
}

type wordLevel struct {
	vocab map[string]int64
	unk   int64
}

func (w wordLevel) tokenID(t string) (int64, bool) { id, ok := w.vocab[t]; return id, ok }
func (w wordLevel) tokenize(s string, out []int64) ([]int64, error) {
	if id, ok := w.vocab[s]; ok {
		return append(out, id), nil
	}
	if w.unk < 0 {
		return out, fmt.Errorf("tokenize %q: not in the vocabulary and no unk_token", s)
	}
	return append(out, w.unk), nil
}

// wordPiece is greedy longest-match-first over the vocabulary, later
// pieces prefixed (##); a word with an unknown piece, or longer than
// max_input_chars_per_word characters, is the unknown token.
type wordPiece struct {
	vocab    map[string]int64
	unk      int64
	prefix   string
	maxChars int
}

func parseWordPiece(raw json.RawMessage) (model, error) {
	var m struct {
		Vocab    map[string]int64 `json:"vocab"`
		UnkToken string           `json:"unk_token"`
		Prefix   *string          `json:"continuing_subword_prefix"`
		MaxChars int              `json:"max_input_chars_per_word"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	w := &wordPiece{vocab: m.Vocab, prefix: "##", maxChars: m.MaxChars}
	if m.Prefix != nil {
		w.prefix = *m.Prefix
	}
	if w.maxChars <= 0 {
		w.maxChars = 100
	}
	unk, ok := m.Vocab[m.UnkToken]
	if !ok {
		return nil, fmt.Errorf("WordPiece unk_token %q is not in the vocabulary", m.UnkToken)
	}
	w.unk = unk
	return w, nil
}

func (w *wordPiece) tokenID(t string) (int64, bool) { id, ok := w.vocab[t]; return id, ok }

func (w *wordPiece) tokenize(s string, out []int64) ([]int64, error) {
	if utf8.RuneCountInString(s) > w.maxChars {
		return append(out, w.unk), nil
	}
	mark := len(out)
	var buf []byte
	for start := 0; start < len(s); {
		end := len(s)
		found := int64(-1)
		for start < end {
			var id int64
			var ok bool
			if start == 0 {
				id, ok = w.vocab[s[start:end]]
			} else {
				buf = append(append(buf[:0], w.prefix...), s[start:end]...)
				id, ok = w.vocab[string(buf)]
			}
			if ok {
				found = id
				break
			}
			_, n := utf8.DecodeLastRuneInString(s[start:end])
			end -= n
		}
		if found < 0 {
			return append(out[:mark], w.unk), nil
		}
		out = append(out, found)
		start = end
	}
	return out, nil
}

// bpe applies merges by rank (lowest first, leftmost on ties) to a word's
// characters, as tokenizers' Word.merge_all does.
type bpe struct {
	vocab       map[string]int64
	ranks       map[[2]int64]mergeTo
	unk         int64 // -1: none
	prefix      string
	suffix      string
	fuseUnk     bool
	byteFalback bool
	ignoreMerge bool
	cache       sync.Map // string → []int64
	cacheN      int64
	cacheMu     sync.Mutex
}

type mergeTo struct {
	rank int
	id   int64
}

const cacheCap = 1 << 16

func parseBPE(raw json.RawMessage) (model, error) {
	var m struct {
		Vocab        map[string]int64  `json:"vocab"`
		Merges       []json.RawMessage `json:"merges"`
		UnkToken     *string           `json:"unk_token"`
		Prefix       *string           `json:"continuing_subword_prefix"`
		Suffix       *string           `json:"end_of_word_suffix"`
		FuseUnk      bool              `json:"fuse_unk"`
		ByteFallback bool              `json:"byte_fallback"`
		IgnoreMerges bool              `json:"ignore_merges"`
		Dropout      *float64          `json:"dropout"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	b := &bpe{vocab: m.Vocab, ranks: make(map[[2]int64]mergeTo, len(m.Merges)), unk: -1,
		fuseUnk: m.FuseUnk, byteFalback: m.ByteFallback, ignoreMerge: m.IgnoreMerges}
	if m.Prefix != nil {
		b.prefix = *m.Prefix
	}
	if m.Suffix != nil {
		b.suffix = *m.Suffix
	}
	if m.UnkToken != nil {
		id, ok := m.Vocab[*m.UnkToken]
		if !ok {
			return nil, fmt.Errorf("BPE unk_token %q is not in the vocabulary", *m.UnkToken)
		}
		b.unk = id
	}
	for rank, r := range m.Merges {
		var pair [2]string
		var s string
		if err := json.Unmarshal(r, &s); err == nil {
			a, c, ok := strings.Cut(s, " ")
			if !ok {
				return nil, fmt.Errorf("merges[%d] %q is not two tokens", rank, s)
			}
			pair = [2]string{a, c}
		} else if err := json.Unmarshal(r, &pair); err != nil {
			return nil, fmt.Errorf("merges[%d]: %w", rank, err)
		}
		a, ok1 := b.vocab[pair[0]]
		c, ok2 := b.vocab[pair[1]]
		// The merged token drops the right part's continuing prefix.
		merged := pair[0] + strings.TrimPrefix(pair[1], b.prefix)
		id, ok3 := b.vocab[merged]
		if !ok1 || !ok2 || !ok3 {
			return nil, fmt.Errorf("merges[%d] %q: token not in the vocabulary", rank, pair)
		}
		if _, dup := b.ranks[[2]int64{a, c}]; !dup {
			b.ranks[[2]int64{a, c}] = mergeTo{rank: rank, id: id}
		}
	}
	return b, nil
}

func (b *bpe) tokenID(t string) (int64, bool) { id, ok := b.vocab[t]; return id, ok }

func (b *bpe) tokenize(s string, out []int64) ([]int64, error) {
	if v, ok := b.cache.Load(s); ok {
		return append(out, v.([]int64)...), nil
	}
	ids, err := b.word(s)
	if err != nil {
		return out, err
	}
	b.cacheMu.Lock()
	if b.cacheN < cacheCap {
		b.cacheN++
		b.cache.Store(s, ids)
	}
	b.cacheMu.Unlock()
	return append(out, ids...), nil
}

func (b *bpe) word(s string) ([]int64, error) {
	if b.ignoreMerge {
		if id, ok := b.vocab[s]; ok {
			return []int64{id}, nil
		}
	}
	var ids []int64
	pendingUnk := false
	n := utf8.RuneCountInString(s)
	k := 0
	for i, r := range s {
		ch := s[i : i+max(utf8.RuneLen(r), 1)]
		tok := ch
		if k > 0 && b.prefix != "" {
			tok = b.prefix + tok
		}
		if k == n-1 && b.suffix != "" {
			tok += b.suffix
		}
		k++
		if id, ok := b.vocab[tok]; ok {
			ids = append(ids, id)
			pendingUnk = false
			continue
		}
		if b.byteFalback {
			all := true
			var bytes []int64
			for j := 0; j < len(ch); j++ {
				id, ok := b.vocab[fmt.Sprintf("<0x%02X>", ch[j])]
				if !ok {
					all = false
					break
				}
				bytes = append(bytes, id)
			}
			if all {
				ids = append(ids, bytes...)
				pendingUnk = false
				continue
			}
		}
		if b.unk < 0 { // tokenizers drops the character
			continue
		}
		if b.fuseUnk && pendingUnk {
			continue
		}
		ids = append(ids, b.unk)
		pendingUnk = true
	}
	// Merge the lowest-ranked adjacent pair, leftmost first, until none.
	for len(ids) > 1 {
		best, at := mergeTo{rank: math.MaxInt}, -1
		for i := 0; i+1 < len(ids); i++ {
			if m, ok := b.ranks[[2]int64{ids[i], ids[i+1]}]; ok && m.rank < best.rank {
				best, at = m, i
			}
		}
		if at < 0 {
			break
		}
		ids[at] = best.id
		ids = append(ids[:at+1], ids[at+2:]...)
	}
	return ids, nil
}

// unigram is SentencePiece's model: the most probable segmentation
// (Viterbi over the pieces' log probabilities), unknown characters
// scored below every piece and runs of them fused.
type unigram struct {
	vocab    map[string]int64
	scores   []float64
	trie     *trieNode
	unk      int64
	minScore float64
	byteFb   bool
}

type trieNode struct {
	next map[byte]*trieNode
	id   int64 // -1: no piece ends here
}

func parseUnigram(raw json.RawMessage) (model, error) {
	var m struct {
		Vocab        [][2]json.RawMessage `json:"vocab"`
		UnkID        *int64               `json:"unk_id"`
		ByteFallback bool                 `json:"byte_fallback"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	u := &unigram{vocab: make(map[string]int64, len(m.Vocab)), scores: make([]float64, len(m.Vocab)),
		trie: &trieNode{id: -1}, unk: -1, minScore: math.Inf(1), byteFb: m.ByteFallback}
	for i, e := range m.Vocab {
		var tok string
		var score float64
		if err := json.Unmarshal(e[0], &tok); err != nil {
			return nil, fmt.Errorf("vocab[%d]: %w", i, err)
		}
		if err := json.Unmarshal(e[1], &score); err != nil {
			return nil, fmt.Errorf("vocab[%d]: %w", i, err)
		}
		if _, dup := u.vocab[tok]; !dup {
			u.vocab[tok] = int64(i)
		}
		u.scores[i] = score
		u.minScore = math.Min(u.minScore, score)
		n := u.trie
		for j := 0; j < len(tok); j++ {
			if n.next == nil {
				n.next = map[byte]*trieNode{}
			}
			c := n.next[tok[j]]
			if c == nil {
				c = &trieNode{id: -1}
				n.next[tok[j]] = c
			}
			n = c
		}
		if n.id < 0 {
			n.id = int64(i)
		}
	}
	if m.UnkID != nil {
		if *m.UnkID < 0 || *m.UnkID >= int64(len(m.Vocab)) {
			return nil, fmt.Errorf("unigram unk_id %d is outside the vocabulary", *m.UnkID)
		}
		u.unk = *m.UnkID
	}
	return u, nil
}

func (u *unigram) tokenID(t string) (int64, bool) { id, ok := u.vocab[t]; return id, ok }

const unkPenalty = 10.0

func (u *unigram) tokenize(s string, out []int64) ([]int64, error) {
	type node struct {
		score float64
		start int // -1: unreached
		id    int64
	}
	best := make([]node, len(s)+1)
	for i := range best {
		best[i].start = -1
	}
	best[0].start = 0
	unkScore := u.minScore - unkPenalty
	for at := 0; at < len(s); {
		_, mb := utf8.DecodeRuneInString(s[at:])
		base := best[at].score
		single := false
		n := u.trie
		for j := at; j < len(s); j++ {
			n = n.next[s[j]]
			if n == nil {
				break
			}
			if n.id >= 0 {
				end := j + 1
				cand := base + u.scores[n.id]
				if best[end].start < 0 || cand > best[end].score {
					best[end] = node{score: cand, start: at, id: n.id}
				}
				if end-at == mb {
					single = true
				}
			}
		}
		if !single {
			end := at + mb
			cand := base + unkScore
			if best[end].start < 0 || cand > best[end].score {
				best[end] = node{score: cand, start: at, id: u.unk}
			}
		}
		at += mb
	}
	// Walk back from the end; unknown runs are one token.
	type tok struct {
		lo, hi int
		id     int64
	}
	var rev []tok
	for end := len(s); end > 0; {
		b := best[end]
		if b.id == u.unk && len(rev) > 0 && rev[len(rev)-1].id == u.unk {
			rev[len(rev)-1].lo = b.start
		} else {
			rev = append(rev, tok{b.start, end, b.id})
		}
		end = b.start
	}
	for i := len(rev) - 1; i >= 0; i-- {
		t := rev[i]
		if t.id >= 0 && t.id != u.unk {
			out = append(out, t.id)
			continue
		}
		if u.byteFb {
			ok := true
			var bytes []int64
			for j := t.lo; j < t.hi; j++ {
				id, found := u.vocab[fmt.Sprintf("<0x%02X>", s[j])]
				if !found {
					ok = false
					break
				}
				bytes = append(bytes, id)
			}
			if ok {
				out = append(out, bytes...)
				continue
			}
		}
		if u.unk < 0 {
			return out, fmt.Errorf("tokenize %q: %q is not in the vocabulary and the model has no unk_id", s, s[t.lo:t.hi])
		}
		out = append(out, u.unk)
	}
	return out, nil
}
