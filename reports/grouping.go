package reports

import "github.com/claimaudit/claimaudit/metrics"

// grouped is a partition's slices laid side by side in the outcomes
// themselves (groupInPlace): slice g is outs[spans[g][0]:spans[g][1]], its
// outcomes in index order, and temps[k] is the temperature of the outcome
// now at k.
type grouped struct {
	spans [][2]int
	temps []float64 // nil when the run has none
	// origin[k] is the index the outcome now at k had before grouping.
	origin []int32
}

// groupInPlace reorders outs so that each of p's slices is contiguous and
// in index order within (a stable counting sort; the outcomes in no slice
// go last), carrying in.Temperatures' order along: the slices are then
// evaluated where they lie instead of being copied out, which for the
// pooled sources alone would be a second copy of nearly every outcome.
// ungroup puts every outcome back where it was.
func groupInPlace(outs []metrics.Outcome, temps []float64, p metrics.Partition) grouped {
	start := make([]int, len(p.Names)+1)
	for _, g := range p.Group {
		if g >= 0 {
			start[g+1]++
		}
	}
	for g := range p.Names {
		start[g+1] += start[g]
	}
	gr := grouped{spans: make([][2]int, len(p.Names)), origin: make([]int32, len(outs))}
	for g := range p.Names {
		gr.spans[g] = [2]int{start[g], start[g+1]}
	}
	next, rest := start[:len(p.Names)], start[len(p.Names)]
	dest := make([]int32, len(outs))
	for i, g := range p.Group {
		if g >= 0 {
			dest[i] = int32(next[g])
			next[g]++
		} else {
			dest[i] = int32(rest)
			rest++
		}
		gr.origin[dest[i]] = int32(i)
	}
	if temps != nil {
		gr.temps = make([]float64, len(temps))
		for k, i := range gr.origin {
			gr.temps[k] = temps[i]
		}
	}
	permute(outs, dest)
	return gr
}

// ungroup puts outs back in the order groupInPlace found them.
func (gr grouped) ungroup(outs []metrics.Outcome) {
	permute(outs, gr.origin)
}

// span is slice g's outcomes and their temperatures.
func (gr grouped) span(outs []metrics.Outcome, g int) ([]metrics.Outcome, []float64) {
	lo, hi := gr.spans[g][0], gr.spans[g][1]
	if gr.temps == nil {
		return outs[lo:hi], nil
	}
	return outs[lo:hi], gr.temps[lo:hi]
}

// permute moves s[i] to s[to[i]] for every i, in place, following the
// permutation's cycles (each swap puts one element where it belongs).
// to is used up: it is the identity when permute returns.
func permute[T any](s []T, to []int32) {
	for i := range s {
		for int(to[i]) != i {
			j := to[i]
			s[i], s[j] = s[j], s[i]
			to[i], to[j] = to[j], to[i]
		}
	}
}
