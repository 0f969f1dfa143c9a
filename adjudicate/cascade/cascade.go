package cascade

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/claimaudit/claimaudit/adjudicate"
)

// BandFile is the band file's name inside a model folder: the default
// --cascade-band when the second verifier's --model names a folder that
// has one.
const BandFile = "cascade.json"

// Verifier is the cascade: First decides the claims outside the band,
// Second the rest (each reading at most Passages passages; 0: all).
type Verifier struct {
	First, Second         adjudicate.Verifier
	FirstName, SecondName string
	Band                  Band
	Passages              int
}

// Backend is the "cascade" entry of the verifier list. Its verifiers are
// other backends, made from their own options (Env.Verifier).
func Backend() adjudicate.Backend {
	return adjudicate.Backend{
		Name: "cascade",
		Help: "the lexical verifier decides the claims it is sure of, another backend (--cascade-to) the rest, within a fitted band (--cascade-band; audit cascade fit)",
		Configure: func(fs *flag.FlagSet) adjudicate.Factory {
			to := fs.String("cascade-to", "onnx", "cascade: the backend that decides the claims the lexical verifier is unsure of (its own options apply)")
			bandPath := fs.String("cascade-band", "", "cascade: band file from 'audit cascade fit' (default: cascade.json in --model's folder); 'all' sends every claim, 'none' none")
			fs.String("model", "", "cascade: its cascade.json is the default --cascade-band")
			passages := fs.Int("cascade-passages", -1, "cascade: passages per claim the second backend reads, best first (0: all; -1: the band file's)")
			return func(env adjudicate.Env) (adjudicate.Verifier, error) {
				return build(env, *to, *bandPath, *passages, fs)
			}
		},
		Uses: func(fs *flag.FlagSet) []string {
			return []string{"lexical", fs.Lookup("cascade-to").Value.String()}
		},
	}
}

func build(env adjudicate.Env, to, bandPath string, passages int, fs *flag.FlagSet) (adjudicate.Verifier, error) {
	if to == "cascade" || to == "lexical" {
		return nil, fmt.Errorf("cascade: --cascade-to %s: name the backend of the model (onnx, triton, tei, openai)", to)
	}
	if env.Verifier == nil {
		return nil, errors.New("cascade: this program gives backends no other backends")
	}
	band, err := bandOf(bandPath, fs)
	if err != nil {
		return nil, err
	}
	if passages < -1 {
		return nil, fmt.Errorf("cascade: --cascade-passages %d: want 0 (all), a number of passages, or -1 (the band file's)", passages)
	}
	if passages == -1 {
		passages = band.Passages
	}
	first, err := env.Verifier("lexical")
	if err != nil {
		return nil, err
	}
	second, err := env.Verifier(to)
	if err != nil {
		closeIf(first)
		return nil, err
	}
	return &Verifier{First: first, Second: second, FirstName: "lexical", SecondName: to, Band: band, Passages: passages}, nil
}

// bandOf reads the band file named, or the model folder's.
func bandOf(path string, fs *flag.FlagSet) (Band, error) {
	switch path {
	case "all":
		return Everything, nil
	case "none":
		return Band{Version: BandVersion, Low: 0, High: 0}, nil
	case "":
		m := fs.Lookup("model")
		if m == nil || m.Value.String() == "" {
			return Band{}, errors.New("cascade: --cascade-band FILE is required (audit cascade fit writes one), or 'all' / 'none'")
		}
		path = filepath.Join(m.Value.String(), BandFile)
	}
	return ReadBand(path)
}

func closeIf(v adjudicate.Verifier) {
	if c, ok := v.(io.Closer); ok {
		c.Close()
	}
}

// Close closes both verifiers.
func (v *Verifier) Close() error {
	var errs []error
	for _, x := range []adjudicate.Verifier{v.First, v.Second} {
		if c, ok := x.(io.Closer); ok {
			errs = append(errs, c.Close())
		}
	}
	return errors.Join(errs...)
}

// Version keys the verdict cache: both verifiers, the band and m.
func (v *Verifier) Version() string {
	return fmt.Sprintf("cascade/%s+%s/band=%g,%g/m=%d", versionOf(v.First, v.FirstName), versionOf(v.Second, v.SecondName), v.Band.Low, v.Band.High, v.Passages)
}

func versionOf(x adjudicate.Verifier, name string) string {
	if ver, ok := x.(adjudicate.Versioner); ok {
		return ver.Version()
	}
	return name
}

// PreferredBatchSize is the second verifier's batch over the share of
// claims it gets (a quarter, as fitted on the real sets), at least the
// first's: the model then runs batches of about its own size.
func (v *Verifier) PreferredBatchSize() int {
	n := 64
	if b, ok := v.First.(adjudicate.BatchSizer); ok {
		n = b.PreferredBatchSize()
	}
	if b, ok := v.Second.(adjudicate.BatchSizer); ok {
		n = max(n, 4*b.PreferredBatchSize())
	}
	return n
}

// Verify decides a batch: the first verifier every claim, the second the
// claims inside the band.
func (v *Verifier) Verify(ctx context.Context, batch []adjudicate.Pair) ([]adjudicate.Verdict, error) {
	return v.Prepare(ctx, batch)(ctx)
}

// Prepare runs the first verifier and the second's preparation (when it
// has one: tokenising), and returns the second's call.
func (v *Verifier) Prepare(ctx context.Context, batch []adjudicate.Pair) func(context.Context) ([]adjudicate.Verdict, error) {
	first, err := v.First.Verify(ctx, batch)
	if err == nil && len(first) != len(batch) {
		err = fmt.Errorf("cascade: %s gave %d verdicts for %d claims", v.FirstName, len(first), len(batch))
	}
	if err != nil {
		return func(context.Context) ([]adjudicate.Verdict, error) { return nil, err }
	}
	var sent []int
	var sub []adjudicate.Pair
	for i := range batch {
		first[i].DecidedBy = v.FirstName
		if first[i].Err != nil || v.Band.Sends(adjudicate.Probabilities(first[i].Logits)[adjudicate.Supported]) {
			sent = append(sent, i)
			sub = append(sub, v.truncate(batch[i]))
		}
	}
	if len(sub) == 0 {
		return func(context.Context) ([]adjudicate.Verdict, error) { return first, nil }
	}
	call := func(ctx context.Context) ([]adjudicate.Verdict, error) { return v.Second.Verify(ctx, sub) }
	if p, ok := v.Second.(adjudicate.Preparer); ok {
		call = p.Prepare(ctx, sub)
	}
	return func(ctx context.Context) ([]adjudicate.Verdict, error) {
		second, err := call(ctx)
		if err != nil {
			return nil, err
		}
		if len(second) != len(sub) {
			return nil, fmt.Errorf("cascade: %s gave %d verdicts for %d claims", v.SecondName, len(second), len(sub))
		}
		out := make([]adjudicate.Verdict, len(first))
		copy(out, first)
		for j, i := range sent {
			out[i] = second[j]
			out[i].DecidedBy = v.SecondName
		}
		return out, nil
	}
}

// truncate keeps a claim's first Passages passages for the second verifier.
func (v *Verifier) truncate(p adjudicate.Pair) adjudicate.Pair {
	if v.Passages > 0 && len(p.Passages) > v.Passages {
		p.Passages = p.Passages[:v.Passages]
	}
	return p
}
