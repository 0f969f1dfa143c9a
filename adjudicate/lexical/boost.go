package lexical

import (
	"fmt"
	"math"
	"sort"
)

// Boost is a gradient-boosted tree ensemble on top of the logistic model:
// logits = the logistic model's + the sum of every round's tree for that
// class. Trees are small (a few levels) and fitted on the raw features.
type Boost struct {
	LearningRate float64    `json:"learning_rate"`
	Trees        [][3]*Tree `json:"trees"` // per round: one tree per class
}

// Tree is a binary regression tree in flat form: node i splits on
// Feature[i] at Threshold[i] (x <= t goes Left), or is a leaf with Value[i]
// when Feature[i] < 0.
type Tree struct {
	Feature   []int     `json:"feature"`
	Threshold []float64 `json:"threshold"`
	Left      []int     `json:"left"`
	Right     []int     `json:"right"`
	Value     []float64 `json:"value"`
}

func (t *Tree) eval(x *[nf]float64) float64 {
	i := 0
	for t.Feature[i] >= 0 {
		if x[t.Feature[i]] <= t.Threshold[i] {
			i = t.Left[i]
		} else {
			i = t.Right[i]
		}
	}
	return t.Value[i]
}

// BoostOptions tune the ensemble; zero Rounds means no boosting.
type BoostOptions struct {
	Rounds       int
	Depth        int     // default 3
	LearningRate float64 // default 0.1
	Lambda       float64 // L2 on leaf values; default 1
	MinWeight    float64 // least hessian weight in a leaf; default 5
}

// boost fits the ensemble by Newton steps on the weighted cross-entropy
// (targets as in Fit), starting from the logistic model's logits. Splits
// are searched over every feature in index order and value order, so the
// result is deterministic.
func boost(base *Weights, xs [][nf]float64, targets [][3]bool, sw []float64, opts BoostOptions) *Boost {
	if opts.Depth == 0 {
		opts.Depth = 3
	}
	if opts.LearningRate == 0 {
		opts.LearningRate = 0.1
	}
	if opts.Lambda == 0 {
		opts.Lambda = 1
	}
	if opts.MinWeight == 0 {
		opts.MinWeight = 5
	}
	n := len(xs)
	z := make([][3]float64, n)
	for i := range xs {
		z[i] = base.Logits(xs[i])
	}
	order := make([][]int, nf) // samples sorted by each feature
	for j := 0; j < nf; j++ {
		o := make([]int, n)
		for i := range o {
			o[i] = i
		}
		sort.SliceStable(o, func(a, b int) bool { return xs[o[a]][j] < xs[o[b]][j] })
		order[j] = o
	}
	b := &Boost{LearningRate: opts.LearningRate}
	g, h := make([]float64, n), make([]float64, n)
	for r := 0; r < opts.Rounds; r++ {
		var round [3]*Tree
		p := make([][3]float64, n)
		for i := range z {
			m := math.Max(z[i][0], math.Max(z[i][1], z[i][2]))
			var e [3]float64
			sum := 0.0
			for k := 0; k < 3; k++ {
				e[k] = math.Exp(z[i][k] - m)
				sum += e[k]
			}
			for k := 0; k < 3; k++ {
				p[i][k] = e[k] / sum
			}
		}
		for k := 0; k < 3; k++ {
			for i := range z {
				q := 0.0
				if targets[i][k] {
					tsum := 0.0
					for c := 0; c < 3; c++ {
						if targets[i][c] {
							tsum += p[i][c]
						}
					}
					q = p[i][k] / tsum
				}
				g[i] = sw[i] * (p[i][k] - q)
				h[i] = sw[i] * math.Max(p[i][k]*(1-p[i][k]), 1e-6)
			}
			round[k] = growTree(xs, order, g, h, opts)
		}
		for i := range z {
			for k := 0; k < 3; k++ {
				z[i][k] += opts.LearningRate * round[k].eval(&xs[i])
			}
		}
		b.Trees = append(b.Trees, round)
	}
	return b
}

// growTree grows one regression tree level by level on gradients g and
// hessians h.
func growTree(xs [][nf]float64, order [][]int, g, h []float64, opts BoostOptions) *Tree {
	n := len(xs)
	t := &Tree{}
	node := make([]int, n) // the open node each sample sits in
	newNode := func() int {
		t.Feature = append(t.Feature, -1)
		t.Threshold = append(t.Threshold, 0)
		t.Left = append(t.Left, -1)
		t.Right = append(t.Right, -1)
		t.Value = append(t.Value, 0)
		return len(t.Feature) - 1
	}
	root := newNode()
	open := []int{root}
	leafValue := func(G, H float64) float64 { return -G / (H + opts.Lambda) }
	score := func(G, H float64) float64 { return G * G / (H + opts.Lambda) }
	for depth := 0; depth <= opts.Depth && len(open) > 0; depth++ {
		idx := map[int]int{} // node id → position in open
		for i, id := range open {
			idx[id] = i
		}
		G, H := make([]float64, len(open)), make([]float64, len(open))
		for i := 0; i < n; i++ {
			if pos, ok := idx[node[i]]; ok && node[i] >= 0 {
				G[pos] += g[i]
				H[pos] += h[i]
			}
		}
		type split struct {
			gain      float64
			feature   int
			threshold float64
		}
		best := make([]split, len(open))
		if depth < opts.Depth {
			gl, hl := make([]float64, len(open)), make([]float64, len(open))
			last := make([]float64, len(open))
			for j := 0; j < nf; j++ {
				for pos := range open {
					gl[pos], hl[pos], last[pos] = 0, 0, math.NaN()
				}
				for _, i := range order[j] {
					pos, ok := idx[node[i]]
					if !ok || node[i] < 0 {
						continue
					}
					v := xs[i][j]
					if !math.IsNaN(last[pos]) && v > last[pos] && hl[pos] >= opts.MinWeight && H[pos]-hl[pos] >= opts.MinWeight {
						gain := score(gl[pos], hl[pos]) + score(G[pos]-gl[pos], H[pos]-hl[pos]) - score(G[pos], H[pos])
						if gain > best[pos].gain+1e-12 {
							best[pos] = split{gain, j, (last[pos] + v) / 2}
						}
					}
					gl[pos] += g[i]
					hl[pos] += h[i]
					last[pos] = v
				}
			}
		}
		var next []int
		children := map[int][2]int{}
		for pos, id := range open {
			if best[pos].gain <= 0 {
				t.Value[id] = leafValue(G[pos], H[pos])
				continue
			}
			l, r := newNode(), newNode()
			t.Feature[id], t.Threshold[id], t.Left[id], t.Right[id] = best[pos].feature, best[pos].threshold, l, r
			children[id] = [2]int{l, r}
			next = append(next, l, r)
		}
		for i := 0; i < n; i++ {
			if c, ok := children[node[i]]; ok {
				if xs[i][t.Feature[node[i]]] <= t.Threshold[node[i]] {
					node[i] = c[0]
				} else {
					node[i] = c[1]
				}
			} else if _, open := idx[node[i]]; open {
				node[i] = -1 // settled in a leaf
			}
		}
		open = next
	}
	return t
}

// check reports a malformed tree: every split names a feature and two
// later nodes, every path ends in a leaf.
func (t *Tree) check() error {
	n := len(t.Feature)
	if n == 0 || len(t.Threshold) != n || len(t.Left) != n || len(t.Right) != n || len(t.Value) != n {
		return fmt.Errorf("tree: ragged or empty arrays")
	}
	for i := 0; i < n; i++ {
		if t.Feature[i] < 0 {
			continue
		}
		if t.Feature[i] >= nf || t.Left[i] <= i || t.Right[i] <= i || t.Left[i] >= n || t.Right[i] >= n {
			return fmt.Errorf("tree: node %d: feature %d, children %d and %d", i, t.Feature[i], t.Left[i], t.Right[i])
		}
	}
	for _, v := range append(append([]float64{}, t.Threshold...), t.Value...) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("tree: NaN or infinite value")
		}
	}
	return nil
}
