package data

import "math"

// fitter brings rows within the declared norm bound (see Norm).
type fitter struct {
	p, radius     float64
	scale         float64 // the factor of every feature before fitting: c for FitScale, 1 for FitClip
	featureRadius float64 // Rz, the bound of the features' norm
	features      int     // the number of features before the bias coordinate
}

// newFitter prepares the fit for rows of d coordinates made from m numeric and categorical
// columns.
func newFitter(n Norm, m, d int) *fitter {
	f := &fitter{p: n.P, radius: n.Radius, scale: 1, features: d}
	if n.Bias > 0 {
		f.features--
	}
	// share is (1 − (b/R)^P)^{1/P}, the part of the radius left to the features.
	share := 1.0
	switch {
	case math.IsInf(n.P, 1):
	case n.P == 2:
		r := n.Bias / n.Radius
		share = math.Sqrt(1 - r*r)
	default:
		share = math.Pow(1-math.Pow(n.Bias/n.Radius, n.P), 1/n.P)
	}
	f.featureRadius = n.Radius * share
	if n.Fit == FitScale {
		// ‖z‖_P ≤ m^{1/P}, so c = Rz/m^{1/P}.
		switch {
		case math.IsInf(n.P, 1):
			f.scale = f.featureRadius
		case n.P == 2:
			f.scale = f.featureRadius / math.Sqrt(float64(m))
		default:
			f.scale = f.featureRadius / math.Pow(float64(m), 1/n.P)
		}
	}
	return f
}

// fit makes the computed ‖x‖_P at most the radius by shrinking x's features (not the bias)
// when it is exceeded, and reports whether it shrank them.
func (f *fitter) fit(x []float64) bool {
	if pnorm(x, f.p) <= f.radius {
		return false
	}
	z := x[:f.features]
	c := f.featureRadius / pnorm(z, f.p)
	// Rounding can leave the computed norm a few ulps above the radius: shrink by 2^-52,
	// 2^-51, … more until it is not.
	for shrink := 0x1p-52; ; shrink *= 2 {
		for k := range z {
			z[k] *= c
		}
		if pnorm(x, f.p) <= f.radius {
			return true
		}
		c = 1 - shrink
	}
}

// pnorm returns ‖x‖_p for p ≥ 1 or p = +Inf. For p other than 1, 2 and ∞ it divides by the
// largest magnitude first, so that no power overflows or underflows to a wrong result.
func pnorm(x []float64, p float64) float64 {
	switch {
	case p == 1:
		s := 0.0
		for _, v := range x {
			s += math.Abs(v)
		}
		return s
	case p == 2:
		s := 0.0
		for _, v := range x {
			s += v * v
		}
		return math.Sqrt(s)
	}
	m := 0.0
	for _, v := range x {
		m = max(m, math.Abs(v))
	}
	if math.IsInf(p, 1) || m == 0 {
		return m
	}
	s := 0.0
	for _, v := range x {
		s += math.Pow(math.Abs(v)/m, p)
	}
	return m * math.Pow(s, 1/p)
}
