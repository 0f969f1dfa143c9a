package claims

import "hash/fnv"

// ShardOf is the shard (0 ≤ shard < n) that claim id belongs to when a run
// is split n ways: FNV-1a (64 bit) of the id, modulo n. It depends on the id
// alone, so every process splitting the same claims file agrees without
// talking to the others, and a claim's shard does not move when other
// claims are added or removed.
func ShardOf(id string, n int) int {
	if n <= 1 {
		return 0
	}
	h := fnv.New64a()
	h.Write([]byte(id))
	return int(h.Sum64() % uint64(n))
}
