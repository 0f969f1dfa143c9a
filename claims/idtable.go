package claims

import (
	"hash/maphash"
	"math/bits"
)

// idTable numbers distinct ids 0, 1, 2, … in the order they are added and
// finds an id's number. The ids' bytes live end to end in one buffer and
// the hash table holds numbers, so an id costs its length plus about 16
// bytes and no pointer: a run over a million claims keeps every claim id
// (for duplicates, and to join gold labels) in ~40 MB that the garbage
// collector never scans, where a map[string]T took ~100 MB of small
// objects.
type idTable struct {
	seed  maphash.Seed
	bytes []byte
	ends  []int    // ends[i] is where id i ends in bytes (it starts at ends[i-1])
	slots []uint32 // open addressing, linear probing: 0 is empty, else number+1
	mask  uint64
}

func newIDTable() *idTable { return &idTable{seed: maphash.MakeSeed()} }

// len is the number of ids added.
func (t *idTable) len() int { return len(t.ends) }

// id returns id number i.
func (t *idTable) id(i int) string { return string(t.idBytes(i)) }

func (t *idTable) idBytes(i int) []byte {
	start := 0
	if i > 0 {
		start = t.ends[i-1]
	}
	return t.bytes[start:t.ends[i]]
}

// find returns id's number, if it was added.
func (t *idTable) find(id string) (int, bool) {
	if len(t.slots) == 0 {
		return 0, false
	}
	for s := maphash.String(t.seed, id) & t.mask; ; s = (s + 1) & t.mask {
		n := t.slots[s]
		if n == 0 {
			return 0, false
		}
		if string(t.idBytes(int(n-1))) == id {
			return int(n - 1), true
		}
	}
}

// add returns id's number, numbering it next if it is new (added true).
func (t *idTable) add(id string) (i int, added bool) {
	if i, ok := t.find(id); ok {
		return i, false
	}
	if 4*(len(t.ends)+1) > 3*len(t.slots) {
		t.grow()
	}
	i = len(t.ends)
	t.bytes = append(t.bytes, id...)
	t.ends = append(t.ends, len(t.bytes))
	t.place(maphash.String(t.seed, id), uint32(i+1))
	return i, true
}

// place puts number n (id number n-1, of hash h) in the first free slot.
func (t *idTable) place(h uint64, n uint32) {
	s := h & t.mask
	for t.slots[s] != 0 {
		s = (s + 1) & t.mask
	}
	t.slots[s] = n
}

// grow doubles the hash table (at least 1,024 slots) and places every id
// again; the load stays at most 3/4.
func (t *idTable) grow() {
	size := max(1024, 1<<bits.Len(uint(2*len(t.slots)-1)))
	t.slots = make([]uint32, size)
	t.mask = uint64(size - 1)
	for i := range t.ends {
		t.place(maphash.Bytes(t.seed, t.idBytes(i)), uint32(i+1)) // the same hash as maphash.String of the id
	}
}
