package geom

import (
	"fmt"
	"math"
	"slices"
)

// Domain is a closed convex set of parameters in R^d (d = Dim()), with its Euclidean
// projection. Implementations: Whole, Ball, Box and SchattenBall.
type Domain interface {
	// Dim returns the dimension d of the space the domain lives in.
	Dim() int
	// Contains reports whether x (of length d) lies in the domain, as computed in floating
	// point with the same norm routine the projection's final check uses, so
	// Contains(Project(x)) always holds. It is false if x holds a NaN.
	Contains(x []float64) bool
	// Project writes into dst the Euclidean projection argmin_{y ∈ C} ‖y − x‖₂ of x (to the
	// accuracy stated by the implementation) and guarantees Contains(dst) when x is finite.
	// dst and x must have length d; they may be the same slice but must not otherwise
	// overlap. Project panics on a length mismatch (a programming error).
	Project(dst, x []float64)
	// Radius returns an upper bound on sup_{x ∈ C} ‖x‖_p for p ∈ [1, ∞], +Inf when the domain
	// is unbounded. Each implementation states when the bound is exact.
	Radius(p float64) float64
}

// checkLen panics when dst or x does not have length d.
func checkLen(name string, d int, dst, x []float64) {
	if len(dst) != d || len(x) != d {
		panic(fmt.Sprintf("geom: %s.Project: lengths %d and %d, want %d", name, len(dst), len(x), d))
	}
}

// allFinite reports whether every entry of x is finite.
func allFinite(x []float64) bool {
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// Whole is the whole space R^D: the domain of an unconstrained problem.
type Whole struct {
	// D is the dimension.
	D int
}

// Dim returns D.
func (w Whole) Dim() int { return w.D }

// Contains reports whether x has length D and finite entries.
func (w Whole) Contains(x []float64) bool { return len(x) == w.D && allFinite(x) }

// Project copies x into dst (exact).
func (w Whole) Project(dst, x []float64) {
	checkLen("Whole", w.D, dst, x)
	copy(dst, x)
}

// Radius returns +Inf (exact).
func (w Whole) Radius(p float64) float64 { return math.Inf(1) }

// Ball is the ℓp ball {x ∈ R^d : ‖x − c‖_p ≤ R} for p ∈ [1, ∞]. Build it with NewBall.
// A Ball is immutable after construction and safe for concurrent use.
type Ball struct {
	p, r   float64
	center []float64 // nil for the origin
	d      int
}

// NewBall returns the ℓp ball of radius r ≥ 0 centred at center (nil for the origin) in
// R^d. It returns an error when p ∉ [1, ∞], r is negative, infinite or NaN, d < 1, or center
// has the wrong length or a non-finite entry. center is copied.
func NewBall(d int, p, r float64, center []float64) (*Ball, error) {
	switch {
	case d < 1:
		return nil, fmt.Errorf("geom: ball: dimension %d < 1", d)
	case !(p >= 1):
		return nil, fmt.Errorf("geom: ball: norm exponent %v not in [1, ∞]", p)
	case !(r >= 0) || math.IsInf(r, 1):
		return nil, fmt.Errorf("geom: ball: radius %v is not a finite non-negative number", r)
	case center != nil && len(center) != d:
		return nil, fmt.Errorf("geom: ball: centre has length %d, want %d", len(center), d)
	case center != nil && !allFinite(center):
		return nil, fmt.Errorf("geom: ball: centre has a non-finite entry")
	}
	b := &Ball{p: p, r: r, d: d}
	if center != nil && slices.ContainsFunc(center, func(v float64) bool { return v != 0 }) {
		b.center = slices.Clone(center)
	}
	return b, nil
}

// P returns the norm exponent of the ball.
func (b *Ball) P() float64 { return b.p }

// R returns the radius of the ball.
func (b *Ball) R() float64 { return b.r }

// Center returns a copy of the centre (nil for the origin).
func (b *Ball) Center() []float64 { return slices.Clone(b.center) }

// Dim returns d.
func (b *Ball) Dim() int { return b.d }

// Contains reports whether ‖x − c‖_p ≤ R, computed with Norm.
func (b *Ball) Contains(x []float64) bool {
	if len(x) != b.d {
		return false
	}
	if b.center == nil {
		return Norm(x, b.p) <= b.r
	}
	u := make([]float64, b.d)
	for i := range u {
		u[i] = x[i] - b.center[i]
	}
	return Norm(u, b.p) <= b.r
}

// Radius returns sup_{x ∈ B} ‖x‖_q: R·d^{max(0, 1/q − 1/p)} for a ball centred at the origin
// (exact: attained at a multiple of a basis vector when q ≥ p, of the all-ones vector when
// q < p). With a centre c it returns ‖c‖_q plus that value, which is exact when q = p and an
// upper bound otherwise.
func (b *Ball) Radius(q float64) float64 {
	r := NormBound(b.r, b.p, q, b.d)
	if b.center != nil {
		r += Norm(b.center, q)
	}
	return r
}

// Project writes the Euclidean projection of x onto the ball into dst.
//
// Method: with u = x − c and a = |u|, if ‖u‖_p ≤ R the answer is x. Otherwise:
//   - p = 2: u·R/‖u‖₂ (exact up to rounding);
//   - p = ∞: clamp each coordinate to [c_i − R, c_i + R] (exact);
//   - p = 1: the sorting method (Held, Wolfe and Crowder 1974; Duchi et al. 2008): sort a in
//     decreasing order, find the soft threshold θ with Σ max(a_i − θ, 0) = R exactly on the
//     active piece, and set y_i = sign(u_i)·max(a_i − θ, 0); O(d log d), exact up to rounding;
//   - 1 < p < ∞: the KKT conditions of min ½‖y − a‖² s.t. Σ y_i^p ≤ R^p are
//     y_i + λ·y_i^{p−1} = a_i with λ > 0 and Σ y_i^p = R^p. Each y_i(λ) is found by Newton's
//     method on a convex increasing function started from an upper bound (monotone
//     convergence, to full precision), and λ by Newton steps on the decreasing function
//     Σ y_i(λ)^p − R^p, safeguarded by bisection inside a bracket that starts as
//     [0, ‖a‖_{p*}/R^{p−1}] (at the right end every y_i ≤ (a_i/λ)^{1/(p−1)}, so the sum is at
//     most R^p), until a step changes λ by at most 2⁻⁵¹ relative.
//
// Every case ends with a check: if rounding left the result outside the ball (by a few
// ulps), it is shrunk toward the centre until Contains holds, so the result is always in
// the ball and within a few ulps (relative) of the exact projection.
func (b *Ball) Project(dst, x []float64) {
	checkLen("Ball", b.d, dst, x)
	if b.Contains(x) {
		copy(dst, x)
		return
	}
	if b.center != nil {
		for i := range dst {
			dst[i] = x[i] - b.center[i]
		}
		x = dst
	}
	switch {
	case b.p == 2:
		s := b.r / Norm(x, 2)
		for i := range dst {
			dst[i] = x[i] * s
		}
	case math.IsInf(b.p, 1):
		for i := range dst {
			dst[i] = math.Max(-b.r, math.Min(b.r, x[i]))
		}
	case b.p == 1:
		projectL1(dst, x, b.r)
	default:
		projectLp(dst, x, b.p, b.r)
	}
	if b.center != nil {
		for i := range dst {
			dst[i] += b.center[i]
		}
	}
	b.pullInside(dst)
}

// projectScaled writes into dst the projection of x onto the ℓ2 ball (p = 2) in the metric
// diag(s)⁻¹, argmin_{‖y − c‖₂ ≤ R} Σᵢ (yᵢ − xᵢ)²/sᵢ, within rounding and inside the ball (see
// ScaledProjection); it panics when s does not have length d.
func (b *Ball) projectScaled(dst, x, s []float64) {
	checkLen("Ball", b.d, dst, x)
	if len(s) != b.d {
		panic(fmt.Sprintf("geom: Ball.projectScaled: %d scales, want %d", len(s), b.d))
	}
	if b.Contains(x) {
		copy(dst, x)
		return
	}
	u := make([]float64, b.d)
	for i, v := range x {
		u[i] = v
		if b.center != nil {
			u[i] -= b.center[i]
		}
	}
	// With u = x − c outside the ball, the KKT conditions of min Σ (yᵢ − uᵢ)²/sᵢ s.t.
	// ‖y‖₂² ≤ R² are (yᵢ − uᵢ)/sᵢ + λyᵢ = 0 with λ > 0 and ‖y‖₂ = R: yᵢ(λ) = uᵢ/(1 + λsᵢ), and
	// λ is the root of ‖y(λ)‖₂ = R. The norm decreases in λ and lies between ‖u‖/(1 + λ·max s)
	// and ‖u‖/(1 + λ·min s), so the root lies in [e/max s, e/min s] with e = ‖u‖/R − 1 (one
	// point when s is constant: y = u/(1 + e) = u·R/‖u‖, the Euclidean projection).
	//
	// λ is found by Newton's method on ψ(λ) = 1/‖y(λ)‖ = q^(−1/2), started at the left end.
	// ψ is concave: q(λ) = ‖y(λ)‖² = Σ aᵢrᵢ² with aᵢ = (uᵢ/sᵢ)² and rᵢ = 1/(1/sᵢ + λ) > 0, so
	// q' = −2Σ aᵢrᵢ³, q'' = 6Σ aᵢrᵢ⁴ and
	// ψ'' = ¾q^(−5/2)q'² − ½q^(−3/2)q'' = 3q^(−5/2)·((Σ aᵢrᵢ³)² − (Σ aᵢrᵢ²)(Σ aᵢrᵢ⁴)) ≤ 0 by
	// Cauchy–Schwarz. So the tangent at a point left of the root meets 1/R left of the root
	// too: the iterates increase to the root (steps are cut at the right end against
	// rounding) and stop, when a step no longer increases λ, within rounding of it (at most
	// 100 steps). The final check, as in Project, pulls the result inside if rounding left it a
	// few ulps out. Only +, −, ×, ÷ and square roots are used, in a fixed order.
	clear(dst)
	if b.r > 0 {
		lo, hi := math.Inf(1), 0.0
		for _, v := range s {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		e := Norm(u, 2)/b.r - 1
		lam, last := e/hi, e/lo
		for it := 0; ; it++ {
			// y = u/(1 + λs), its norm, and −½·d‖y‖²/dλ = Σ yᵢ²sᵢ/(1 + λsᵢ).
			slope := 0.0
			for i, v := range u {
				t := 1 + lam*s[i]
				dst[i] = v / t
				slope += dst[i] * dst[i] * s[i] / t
			}
			n := Norm(dst, 2)
			if n <= b.r || it == 100 {
				break
			}
			// ψ(λ) = 1/‖y‖ has ψ' = Σ yᵢ²sᵢ/(1 + λsᵢ)/‖y‖³, and the Newton step to ψ = 1/R is
			// (1/R − 1/‖y‖)/ψ' = (‖y‖ − R)/R·‖y‖²/slope.
			next := math.Min(last, lam+(n-b.r)/b.r*(n*n/slope))
			if !(next > lam) {
				break
			}
			lam = next
		}
	}
	if b.center != nil {
		for i := range dst {
			dst[i] += b.center[i]
		}
	}
	b.pullInside(dst)
}

// pullInside shrinks y toward the centre by a few ulps at a time until Contains(y) holds.
// It is a no-op after an accurate projection except for rounding at the boundary.
func (b *Ball) pullInside(y []float64) {
	shrink := 0x1p-52
	for k := 0; k < 64 && !b.Contains(y); k++ {
		f := 1 - shrink
		for i := range y {
			c := 0.0
			if b.center != nil {
				c = b.center[i]
			}
			y[i] = c + (y[i]-c)*f
		}
		shrink *= 2
	}
	if !b.Contains(y) { // only reachable with non-finite input
		for i := range y {
			y[i] = math.NaN()
		}
	}
}

// projectL1 writes the Euclidean projection of x (with ‖x‖₁ > r) onto the ℓ1 ball of radius
// r centred at 0 into dst. dst may be x.
func projectL1(dst, x []float64, r float64) {
	if r == 0 {
		clear(dst)
		return
	}
	a := make([]float64, len(x))
	for i, v := range x {
		a[i] = math.Abs(v)
	}
	slices.Sort(a) // decreasing once reversed: ties are equal bits, so no order of them differs
	slices.Reverse(a)
	// θ_k = (Σ_{j≤k} a_j − r)/k; the active count is the largest k with a_k > θ_k.
	sum, theta := 0.0, 0.0
	for k, v := range a {
		sum += v
		t := (sum - r) / float64(k+1)
		if v > t {
			theta = t
		} else {
			break
		}
	}
	for i, v := range x {
		dst[i] = sign(v) * math.Max(math.Abs(v)-theta, 0)
	}
}

// projectLp writes the Euclidean projection of x (with ‖x‖_p > r) onto the ℓp ball of
// radius r centred at 0 into dst, for 1 < p < ∞. dst may be x.
func projectLp(dst, x []float64, p, r float64) {
	if r == 0 {
		clear(dst)
		return
	}
	// Work with a = |x|/r, so the target is Σ y_i^p = 1; signs and scale are restored at the end.
	a := make([]float64, len(x))
	for i, v := range x {
		a[i] = math.Abs(v) / r
	}
	y := make([]float64, len(x))
	// phi(λ) = Σ y_i(λ)^p − 1 and its derivative, filling y.
	phi := func(lam float64) (f, df float64) {
		f = -1
		for i, ai := range a {
			u := solveKKT(ai, lam, p)
			y[i] = u
			if u == 0 {
				continue
			}
			up1 := pow(u, p-1)
			f += up1 * u
			// y_i'(λ) = −u^{p−1}/(1 + λ(p−1)u^{p−2}).
			df -= p * up1 * up1 / (1 + lam*(p-1)*up1/u)
		}
		return f, df
	}
	lo, hi := 0.0, Norm(a, Dual(p)) // phi(lo) > 0 ≥ phi(hi)
	lam := hi
	for it := 0; it < 200; it++ {
		f, df := phi(lam)
		if f == 0 {
			break
		}
		if f > 0 {
			lo = lam
		} else {
			hi = lam
		}
		next := lam - f/df
		if !(next > lo && next < hi) {
			next = lo + (hi-lo)/2
		}
		if math.Abs(next-lam) <= 0x1p-51*lam {
			lam = next
			break
		}
		lam = next
	}
	phi(lam)
	for i, v := range x {
		dst[i] = sign(v) * y[i] * r
	}
}

// solveKKT returns the root u ∈ [0, a] of u + λ·u^{p−1} = a for a ≥ 0, λ ≥ 0, 1 < p < ∞.
// For p ≥ 2 the function u + λu^{p−1} is convex and increasing, and Newton's method started
// from the upper bound min(a, (a/λ)^{1/(p−1)}) decreases monotonically to the root. For
// 1 < p < 2 the same holds in the variable v = u^{p−1} (v^{1/(p−1)} + λv is convex and
// increasing), started from min(a^{p−1}, a/λ). Iteration stops when the iterate stops
// decreasing, i.e. at full floating-point precision.
func solveKKT(a, lam, p float64) float64 {
	if a == 0 || lam == 0 {
		return a
	}
	if p >= 2 {
		u := math.Min(a, pow(a/lam, 1/(p-1)))
		for it := 0; it < 100; it++ {
			up2 := pow(u, p-2)
			g := u + lam*up2*u - a
			if g <= 0 {
				return u
			}
			next := u - g/(1+lam*(p-1)*up2)
			if !(next < u) {
				return u
			}
			u = math.Max(next, 0)
		}
		return u
	}
	e := 1 / (p - 1)
	v := math.Min(pow(a, p-1), a/lam)
	for it := 0; it < 100; it++ {
		ve := pow(v, e)
		g := ve + lam*v - a
		if g <= 0 {
			break
		}
		next := v - g/(e*ve/v+lam)
		if !(next < v) {
			break
		}
		v = math.Max(next, 0)
	}
	return pow(v, e)
}

// ScaledProjection returns the projection onto dom in the metric of a positive diagonal
// matrix S⁻¹, S = diag(s), where dom has one: a function that writes into dst
//
//	argmin_{y ∈ C} Σᵢ (yᵢ − xᵢ)²/sᵢ
//
// for x and scales s of dom's dimension (every sᵢ > 0 and finite; s is not written), with
// Project's conventions on dst and x, within rounding of the exact projection, and with
// Contains(dst) when x is finite. A step θ⁺ = Π(θ − S·∇f(θ)) with this projection has exactly
// the minimisers of a convex f over C as its fixed points; the Euclidean projection does not
// when S is not a multiple of the identity. ScaledProjection returns nil for the domains that
// have no such projection here: ℓp balls with p ≠ 2 and Schatten balls.
func ScaledProjection(dom Domain) func(dst, x, s []float64) {
	switch c := dom.(type) {
	case Whole:
		return func(dst, x, _ []float64) { c.Project(dst, x) }
	case *Box:
		// The objective and the box are both separable, so each coordinate is minimised on its
		// interval alone, by clamping whatever sᵢ > 0: the Euclidean projection, exact.
		return func(dst, x, _ []float64) { c.Project(dst, x) }
	case *Ball:
		if c.p == 2 {
			return c.projectScaled
		}
	}
	return nil
}

// Box is the box {x : Lo_i ≤ x_i ≤ Hi_i}. Build it with NewBox. A Box is immutable after
// construction and safe for concurrent use.
type Box struct {
	lo, hi []float64
}

// NewBox returns the box [lo_1, hi_1] × … × [lo_d, hi_d]. It returns an error when the
// slices are empty or of different lengths, or an entry is non-finite or has lo_i > hi_i.
// The slices are copied.
func NewBox(lo, hi []float64) (*Box, error) {
	if len(lo) == 0 || len(lo) != len(hi) {
		return nil, fmt.Errorf("geom: box: bounds of lengths %d and %d", len(lo), len(hi))
	}
	for i := range lo {
		if !allFinite([]float64{lo[i], hi[i]}) || lo[i] > hi[i] {
			return nil, fmt.Errorf("geom: box: coordinate %d: [%v, %v] is not a finite interval", i, lo[i], hi[i])
		}
	}
	return &Box{lo: slices.Clone(lo), hi: slices.Clone(hi)}, nil
}

// Lo returns a copy of the lower bounds.
func (b *Box) Lo() []float64 { return slices.Clone(b.lo) }

// Hi returns a copy of the upper bounds.
func (b *Box) Hi() []float64 { return slices.Clone(b.hi) }

// Dim returns the number of coordinates.
func (b *Box) Dim() int { return len(b.lo) }

// Contains reports whether Lo_i ≤ x_i ≤ Hi_i for every i.
func (b *Box) Contains(x []float64) bool {
	if len(x) != len(b.lo) {
		return false
	}
	for i, v := range x {
		if !(v >= b.lo[i] && v <= b.hi[i]) {
			return false
		}
	}
	return true
}

// Project clamps each coordinate into [Lo_i, Hi_i]: the exact Euclidean projection.
func (b *Box) Project(dst, x []float64) {
	checkLen("Box", len(b.lo), dst, x)
	for i, v := range x {
		dst[i] = math.Max(b.lo[i], math.Min(b.hi[i], v))
	}
}

// Radius returns sup_{x ∈ box} ‖x‖_p = ‖(max(|Lo_i|, |Hi_i|))_i‖_p, exact (a norm is
// increasing in each |x_i|, and the box is a product of intervals).
func (b *Box) Radius(p float64) float64 {
	m := make([]float64, len(b.lo))
	for i := range m {
		m[i] = math.Max(math.Abs(b.lo[i]), math.Abs(b.hi[i]))
	}
	return Norm(m, p)
}
