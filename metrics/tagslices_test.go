package metrics

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTagSlices(t *testing.T) {
	outs := []Outcome{
		{Tags: TagsName([]string{"numeric", "fact"})},
		{},
		{Tags: TagsName([]string{"numeric"})},
		{Tags: TagsName([]string{"temporal", "temporal", ""})},
		{Tags: TagsName(nil)},
	}
	got := TagSlices(outs)
	assert.Equal(t, []Slice{
		{Name: "tag=fact", Indexes: []int{0}},
		{Name: "tag=numeric", Indexes: []int{0, 2}},
		{Name: "tag=temporal", Indexes: []int{3}},
	}, got, "sorted by tag; a claim with two tags in both, a tag given twice once, none in none")
	assert.Empty(t, TagSlices(outs[1:2]))
	assert.Equal(t, Name(0), TagsName(nil))
	assert.Equal(t, Name(0), TagsName([]string{}))

	// SlicesBy puts them where the key is, after the partitions before it.
	outs[0].Meta, outs[2].Meta = map[string]string{"topic": "b"}, map[string]string{"topic": "a"}
	var names []string
	for _, s := range SlicesBy(outs, SliceOptions{}, []string{SliceTags, "topic"}) {
		names = append(names, s.Name)
	}
	assert.Equal(t, []string{"all", "tag=fact", "tag=numeric", "tag=temporal", "meta.topic=a", "meta.topic=b"}, names)
	assert.Equal(t, []string{"type", "source", "importance", KindTag, "meta.topic"}, PartitionKinds([]string{SliceTags, "topic"}))
}
