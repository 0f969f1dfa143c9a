package metrics

import (
	"math"
	"slices"
)

// radixMin is the length from which sortFloats and rankByConf sort by
// radix; shorter slices by comparison.
const radixMin = 512

// floatKey maps a float64 to a uint64 of the same order (negatives
// flipped whole, non-negatives with the sign bit set). NaN sorts past
// +Inf (the metrics refuse NaN inputs before they sort).
func floatKey(x float64) uint64 {
	b := math.Float64bits(x)
	if b>>63 != 0 {
		return ^b
	}
	return b | 1<<63
}

func keyFloat(k uint64) float64 {
	if k>>63 != 0 {
		return math.Float64frombits(k &^ (1 << 63))
	}
	return math.Float64frombits(^k)
}

// sortFloats sorts a ascending: for long slices an LSD radix sort of the
// values' order-preserving keys (a metric sorts a million probabilities
// per class and slice), else slices.Sort. -0 sorts before +0; equal
// values otherwise come out as slices.Sort leaves them (only values are
// kept, so the order among equals cannot show).
func sortFloats(a []float64) {
	if len(a) < radixMin {
		slices.Sort(a)
		return
	}
	keys := make([]uint64, len(a))
	for i, x := range a {
		keys[i] = floatKey(x)
	}
	keys, _ = radixSort(keys, nil)
	for i, k := range keys {
		a[i] = keyFloat(k)
	}
}

// radixSort sorts keys ascending, stably, moving vals (when not nil)
// with them, by bytes from the lowest; a byte every key shares is
// skipped. It returns the sorted keys and vals: the slices given or
// buffers of their length.
func radixSort(keys []uint64, vals []int32) ([]uint64, []int32) {
	if len(keys) == 0 {
		return keys, vals
	}
	tmpK := make([]uint64, len(keys))
	var tmpV []int32
	if vals != nil {
		tmpV = make([]int32, len(vals))
	}
	var count [256]int
	for shift := uint(0); shift < 64; shift += 8 {
		clear(count[:])
		for _, k := range keys {
			count[byte(k>>shift)]++
		}
		if count[byte(keys[0]>>shift)] == len(keys) {
			continue // every key has this byte
		}
		pos := 0
		for d := range count {
			c := count[d]
			count[d] = pos
			pos += c
		}
		for i, k := range keys {
			d := byte(k >> shift)
			tmpK[count[d]] = k
			if vals != nil {
				tmpV[count[d]] = vals[i]
			}
			count[d]++
		}
		keys, tmpK = tmpK, keys
		vals, tmpV = tmpV, vals
	}
	return keys, vals
}
