package onnx

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sugarme/tokenizer/pretrained"
)

// Tokenizer encodes (claim, passage) pairs exactly as the onnx verifier
// does for the same model folder: tokenizer.json's ids, the passage
// truncated first to config.json's max_position_embeddings (at most 512).
// It exists so that a client of the same model served elsewhere (the triton
// backend) sends the very ids this backend would run. Safe for concurrent
// use.
type Tokenizer struct {
	v *Verifier // holds only the tokenizer fields; no session
}

// LoadTokenizer reads dir/tokenizer.json and dir/config.json.
func LoadTokenizer(dir string) (*Tokenizer, error) {
	cfgPath := filepath.Join(dir, "config.json")
	b, err := os.ReadFile(cfgPath)
	if err != nil {
		return nil, fmt.Errorf("load tokenizer: %w", err)
	}
	var cfg struct {
		MaxPositionEmb int `json:"max_position_embeddings"`
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		return nil, fmt.Errorf("load tokenizer: %s: %w", cfgPath, err)
	}
	v := &Verifier{maxLen: 512}
	if cfg.MaxPositionEmb > 0 && cfg.MaxPositionEmb < v.maxLen {
		v.maxLen = cfg.MaxPositionEmb
	}
	tokPath := filepath.Join(dir, "tokenizer.json")
	if v.tok, err = pretrained.FromFile(tokPath); err != nil {
		return nil, fmt.Errorf("load %s: %w", tokPath, err)
	}
	if v.stripAccents, err = needsAccentStripping(tokPath); err != nil {
		return nil, err
	}
	return &Tokenizer{v: v}, nil
}

// EncodePair returns a pair's input ids and token type ids (the attention
// mask is all ones over them).
func (t *Tokenizer) EncodePair(claim, passage string) (ids, typeIDs []int64, err error) {
	return t.v.encode(claim, passage)
}

// MaxLen is the most tokens of an encoded pair.
func (t *Tokenizer) MaxLen() int { return t.v.maxLen }
