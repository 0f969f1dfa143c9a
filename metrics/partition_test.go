package metrics

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// The partitions, expanded to index lists in their order, are exactly
// SlicesBy's slices after "all" (names, order, members and their order):
// types, sources above and below the cap (ties in size broken by name), a
// source named as the pool, importance, empty values, and metadata keys
// present, absent and empty.
func TestPartitionsAreSlicesBy(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for c := range 300 {
		n := r.IntN(200)
		nsrc := 1 + r.IntN(40)
		outs := make([]Outcome, n)
		for i := range outs {
			o := &outs[i]
			o.Type = NameOf([]string{"", "fact", "numeric", "quote"}[r.IntN(4)])
			o.Source = fmt.Sprintf("out-%d", r.IntN(nsrc))
			switch r.IntN(12) {
			case 0:
				o.Source = ""
			case 1:
				o.Source = "(other)" // the pooled slice's own name
			}
			o.Importance = NameOf([]string{"", "critical", "major", "minor"}[r.IntN(4)])
			switch r.IntN(3) {
			case 0:
			case 1:
				o.Meta = map[string]string{"topic": []string{"", "health", "law"}[r.IntN(3)]}
			default:
				o.Meta = map[string]string{"topic": "sport", "lang": []string{"en", "de"}[r.IntN(2)]}
			}
		}
		opts := SliceOptions{MaxSources: []int{0, -1, 1, 3, 50}[r.IntN(5)]}
		keys := [][]string{nil, {"topic"}, {"lang", "topic"}}[r.IntN(3)]
		var got []Slice
		for _, kind := range PartitionKinds(keys) {
			p := PartitionOf(outs, opts, kind)
			require.Len(t, p.Group, n)
			members := make([][]int, len(p.Names))
			for i, g := range p.Group {
				if g >= 0 {
					members[g] = append(members[g], i)
				}
			}
			for g, name := range p.Names {
				got = append(got, Slice{Name: name, Indexes: members[g]})
			}
		}
		require.Equal(t, SlicesBy(outs, opts, keys)[1:], got, "case %d", c)
	}
}

// A source whose id is the pool's own name is pooled when sources are
// capped (its claims stay in a source slice, and no name is written
// twice), and comes after the other sources when they are not.
func TestSourceNamedAsThePool(t *testing.T) {
	var outs []Outcome
	for _, s := range []string{"(other)", "a", "b", "a", "(other)", "(other)"} {
		outs = append(outs, Outcome{Source: s})
	}
	sources := func(opts SliceOptions) []Slice {
		var out []Slice
		for _, sl := range SlicesWith(outs, opts) {
			if sl.Name != "all" {
				out = append(out, sl)
			}
		}
		return out
	}
	require.Equal(t, []Slice{{Name: "source=a", Indexes: []int{1, 3}}, {Name: OtherSources, Indexes: []int{0, 2, 4, 5}}},
		sources(SliceOptions{MaxSources: 1}), "the largest source is kept, not the pool's namesake")
	require.Equal(t, []Slice{{Name: "source=a", Indexes: []int{1, 3}}, {Name: "source=b", Indexes: []int{2}}, {Name: OtherSources, Indexes: []int{0, 4, 5}}},
		sources(SliceOptions{MaxSources: 2}))
	require.Equal(t, []Slice{{Name: "source=a", Indexes: []int{1, 3}}, {Name: "source=b", Indexes: []int{2}}, {Name: OtherSources, Indexes: []int{0, 4, 5}}},
		sources(SliceOptions{MaxSources: -1}), "uncapped: the source sorts last")
	p := PartitionOf(outs, SliceOptions{MaxSources: 1}, "source")
	require.Equal(t, []string{"source=a", OtherSources}, p.Names)
	require.Equal(t, []int32{1, 0, 1, 0, 1, 1}, p.Group)
}
