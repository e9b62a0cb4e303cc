package data

import (
	"math"

	"github.com/privopt/privopt/pkg/core/geom"
	"github.com/privopt/privopt/pkg/detmath"
)

// fitter brings rows within the declared norm bound (see Norm).
type fitter struct {
	p, radius     float64
	scale         float64 // the factor of every feature before fitting: c for FitScale, 1 for FitClip
	featureRadius float64 // Rz, the bound of the features' norm
	bias          bool    // whether a row's last coordinate is the bias
}

// Scaling is how Encode brings the features z of a row (numeric values in [0, 1], one-hot
// blocks) within the declared norm bound (see Norm): under FitScale every row is
// x = [Scale·z, b]; under FitClip Scale is 1 and a row with ‖z‖_P > FeatureRadius is shrunk
// onto that sphere. Both follow from the schema alone.
type Scaling struct {
	Scale, FeatureRadius float64
}

// Scaling returns the schema's Scaling (the schema must be valid).
func (s *Schema) Scaling() Scaling {
	m := 0
	for _, c := range s.Columns {
		if c.Kind.isFeature() {
			m++
		}
	}
	f := newFitter(s.Norm, m)
	return Scaling{Scale: f.scale, FeatureRadius: f.featureRadius}
}

// newFitter prepares the fit for rows made from m numeric and categorical columns.
func newFitter(n Norm, m int) *fitter {
	f := &fitter{p: n.P, radius: n.Radius, scale: 1, bias: n.Bias > 0}
	// share is (1 − (b/R)^P)^{1/P}, the part of the radius left to the features.
	share := 1.0
	switch {
	case math.IsInf(n.P, 1):
	case n.P == 2:
		r := n.Bias / n.Radius
		share = math.Sqrt(1 - r*r)
	default:
		share = detmath.PortablePow(1-detmath.PortablePow(n.Bias/n.Radius, n.P), 1/n.P)
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
			f.scale = f.featureRadius / detmath.PortablePow(float64(m), 1/n.P)
		}
	}
	return f
}

// fit makes the computed ‖x‖_P at most the radius by shrinking x's features (not the bias)
// when it is exceeded, and reports whether it shrank them. x is a dense row, or the entries of
// a sparse row (the bias, when there is one, last): a row's +0 entries change neither its
// computed norm nor what fit writes, so both give the same bits.
func (f *fitter) fit(x []float64) bool {
	if geom.Norm(x, f.p) <= f.radius {
		return false
	}
	z := x
	if f.bias {
		z = x[:len(x)-1]
	}
	c := f.featureRadius / geom.Norm(z, f.p)
	// Rounding can leave the computed norm a few ulps above the radius: shrink by 2^-52,
	// 2^-51, … more until it is not.
	for shrink := 0x1p-52; ; shrink *= 2 {
		for k := range z {
			z[k] *= c
		}
		if geom.Norm(x, f.p) <= f.radius {
			return true
		}
		c = 1 - shrink
	}
}
