package metrics

import (
	"fmt"
	"math/rand/v2"
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
			o.Type = []string{"", "fact", "numeric", "quote"}[r.IntN(4)]
			o.Source = fmt.Sprintf("out-%d", r.IntN(nsrc))
			if r.IntN(10) == 0 {
				o.Source = ""
			}
			o.Importance = []string{"", "critical", "major", "minor"}[r.IntN(4)]
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
		want := SlicesBy(outs, opts, keys)[1:]
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
		require.Equal(t, want, got, "case %d", c)
	}
}
