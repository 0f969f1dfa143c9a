package corpus

import (
	"context"
	"errors"
	"fmt"
)

// EnsureRequest names the inputs an index must reflect.
type EnsureRequest struct {
	Dir        string
	CorpusPath string
	SpansPath  string // optional
	Force      bool   // rebuild even when the index is up to date
	Index      IndexOptions
	Load       LoadOptions
}

// EnsureResult says what EnsureIndex did.
type EnsureResult struct {
	Manifest *IndexManifest
	Reused   bool
	// Reason says why the index was (re)built: "no index", "--force", or
	// what changed.
	Reason string
}

// EnsureIndex reuses the index in req.Dir when it was built from inputs with
// the same content and the same settings, and otherwise validates the inputs
// and rebuilds it. Checking costs one hash of each input file. Invalid input
// returns the *ErrorList and leaves any existing index untouched.
//
// Passage settings left zero in req.Index.Passages take the existing
// index's values (or the defaults when there is none), so a run pointed at
// an index built with other settings keeps them; a setting given that
// contradicts the index's rebuilds it, and Reason says so.
func EnsureIndex(ctx context.Context, req EnsureRequest) (EnsureResult, error) {
	var res EnsureResult
	m, err := ReadManifest(req.Dir)
	switch base := DefaultPassageSettings; {
	case err == nil && !req.Force:
		base = m.Passages
		fallthrough
	default:
		req.Index.Passages = req.Index.Passages.Or(base)
	}
	req.Index.defaults()
	switch {
	case req.Force:
		res.Reason = "--force"
	case errors.Is(err, ErrNotIndex):
		res.Reason = "no index"
	case err != nil:
		return res, err
	default:
		inputs, err := hashInputs(req.CorpusPath, req.SpansPath)
		if err != nil {
			return res, err
		}
		if res.Reason = m.Staleness(inputs, req.Index.Passages); res.Reason == "" {
			res.Manifest, res.Reused = m, true
			return res, nil
		}
	}
	c, err := Load(ctx, req.CorpusPath, req.SpansPath, req.Load)
	if err != nil {
		return res, err
	}
	res.Manifest, err = BuildIndex(ctx, req.Dir, c, req.Index)
	return res, err
}

func hashInputs(corpusPath, spansPath string) ([]Input, error) {
	var inputs []Input
	for _, in := range []struct{ role, path string }{{"corpus", corpusPath}, {"spans", spansPath}} {
		if in.path == "" {
			continue
		}
		sum, n, err := HashFile(in.path)
		if err != nil {
			return nil, fmt.Errorf("open %s: %w", in.role, err)
		}
		inputs = append(inputs, Input{Role: in.role, Path: in.path, SHA256: sum, Bytes: n})
	}
	return inputs, nil
}
