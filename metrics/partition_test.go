package metrics

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The partitions, expanded to index lists in their order, are exactly
// the map-based slices after "all" (and SlicesBy, made from them, the
// map-based SlicesBy) (names, order, members and their order):
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
		require.Equal(t, slicesByMaps(outs, opts, keys)[1:], got, "case %d", c)
		require.Equal(t, slicesByMaps(outs, opts, keys), SlicesBy(outs, opts, keys), "case %d", c)
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

// slicesWithMaps and slicesByMaps are SlicesWith and SlicesBy as they were
// before the partitions (a map of index lists per slice name): the oracle
// TestPartitionsAreSlicesBy holds the partitions to.
func slicesWithMaps(outs []Outcome, opts SliceOptions) []Slice {
	maxSources := opts.MaxSources
	if maxSources == 0 {
		maxSources = DefaultMaxSourceSlices
	}
	all := Slice{Name: "all", Indexes: make([]int, len(outs))}
	groups := map[string][]int{}
	for i, o := range outs {
		all.Indexes[i] = i
		for _, kv := range [][2]string{{"type", o.Type.String()}, {"source", o.Source}, {"importance", o.Importance.String()}} {
			if kv[1] != "" {
				key := kv[0] + "=" + kv[1]
				groups[key] = append(groups[key], i)
			}
		}
	}
	var sources []string
	for k := range groups {
		if strings.HasPrefix(k, "source=") {
			sources = append(sources, k)
		}
	}
	if maxSources > 0 && len(sources) > maxSources {
		// A source whose id is the pool's name is pooled, never kept: its
		// slice would carry the pool's name.
		other := groups[OtherSources]
		sources = slices.DeleteFunc(sources, func(k string) bool { return k == OtherSources })
		sort.Slice(sources, func(a, b int) bool {
			na, nb := len(groups[sources[a]]), len(groups[sources[b]])
			if na != nb {
				return na > nb
			}
			return sources[a] < sources[b]
		})
		for _, k := range sources[min(maxSources, len(sources)):] {
			other = append(other, groups[k]...)
			delete(groups, k)
		}
		sort.Ints(other)
		groups[OtherSources] = other
	}
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	order := map[byte]int{'t': 0, 's': 1, 'i': 2}
	sort.Slice(keys, func(a, b int) bool {
		if order[keys[a][0]] != order[keys[b][0]] {
			return order[keys[a][0]] < order[keys[b][0]]
		}
		// the pooled sources come after the named ones
		if oa, ob := keys[a] == OtherSources, keys[b] == OtherSources; oa != ob {
			return ob
		}
		return keys[a] < keys[b]
	})
	out := []Slice{all}
	for _, k := range keys {
		out = append(out, Slice{Name: k, Indexes: groups[k]})
	}
	return out
}

func slicesByMaps(outs []Outcome, opts SliceOptions, keys []string) []Slice {
	out := slicesWithMaps(outs, opts)
	for _, key := range keys {
		groups := map[string][]int{}
		for i, o := range outs {
			if v, ok := o.Meta[key]; ok && v != "" {
				groups[v] = append(groups[v], i)
			}
		}
		vals := make([]string, 0, len(groups))
		for v := range groups {
			vals = append(vals, v)
		}
		sort.Strings(vals)
		for _, v := range vals {
			out = append(out, Slice{Name: "meta." + key + "=" + v, Indexes: groups[v]})
		}
	}
	return out
}
