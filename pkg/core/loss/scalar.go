package loss

import (
	"fmt"
	"github.com/privopt/privopt/pkg/detmath"
	"math"
)

// Scalar is a loss ℓ(z, y) of a linear prediction z = ⟨w, x⟩ and a label y, convex in z.
// Linear turns it into a Loss. A new linear-model loss needs only these methods.
type Scalar interface {
	// Value returns ℓ(z, y).
	Value(z, y float64) float64
	// Deriv returns ℓ(z, y) and a derivative ∂ℓ/∂z (a subgradient at a kink).
	Deriv(z, y float64) (value, deriv float64)
	// Slope returns sup |∂ℓ/∂z| over |z| ≤ zmax and admissible labels with |y| ≤ ymax
	// (zmax and ymax may be +Inf; the result is +Inf when the loss is not Lipschitz there).
	Slope(zmax, ymax float64) float64
	// Curvature returns sup ∂²ℓ/∂z² over all z and labels, or +Inf when ∂ℓ/∂z is not
	// Lipschitz.
	Curvature() float64
	// Validate returns an error if the loss's own parameters are invalid.
	Validate() error
	// CheckLabel returns an error if y is not an admissible label (given |y| ≤ ymax for
	// regression).
	CheckLabel(y, ymax float64) error
}

// scalarsInto evaluates s on a block of predictions: for every i < len(z) it writes
// s.Value(z[i], y[i]) into v[i] when dz is nil, s.Deriv(z[i], y[i]) into (v[i], dz[i]) when
// neither is nil, and Deriv's second result into dz[i] when v is nil, the same bits as those
// methods (y is at least as long as z, v and dz when not nil too). A loss whose evaluation
// has a loop of its own (Logistic) then makes one call per block, not one per row; it is a
// function, not an interface method, so that the blocks stay on the caller's stack.
func scalarsInto(s Scalar, v, dz, z, y []float64) {
	if l, ok := s.(Logistic); ok {
		l.scalars(v, dz, z, y)
		return
	}
	y = y[:len(z)]
	for i, zi := range z {
		switch {
		case dz == nil:
			v[i] = s.Value(zi, y[i])
		case v == nil:
			_, dz[i] = s.Deriv(zi, y[i])
		default:
			v[i], dz[i] = s.Deriv(zi, y[i])
		}
	}
}

// Margin is a classification loss ℓ(z, y) = φ(y·z) for labels y ∈ {−1, +1}, with φ convex
// and non-increasing (so the robust loss of Robust is convex). For a margin loss,
// Slope(zmax, ·) = |φ'(−zmax)|, since |φ'| is non-increasing.
type Margin interface {
	Scalar
	// MarginValue returns φ(m).
	MarginValue(m float64) float64
	// MarginDeriv returns φ(m) and a derivative φ'(m) ≤ 0 (a subgradient at a kink).
	MarginDeriv(m float64) (value, deriv float64)
}

// checkSign accepts only the labels −1 and +1.
func checkSign(y float64) error {
	if y != 1 && y != -1 {
		return fmt.Errorf("label %v is not −1 or +1", y)
	}
	return nil
}

// checkTarget accepts a finite regression target with |y| ≤ ymax.
func checkTarget(y, ymax float64) error {
	if math.IsNaN(y) || math.IsInf(y, 0) {
		return fmt.Errorf("target %v is not finite", y)
	}
	if math.Abs(y) > ymax {
		return fmt.Errorf("target %v exceeds the declared bound |y| ≤ %v", y, ymax)
	}
	return nil
}

// Logistic is the logistic loss φ(m) = log(1 + e^{−m}) of the margin m = y·z, y ∈ {−1, +1}.
// φ'(m) = −1/(1 + e^m) ∈ (−1, 0), φ” ≤ 1/4 (at m = 0). Computed as
// max(−m, 0) + log1p(e^{−|m|}): a few ulps of error and no overflow for any m.
type Logistic struct{}

// MarginValue returns log(1 + e^{−m}).
func (Logistic) MarginValue(m float64) float64 {
	return math.Max(-m, 0) + detmath.Log1p(detmath.Exp(-math.Abs(m)))
}

// MarginDeriv returns log(1 + e^{−m}) and −1/(1 + e^m).
func (Logistic) MarginDeriv(m float64) (float64, float64) {
	e := detmath.Exp(-math.Abs(m))
	return math.Max(-m, 0) + detmath.Log1p(e), -logisticSigmoid(m, e)
}

// logisticSigmoid returns 1/(1 + e^m) given e = e^{−|m|}, without overflow for any m.
func logisticSigmoid(m, e float64) float64 {
	r := 1 / (1 + e) // 1/(1 + e^{−|m|})
	if m > 0 {
		return r * e // e^{−m}/(1 + e^{−m}) = 1/(1 + e^m)
	}
	return r
}

// scalars is scalarsInto for the logistic loss: the derivatives without the logarithm of the
// value when v is nil. The exponentials e^{−|m|} of a block come from one detmath.ExpInto and
// the logarithms log(1 + e^{−|m|}) from one detmath.Log1pInto (their assembly under
// WebAssembly), with Exp's and Log1p's bits; max(−m, 0) is a comparison (math.Max is a call
// under WebAssembly), whose bits are math.Max's except for a NaN m, where v is a NaN either way.
func (Logistic) scalars(v, dz, z, y []float64) {
	y = y[:len(z)]
	var eb, lb [rowBlock]float64
	for lo := 0; lo < len(z); lo += rowBlock {
		zs, ys := z[lo:min(lo+rowBlock, len(z))], y[lo:]
		e, l := eb[:len(zs)], lb[:len(zs)]
		for i, zi := range zs {
			e[i] = -math.Abs(ys[i] * zi)
		}
		detmath.ExpInto(e, e)
		if v != nil {
			detmath.Log1pInto(l, e)
		}
		for i, zi := range zs {
			m := ys[i] * zi
			if v != nil {
				pos := 0.0
				if -m > 0 {
					pos = -m
				}
				v[lo+i] = pos + l[i]
			}
			if dz != nil {
				dz[lo+i] = ys[i] * -logisticSigmoid(m, e[i])
			}
		}
	}
}

// Value returns φ(y·z).
func (l Logistic) Value(z, y float64) float64 { return l.MarginValue(y * z) }

// Deriv returns φ(y·z) and y·φ'(y·z).
func (l Logistic) Deriv(z, y float64) (float64, float64) {
	v, d := l.MarginDeriv(y * z)
	return v, y * d
}

// Slope returns |φ'(−zmax)| = 1/(1 + e^{−zmax}) (1 for zmax = +Inf).
func (Logistic) Slope(zmax, _ float64) float64 { return 1 / (1 + detmath.Exp(-zmax)) }

// Curvature returns 1/4.
func (Logistic) Curvature() float64 { return 0.25 }

// Validate returns nil: the logistic loss has no parameters.
func (Logistic) Validate() error { return nil }

// CheckLabel accepts −1 and +1.
func (Logistic) CheckLabel(y, _ float64) error { return checkSign(y) }

// Hinge is the hinge loss φ(m) = max(0, 1 − m) of the margin m = y·z, y ∈ {−1, +1}. It is
// 1-Lipschitz in m and not smooth; the subgradient used at the kink m = 1 is 0.
type Hinge struct{}

// MarginValue returns max(0, 1 − m).
func (Hinge) MarginValue(m float64) float64 { return math.Max(0, 1-m) }

// MarginDeriv returns max(0, 1 − m) and −1 for m < 1, 0 otherwise.
func (Hinge) MarginDeriv(m float64) (float64, float64) {
	if m < 1 {
		return 1 - m, -1
	}
	return 0, 0
}

// Value returns φ(y·z).
func (h Hinge) Value(z, y float64) float64 { return h.MarginValue(y * z) }

// Deriv returns φ(y·z) and y·φ'(y·z).
func (h Hinge) Deriv(z, y float64) (float64, float64) {
	v, d := h.MarginDeriv(y * z)
	return v, y * d
}

// Slope returns 1 (|φ'(−zmax)| = 1 for every zmax ≥ 0).
func (Hinge) Slope(_, _ float64) float64 { return 1 }

// Curvature returns +Inf: the hinge is not smooth.
func (Hinge) Curvature() float64 { return math.Inf(1) }

// Validate returns nil: the hinge loss has no parameters.
func (Hinge) Validate() error { return nil }

// CheckLabel accepts −1 and +1.
func (Hinge) CheckLabel(y, _ float64) error { return checkSign(y) }

// SmoothHinge is the quadratically smoothed hinge of width H > 0, of the margin m = y·z:
// φ(m) = 0 for m ≥ 1, (1 − m)²/(2H) for 1 − H < m < 1, and 1 − m − H/2 for m ≤ 1 − H.
// It is 1-Lipschitz and (1/H)-smooth in m, and within H/2 of the hinge.
type SmoothHinge struct {
	// H is the smoothing width, positive and finite.
	H float64
}

// MarginValue returns φ(m).
func (s SmoothHinge) MarginValue(m float64) float64 {
	v, _ := s.MarginDeriv(m)
	return v
}

// MarginDeriv returns φ(m) and φ'(m) = max(−1, min(0, −(1 − m)/H)).
func (s SmoothHinge) MarginDeriv(m float64) (float64, float64) {
	switch u := 1 - m; {
	case u <= 0:
		return 0, 0
	case u < s.H:
		return u * u / (2 * s.H), -u / s.H
	default:
		return u - s.H/2, -1
	}
}

// Value returns φ(y·z).
func (s SmoothHinge) Value(z, y float64) float64 { return s.MarginValue(y * z) }

// Deriv returns φ(y·z) and y·φ'(y·z).
func (s SmoothHinge) Deriv(z, y float64) (float64, float64) {
	v, d := s.MarginDeriv(y * z)
	return v, y * d
}

// Slope returns |φ'(−zmax)| = min(1, (1 + zmax)/H).
func (s SmoothHinge) Slope(zmax, _ float64) float64 { return math.Min(1, (1+zmax)/s.H) }

// Curvature returns 1/H.
func (s SmoothHinge) Curvature() float64 { return 1 / s.H }

// Validate checks that H is positive and finite.
func (s SmoothHinge) Validate() error {
	if !(s.H > 0) || math.IsInf(s.H, 1) {
		return fmt.Errorf("smoothed hinge: width %v is not a positive finite number", s.H)
	}
	return nil
}

// CheckLabel accepts −1 and +1.
func (SmoothHinge) CheckLabel(y, _ float64) error { return checkSign(y) }

// Squared is the squared loss ℓ(z, y) = ½(z − y)² for regression. Its slope |z − y| is
// bounded only on a bounded domain with bounded targets: sup = zmax + ymax.
type Squared struct{}

// Value returns ½(z − y)².
func (Squared) Value(z, y float64) float64 { return 0.5 * (z - y) * (z - y) }

// Deriv returns ½(z − y)² and z − y.
func (Squared) Deriv(z, y float64) (float64, float64) {
	r := z - y
	return 0.5 * r * r, r
}

// Slope returns zmax + ymax.
func (Squared) Slope(zmax, ymax float64) float64 { return zmax + ymax }

// Curvature returns 1.
func (Squared) Curvature() float64 { return 1 }

// Validate returns nil: the squared loss has no parameters.
func (Squared) Validate() error { return nil }

// CheckLabel accepts finite targets with |y| ≤ ymax.
func (Squared) CheckLabel(y, ymax float64) error { return checkTarget(y, ymax) }

// Huber is the Huber loss of width Delta > 0 for regression, with r = z − y:
// ½r² for |r| ≤ Delta and Delta·(|r| − Delta/2) otherwise. Its slope is at most Delta,
// its curvature at most 1.
type Huber struct {
	// Delta is the width of the quadratic zone, positive and finite.
	Delta float64
}

// Value returns the Huber loss of z − y.
func (h Huber) Value(z, y float64) float64 {
	v, _ := h.Deriv(z, y)
	return v
}

// Deriv returns the Huber loss of r = z − y and its derivative max(−Delta, min(Delta, r)).
func (h Huber) Deriv(z, y float64) (float64, float64) {
	r := z - y
	if math.Abs(r) <= h.Delta {
		return 0.5 * r * r, r
	}
	return h.Delta * (math.Abs(r) - h.Delta/2), math.Copysign(h.Delta, r)
}

// Slope returns min(Delta, zmax + ymax).
func (h Huber) Slope(zmax, ymax float64) float64 { return math.Min(h.Delta, zmax+ymax) }

// Curvature returns 1.
func (Huber) Curvature() float64 { return 1 }

// Validate checks that Delta is positive and finite.
func (h Huber) Validate() error {
	if !(h.Delta > 0) || math.IsInf(h.Delta, 1) {
		return fmt.Errorf("Huber: width %v is not a positive finite number", h.Delta)
	}
	return nil
}

// CheckLabel accepts finite targets with |y| ≤ ymax.
func (Huber) CheckLabel(y, ymax float64) error { return checkTarget(y, ymax) }
