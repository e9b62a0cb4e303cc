package geom

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// errSVD is returned when gonum's SVD does not converge (only seen with non-finite input).
var errSVD = errors.New("singular value decomposition did not converge")

// svd returns the thin SVD of the rows×cols matrix stored row-major in a (a is not
// modified): a = U·diag(σ)·Vᵀ with σ in decreasing order, U rows×k, V cols×k,
// k = min(rows, cols). U and V are computed only when vectors is true.
func svd(a []float64, rows, cols int, vectors bool) (sigma []float64, u, v *mat.Dense, err error) {
	if rows < 1 || cols < 1 || len(a) != rows*cols {
		return nil, nil, nil, fmt.Errorf("matrix of %d entries is not %d×%d", len(a), rows, cols)
	}
	if !allFinite(a) {
		return nil, nil, nil, errors.New("matrix has a non-finite entry")
	}
	kind := mat.SVDNone
	if vectors {
		kind = mat.SVDThin
	}
	var f mat.SVD
	if !f.Factorize(mat.NewDense(rows, cols, a), kind) {
		return nil, nil, nil, errSVD
	}
	sigma = f.Values(nil)
	if vectors {
		u, v = new(mat.Dense), new(mat.Dense)
		f.UTo(u)
		f.VTo(v)
	}
	return sigma, u, v, nil
}

// SchattenNorm returns the Schatten-p norm ‖A‖_{S_p} = ‖σ(A)‖_p of the rows×cols matrix A
// stored row-major in a, for p ∈ [1, ∞]: the trace norm for p = 1, the Frobenius norm for
// p = 2, the operator norm for p = ∞. Method: singular values from gonum's mat.SVD (accurate
// to a few ulps of σ₁), then Norm. It returns an error for a shape mismatch, a non-finite
// entry or an SVD failure.
func SchattenNorm(a []float64, rows, cols int, p float64) (float64, error) {
	if !(p >= 1) {
		return 0, fmt.Errorf("geom: Schatten norm: exponent %v not in [1, ∞]", p)
	}
	sigma, _, _, err := svd(a, rows, cols, false)
	if err != nil {
		return 0, fmt.Errorf("geom: Schatten norm: %w", err)
	}
	return Norm(sigma, p), nil
}

// SchattenBall is the ball {A ∈ R^{rows×cols} : ‖A‖_{S_p} ≤ R} centred at 0, over matrices
// stored row-major as vectors of length rows·cols. Build it with NewSchattenBall. It is
// immutable and safe for concurrent use.
type SchattenBall struct {
	rows, cols int
	p, r       float64
}

// NewSchattenBall returns the Schatten-p ball of radius r ≥ 0 (finite) in R^{rows×cols}.
func NewSchattenBall(rows, cols int, p, r float64) (*SchattenBall, error) {
	switch {
	case rows < 1 || cols < 1:
		return nil, fmt.Errorf("geom: Schatten ball: shape %d×%d", rows, cols)
	case !(p >= 1):
		return nil, fmt.Errorf("geom: Schatten ball: exponent %v not in [1, ∞]", p)
	case !(r >= 0) || math.IsInf(r, 1):
		return nil, fmt.Errorf("geom: Schatten ball: radius %v is not a finite non-negative number", r)
	}
	return &SchattenBall{rows: rows, cols: cols, p: p, r: r}, nil
}

// P returns the Schatten exponent of the ball.
func (b *SchattenBall) P() float64 { return b.p }

// R returns the radius of the ball.
func (b *SchattenBall) R() float64 { return b.r }

// Dim returns rows·cols.
func (b *SchattenBall) Dim() int { return b.rows * b.cols }

// Contains reports whether ‖A‖_{S_p} ≤ R (false on a non-finite entry or SVD failure).
func (b *SchattenBall) Contains(a []float64) bool {
	n, err := SchattenNorm(a, b.rows, b.cols, b.p)
	return err == nil && n <= b.r
}

// Radius returns an upper bound on sup ‖A‖_q over the ball, with ‖A‖_q the ℓq norm of the
// entries: sup ‖A‖_F = R·k^{max(0, 1/2 − 1/p)} (k = min(rows, cols)) exactly for q = 2, and
// that value converted by NormBound over rows·cols entries otherwise.
func (b *SchattenBall) Radius(q float64) float64 {
	k := min(b.rows, b.cols)
	return NormBound(NormBound(b.r, b.p, 2, k), 2, q, b.rows*b.cols)
}

// Project writes the Frobenius (Euclidean) projection of A onto the ball into dst.
//
// Method: the norm is unitarily invariant, so with A = U·diag(σ)·Vᵀ the projection is
// U·diag(σ')·Vᵀ with σ' the Euclidean projection of σ onto the ℓp ball of radius R
// (Lewis 1995); σ' is computed by Ball.Project (non-negative entries stay non-negative). The
// result is shrunk by a few ulps if rounding left it outside. With a non-finite entry in A,
// dst is filled with NaN.
func (b *SchattenBall) Project(dst, a []float64) {
	checkLen("SchattenBall", b.rows*b.cols, dst, a)
	if b.Contains(a) {
		copy(dst, a)
		return
	}
	sigma, u, v, err := svd(a, b.rows, b.cols, true)
	if err != nil {
		for i := range dst {
			dst[i] = math.NaN()
		}
		return
	}
	ball := &Ball{p: b.p, r: b.r, d: len(sigma)}
	ball.Project(sigma, sigma)
	reconstruct(dst, u, sigma, v)
	shrink := 0x1p-52
	for k := 0; k < 64 && !b.Contains(dst); k++ {
		for i := range dst {
			dst[i] *= 1 - shrink
		}
		shrink *= 2
	}
}

// reconstruct writes U·diag(s)·Vᵀ into dst (row-major).
func reconstruct(dst []float64, u *mat.Dense, s []float64, v *mat.Dense) {
	rows, k := u.Dims()
	cols, _ := v.Dims()
	us := mat.NewDense(rows, k, nil)
	us.Copy(u)
	for j, sj := range s {
		for i := 0; i < rows; i++ {
			us.Set(i, j, us.At(i, j)*sj)
		}
	}
	out := mat.NewDense(rows, cols, dst)
	out.Mul(us, v.T())
}

// SchattenRegularizer is r(A) = (S/2)·‖A − A0‖_{S_q}² over rows×cols matrices stored
// row-major, with q ∈ (1, 2] and scale S > 0. Like its vector analogue, ‖·‖_{S_q}²/(2(q−1))
// is 1-strongly convex in S_q for 1 < q ≤ 2 (Ball, Carlen and Lieb 1994; seed 000,
// Corollary 5). It is immutable and safe for concurrent use.
type SchattenRegularizer struct {
	rows, cols int
	q, s       float64
	a0         []float64 // nil for the zero matrix
}

// NewSchattenRegularizer returns seed 000's regularizer for the Schatten-p norm of a
// mechanism (Corollary 5), centred at a0 (nil for 0; copied), with k = min(rows, cols):
// for p ∈ (1, 2], ‖A − A0‖_{S_p}²/(2(p−1)); for p = 1, q = 1 + 1/ln k and scale
// k^{2(1−1/q)}/(q−1), exactly 1-strongly convex in S_1 (needs k ≥ 3; as for
// NewLpRegularizer this scale is below the paper's e²/(q−1)); for p ≥ 2, ½‖A − A0‖_F².
func NewSchattenRegularizer(p float64, rows, cols int, a0 []float64) (*SchattenRegularizer, error) {
	if rows < 1 || cols < 1 {
		return nil, fmt.Errorf("geom: Schatten regularizer: shape %d×%d", rows, cols)
	}
	q, s, err := seedShape(p, min(rows, cols))
	if err != nil {
		return nil, fmt.Errorf("geom: Schatten regularizer: %w", err)
	}
	return NewScaledSchattenRegularizer(q, s, rows, cols, a0)
}

// NewScaledSchattenRegularizer returns r(A) = (s/2)‖A − A0‖_{S_q}² for q ∈ (1, 2] and
// s > 0 finite, centred at a0 (nil for 0; copied).
func NewScaledSchattenRegularizer(q, s float64, rows, cols int, a0 []float64) (*SchattenRegularizer, error) {
	switch {
	case rows < 1 || cols < 1:
		return nil, fmt.Errorf("geom: Schatten regularizer: shape %d×%d", rows, cols)
	case !(q > 1 && q <= 2):
		return nil, fmt.Errorf("geom: Schatten regularizer: exponent q = %v not in (1, 2]", q)
	case !(s > 0) || math.IsInf(s, 1):
		return nil, fmt.Errorf("geom: Schatten regularizer: scale %v is not a positive finite number", s)
	case a0 != nil && len(a0) != rows*cols:
		return nil, fmt.Errorf("geom: Schatten regularizer: centre has length %d, want %d", len(a0), rows*cols)
	case a0 != nil && !allFinite(a0):
		return nil, fmt.Errorf("geom: Schatten regularizer: centre has a non-finite entry")
	}
	r := &SchattenRegularizer{rows: rows, cols: cols, q: q, s: s}
	if a0 != nil && slices.ContainsFunc(a0, func(v float64) bool { return v != 0 }) {
		r.a0 = slices.Clone(a0)
	}
	return r, nil
}

// Q returns the Schatten exponent q in r.
func (r *SchattenRegularizer) Q() float64 { return r.q }

// Scale returns the scale S in r = (S/2)‖A − A0‖_{S_q}².
func (r *SchattenRegularizer) Scale() float64 { return r.s }

// Dim returns rows·cols.
func (r *SchattenRegularizer) Dim() int { return r.rows * r.cols }

// diff writes A − A0 into dst and returns it.
func (r *SchattenRegularizer) diff(dst, a []float64) []float64 {
	for i := range dst {
		dst[i] = a[i]
		if r.a0 != nil {
			dst[i] -= r.a0[i]
		}
	}
	return dst
}

// Value returns (S/2)‖A − A0‖_{S_q}² (Frobenius without an SVD when q = 2). It returns NaN
// when A has a non-finite entry or the SVD fails; callers (the solvers) reject NaN.
func (r *SchattenRegularizer) Value(a []float64) float64 {
	d := r.diff(make([]float64, len(a)), a)
	if r.q == 2 {
		n := Norm(d, 2)
		return r.s / 2 * n * n
	}
	n, err := SchattenNorm(d, r.rows, r.cols, r.q)
	if err != nil {
		return math.NaN()
	}
	return r.s / 2 * n * n
}

// Grad writes ∇r(A) into grad and returns r(A). With A − A0 = U·diag(σ)·Vᵀ and n = ‖σ‖_q,
// ∇r = S·n·U·diag((σ/n)^{q−1})·Vᵀ, the gradient of a unitarily invariant function of the
// singular values (Lewis 1995); for q = 2 it is S·(A − A0). On a non-finite entry or an SVD
// failure grad is filled with NaN and NaN is returned.
func (r *SchattenRegularizer) Grad(grad, a []float64) float64 {
	if len(grad) != len(a) {
		panic("geom: SchattenRegularizer.Grad: length mismatch")
	}
	d := r.diff(grad, a)
	if r.q == 2 {
		n := Norm(d, 2)
		for i := range grad {
			grad[i] *= r.s
		}
		return r.s / 2 * n * n
	}
	sigma, u, v, err := svd(d, r.rows, r.cols, true)
	if err != nil {
		for i := range grad {
			grad[i] = math.NaN()
		}
		return math.NaN()
	}
	n := NormGrad(sigma, sigma, r.q) // σ ≥ 0, so the subgradient is (σ/n)^{q−1}
	for i := range sigma {
		sigma[i] *= r.s * n
	}
	reconstruct(grad, u, sigma, v)
	return r.s / 2 * n * n
}

// Modulus returns S(q−1)·c² in the Schatten-p norm, with c = min ‖σ‖_q/‖σ‖_p over
// σ ∈ R^k (k = min(rows, cols)): 1 for p ≥ q, k^{−(1/p−1/q)} for p < q. Exactly 1 for seed
// 000's regularizer at its own p. The Frobenius norm is Schatten-2.
func (r *SchattenRegularizer) Modulus(p float64) float64 {
	return r.s * (r.q - 1) * modulusFactor(p, r.q, min(r.rows, r.cols))
}

// Smoothness returns, in the Schatten-p norm, S·c² with c = NormBound(1, p, 2, k) for q = 2,
// and +Inf for q < 2.
func (r *SchattenRegularizer) Smoothness(p float64) float64 {
	if r.q != 2 {
		return math.Inf(1)
	}
	c := NormBound(1, p, 2, min(r.rows, r.cols))
	return r.s * c * c
}

// Range returns Θ = max_C r − min_C r exactly for C a SchattenBall (or an ℓ2 Ball centred at
// 0, which is the Schatten-2 ball) containing A0, so min_C r = 0: with the ball's exponent p
// and radius R, max ‖A − A0‖_{S_q} is R·k^{max(0, 1/q − 1/p)} when A0 = 0 (the singular
// values range over the ℓp ball of R^k) and ‖A0‖_{S_q} + R when q = p (attained at
// −R·A0/‖A0‖). Other pairs return an error.
func (r *SchattenRegularizer) Range(dom Domain) (float64, error) {
	if dom.Dim() != r.rows*r.cols {
		return 0, fmt.Errorf("geom: range: domain dimension %d, regularizer dimension %d", dom.Dim(), r.rows*r.cols)
	}
	var p, rad float64
	switch c := dom.(type) {
	case *SchattenBall:
		if c.rows != r.rows || c.cols != r.cols {
			return 0, fmt.Errorf("geom: range: Schatten ball of shape %d×%d, regularizer of shape %d×%d", c.rows, c.cols, r.rows, r.cols)
		}
		p, rad = c.p, c.r
	case *Ball:
		if c.p != 2 || c.center != nil {
			return 0, fmt.Errorf("geom: range: a Schatten regularizer needs a Schatten ball (or an ℓ2 ball centred at 0)")
		}
		p, rad = 2, c.r
	default:
		return 0, fmt.Errorf("geom: range: no exact range of a Schatten regularizer on %T (unbounded or unsupported domain)", dom)
	}
	a0 := r.a0
	if a0 == nil {
		a0 = make([]float64, r.rows*r.cols)
	}
	if !dom.Contains(a0) {
		return 0, fmt.Errorf("geom: range: the regularizer's centre is outside the domain")
	}
	var m float64
	switch {
	case r.a0 == nil:
		m = NormBound(rad, p, r.q, min(r.rows, r.cols))
	case p == r.q:
		n, err := SchattenNorm(r.a0, r.rows, r.cols, r.q)
		if err != nil {
			return 0, fmt.Errorf("geom: range: %w", err)
		}
		m = n + rad
	default:
		return 0, fmt.Errorf("geom: range: no exact formula for an S_%v regularizer centred away from the centre of an S_%v ball", r.q, p)
	}
	return r.s / 2 * m * m, nil
}
