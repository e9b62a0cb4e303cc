package loss

import (
	"fmt"
	"github.com/privopt/privopt/pkg/detmath"
	"math"

	"github.com/privopt/privopt/pkg/core/geom"
)

// Objective is the full-batch objective
//
//	F(w) = M_t(w) + λ·r(w),  M_t(w) = (1/t)·log((1/n)Σ_i exp(t·ℓ_i(w)))  (t > 0),
//	M_0(w) = (1/n)Σ_i ℓ_i(w),
//
// the empirical risk (t = 0) or the tilted empirical risk of Li, Beirami, Sanjabi and Smith
// (Lowy and Razaviyayn, §5.1), plus an optional regularizer. Tilting the regularized losses ℓ_i + λr
// gives the same F, since λr does not depend on i. ∇M_t = Σ_i ν_i∇ℓ_i with ν = softmax(t·ℓ)
// (a convex combination, so M_t keeps the Lipschitz constant of the ℓ_i); M_t is computed by
// log-sum-exp after subtracting max_i ℓ_i, so it never overflows, with log1p/expm1 when the
// tilt is small, so it stays accurate as t → 0 (where it tends to the mean).
//
// Here n is the loss's Len(). M_0 is the loss's Mean, which divides by the declared public
// number of rows instead when the loss's bounds declare one (Bounds.Rows); M_t (t > 0) has no
// such form, so a mechanism must not tilt a loss that declares one.
//
// Func, Grad and FuncGrad do not allocate (a Schatten regularizer's SVD aside). An Objective
// holds scratch space and is not safe for concurrent use.
type Objective struct {
	loss   Loss
	tilt   float64
	reg    geom.Regularizer
	lambda float64
	vals   []float64 // scratch: the n losses (tilted only)
	g      []float64 // scratch: one gradient (tilted, or the regularizer's)
}

// NewObjective returns F = M_t + λ·r for the loss l, tilt t ≥ 0 (0 for the plain mean) and
// regularizer reg scaled by lambda ≥ 0 (reg may be nil, then lambda must be 0). It returns an
// error for a negative or non-finite t or lambda, or a regularizer of the wrong dimension.
func NewObjective(l Loss, tilt float64, reg geom.Regularizer, lambda float64) (*Objective, error) {
	switch {
	case l == nil:
		return nil, fmt.Errorf("loss: objective: no loss")
	case !(tilt >= 0) || math.IsInf(tilt, 1):
		return nil, fmt.Errorf("loss: objective: tilt %v is not a finite non-negative number", tilt)
	case !(lambda >= 0) || math.IsInf(lambda, 1):
		return nil, fmt.Errorf("loss: objective: regularization weight %v is not a finite non-negative number", lambda)
	case reg == nil && lambda != 0:
		return nil, fmt.Errorf("loss: objective: weight %v without a regularizer", lambda)
	case reg != nil && reg.Dim() != l.Dim():
		return nil, fmt.Errorf("loss: objective: regularizer of dimension %d, loss of dimension %d", reg.Dim(), l.Dim())
	}
	o := &Objective{loss: l, tilt: tilt, reg: reg, lambda: lambda}
	if tilt > 0 || reg != nil {
		o.g = make([]float64, l.Dim())
	}
	if tilt > 0 {
		o.vals = make([]float64, l.Len())
	}
	return o, nil
}

// Dim returns the dimension of w.
func (o *Objective) Dim() int { return o.loss.Dim() }

// Func returns F(w).
func (o *Objective) Func(w []float64) float64 { return o.eval(nil, w) }

// Grad writes ∇F(w) into grad (gonum's optimize convention).
func (o *Objective) Grad(grad, w []float64) { o.eval(grad, w) }

// FuncGrad writes ∇F(w) into grad and returns F(w), in one pass over the data.
func (o *Objective) FuncGrad(grad, w []float64) float64 {
	checkLen(grad, o.Dim())
	return o.eval(grad, w)
}

// eval returns F(w) and, if grad is not nil, writes ∇F(w) into it.
func (o *Objective) eval(grad, w []float64) float64 {
	var f float64
	if o.tilt == 0 {
		f = o.loss.Mean(grad, w)
	} else {
		f = o.tilted(grad, w)
	}
	if o.reg == nil || o.lambda == 0 {
		return f
	}
	rv := o.reg.Grad(o.g, w) // the value through Grad, into scratch: no allocation
	if grad != nil {
		axpy(grad, o.lambda, o.g)
	}
	return f + o.lambda*rv
}

// tilted returns M_t(w) and, if grad is not nil, writes Σ ν_i∇ℓ_i(w) into it.
func (o *Objective) tilted(grad, w []float64) float64 {
	n := o.loss.Len()
	m := math.Inf(-1)
	for i := range o.vals {
		v := o.loss.Value(w, i)
		if math.IsNaN(v) {
			return math.NaN()
		}
		o.vals[i] = v
		m = math.Max(m, v)
	}
	// s = Σ exp(t(ℓ_i − m)) ∈ [1, n], and s/n − 1 = mean of expm1(t(ℓ_i − m)) without
	// cancellation, so log(s/n) is accurate both for small t (log1p) and large t (log).
	s, sm1 := 0.0, 0.0
	for _, v := range o.vals {
		s += detmath.Exp(o.tilt * (v - m))
		sm1 += math.Expm1(o.tilt * (v - m))
	}
	logMean := detmath.Log(s) - detmath.Log(float64(n))
	if s >= float64(n)/2 {
		logMean = detmath.Log1p(sm1 / float64(n))
	}
	f := m + logMean/o.tilt
	if grad == nil {
		return f
	}
	checkLen(grad, o.Dim())
	clear(grad)
	for i, v := range o.vals {
		nu := detmath.Exp(o.tilt*(v-m)) / s
		if nu == 0 {
			continue
		}
		o.loss.Grad(o.g, w, i)
		axpy(grad, nu, o.g)
	}
	return f
}

// Constants returns the constants of F on dom in the norm of exponent p:
//   - Lipschitz: the loss's G, for the data term only (M_t keeps G; the regularizer is
//     excluded because it cancels between neighbouring datasets);
//   - Smoothness: β + t·G² + λ·β_r, where β is the loss's smoothness and β_r the
//     regularizer's. For t > 0 the Hessian of M_t is Σν_i∇²ℓ_i + t·Cov_ν(∇ℓ_i), and
//     vᵀCov_ν(∇ℓ_i)v ≤ E_ν⟨∇ℓ_i, v⟩² ≤ G²‖v‖², so M_t is (β + tG²)-smooth (Lowy and Razaviyayn's
//     Lemma 5.3 states β + 2tG², which is looser). +Inf when any part is not smooth;
//   - StrongConvexity: μ + λ·σ_r(p), with μ the loss's (0 here) and σ_r the regularizer's
//     modulus; M_t is convex since log-sum-exp is convex and increasing in each argument.
func (o *Objective) Constants(dom geom.Domain, p float64) (Constants, error) {
	c, err := o.loss.Constants(dom, p)
	if err != nil {
		return Constants{}, err
	}
	if o.tilt > 0 {
		c.Smoothness += o.tilt * c.Lipschitz * c.Lipschitz
	}
	if o.reg != nil && o.lambda > 0 {
		c.Smoothness += o.lambda * o.reg.Smoothness(p)
		c.StrongConvexity += o.lambda * o.reg.Modulus(p)
	}
	return c, nil
}
