package loss

import (
	"fmt"
	"math"

	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/geom"
)

// Robust is the adversarially robust linear classification loss for perturbations of the
// features in the ℓq ball of radius ρ (Lowy and Razaviyayn, §5.2, with a norm ball as the perturbation
// set):
//
//	ℓ_i(w) = max_{‖v‖_q ≤ ρ} φ(y_i⟨w, x_i + v⟩) = φ(y_i⟨w, x_i⟩ − ρ‖w‖_{q*}),
//
// the closed form holding because φ is non-increasing and min_{‖v‖_q≤ρ} y⟨w, v⟩ = −ρ‖w‖_{q*}.
// It is convex (a convex non-increasing φ of a concave function of w), with subgradient
// φ'(m)·(y·x − ρ·g), g ∈ ∂‖w‖_{q*} (geom.NormGrad), and not smooth (the norm has a kink at 0).
//
// It keeps references to the dataset's rows and Y and holds scratch vectors, so it is not
// safe for concurrent use: build one per goroutine. It reads every row dense (rows held sparse
// written out one at a time), with the dense loops' bits.
type Robust struct {
	phi     Margin
	rho, q  float64
	qd      float64   // q*: the norm of w in the margin
	x       denseRows // the rows held dense, when they are
	y       []float64
	sparse  *data.Sparse
	n, d    int
	b       Bounds
	normGrd []float64 // scratch: a subgradient of ‖·‖_{q*} at w
	row     []float64 // scratch: a row written out
}

// NewRobust returns the robust loss of the margin loss phi for perturbations of ℓq norm at
// most rho ≥ 0 (q ∈ [1, ∞]) over ds with the declared bounds b. Errors as for NewLinear, and
// for an invalid rho or q.
func NewRobust(phi Margin, rho, q float64, ds *data.Dataset, b Bounds) (*Robust, error) {
	switch {
	case phi == nil:
		return nil, fmt.Errorf("loss: robust: no margin loss")
	case !(rho >= 0) || math.IsInf(rho, 1):
		return nil, fmt.Errorf("loss: robust: radius %v is not a finite non-negative number", rho)
	case !(q >= 1):
		return nil, fmt.Errorf("loss: robust: perturbation norm exponent %v not in [1, ∞]", q)
	}
	if err := phi.Validate(); err != nil {
		return nil, fmt.Errorf("loss: robust: %w", err)
	}
	if err := checkData(ds, b, func(y float64) error { return phi.CheckLabel(y, b.Y) }); err != nil {
		return nil, fmt.Errorf("loss: robust %T: %w", phi, err)
	}
	return &Robust{phi: phi, rho: rho, q: q, qd: geom.Dual(q), x: denseOf(ds), y: ds.Y, sparse: entriesOf(ds), n: ds.N, d: ds.D,
		b: b, normGrd: make([]float64, ds.D), row: make([]float64, ds.D)}, nil
}

// Dim returns D.
func (r *Robust) Dim() int { return r.d }

// Len returns N.
func (r *Robust) Len() int { return r.n }

// Value returns φ(y_i⟨w, x_i⟩ − ρ‖w‖_{q*}).
func (r *Robust) Value(w []float64, i int) float64 {
	checkLen(w, r.d)
	m := r.y[i]*dot(denseRow(r.x, r.sparse, i, r.d, r.row), w) - r.rho*geom.Norm(w, r.qd)
	return r.phi.MarginValue(m)
}

// Grad writes φ'(m)·(y_i·x_i − ρ·g) into grad, g ∈ ∂‖w‖_{q*}, and returns ℓ_i(w).
func (r *Robust) Grad(grad, w []float64, i int) float64 {
	checkLen(w, r.d)
	checkLen(grad, r.d)
	row := denseRow(r.x, r.sparse, i, r.d, r.row)
	y := r.y[i]
	m := y*dot(row, w) - r.rho*geom.NormGrad(grad, w, r.qd)
	v, dphi := r.phi.MarginDeriv(m)
	grad = grad[:len(row)]
	for j, xj := range row {
		grad[j] = dphi * (y*xj - r.rho*grad[j])
	}
	return v
}

// Mean returns (1/N)Σ ℓ_i(w) (N as in Loss.Mean) and, if grad is not nil, writes the mean
// subgradient (1/N)Σ φ'(m_i)y_i x_i − ρ·((1/N)Σ φ'(m_i))·g into it; the norm and g are computed once.
func (r *Robust) Mean(grad, w []float64) float64 {
	checkLen(w, r.d)
	if grad != nil {
		checkLen(grad, r.d)
		clear(grad)
	}
	nw := geom.NormGrad(r.normGrd, w, r.qd)
	sum, sumD := 0.0, 0.0
	for i := 0; i < r.n; i++ {
		row := denseRow(r.x, r.sparse, i, r.d, r.row)
		y := r.y[i]
		m := y*dot(row, w) - r.rho*nw
		if grad == nil {
			sum += r.phi.MarginValue(m)
			continue
		}
		v, dphi := r.phi.MarginDeriv(m)
		sum += v
		sumD += dphi
		if dphi != 0 {
			axpy(grad, dphi*y, row)
		}
	}
	inv := 1 / r.b.divisor(r.n)
	if grad != nil {
		axpy(grad, -r.rho*sumD, r.normGrd)
		scale(grad, inv)
	}
	return sum * inv
}

// Constants returns, in ℓp on dom (feature bound inflated by 2·Slack):
//   - Lipschitz G = |φ'(−Z)|·(X_{p*} + ρ·NormBound(1, q, p*, D)), where X_{p*} bounds ‖x‖_{p*},
//     the norm subgradient has ‖g‖_q ≤ 1 hence ‖g‖_{p*} ≤ NormBound(1, q, p*, D), and
//     Z = X·sup_dom‖w‖_{XNorm*} + ρ·sup_dom‖w‖_{q*} bounds |m|. In ℓ2 with ℓ2 data and ℓ2
//     perturbations this is |φ'|·(X + ρ);
//   - Smoothness +Inf (‖w‖_{q*} is not differentiable at 0);
//   - StrongConvexity 0.
func (r *Robust) Constants(dom geom.Domain, p float64) (Constants, error) {
	if err := checkDomain(dom, r.d, p); err != nil {
		return Constants{}, fmt.Errorf("loss: constants: %w", err)
	}
	xb := r.b.xBound()
	z := predictionRange(xb, r.b.XNorm, dom)
	if r.rho > 0 {
		z += r.rho * dom.Radius(r.qd)
	}
	pd := geom.Dual(p)
	xd := geom.NormBound(xb, r.b.XNorm, pd, r.d) + r.rho*geom.NormBound(1, r.q, pd, r.d)
	c, err := linearConstants(r.phi.Slope(z, r.b.Y), math.Inf(1), xd, p, fmt.Sprintf("robust %T", r.phi))
	return c, err
}
