package metrics

import (
	"slices"
	"sort"
	"strings"
)

// Partition divides outcomes into the disjoint slices of one kind that
// SlicesBy lists: by claim type, by source (the largest MaxSources, the
// rest pooled in OtherSources), by importance, or by the values of one
// metadata key. Names are the slices' names in SlicesBy's order; Group[i]
// is outcome i's slice (an index into Names), -1 when it is in none.
//
// It holds 4 bytes a claim where a Slice holds 8 a claim per slice it is
// in, and lets a caller lay each slice's outcomes side by side in place
// (they stay in index order within a slice) instead of copying them out.
type Partition struct {
	Names []string
	Group []int32
}

// PartitionKinds are the kinds of slices that, after "all", make
// SlicesBy's list, in its order: "type", "source", "importance", then
// "meta.<key>" for each of keys, or KindTag for SliceTags. Every kind but
// KindTag is a partition (PartitionOf); KindTag's slices overlap
// (TagSlices).
func PartitionKinds(keys []string) []string {
	kinds := []string{"type", "source", "importance"}
	for _, k := range keys {
		if k == SliceTags {
			kinds = append(kinds, KindTag)
			continue
		}
		kinds = append(kinds, "meta."+k)
	}
	return kinds
}

// SliceTags, among SlicesBy's keys, asks for a slice per evidence tag
// (Outcome.Tags) in place of a metadata key: "tag=numeric". It is no
// metadata key a claims file can give (those hold no NUL), and audit
// run --slice-by tag spells it.
const SliceTags = "\x00tag"

// KindTag is the kind of the evidence-tag slices.
const KindTag = "tag"

// TagSep joins a claim's evidence tags in Outcome.Tags.
const TagSep = "\x1f"

// TagsName is the Outcome.Tags of a list of tags (0 for none).
func TagsName(tags []string) Name { return NameOf(strings.Join(tags, TagSep)) }

// TagSlices are the slices by evidence tag: one per tag any outcome
// has, named "tag=<tag>" and sorted by tag, each holding the outcomes
// whose Tags has it (an outcome with two tags is in two slices; one
// without is in none). An outcome's tag given twice counts once.
func TagSlices(outs []Outcome) []Slice {
	members := map[string][]int{}
	split := map[Name][]string{}
	for i := range outs {
		n := outs[i].Tags
		if n == 0 {
			continue
		}
		tags, ok := split[n]
		if !ok {
			tags = strings.Split(n.String(), TagSep)
			slices.Sort(tags)
			tags = slices.Compact(slices.DeleteFunc(tags, func(t string) bool { return t == "" }))
			split[n] = tags
		}
		for _, t := range tags {
			members[t] = append(members[t], i)
		}
	}
	names := make([]string, 0, len(members))
	for t := range members {
		names = append(names, t)
	}
	slices.Sort(names)
	out := make([]Slice, len(names))
	for i, t := range names {
		out[i] = Slice{Name: KindTag + "=" + t, Indexes: members[t]}
	}
	return out
}

// PartitionOf is the partition of one kind (PartitionKinds).
func PartitionOf(outs []Outcome, opts SliceOptions, kind string) Partition {
	p := Partition{Group: make([]int32, len(outs))}
	value := func(o *Outcome) string {
		switch kind {
		case "type":
			return o.Type.String()
		case "source":
			return o.Source
		case "importance":
			return o.Importance.String()
		}
		return o.Meta[strings.TrimPrefix(kind, "meta.")]
	}
	ids := map[string]int32{}
	var vals []string
	var sizes []int
	for i := range outs {
		v := value(&outs[i])
		if v == "" {
			p.Group[i] = -1
			continue
		}
		id, ok := ids[v]
		if !ok {
			id = int32(len(vals))
			ids[v] = id
			vals = append(vals, v)
			sizes = append(sizes, 0)
		}
		p.Group[i] = id
		sizes[id]++
	}
	// rank[id] is the slice a value's claims go to.
	rank := make([]int32, len(vals))
	order := make([]int32, len(vals))
	for i := range order {
		order[i] = int32(i)
	}
	// A source literally named "(other)" has the pooled slice's name: it
	// sorts after the other sources, where the pool goes (as SlicesBy
	// orders that name), and it is never a kept source of its own when the
	// sources are capped: its claims join the pool, so no slice name is
	// written twice and no claim leaves the source slices.
	pooledName := strings.TrimPrefix(OtherSources, "source=")
	pooled := func(id int32) bool { return kind == "source" && vals[id] == pooledName }
	sort.Slice(order, func(a, b int) bool {
		if pa, pb := pooled(order[a]), pooled(order[b]); pa != pb {
			return pb
		}
		return vals[order[a]] < vals[order[b]]
	})
	maxSources := opts.MaxSources
	if maxSources == 0 {
		maxSources = DefaultMaxSourceSlices
	}
	prefix := kind + "="
	if kind == "source" && maxSources > 0 && len(vals) > maxSources {
		// The largest sources (most claims, then name) keep a slice each,
		// in name order; the others share OtherSources, after them.
		bySize := slices.DeleteFunc(append([]int32(nil), order...), pooled)
		sort.SliceStable(bySize, func(a, b int) bool { return sizes[bySize[a]] > sizes[bySize[b]] })
		kept := make([]bool, len(vals))
		for _, id := range bySize[:min(maxSources, len(bySize))] {
			kept[id] = true
		}
		for _, id := range order {
			if kept[id] {
				rank[id] = int32(len(p.Names))
				p.Names = append(p.Names, prefix+vals[id])
			}
		}
		for _, id := range order {
			if !kept[id] {
				rank[id] = int32(len(p.Names))
			}
		}
		p.Names = append(p.Names, OtherSources)
	} else {
		for _, id := range order {
			rank[id] = int32(len(p.Names))
			p.Names = append(p.Names, prefix+vals[id])
		}
	}
	for i, g := range p.Group {
		if g >= 0 {
			p.Group[i] = rank[g]
		}
	}
	return p
}
