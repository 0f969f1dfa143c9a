package memo

import "sync"

// Cache maps keys to values computed once. It is safe for concurrent use;
// a nil Cache computes every time.
type Cache[K comparable, V any] struct {
	mu    sync.Mutex
	index map[K]int // key → slot
	slots []slot[K, V]
	hand  int
	size  int
}

type slot[K comparable, V any] struct {
	key  K
	val  V
	used bool // read since the hand last passed
}

// New makes a cache of at most capacity entries (at least one).
func New[K comparable, V any](capacity int) *Cache[K, V] {
	capacity = max(1, capacity)
	return &Cache[K, V]{index: make(map[K]int), size: capacity}
}

// Get returns the value of key, computing it (outside the lock) when the
// cache does not hold it. compute must depend on the key alone: two
// goroutines may compute the same key at once, and either result is kept.
func (c *Cache[K, V]) Get(key K, compute func() V) V {
	if c == nil {
		return compute()
	}
	c.mu.Lock()
	if i, ok := c.index[key]; ok {
		c.slots[i].used = true
		v := c.slots[i].val
		c.mu.Unlock()
		return v
	}
	c.mu.Unlock()
	v := compute()
	c.mu.Lock()
	c.put(key, v)
	c.mu.Unlock()
	return v
}

func (c *Cache[K, V]) put(key K, v V) {
	if i, ok := c.index[key]; ok {
		c.slots[i].val = v
		return
	}
	if len(c.slots) < c.size {
		c.index[key] = len(c.slots)
		c.slots = append(c.slots, slot[K, V]{key: key, val: v})
		return
	}
	for c.slots[c.hand].used {
		c.slots[c.hand].used = false
		c.hand = (c.hand + 1) % c.size
	}
	delete(c.index, c.slots[c.hand].key)
	c.slots[c.hand] = slot[K, V]{key: key, val: v}
	c.index[key] = c.hand
	c.hand = (c.hand + 1) % c.size
}

// Len is the number of entries held.
func (c *Cache[K, V]) Len() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.slots)
}
