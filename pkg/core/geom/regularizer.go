package geom

import (
	"fmt"
	"math"
	"slices"

	"github.com/privopt/privopt/pkg/detmath"
)

// Regularizer is a strongly convex function r added to an objective (as λ·r in output
// perturbation, μ·r in the regularized exponential mechanism). Implementations: LpRegularizer
// and SchattenRegularizer.
type Regularizer interface {
	// Dim returns the dimension of the parameter vector.
	Dim() int
	// Value returns r(x).
	Value(x []float64) float64
	// Grad writes ∇r(x) into grad (same length as x; it may be x) and returns r(x).
	Grad(grad, x []float64) float64
	// Modulus returns σ ≥ 0 such that r is σ-strongly convex in the norm of exponent p:
	// r(y) ≥ r(x) + ⟨∇r(x), y − x⟩ + (σ/2)‖y − x‖² for all x, y. It is a proven lower bound
	// on the best modulus, stated by each implementation.
	Modulus(p float64) float64
	// Smoothness returns β such that ‖∇r(x) − ∇r(y)‖_{p*} ≤ β‖x − y‖ in the norm of exponent
	// p, or +Inf when ∇r is not Lipschitz.
	Smoothness(p float64) float64
	// Range returns Θ = max_C r − min_C r over the domain C exactly, or an error when C is
	// unbounded, the centre of r is outside C, or no exact formula is implemented for the pair.
	Range(dom Domain) (float64, error)
}

// LpRegularizer is r(x) = (S/2)·‖x − x0‖_q² on R^d with q ∈ (1, 2] and scale S > 0.
//
// By Ball, Carlen and Lieb (1994) (Gopi, Lee, Liu, Shen and Tian, Proposition 7), ‖v‖_q²/(2(q−1)) is 1-strongly
// convex in ℓq for 1 < q ≤ 2, so r is S(q−1)-strongly convex in ℓq. Build the regularizers of
// Gopi, Lee, Liu, Shen and Tian with NewLpRegularizer. An LpRegularizer is immutable and safe for concurrent use.
type LpRegularizer struct {
	q, s float64
	x0   []float64 // nil for the origin
	d    int
}

// NewLpRegularizer returns the regularizer of Gopi, Lee, Liu, Shen and Tian (Corollaries 2, 3 and 4) for the
// norm ℓp of a mechanism, centred at x0 (nil for the origin; copied), in dimension d:
//   - p ∈ (1, 2]: r(x) = ‖x − x0‖_p²/(2(p−1)), 1-strongly convex in ℓp (Corollary 2);
//   - p = 1: q = 1 + 1/ln d and r(x) = d^{2(1−1/q)}/(2(q−1))·‖x − x0‖_q², exactly
//     1-strongly convex in ℓ1, because ‖v‖₁ ≤ d^{1−1/q}‖v‖_q. Corollary 3 uses the cruder
//     d^{1−1/q} ≤ e and the scale e²; the scale here is smaller by e^{2/(1+ln d)} (1.44 at
//     d = 92), with the same modulus, so Θ is smaller by the same factor. It needs d ≥ 3
//     (so that q ≤ 2);
//   - p ≥ 2 (including +Inf): r(x) = ½‖x − x0‖₂², 1-strongly convex in ℓp because
//     ‖v‖_p ≤ ‖v‖₂ (Corollary 4).
//
// It returns an error for p ∉ [1, ∞], d < 1 (d < 3 when p = 1), or an x0 of the wrong length
// or with a non-finite entry.
func NewLpRegularizer(p float64, d int, x0 []float64) (*LpRegularizer, error) {
	q, s, err := regularizerShape(p, d)
	if err != nil {
		return nil, fmt.Errorf("geom: regularizer: %w", err)
	}
	return NewScaledLpRegularizer(q, s, d, x0)
}

// regularizerShape returns the exponent q and scale S of Gopi, Lee, Liu, Shen and Tian's regularizer for the norm ℓp in
// dimension d (d is the number of singular values for Schatten norms).
func regularizerShape(p float64, d int) (q, s float64, err error) {
	switch {
	case !(p >= 1):
		return 0, 0, fmt.Errorf("norm exponent %v not in [1, ∞]", p)
	case d < 1:
		return 0, 0, fmt.Errorf("dimension %d < 1", d)
	case p == 1:
		if d < 3 {
			return 0, 0, fmt.Errorf("p = 1 needs dimension ≥ 3 (q = 1 + 1/ln d ≤ 2), have %d; use p = 2", d)
		}
		q = 1 + 1/detmath.Log(float64(d))
		return q, pow(float64(d), 2*(1-1/q)) / (q - 1), nil
	case p <= 2:
		return p, 1 / (p - 1), nil
	}
	return 2, 1, nil
}

// NewScaledLpRegularizer returns r(x) = (s/2)‖x − x0‖_q² for q ∈ (1, 2] and s > 0 finite,
// centred at x0 (nil for the origin; copied) in dimension d ≥ 1. For example q = 2, s = λ is
// the ridge penalty (λ/2)‖x − x0‖₂².
func NewScaledLpRegularizer(q, s float64, d int, x0 []float64) (*LpRegularizer, error) {
	switch {
	case !(q > 1 && q <= 2):
		return nil, fmt.Errorf("geom: regularizer: exponent q = %v not in (1, 2]", q)
	case !(s > 0) || math.IsInf(s, 1):
		return nil, fmt.Errorf("geom: regularizer: scale %v is not a positive finite number", s)
	case d < 1:
		return nil, fmt.Errorf("geom: regularizer: dimension %d < 1", d)
	case x0 != nil && len(x0) != d:
		return nil, fmt.Errorf("geom: regularizer: centre has length %d, want %d", len(x0), d)
	case x0 != nil && !allFinite(x0):
		return nil, fmt.Errorf("geom: regularizer: centre has a non-finite entry")
	}
	r := &LpRegularizer{q: q, s: s, d: d}
	if x0 != nil && slices.ContainsFunc(x0, func(v float64) bool { return v != 0 }) {
		r.x0 = slices.Clone(x0)
	}
	return r, nil
}

// Q returns the exponent q of the norm in r.
func (r *LpRegularizer) Q() float64 { return r.q }

// Scale returns the scale S in r = (S/2)‖x − x0‖_q².
func (r *LpRegularizer) Scale() float64 { return r.s }

// Center returns a copy of x0 (nil for the origin).
func (r *LpRegularizer) Center() []float64 { return slices.Clone(r.x0) }

// Dim returns d.
func (r *LpRegularizer) Dim() int { return r.d }

// diff writes x − x0 into dst and returns dst.
func (r *LpRegularizer) diff(dst, x []float64) []float64 {
	if r.x0 == nil {
		copy(dst, x)
		return dst
	}
	for i := range dst {
		dst[i] = x[i] - r.x0[i]
	}
	return dst
}

// Value returns (S/2)‖x − x0‖_q². It allocates a scratch vector when x0 is not the origin.
func (r *LpRegularizer) Value(x []float64) float64 {
	v := x
	if r.x0 != nil {
		v = r.diff(make([]float64, len(x)), x)
	}
	n := Norm(v, r.q)
	return r.s / 2 * n * n
}

// Grad writes ∇r(x) = S·‖v‖_q·g into grad, where v = x − x0 and g = NormGrad(v) (so
// ∇r = S·v when q = 2), and returns r(x). r is differentiable everywhere for q ∈ (1, 2].
func (r *LpRegularizer) Grad(grad, x []float64) float64 {
	if len(grad) != len(x) {
		panic("geom: LpRegularizer.Grad: length mismatch")
	}
	v := r.diff(grad, x)
	n := NormGrad(grad, v, r.q)
	for i := range grad {
		grad[i] *= r.s * n
	}
	return r.s / 2 * n * n
}

// Modulus returns S(q−1)·c² with c = min_{v≠0} ‖v‖_q/‖v‖_p: c = 1 for p ≥ q and
// c = d^{−(1/p−1/q)} for p < q. This follows from the modulus S(q−1) in ℓq (Ball, Carlen and
// Lieb) and ‖v‖_q ≥ c‖v‖_p. For the p = 1 regularizer of NewLpRegularizer it is exactly 1.
func (r *LpRegularizer) Modulus(p float64) float64 {
	return r.s * (r.q - 1) * modulusFactor(p, r.q, r.d)
}

// modulusFactor returns c² with c = min_{v ≠ 0} ‖v‖_q/‖v‖_p in R^d.
func modulusFactor(p, q float64, d int) float64 {
	c := 1 / NormBound(1, q, p, d)
	return c * c
}

// Smoothness returns S·c² for q = 2, with c = NormBound(1, p, 2, d) (so that
// ‖v‖₂ ≤ c‖v‖_p), and +Inf for q < 2, whose gradient is not Lipschitz near the coordinate
// hyperplanes.
func (r *LpRegularizer) Smoothness(p float64) float64 {
	if r.q != 2 {
		return math.Inf(1)
	}
	c := NormBound(1, p, 2, r.d)
	return r.s * c * c
}

// Range returns Θ = max_C r − min_C r exactly. Because x0 must lie in C, min_C r = 0 and
// Θ = (S/2)·(max_{x∈C} ‖x − x0‖_q)². The maximum of the convex function ‖x − x0‖_q over C is:
//   - a Box: the separable sum Σ_i max(|Lo_i − x0_i|, |Hi_i − x0_i|)^q at the farthest
//     vertex;
//   - a Ball of exponent p, radius R and centre c, with x0 = c: R·d^{max(0, 1/q − 1/p)}
//     (e.g. Θ = D²/(2(p−1)) for Gopi, Lee, Liu, Shen and Tian's p ∈ (1, 2] on the ℓp ball of radius D, and
//     Θ = ½d^{1−2/p}D² for p ≥ 2);
//   - a Ball with q = p and x0 ≠ c: ‖x0 − c‖_q + R, attained at c + R(c − x0)/‖c − x0‖_q;
//   - a Ball with p = 1 and x0 ≠ c: the largest ‖c ± R·e_i − x0‖_q over the 2d vertices;
//   - a Ball with p = ∞: as the box c ± R.
//
// Any other pair (an unbounded domain, a Schatten ball, a ball of another exponent with
// x0 ≠ c, x0 outside C) returns an error rather than a bound.
func (r *LpRegularizer) Range(dom Domain) (float64, error) {
	if dom.Dim() != r.d {
		return 0, fmt.Errorf("geom: range: domain dimension %d, regularizer dimension %d", dom.Dim(), r.d)
	}
	x0 := r.x0
	if x0 == nil {
		x0 = make([]float64, r.d)
	}
	if !dom.Contains(x0) {
		return 0, fmt.Errorf("geom: range: the regularizer's centre is outside the domain")
	}
	var m float64 // max_C ‖x − x0‖_q
	switch c := dom.(type) {
	case *Box:
		m = farthestInBox(c.lo, c.hi, x0, r.q)
	case *Ball:
		centre := c.center
		if centre == nil {
			centre = make([]float64, r.d)
		}
		sameCentre := slices.Equal(centre, x0)
		switch {
		case sameCentre:
			m = NormBound(c.r, c.p, r.q, r.d)
		case c.p == r.q:
			u := make([]float64, r.d)
			for i := range u {
				u[i] = centre[i] - x0[i]
			}
			m = Norm(u, r.q) + c.r
		case c.p == 1:
			m = farthestL1Vertex(centre, x0, c.r, r.q)
		case math.IsInf(c.p, 1):
			lo, hi := make([]float64, r.d), make([]float64, r.d)
			for i := range lo {
				lo[i], hi[i] = centre[i]-c.r, centre[i]+c.r
			}
			m = farthestInBox(lo, hi, x0, r.q)
		default:
			return 0, fmt.Errorf("geom: range: no exact formula for ℓ%v regularizer on an ℓ%v ball not centred at the regularizer's centre", r.q, c.p)
		}
	default:
		return 0, fmt.Errorf("geom: range: no exact range of an ℓq regularizer on %T (unbounded or unsupported domain)", dom)
	}
	return r.s / 2 * m * m, nil
}

// farthestInBox returns max over the box of ‖x − x0‖_q: the norm of the vector of largest
// coordinate distances.
func farthestInBox(lo, hi, x0 []float64, q float64) float64 {
	u := make([]float64, len(lo))
	for i := range u {
		u[i] = math.Max(math.Abs(lo[i]-x0[i]), math.Abs(hi[i]-x0[i]))
	}
	return Norm(u, q)
}

// farthestL1Vertex returns max over the ℓ1 ball of centre c and radius rad of ‖x − x0‖_q:
// a convex function attains its maximum over a polytope at a vertex c ± rad·e_i. With
// v = c − x0 and S = Σ_j |v_j|^q, the vertex c ± rad·e_i gives S − |v_i|^q + |v_i ± rad|^q,
// so all 2d vertices cost O(d). The maximum is at least S, so the cancellation in
// S − |v_i|^q costs only a few ulps of the result. Entries are scaled by the largest of
// |v_j| and rad first, so no power overflows.
func farthestL1Vertex(c, x0 []float64, rad, q float64) float64 {
	m := rad
	for i := range c {
		m = math.Max(m, math.Abs(c[i]-x0[i]))
	}
	if m == 0 {
		return 0
	}
	sum := 0.0
	for i := range c {
		sum += pow(math.Abs(c[i]-x0[i])/m, q)
	}
	best := 0.0
	for i := range c {
		v := (c[i] - x0[i]) / m
		rest := sum - pow(math.Abs(v), q)
		t := math.Max(math.Abs(v+rad/m), math.Abs(v-rad/m))
		best = math.Max(best, rest+pow(t, q))
	}
	return m * pow(best, 1/q)
}
