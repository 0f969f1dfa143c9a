package memo

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Keys that fit are computed once, however often they are read.
func TestKeysThatFitAreComputedOnce(t *testing.T) {
	c := New[string, int](10)
	computed := map[string]int{}
	for round := 0; round < 5; round++ {
		for i := 0; i < 10; i++ {
			k := fmt.Sprint("k", i)
			v := c.Get(k, func() int { computed[k]++; return i * i })
			require.Equal(t, i*i, v)
		}
	}
	for k, n := range computed {
		assert.Equal(t, 1, n, k)
	}
	assert.Len(t, computed, 10)
	assert.Equal(t, 10, c.Len())
}

// Past its capacity the cache holds no more entries, keeps a key read
// since the hand passed, and still returns each key's own value.
func TestBoundedAndSecondChance(t *testing.T) {
	c := New[int, int](3)
	for k := 0; k < 3; k++ {
		c.Get(k, func() int { return k })
	}
	c.Get(0, func() int { t.Fatal("0 is held"); return 0 }) // 0 is used
	c.Get(3, func() int { return 3 })                       // evicts 1: 0 had a second chance
	assert.Equal(t, 3, c.Len())
	recomputed := false
	c.Get(0, func() int { recomputed = true; return 0 })
	assert.False(t, recomputed, "0, read since the hand passed, stays")
	c.Get(1, func() int { recomputed = true; return 1 })
	assert.True(t, recomputed, "1 was evicted")
	for k := 0; k < 100; k++ {
		require.Equal(t, k%7, c.Get(k%7, func() int { return k % 7 }))
		require.LessOrEqual(t, c.Len(), 3)
	}
}

func TestNilCacheComputes(t *testing.T) {
	var c *Cache[string, int]
	n := 0
	c.Get("a", func() int { n++; return 1 })
	c.Get("a", func() int { n++; return 1 })
	assert.Equal(t, 2, n)
	assert.Equal(t, 0, c.Len())
}

func TestConcurrentGets(t *testing.T) {
	c := New[int, int](50)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 2000; i++ {
				k := (i * (g + 1)) % 80
				if v := c.Get(k, func() int { return -k }); v != -k {
					t.Errorf("key %d: %d", k, v)
				}
			}
		}()
	}
	wg.Wait()
	assert.LessOrEqual(t, c.Len(), 50)
}
