package claims

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/claimaudit/claimaudit/jsonl"
	"github.com/claimaudit/claimaudit/label"
)

// mapValidator is the validator as it was before its per-claim state was
// made compact (maps keyed by claim id): the oracle the compact one is
// held equal to.
type mapValidator struct {
	Validator // for errs, files, counts, keep, claims, at, where
	idLine    map[string]loc
	labels    map[string]Label
	gold      map[string]Label
	goldAt    map[string]loc
	evidence  map[string][]string
}

func newMapValidator() *mapValidator {
	return &mapValidator{Validator: Validator{errs: jsonl.ErrorList{Limit: 10000}, keep: true},
		idLine: map[string]loc{}, labels: map[string]Label{}, gold: map[string]Label{}, goldAt: map[string]loc{}, evidence: map[string][]string{}}
}

func (v *mapValidator) addClaims(r io.Reader, file string) error {
	return eachRecord(context.Background(), r, file, &v.errs, func(rec jsonl.Record) {
		v.counts.claims++
		c, ok := parseClaim(rec)
		if c.ID != "" {
			if first, dup := v.idLine[c.ID]; dup {
				rec.Fail("id", rec.Col("id"), jsonl.Errorf(jsonl.ErrDuplicateID, "duplicate id %q (first defined at %s)", c.ID, v.where(first)))
				return
			}
			v.idLine[c.ID] = v.at(file, rec.Line)
			if c.Label != "" {
				v.labels[c.ID] = c.Label
			}
		}
		if ok && v.keep {
			v.claims = append(v.claims, c)
		}
	})
}

func (v *mapValidator) addGold(r io.Reader, file string) error {
	return eachRecord(context.Background(), r, file, &v.errs, func(rec jsonl.Record) {
		v.counts.gold++
		rec.AllowOnly("claim_id", "label", "text", "evidence")
		id, idOK := rec.Str("claim_id", true, true)
		raw, labelOK := rec.Str("label", true, true)
		rec.Str("text", false, false)
		ev := rec.Strings("evidence")
		for i, e := range ev {
			if jsonl.IsBlank(e) {
				rec.Fail("evidence", rec.Col("evidence"), jsonl.Errorf(jsonl.ErrEmpty, "element %d: blank id", i))
				ev = nil
				break
			}
		}
		var lbl Label
		if labelOK {
			if lbl, labelOK = ParseLabel(raw); !labelOK {
				rec.Fail("label", rec.Col("label"), jsonl.Errorf(ErrEnum, "%q is not a label (%s)", raw, label.Accepted))
			}
		}
		if !idOK {
			return
		}
		if first, dup := v.goldAt[id]; dup {
			rec.Fail("claim_id", rec.Col("claim_id"), jsonl.Errorf(jsonl.ErrDuplicateID, "duplicate claim_id %q (first labelled at %s)", id, v.where(first)))
			return
		}
		v.goldAt[id] = v.at(file, rec.Line)
		if _, known := v.idLine[id]; !known {
			if v.IgnoreUnknownGold {
				v.unknownGold++
				return
			}
			rec.Fail("claim_id", rec.Col("claim_id"), jsonl.Errorf(ErrUnknownClaim, "no claim with id %q", id))
			return
		}
		if !labelOK {
			return
		}
		if prev, ok := v.labels[id]; ok && prev != lbl {
			rec.Fail("label", rec.Col("label"), jsonl.Errorf(ErrLabelConflict, "%q contradicts label %q in the claims file (%s)", lbl, prev, v.where(v.idLine[id])))
			return
		}
		v.gold[id] = lbl
		if len(ev) > 0 {
			v.evidence[id] = ev
		}
	})
}

func (v *mapValidator) goldLabels() map[string]Label {
	out := map[string]Label{}
	for id, l := range v.labels {
		out[id] = l
	}
	for id, l := range v.gold {
		out[id] = l
	}
	return out
}

// compareValidators reads the same claims and gold bytes with the compact
// validator and the map oracle and requires the same errors, counts,
// labels, evidence, claims and unknown-gold count.
func compareValidators(t *testing.T, claimsData, goldData []byte, lenient bool) {
	t.Helper()
	dir := t.TempDir()
	cp, gp := filepath.Join(dir, "claims.jsonl"), filepath.Join(dir, "gold.jsonl")
	require.NoError(t, os.WriteFile(cp, claimsData, 0o644))
	require.NoError(t, os.WriteFile(gp, goldData, 0o644))

	v := NewValidator(true)
	v.IgnoreUnknownGold = lenient
	o := newMapValidator()
	o.IgnoreUnknownGold = lenient
	errNew := v.ReadFile(context.Background(), "claims", cp)
	f, err := os.Open(cp)
	require.NoError(t, err)
	errOld := o.addClaims(f, cp)
	f.Close()
	require.Equal(t, errOld == nil, errNew == nil)
	if errNew == nil {
		errNew = v.ReadFile(context.Background(), "gold", gp)
		f, err := os.Open(gp)
		require.NoError(t, err)
		errOld = o.addGold(f, gp)
		f.Close()
		require.Equal(t, errOld == nil, errNew == nil)
	}
	require.Equal(t, o.errs.Error(), v.errs.Error())
	nc, ng := v.Counts()
	require.Equal(t, o.counts.claims, nc)
	require.Equal(t, o.counts.gold, ng)
	require.Equal(t, o.unknownGold, v.UnknownGold())
	want := o.goldLabels()
	require.Equal(t, want, v.Gold())
	require.Equal(t, len(want), v.GoldIndex().Labelled())
	require.Equal(t, o.evidence, v.GoldEvidence())
	g := v.GoldIndex()
	for id, l := range want {
		got, ok := g.Label(id)
		require.True(t, ok, id)
		require.Equal(t, l, got, id)
	}
	for id := range o.idLine {
		if _, ok := want[id]; !ok {
			_, ok := g.Label(id)
			require.False(t, ok, id)
		}
		require.Equal(t, o.evidence[id], g.Evidence(id), id)
	}
	_, ok := g.Label("no such claim \x00")
	require.False(t, ok)
	if v.errs.Err() == nil {
		for i := range o.claims {
			if l, ok := o.gold[o.claims[i].ID]; ok {
				o.claims[i].Label = l
			}
		}
		got, err := v.Claims()
		require.NoError(t, err)
		require.Equal(t, o.claims, got)
	}
}

// randomFiles makes a claims file and a gold file from a small alphabet of
// ids, so duplicates, unknown ids, conflicting labels, repeated evidence
// and defects all occur.
func randomFiles(r *rand.Rand, n int) (claimsData, goldData []byte) {
	id := func() string { return fmt.Sprintf("c%d", r.IntN(n+n/2+1)) }
	labels := []string{"supported", "unsupported", "insufficient", "SUPPORTS", "nope"}
	var cb, gb strings.Builder
	for range n {
		switch r.IntN(12) {
		case 0:
			cb.WriteString("{bad json\n")
		case 1:
			fmt.Fprintf(&cb, `{"id":%q,"text":""}`+"\n", id())
		case 2, 3:
			fmt.Fprintf(&cb, `{"id":%q,"text":"t","label":%q}`+"\n", id(), labels[r.IntN(len(labels))])
		default:
			fmt.Fprintf(&cb, `{"id":%q,"text":"Revenue rose %d%%."}`+"\n", id(), r.IntN(100))
		}
	}
	for range n {
		ev := ""
		switch r.IntN(4) {
		case 0:
			ev = fmt.Sprintf(`,"evidence":["s%d","d%d"]`, r.IntN(5), r.IntN(5))
		case 1:
			ev = `,"evidence":[" "]`
		}
		fmt.Fprintf(&gb, `{"claim_id":%q,"label":%q%s}`+"\n", id(), labels[r.IntN(len(labels))], ev)
	}
	return []byte(cb.String()), []byte(gb.String())
}

// The compact validator agrees with the map-based one it replaced on
// random files full of duplicates, unknown claims, conflicts and defects,
// strict and lenient about unknown gold claims.
func TestValidatorEqualsMapOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for i := range 300 {
		c, g := randomFiles(r, 1+r.IntN(60))
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			compareValidators(t, c, g, i%2 == 0)
		})
	}
	// Clean files: every claim known and labelled once.
	var cb, gb strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&cb, `{"id":"claim-%d","text":"t"}`+"\n", i)
		fmt.Fprintf(&gb, `{"claim_id":"claim-%d","label":"supported","evidence":["s%d"]}`+"\n", 4999-i, i%7)
	}
	compareValidators(t, []byte(cb.String()), []byte(gb.String()), false)
}

// idTable numbers ids as a map would, through many growths.
func TestIDTableEqualsMap(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	tab, want := newIDTable(), map[string]int{}
	var order []string
	for range 200000 {
		id := fmt.Sprintf("%x", r.IntN(150000))
		if r.IntN(50) == 0 {
			id = "" // the empty id is an id like another
		}
		n, added := tab.add(id)
		if w, ok := want[id]; ok {
			require.False(t, added)
			require.Equal(t, w, n)
		} else {
			require.True(t, added)
			require.Equal(t, len(order), n)
			want[id] = n
			order = append(order, id)
		}
	}
	require.Equal(t, len(want), tab.len())
	for i, id := range order {
		require.Equal(t, id, tab.id(i))
		n, ok := tab.find(id)
		require.True(t, ok)
		require.Equal(t, i, n)
	}
	_, ok := tab.find("not an id")
	require.False(t, ok)
}

// EachClaim sees every claim read without a defect, in file order, and
// its error ends the read.
func TestValidatorEachClaim(t *testing.T) {
	data := `{"id":"a","text":"one"}` + "\n" + `{"id":"b","text":""}` + "\n" + `{"id":"c","text":"three","label":"supported"}` + "\n" + `{"id":"a","text":"dup"}` + "\n"
	v := NewValidator(false)
	var got []string
	v.EachClaim = func(c Claim) error { got = append(got, c.ID+":"+c.Text+":"+string(c.Label)); return nil }
	require.NoError(t, v.AddClaims(context.Background(), strings.NewReader(data), "claims.jsonl"))
	require.Equal(t, []string{"a:one:", "c:three:supported"}, got)
	require.Error(t, v.Errors().Err()) // the blank text and the duplicate

	v = NewValidator(false)
	n := 0
	v.EachClaim = func(Claim) error { n++; return io.ErrShortWrite }
	require.ErrorIs(t, v.AddClaims(context.Background(), strings.NewReader(data), "claims.jsonl"), io.ErrShortWrite)
	require.Equal(t, 1, n)
}
