package estimate

import "math"

// CohenKappa is Cohen's κ between two raters' categories on the same
// items (a[i] and b[i] rate item i): (p_o − p_e)/(1 − p_e). NaN when there
// are no items or the chance agreement p_e is 1.
func CohenKappa(a, b []string) float64 {
	if len(a) != len(b) {
		panic("estimate: CohenKappa of unequal lengths")
	}
	n := float64(len(a))
	if n == 0 {
		return math.NaN()
	}
	ca, cb := map[string]float64{}, map[string]float64{}
	var agree float64
	for i := range a {
		ca[a[i]]++
		cb[b[i]]++
		if a[i] == b[i] {
			agree++
		}
	}
	var pe float64
	for c, x := range ca {
		pe += x / n * cb[c] / n
	}
	if pe >= 1 {
		return math.NaN()
	}
	return (agree/n - pe) / (1 - pe)
}

// KrippendorffAlpha is Krippendorff's α for nominal data: units[u] holds
// the categories the raters gave unit u (any number of raters, missing
// ratings simply absent). Units with fewer than two ratings are not
// pairable and are left out. α = 1 − D_o/D_e over the coincidence matrix;
// NaN when fewer than two pairable values exist or every value is the same
// category (D_e = 0).
func KrippendorffAlpha(units [][]string) float64 {
	o := map[[2]string]float64{}
	nc := map[string]float64{}
	var n float64
	for _, u := range units {
		m := float64(len(u))
		if m < 2 {
			continue
		}
		for i := range u {
			for j := range u {
				if i != j {
					o[[2]string{u[i], u[j]}] += 1 / (m - 1)
				}
			}
			nc[u[i]]++
		}
		n += m
	}
	if n < 2 {
		return math.NaN()
	}
	var do, de float64
	for k, v := range o {
		if k[0] != k[1] {
			do += v
		}
	}
	for c, x := range nc {
		for k, y := range nc {
			if c != k {
				de += x * y
			}
		}
	}
	if de == 0 {
		return math.NaN()
	}
	return 1 - (n-1)*do/de
}
