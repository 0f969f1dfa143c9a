package benchdata

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/claimaudit/claimaudit/outdir"
)

// Options control Generate.
type Options struct {
	Claims int
	Docs   int // 0: max(50, Claims/2), at most 200,000
	Seed   uint64
	// Mix is the share of supported, unsupported and insufficient claims;
	// zero means 0.4, 0.3, 0.3.
	Mix [3]float64
	// RuleCases adds this many labelled claims for the labelling rules
	// (conflicting sources with and without an authority, no evidence, a
	// location the evidence lacks, stale evidence; ruleCaseKinds) after the
	// others, with the documents they need; 0 (the default) adds none, and
	// the rest of the set does not depend on it.
	RuleCases int
}

// Files written by Generate, in DIR.
const (
	CorpusFile   = "corpus.jsonl"
	SpansFile    = "spans.jsonl"
	ClaimsFile   = "claims.jsonl"
	GoldFile     = "gold.jsonl"
	OutputsFile  = "outputs.jsonl"
	ManifestFile = "manifest.json"
)

// GeneratorVersion changes whenever the same seed would give other data.
const GeneratorVersion = 1

// Manifest describes a generated set.
type Manifest struct {
	Generator int            `json:"generator_version"`
	Seed      uint64         `json:"seed"`
	Docs      int            `json:"docs"`
	Spans     int            `json:"spans"`
	Claims    int            `json:"claims"`
	Outputs   int            `json:"outputs"`
	Mix       [3]float64     `json:"mix"`
	Labels    map[string]int `json:"labels"`
	Variants  map[string]int `json:"variants"` // "<label>/<how>": how each claim was made
	Types     map[string]int `json:"types"`
}

type fact struct {
	a     *attr
	year  int
	value float64
	text  string // kText, kDefine, kPolicy
	dir   string // percent change direction word
}

type entity struct {
	name   string
	kind   *kind
	docID  string
	facts  []fact
	stated map[string]bool // attribute names stated in the document
}

type world struct {
	entities []entity
	byKind   map[string][]int
	names    map[string]bool
	cities   []string
}

var years = []int{2021, 2022, 2023}

func buildWorld(rng *rand.Rand, docs int) *world {
	w := &world{byKind: map[string][]int{}, names: map[string]bool{}}
	for i := 0; i < 40; i++ {
		w.cities = append(w.cities, name(rng))
	}
	for i := 0; i < docs; i++ {
		k := &kinds[rng.IntN(len(kinds))]
		var n string
		if i > 0 && rng.IntN(5) == 0 {
			// A near-duplicate: the base name of another entity with another suffix.
			other := w.entities[rng.IntN(len(w.entities))]
			n = strings.Fields(other.name)[0] + " " + k.suffixes[rng.IntN(len(k.suffixes))]
		} else {
			n = strings.TrimSpace(name(rng) + " " + k.suffixes[rng.IntN(len(k.suffixes))])
		}
		if w.names[n] {
			n = name(rng) + " " + n
		}
		w.names[n] = true
		e := entity{name: n, kind: k, docID: fmt.Sprintf("doc_%06d", i+1), stated: map[string]bool{}}
		skip := rng.IntN(len(k.attrs)) // one attribute is never stated: "absent attribute" claims
		for ai := range k.attrs {
			a := &k.attrs[ai]
			if ai == skip && len(k.attrs) > 2 {
				continue
			}
			e.stated[a.name] = true
			e.facts = append(e.facts, w.facts(rng, a)...)
		}
		w.byKind[k.name] = append(w.byKind[k.name], len(w.entities))
		w.entities = append(w.entities, e)
	}
	return w
}

// facts draws an attribute's values: per year (two or three years, values
// drifting from year to year) or one.
func (w *world) facts(rng *rand.Rand, a *attr) []fact {
	switch a.kind {
	case kText:
		if a.name == "mayor" {
			return []fact{{a: a, text: personName(rng)}}
		}
		return []fact{{a: a, text: w.cities[rng.IntN(len(w.cities))]}}
	case kDefine, kPolicy:
		return []fact{{a: a, text: a.options[rng.IntN(len(a.options))]}}
	}
	if !a.yearly {
		return []fact{{a: a, value: a.value(rng)}}
	}
	n := 2 + rng.IntN(2)
	first := len(years) - n
	v := a.value(rng)
	var fs []fact
	for _, y := range years[first:] {
		f := fact{a: a, year: y, value: v}
		if a.up != "" {
			f.dir = a.up
			if rng.IntN(3) == 0 {
				f.dir = a.down
			}
		}
		fs = append(fs, f)
		v = a.round(v * (1 + (0.08+0.2*rng.Float64())*float64(1-2*rng.IntN(2))))
	}
	return fs
}

func (a attr) round(v float64) float64 {
	v = math.Max(a.lo/2, v)
	if a.kind == kCount {
		p := math.Pow(10, math.Floor(math.Log10(v))-2)
		return math.Round(v/p) * p
	}
	p := math.Pow(10, float64(a.decimals))
	return math.Round(v*p) / p
}

func (f fact) valueText() string {
	if f.a.kind >= kText {
		return f.text
	}
	return f.a.format(f.value)
}

// fill renders a template.
func fill(t string, e string, f fact, v string) string {
	r := strings.NewReplacer("{E}", e, "{V}", v, "{Y}", fmt.Sprint(f.year), "{D}", f.dir, "{N}", negatePolicy(f.text))
	s := r.Replace(t)
	return strings.ToUpper(s[:1]) + s[1:]
}

func negatePolicy(p string) string {
	return strings.Replace(p, " must ", " need not ", 1)
}

var reNoYear = regexp.MustCompile(`(?i)(^in \{Y\},? |,? (in|for|at the end of) \{Y\})`)

// Generate writes a labelled benchmark set into dir: corpus, spans, claims,
// gold labels, model outputs and a manifest. The same options give
// byte-identical files; claims are streamed, so memory grows with the
// number of documents, not of claims. Files are written under temporary
// names and renamed when complete.
func Generate(ctx context.Context, dir string, opts Options) (*Manifest, error) {
	if opts.Claims < 1 {
		return nil, fmt.Errorf("claims must be at least 1, got %d", opts.Claims)
	}
	if opts.Docs == 0 {
		opts.Docs = min(max(50, opts.Claims/2), 200000)
	}
	if opts.Mix == ([3]float64{}) {
		opts.Mix = [3]float64{0.4, 0.3, 0.3}
	}
	sum := opts.Mix[0] + opts.Mix[1] + opts.Mix[2]
	if sum <= 0 || opts.Mix[0] < 0 || opts.Mix[1] < 0 || opts.Mix[2] < 0 {
		return nil, fmt.Errorf("label mix %v must be non-negative with a positive sum", opts.Mix)
	}
	for i := range opts.Mix {
		opts.Mix[i] /= sum
	}
	if err := os.MkdirAll(dir, outdir.DirMode); err != nil {
		return nil, err
	}
	sweepTemps(dir)
	files := map[string]*bufio.Writer{}
	var temps []*os.File
	defer func() {
		for _, f := range temps {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	for _, name := range []string{CorpusFile, SpansFile, ClaimsFile, GoldFile, OutputsFile} {
		f, err := outdir.CreateTemp(dir, "."+name+".tmp-*")
		if err != nil {
			return nil, err
		}
		temps = append(temps, f)
		files[name] = bufio.NewWriterSize(f, 1<<20)
	}
	write := lineWriter(ctx, files)

	rng := rand.New(rand.NewPCG(opts.Seed, 0xC1A1))
	w := buildWorld(rng, opts.Docs)
	m := &Manifest{Generator: GeneratorVersion, Seed: opts.Seed, Docs: len(w.entities), Mix: opts.Mix,
		Labels: map[string]int{}, Variants: map[string]int{}, Types: map[string]int{}}
	if err := w.writeDocs(rng, write, m); err != nil {
		return nil, err
	}
	g := claimGen{w: w, rng: rng, mix: opts.Mix}
	var out []string
	outID := ""
	flushOutput := func() error {
		if len(out) == 0 {
			return nil
		}
		m.Outputs++
		text := strings.Join(out, " ")
		if rng.IntN(4) == 0 {
			text = "Sure! " + text + " Let me know if you need more."
		}
		out = out[:0]
		return write(OutputsFile, map[string]string{"id": outID, "text": text})
	}
	perOutput := 0
	for i := 0; i < opts.Claims; i++ {
		if i%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if perOutput == 0 {
			if err := flushOutput(); err != nil {
				return nil, err
			}
			outID = fmt.Sprintf("out_%07d", m.Outputs+1)
			perOutput = 3 + rng.IntN(4)
		}
		perOutput--
		c := g.next()
		c.ID = fmt.Sprintf("c_%07d", i+1)
		c.SourceID = outID
		out = append(out, c.Text)
		m.Labels[string(c.label)]++
		m.Variants[string(c.label)+"/"+c.variant]++
		m.Types[c.Type]++
		if err := write(ClaimsFile, c); err != nil {
			return nil, err
		}
		if err := write(GoldFile, map[string]string{"claim_id": c.ID, "label": string(c.label)}); err != nil {
			return nil, err
		}
	}
	if err := flushOutput(); err != nil {
		return nil, err
	}
	for _, rc := range w.ruleCases(opts.Seed, opts.RuleCases) {
		if rc.doc != nil {
			m.Docs++
			if err := write(CorpusFile, rc.doc); err != nil {
				return nil, err
			}
		}
		c := rc.claim
		m.Labels[string(c.label)]++
		m.Variants[string(c.label)+"/"+c.variant]++
		m.Types[c.Type]++
		if err := write(ClaimsFile, c); err != nil {
			return nil, err
		}
		if err := write(GoldFile, map[string]string{"claim_id": c.ID, "label": string(c.label)}); err != nil {
			return nil, err
		}
		opts.Claims++
	}
	m.Claims = opts.Claims
	for i, name := range []string{CorpusFile, SpansFile, ClaimsFile, GoldFile, OutputsFile} {
		if err := files[name].Flush(); err != nil {
			return nil, err
		}
		if err := temps[i].Close(); err != nil {
			return nil, err
		}
		if err := os.Rename(temps[i].Name(), filepath.Join(dir, name)); err != nil {
			return nil, err
		}
	}
	temps = nil
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	return m, os.WriteFile(filepath.Join(dir, ManifestFile), append(b, '\n'), outdir.FileMode)
}

// sweepTemps removes what a killed gen left in dir: its temporary files
// (only regular files of that naming).
func sweepTemps(dir string) {
	for _, name := range []string{CorpusFile, SpansFile, ClaimsFile, GoldFile, OutputsFile, ManifestFile} {
		old, _ := filepath.Glob(filepath.Join(dir, "."+name+".tmp-*"))
		for _, p := range old {
			if st, err := os.Lstat(p); err == nil && st.Mode().IsRegular() {
				os.Remove(p)
			}
		}
	}
}

// lineWriter writes a value as one JSON line of the named file. Every stage
// of Generate writes through it: a signal is answered within a thousand
// lines, also while the documents are written.
func lineWriter(ctx context.Context, files map[string]*bufio.Writer) func(name string, v any) error {
	written := 0
	return func(name string, v any) error {
		if written++; written%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		w := files[name]
		w.Write(b)
		return w.WriteByte('\n')
	}
}

func (w *world) writeDocs(rng *rand.Rand, write func(string, any) error, m *Manifest) error {
	type doc struct {
		DocID     string            `json:"doc_id"`
		Title     string            `json:"title"`
		Text      string            `json:"text"`
		Source    string            `json:"source"`
		CreatedAt string            `json:"created_at"`
		Meta      map[string]string `json:"meta"`
	}
	type span struct {
		SpanID string   `json:"span_id"`
		DocID  string   `json:"doc_id"`
		Start  int      `json:"start"`
		End    int      `json:"end"`
		Quote  string   `json:"quote"`
		Tags   []string `json:"tags"`
	}
	for _, e := range w.entities {
		order := rng.Perm(len(e.facts))
		var text strings.Builder
		var spans []span
		for _, i := range order {
			f := e.facts[i]
			s := fill(f.a.docs[rng.IntN(len(f.a.docs))], e.name, f, f.valueText())
			if text.Len() > 0 {
				text.WriteByte(' ')
			}
			start := utf8.RuneCountInString(text.String())
			text.WriteString(s)
			if rng.IntN(3) == 0 {
				m.Spans++
				spans = append(spans, span{SpanID: fmt.Sprintf("span_%07d", m.Spans), DocID: e.docID, Start: start,
					End: start + utf8.RuneCountInString(s), Quote: s, Tags: []string{f.a.claimTy}})
			}
		}
		d := doc{DocID: e.docID, Title: e.name, Text: text.String(), Source: "https://example.org/" + e.docID,
			CreatedAt: fmt.Sprintf("2024-%02d-%02d", 1+rng.IntN(12), 1+rng.IntN(28)), Meta: map[string]string{"kind": e.kind.name}}
		if err := write(CorpusFile, d); err != nil {
			return err
		}
		for _, s := range spans {
			if err := write(SpansFile, s); err != nil {
				return err
			}
		}
	}
	return nil
}
