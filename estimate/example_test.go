package estimate

import "fmt"

// Ten claims, four reviewed by simple random sampling; the verifier's
// probability that each claim is false is known for all ten (they sum to
// 3.1). The classical estimate uses the four labels alone; PPI++ corrects
// the verifier's total by what the labels say about its errors.
func ExampleMean() {
	d := Design{Kind: Uniform, N: 10}
	sample := []Obs{ // A: the human label (1 = false), FA: the verifier's p(false)
		{A: 1, FA: 0.8}, {A: 0, FA: 0.1}, {A: 0, FA: 0.3}, {A: 1, FA: 0.6},
	}
	classical := Mean(d, 3.1, sample, false)
	ppi := Mean(d, 3.1, sample, true)
	fmt.Printf("classical %.3f ± %.3f\n", classical.Value, Z95*classical.SE)
	fmt.Printf("ppi       %.3f ± %.3f (lambda %.2f)\n", ppi.Value, Z95*ppi.SE, ppi.Lambda)
	// Output:
	// classical 0.500 ± 0.438
	// ppi       0.259 ± 0.163 (lambda 1.72)
}
