package geom

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
)

// factors is a thin singular value decomposition A = U·diag(σ)·Vᵀ of a rows×cols matrix,
// k = min(rows, cols): σ in decreasing order, U (rows×k) and V (cols×k) row-major, or nil
// when only the singular values were asked for.
type factors struct {
	sigma      []float64
	u, v       []float64
	rows, cols int
}

// svd returns the thin SVD of the rows×cols matrix stored row-major in a (not modified), by
// one-sided Jacobi rotations (Hestenes 1958): columns of a working copy of A (of Aᵀ when A
// is wide) are rotated in pairs until every pair is orthogonal to working precision, which
// gives singular values with a small relative error (Demmel and Veselić 1992), here for the
// small K×d matrices of multinomial models. U and V are kept only when vectors is true. It
// returns an error for a shape mismatch, a non-finite entry, or no convergence in 60 sweeps.
func svd(a []float64, rows, cols int, vectors bool) (factors, error) {
	if rows < 1 || cols < 1 || len(a) != rows*cols {
		return factors{}, fmt.Errorf("matrix of %d entries is not %d×%d", len(a), rows, cols)
	}
	if !allFinite(a) {
		return factors{}, errors.New("matrix has a non-finite entry")
	}
	// Work on the tall orientation: B (m×n, m ≥ n) is A, or Aᵀ when A is wide; its columns
	// are stored as the rows of w (n rows of length m) so that a rotation touches two rows.
	wide := rows < cols
	m, n := rows, cols
	if wide {
		m, n = cols, rows
	}
	w := make([]float64, n*m)
	for i := range rows {
		for j := range cols {
			if wide {
				w[i*m+j] = a[i*cols+j] // column i of Aᵀ is row i of A
			} else {
				w[j*m+i] = a[i*cols+j]
			}
		}
	}
	var vt []float64 // the rotations accumulated: row j of vt is column j of V_B
	if vectors {
		vt = make([]float64, n*n)
		for j := range n {
			vt[j*n+j] = 1
		}
	}
	converged := false
	for sweep := 0; sweep < 60 && !converged; sweep++ {
		converged = true
		for p := 0; p < n-1; p++ {
			for q := p + 1; q < n; q++ {
				wp, wq := w[p*m:(p+1)*m], w[q*m:(q+1)*m]
				var alpha, beta, gamma float64
				for i := range wp {
					alpha += wp[i] * wp[i]
					beta += wq[i] * wq[i]
					gamma += wp[i] * wq[i]
				}
				if gamma == 0 || math.Abs(gamma) <= 0x1p-52*math.Sqrt(alpha*beta) {
					continue
				}
				converged = false
				zeta := (beta - alpha) / (2 * gamma)
				t := math.Copysign(1, zeta) / (math.Abs(zeta) + math.Hypot(1, zeta))
				c := 1 / math.Hypot(1, t)
				s := c * t
				rotate(wp, wq, c, s)
				if vectors {
					rotate(vt[p*n:(p+1)*n], vt[q*n:(q+1)*n], c, s)
				}
			}
		}
	}
	if !converged {
		return factors{}, errors.New("the Jacobi SVD did not converge in 60 sweeps")
	}
	order := make([]int, n)
	sigma := make([]float64, n)
	for j := range n {
		order[j] = j
		sigma[j] = Norm(w[j*m:(j+1)*m], 2)
	}
	slices.SortStableFunc(order, func(x, y int) int { return cmp.Compare(sigma[y], sigma[x]) })
	f := factors{sigma: make([]float64, n), rows: rows, cols: cols}
	for k, j := range order {
		f.sigma[k] = sigma[j]
	}
	if !vectors {
		return f, nil
	}
	// B = U_B·Σ·V_Bᵀ with U_B's columns w_j/σ_j and V_B's columns the rows of vt; A = B, or
	// A = Bᵀ = V_B·Σ·U_Bᵀ when A is wide.
	ub, vb := make([]float64, m*n), make([]float64, n*n)
	for k, j := range order {
		for i := range m {
			if sigma[j] > 0 {
				ub[i*n+k] = w[j*m+i] / sigma[j]
			}
		}
		for i := range n {
			vb[i*n+k] = vt[j*n+i]
		}
	}
	f.u, f.v = ub, vb
	if wide {
		f.u, f.v = vb, ub
	}
	return f, nil
}

// rotate replaces (x, y) by (c·x − s·y, s·x + c·y).
func rotate(x, y []float64, c, s float64) {
	y = y[:len(x)]
	for i, xi := range x {
		yi := y[i]
		x[i], y[i] = c*xi-s*yi, s*xi+c*yi
	}
}

// SchattenNorm returns the Schatten-p norm ‖A‖_{S_p} = ‖σ(A)‖_p of the rows×cols matrix A
// stored row-major in a, for p ∈ [1, ∞]: the trace norm for p = 1, the Frobenius norm for
// p = 2, the operator norm for p = ∞. Method: singular values by one-sided Jacobi (svd; a
// small relative error), then Norm. It returns an error for a shape mismatch, a non-finite
// entry or an SVD failure.
func SchattenNorm(a []float64, rows, cols int, p float64) (float64, error) {
	if !(p >= 1) {
		return 0, fmt.Errorf("geom: Schatten norm: exponent %v not in [1, ∞]", p)
	}
	f, err := svd(a, rows, cols, false)
	if err != nil {
		return 0, fmt.Errorf("geom: Schatten norm: %w", err)
	}
	return Norm(f.sigma, p), nil
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
	f, err := svd(a, b.rows, b.cols, true)
	if err != nil {
		for i := range dst {
			dst[i] = math.NaN()
		}
		return
	}
	ball := &Ball{p: b.p, r: b.r, d: len(f.sigma)}
	ball.Project(f.sigma, f.sigma)
	f.reconstruct(dst)
	shrink := 0x1p-52
	for k := 0; k < 64 && !b.Contains(dst); k++ {
		for i := range dst {
			dst[i] *= 1 - shrink
		}
		shrink *= 2
	}
}

// reconstruct writes U·diag(σ)·Vᵀ into dst (rows×cols, row-major).
func (f factors) reconstruct(dst []float64) {
	k := len(f.sigma)
	for i := range f.rows {
		for j := range f.cols {
			s := 0.0
			for l := range k {
				s += f.u[i*k+l] * f.sigma[l] * f.v[j*k+l]
			}
			dst[i*f.cols+j] = s
		}
	}
}

// SchattenRegularizer is r(A) = (S/2)·‖A − A0‖_{S_q}² over rows×cols matrices stored
// row-major, with q ∈ (1, 2] and scale S > 0. Like its vector analogue, ‖·‖_{S_q}²/(2(q−1))
// is 1-strongly convex in S_q for 1 < q ≤ 2 (Ball, Carlen and Lieb 1994; Gopi, Lee, Liu, Shen and Tian,
// Corollary 5). It is immutable and safe for concurrent use.
type SchattenRegularizer struct {
	rows, cols int
	q, s       float64
	a0         []float64 // nil for the zero matrix
}

// NewSchattenRegularizer returns Gopi, Lee, Liu, Shen and Tian's regularizer for the Schatten-p norm of a
// mechanism (Corollary 5), centred at a0 (nil for 0; copied), with k = min(rows, cols):
// for p ∈ (1, 2], ‖A − A0‖_{S_p}²/(2(p−1)); for p = 1, q = 1 + 1/ln k and scale
// k^{2(1−1/q)}/(q−1), exactly 1-strongly convex in S_1 (needs k ≥ 3; as for
// NewLpRegularizer this scale is below the paper's e²/(q−1)); for p ≥ 2, ½‖A − A0‖_F².
func NewSchattenRegularizer(p float64, rows, cols int, a0 []float64) (*SchattenRegularizer, error) {
	if rows < 1 || cols < 1 {
		return nil, fmt.Errorf("geom: Schatten regularizer: shape %d×%d", rows, cols)
	}
	q, s, err := regularizerShape(p, min(rows, cols))
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
	f, err := svd(d, r.rows, r.cols, true)
	if err != nil {
		for i := range grad {
			grad[i] = math.NaN()
		}
		return math.NaN()
	}
	n := NormGrad(f.sigma, f.sigma, r.q) // σ ≥ 0, so the subgradient is (σ/n)^{q−1}
	for i := range f.sigma {
		f.sigma[i] *= r.s * n
	}
	f.reconstruct(grad)
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
