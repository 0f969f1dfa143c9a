package onnx

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/claimaudit/claimaudit/adjudicate/onnx/tokenizer"
	"github.com/claimaudit/claimaudit/userfile"
)

// Tokenizer encodes (claim, passage) pairs exactly as the onnx verifier
// does for the same model folder: tokenizer.json's ids, the passage first
// (the premise) and the claim second, truncated to config.json's
// max_position_embeddings (at most 512). It exists so that a client of the
// same model served elsewhere (the triton backend) sends the very ids this
// backend would run. Safe for concurrent use.
type Tokenizer struct {
	tok    *tokenizer.Tokenizer
	maxLen int
}

// LoadTokenizer reads dir/tokenizer.json and dir/config.json.
func LoadTokenizer(dir string) (*Tokenizer, error) {
	cfgPath := filepath.Join(dir, "config.json")
	b, err := userfile.ReadFile(cfgPath, userfile.MaxSmall)
	if err != nil {
		return nil, fmt.Errorf("load tokenizer: %w", err)
	}
	var cfg struct {
		MaxPositionEmb int `json:"max_position_embeddings"`
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		return nil, fmt.Errorf("load tokenizer: %s: %w", cfgPath, err)
	}
	t := &Tokenizer{maxLen: 512}
	if cfg.MaxPositionEmb > 0 && cfg.MaxPositionEmb < t.maxLen {
		t.maxLen = cfg.MaxPositionEmb
	}
	if t.tok, err = tokenizer.Load(filepath.Join(dir, "tokenizer.json")); err != nil {
		return nil, fmt.Errorf("load tokenizer: %w", err)
	}
	return t, nil
}

// EncodePair returns a pair's input ids and token type ids (the attention
// mask is all ones over them), the passage first as the onnx verifier
// encodes it.
func (t *Tokenizer) EncodePair(claim, passage string) (ids, typeIDs []int64, err error) {
	e, err := t.tok.EncodePair(passage, claim, t.maxLen)
	if err != nil {
		return nil, nil, err
	}
	return e.IDs, e.TypeIDs, nil
}

// MaxLen is the most tokens of an encoded pair.
func (t *Tokenizer) MaxLen() int { return t.maxLen }
