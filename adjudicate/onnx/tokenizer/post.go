package tokenizer

import (
	"encoding/json"
	"fmt"
)

// postProcessor adds the special tokens around one sequence or a pair.
type postProcessor interface {
	process(a, b []int64, pair bool) Encoding
	added(pair bool) int
}

// template is a list of items: a sequence (A or B) or special tokens, each
// with a type id. BertProcessing and RobertaProcessing are templates too.
type template struct{ single, pair []item }

type item struct {
	seq int // 0: A, 1: B, -1: special
	ids []int64
	typ int64
}

func (t template) added(pair bool) int {
	items := t.single
	if pair {
		items = t.pair
	}
	n := 0
	for _, it := range items {
		if it.seq < 0 {
			n += len(it.ids)
		}
	}
	return n
}

func (t template) process(a, b []int64, pair bool) Encoding {
	items := t.single
	if pair {
		items = t.pair
	}
	n := len(a) + len(b) + t.added(pair)
	e := Encoding{IDs: make([]int64, 0, n), TypeIDs: make([]int64, 0, n)}
	for _, it := range items {
		src := it.ids
		switch it.seq {
		case 0:
			src = a
		case 1:
			src = b
		}
		e.IDs = append(e.IDs, src...)
		for range src {
			e.TypeIDs = append(e.TypeIDs, it.typ)
		}
	}
	return e
}

type seqProcessor []postProcessor

func (q seqProcessor) added(pair bool) int {
	n := 0
	for _, p := range q {
		n += p.added(pair)
	}
	return n
}

// process: only one member of a sequence adds tokens in the files this
// package reads (ByteLevel's offsets trimming changes no id).
func (q seqProcessor) process(a, b []int64, pair bool) Encoding {
	for _, p := range q {
		if p.added(pair) > 0 || p.added(!pair) > 0 {
			return p.process(a, b, pair)
		}
	}
	return template{single: []item{{seq: 0}}, pair: []item{{seq: 0}, {seq: 1, typ: 1}}}.process(a, b, pair)
}

func parsePostProcessor(raw json.RawMessage) (postProcessor, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var p struct {
		Type          string            `json:"type"`
		Processors    []json.RawMessage `json:"processors"`
		Sep           [2]json.RawMessage
		Cls           [2]json.RawMessage
		Single        []map[string]templateItemJSON `json:"single"`
		Pair          []map[string]templateItemJSON `json:"pair"`
		SpecialTokens map[string]struct {
			IDs []int64 `json:"ids"`
		} `json:"special_tokens"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, err
	}
	tokID := func(r [2]json.RawMessage, what string) ([]int64, error) {
		var id int64
		if err := json.Unmarshal(r[1], &id); err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		return []int64{id}, nil
	}
	switch p.Type {
	case "Sequence":
		var q seqProcessor
		for i, r := range p.Processors {
			x, err := parsePostProcessor(r)
			if err != nil {
				return nil, fmt.Errorf("processors[%d]: %w", i, err)
			}
			if x != nil {
				q = append(q, x)
			}
		}
		n := 0
		for _, x := range q {
			if x.added(true) > 0 || x.added(false) > 0 {
				n++
			}
		}
		if n > 1 {
			return nil, fmt.Errorf("%w: a Sequence of post-processors of which %d add special tokens", ErrUnsupported, n)
		}
		return q, nil
	case "ByteLevel":
		return template{single: []item{{seq: 0}}, pair: []item{{seq: 0}, {seq: 1, typ: 1}}}, nil
	case "BertProcessing", "RobertaProcessing":
		cls, err := tokID(p.Cls, "cls")
		if err != nil {
			return nil, err
		}
		sep, err := tokID(p.Sep, "sep")
		if err != nil {
			return nil, err
		}
		if p.Type == "BertProcessing" {
			return template{
				single: []item{{seq: -1, ids: cls}, {seq: 0}, {seq: -1, ids: sep}},
				pair:   []item{{seq: -1, ids: cls}, {seq: 0}, {seq: -1, ids: sep}, {seq: 1, typ: 1}, {seq: -1, ids: sep, typ: 1}},
			}, nil
		}
		return template{
			single: []item{{seq: -1, ids: cls}, {seq: 0}, {seq: -1, ids: sep}},
			pair:   []item{{seq: -1, ids: cls}, {seq: 0}, {seq: -1, ids: sep}, {seq: -1, ids: sep}, {seq: 1}, {seq: -1, ids: sep}},
		}, nil
	case "TemplateProcessing":
		conv := func(in []map[string]templateItemJSON) ([]item, error) {
			var out []item
			for _, m := range in {
				for kind, v := range m {
					switch kind {
					case "Sequence":
						switch v.ID {
						case "A":
							out = append(out, item{seq: 0, typ: v.TypeID})
						case "B":
							out = append(out, item{seq: 1, typ: v.TypeID})
						default:
							return nil, fmt.Errorf("template sequence %q is not A or B", v.ID)
						}
					case "SpecialToken":
						st, ok := p.SpecialTokens[v.ID]
						if !ok {
							return nil, fmt.Errorf("template special token %q is not in special_tokens", v.ID)
						}
						out = append(out, item{seq: -1, ids: st.IDs, typ: v.TypeID})
					default:
						return nil, fmt.Errorf("template item %q", kind)
					}
				}
			}
			return out, nil
		}
		single, err := conv(p.Single)
		if err != nil {
			return nil, err
		}
		pair, err := conv(p.Pair)
		if err != nil {
			return nil, err
		}
		return template{single: single, pair: pair}, nil
	}
	return nil, fmt.Errorf("%w: post-processor %q", ErrUnsupported, p.Type)
}

type templateItemJSON struct {
	ID     string `json:"id"`
	TypeID int64  `json:"type_id"`
}
