package claims

import (
	"fmt"
	"testing"
)

func TestShardOfSplitsEvenlyAndStably(t *testing.T) {
	const n, claims = 4, 4000
	counts := make([]int, n)
	for i := range claims {
		id := fmt.Sprintf("c%05d", i)
		s := ShardOf(id, n)
		if s < 0 || s >= n {
			t.Fatalf("ShardOf(%q, %d) = %d, outside [0, %d)", id, n, s, n)
		}
		if again := ShardOf(id, n); again != s {
			t.Fatalf("ShardOf(%q) is %d, then %d", id, s, again)
		}
		counts[s]++
	}
	for s, c := range counts {
		// 1000 expected; a fair split lies well within ±15%.
		if c < 850 || c > 1150 {
			t.Errorf("shard %d holds %d of %d claims: %v", s, c, claims, counts)
		}
	}
	// Pinned values: the assignment is part of the shard format (records
	// of shards written by one version must merge with another's).
	for id, want := range map[string]int{"c00000": 3, "claim-1": 0, "x": 3} {
		if got := ShardOf(id, 7); got != want {
			t.Errorf("ShardOf(%q, 7) = %d, want %d", id, got, want)
		}
	}
	if ShardOf("anything", 1) != 0 || ShardOf("anything", 0) != 0 {
		t.Error("one shard (or none) holds every claim")
	}
}
