package main

import (
	"flag"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/adjudicate/cascade"
	"github.com/claimaudit/claimaudit/adjudicate/lexical"
	"github.com/claimaudit/claimaudit/adjudicate/null"
	"github.com/claimaudit/claimaudit/adjudicate/onnx"
	"github.com/claimaudit/claimaudit/adjudicate/openai"
	"github.com/claimaudit/claimaudit/adjudicate/tei"
	"github.com/claimaudit/claimaudit/adjudicate/triton"
	"github.com/spf13/pflag"
)

// defaultBackends is the one place verifier backends are listed. Each
// backend declares its own options (adjudicate.Backend.Configure); nothing
// else in cmd/audit knows them.
func defaultBackends() []adjudicate.Backend {
	return []adjudicate.Backend{lexical.Backend(), onnx.Backend(), triton.Backend(), tei.Backend(), openai.Backend(), null.Backend(), cascade.Backend()}
}

// backendFlags are the backends' options bound to a command's flags.
type backendFlags struct {
	reg       *adjudicate.Registry
	factories map[string]adjudicate.Factory
	sets      map[string]*flag.FlagSet // each backend's own options
	owners    map[string][]string      // flag name → the backends that declare it
}

// addBackendFlags lets every backend declare its options and adds them to
// f. Two backends may declare the same option name (--model for a local and
// a remote model): one command-line flag then sets both. A backend option
// that collides with one of the command's own flags is an error.
func addBackendFlags(f *pflag.FlagSet, list []adjudicate.Backend) (*backendFlags, error) {
	reg, err := adjudicate.NewRegistry(list...)
	if err != nil {
		return nil, err
	}
	b := &backendFlags{reg: reg, factories: map[string]adjudicate.Factory{}, sets: map[string]*flag.FlagSet{}, owners: map[string][]string{}}
	byName := map[string][]*flag.Flag{}
	for _, name := range reg.Names() {
		be, _ := reg.Backend(name)
		fs := flag.NewFlagSet(name, flag.ContinueOnError)
		b.factories[name] = be.Configure(fs)
		b.sets[name] = fs
		fs.VisitAll(func(gf *flag.Flag) {
			byName[gf.Name] = append(byName[gf.Name], gf)
			b.owners[gf.Name] = append(b.owners[gf.Name], name)
		})
	}
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if f.Lookup(n) != nil {
			return nil, fmt.Errorf("backend %s declares --%s, which the command already has", strings.Join(b.owners[n], ", "), n)
		}
		gfs := byName[n]
		pf := pflag.PFlagFromGoFlag(gfs[0])
		var usages []string
		var values fanout
		for _, gf := range gfs {
			if !slices.Contains(usages, gf.Usage) {
				usages = append(usages, gf.Usage)
			}
			values = append(values, gf.Value)
		}
		pf.Usage = strings.Join(usages, "; ")
		pf.Value = fanoutValue{fanout: values, typ: pf.Value.Type()}
		f.AddFlag(pf)
	}
	return b, nil
}

// factory returns the named backend's Factory, after checking that every
// backend option given on the command line is one of that backend's.
func (b *backendFlags) factory(name string, f *pflag.FlagSet) (adjudicate.Factory, error) {
	be, err := b.reg.Backend(name)
	if err != nil {
		return nil, usageErrorf("--verifier: %v", err)
	}
	// A composite backend (the cascade) takes the options of the backends
	// it is made of.
	allowed := []string{name}
	if be.Uses != nil {
		for _, u := range be.Uses(b.sets[name]) {
			if _, err := b.reg.Backend(u); err != nil {
				return nil, usageErrorf("--verifier %s: %v", name, err)
			}
			allowed = append(allowed, u)
		}
	}
	var wrong []string
	for opt, owners := range b.owners {
		if fl := f.Lookup(opt); fl != nil && fl.Changed && !slices.ContainsFunc(owners, func(o string) bool { return slices.Contains(allowed, o) }) {
			wrong = append(wrong, fmt.Sprintf("--%s is an option of %s", opt, strings.Join(owners, ", ")))
		}
	}
	if len(wrong) > 0 {
		sort.Strings(wrong)
		return nil, usageErrorf("%s, not of --verifier %s", strings.Join(wrong, "; "), name)
	}
	return b.factories[name], nil
}

// env is what a backend's factory gets: the corpus statistics, and the
// other backends' verifiers made from their options (a composite backend's
// parts).
func (b *backendFlags) env(stats adjudicate.CorpusStats) adjudicate.Env {
	e := adjudicate.Env{Stats: stats}
	e.Verifier = func(name string) (adjudicate.Verifier, error) {
		f, ok := b.factories[name]
		if !ok {
			_, err := b.reg.Backend(name)
			return nil, err
		}
		return f(e)
	}
	return e
}

// help lists the backends for --verifier's usage line.
func (b *backendFlags) help() string {
	return "verifier backend: " + strings.Join(b.reg.Names(), ", ") + " (each described, with its options, under its own heading below)"
}

// fanout sets one command-line value on every backend that declared it.
type fanout []flag.Value

type fanoutValue struct {
	fanout
	typ string
}

func (v fanoutValue) String() string { return v.fanout[0].String() }
func (v fanoutValue) Type() string   { return v.typ }
func (v fanoutValue) Set(s string) error {
	for _, x := range v.fanout {
		if err := x.Set(s); err != nil {
			return err
		}
	}
	return nil
}
