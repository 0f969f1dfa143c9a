package metrics

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The partitions, expanded to index lists in their order, are exactly
// SlicesBy's slices after "all" (names, order, members and their order):
// types, sources above and below the cap (ties in size broken by name),
// importance, empty values, and metadata keys present, absent and empty.
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
		if capped, named := cappedWithPooledName(outs, opts); capped && named {
			// SlicesBy wrote the pool over that source's slice; the
			// partition pools it: names unique, every sourced claim in
			// exactly one source slice, that source's claims pooled.
			names, in := map[string]bool{}, map[int]int{}
			for _, sl := range got {
				require.False(t, names[sl.Name], "case %d: slice %s twice", c, sl.Name)
				names[sl.Name] = true
				if strings.HasPrefix(sl.Name, "source=") {
					for _, i := range sl.Indexes {
						in[i]++
						if outs[i].Source == "(other)" {
							require.Equal(t, OtherSources, sl.Name)
						}
					}
				}
			}
			for i, o := range outs {
				require.Equal(t, b2i(o.Source != ""), in[i], "case %d: claim %d", c, i)
			}
			continue
		}
		require.Equal(t, SlicesBy(outs, opts, keys)[1:], got, "case %d", c)
	}
}

// cappedWithPooledName says the sources are capped and one of them is
// named as the pool is.
func cappedWithPooledName(outs []Outcome, opts SliceOptions) (capped, named bool) {
	srcs := map[string]bool{}
	for _, o := range outs {
		if o.Source != "" {
			srcs[o.Source] = true
		}
	}
	max := opts.MaxSources
	if max == 0 {
		max = DefaultMaxSourceSlices
	}
	return max > 0 && len(srcs) > max, srcs["(other)"]
}
