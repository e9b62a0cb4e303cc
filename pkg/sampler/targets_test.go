package sampler

import (
	"math"
	"sort"

	"github.com/privopt/privopt/pkg/core/geom"
	"github.com/privopt/privopt/pkg/detmath"
)

// linearTarget is f(x) = (1/N)Σᵢ ⟨bᵢ, x⟩ with π = N(c − b̄/m, I/m) on Rᵈ exactly.
type linearTarget struct {
	b       [][]float64 // per-example coefficients
	mean    []float64   // b̄
	m       float64
	center  []float64
	gi      float64 // max ‖bᵢ‖
	dom     geom.Domain
	lipschi float64
}

func newLinearTarget(b [][]float64, m float64, center []float64) *linearTarget {
	d := len(b[0])
	t := &linearTarget{b: b, mean: make([]float64, d), m: m, center: center, dom: geom.Whole{D: d}}
	for _, bi := range b {
		norm := 0.0
		for j, v := range bi {
			t.mean[j] += v / float64(len(b))
			norm += v * v
		}
		t.gi = math.Max(t.gi, math.Sqrt(norm))
	}
	for _, v := range t.mean {
		t.lipschi += v * v
	}
	t.lipschi = math.Sqrt(t.lipschi)
	return t
}

func (t *linearTarget) Dim() int { return len(t.mean) }
func (t *linearTarget) Value(x []float64) float64 {
	s := 0.0
	for j, v := range x {
		s += t.mean[j] * v
	}
	return s
}
func (t *linearTarget) Grad(g, x []float64) float64 { copy(g, t.mean); return t.Value(x) }
func (t *linearTarget) NumExamples() int            { return len(t.b) }
func (t *linearTarget) ExampleValue(i int, x []float64) float64 {
	s := 0.0
	for j, v := range x {
		s += t.b[i][j] * v
	}
	return s
}
func (t *linearTarget) Constants() Constants {
	kind, radius := DomainOf(t.dom)
	return Constants{Lipschitz: t.lipschi, ExampleLipschitz: t.gi, ExampleRank: 1, StrongConvexity: t.m, Center: t.center, Domain: kind, Radius: radius}
}
func (t *linearTarget) Domain() geom.Domain { return t.dom }

// exactMean is the mean of the Gaussian target.
func (t *linearTarget) exactMean() []float64 {
	mu := make([]float64, len(t.mean))
	for j := range mu {
		c := 0.0
		if t.center != nil {
			c = t.center[j]
		}
		mu[j] = c - t.mean[j]/t.m
	}
	return mu
}

// oneDim is a one-dimensional target f(x) = (K/N)Σᵢ ℓ(x; aᵢ) with ℓ = |x − a| or the logistic
// loss log(1 + exp(−a·x)) (|a| ≤ 1), optionally on an interval (as a box, or as the ball
// [−hi, hi] when ball is set).
type oneDim struct {
	k, m    float64
	a       []float64
	logit   bool
	lo, hi  float64
	bounded bool
	ball    bool
	smooth  bool // declare the smoothness k/4 of the logistic terms (|a| ≤ 1)
}

func (t *oneDim) term(i int, x float64) (v, g float64) {
	a := t.a[i]
	if t.logit {
		z := -a * x
		// log(1 + e^z) and its derivative −a·σ(z), computed without overflow.
		v = math.Max(z, 0) + detmath.Log1p(detmath.Exp(-math.Abs(z)))
		return t.k * v, -t.k * a / (1 + detmath.Exp(-z))
	}
	if x >= a {
		return t.k * (x - a), t.k
	}
	return t.k * (a - x), -t.k
}

func (t *oneDim) Dim() int { return 1 }
func (t *oneDim) Value(x []float64) float64 {
	s := 0.0
	for i := range t.a {
		v, _ := t.term(i, x[0])
		s += v
	}
	return s / float64(len(t.a))
}
func (t *oneDim) Grad(g, x []float64) float64 {
	s, gs := 0.0, 0.0
	for i := range t.a {
		v, d := t.term(i, x[0])
		s, gs = s+v, gs+d
	}
	g[0] = gs / float64(len(t.a))
	return s / float64(len(t.a))
}
func (t *oneDim) NumExamples() int { return len(t.a) }
func (t *oneDim) ExampleValue(i int, x []float64) float64 {
	v, _ := t.term(i, x[0])
	return v
}
func (t *oneDim) Constants() Constants {
	c := Constants{Lipschitz: t.k, ExampleLipschitz: t.k, ExampleRank: 1, StrongConvexity: t.m}
	switch {
	case t.ball:
		c.Domain, c.Radius = BallDomain, t.hi
	case t.bounded:
		c.Domain = BoxDomain
	}
	if t.smooth {
		c.Smoothness = t.k / 4
	}
	return c
}
func (t *oneDim) Domain() geom.Domain {
	if t.ball {
		b, err := geom.NewBall(1, 2, t.hi, nil)
		if err != nil {
			panic(err) // the test targets' radii are valid
		}
		return b
	}
	if t.bounded {
		b, err := geom.NewBox([]float64{t.lo}, []float64{t.hi})
		if err != nil {
			panic(err) // the test targets' intervals are valid
		}
		return b
	}
	return geom.Whole{D: 1}
}

// quadrature is a density known up to a constant on a fine grid, with its CDF and moments.
type quadrature struct {
	xs, cdf    []float64
	mean, vari float64
}

// newQuadrature tabulates the density exp(−u(x)) on [lo, hi] with the trapezoid rule on n
// intervals (the grids used here make the CDF accurate to about 1e-9).
func newQuadrature(u func(float64) float64, lo, hi float64, n int) quadrature {
	q := quadrature{xs: make([]float64, n+1), cdf: make([]float64, n+1)}
	w := make([]float64, n+1)
	umin := math.Inf(1)
	for i := range q.xs {
		q.xs[i] = lo + (hi-lo)*float64(i)/float64(n)
		umin = math.Min(umin, u(q.xs[i]))
	}
	for i, x := range q.xs {
		w[i] = math.Exp(-(u(x) - umin))
	}
	h := (hi - lo) / float64(n)
	for i := 1; i <= n; i++ {
		q.cdf[i] = q.cdf[i-1] + h*(w[i]+w[i-1])/2
	}
	z := q.cdf[n]
	var m1, m2 float64
	for i := range q.cdf {
		q.cdf[i] /= z
		m1 += q.xs[i] * w[i] * h / z
		m2 += q.xs[i] * q.xs[i] * w[i] * h / z
	}
	q.mean, q.vari = m1, m2-m1*m1
	return q
}

// CDF interpolates the tabulated CDF linearly.
func (q quadrature) CDF(x float64) float64 {
	i := sort.SearchFloat64s(q.xs, x)
	switch {
	case i == 0:
		return 0
	case i >= len(q.xs):
		return 1
	}
	t := (x - q.xs[i-1]) / (q.xs[i] - q.xs[i-1])
	return q.cdf[i-1] + t*(q.cdf[i]-q.cdf[i-1])
}

// Quantile inverts the CDF (for starting chains exactly at the target).
func (q quadrature) Quantile(p float64) float64 {
	i := sort.SearchFloat64s(q.cdf, p)
	if i == 0 {
		return q.xs[0]
	}
	if i >= len(q.cdf) {
		return q.xs[len(q.xs)-1]
	}
	t := (p - q.cdf[i-1]) / (q.cdf[i] - q.cdf[i-1])
	return q.xs[i-1] + t*(q.xs[i]-q.xs[i-1])
}

// targetQuadrature tabulates π of a one-dimensional target.
func targetQuadrature(t *oneDim) quadrature {
	lo, hi := -12/math.Sqrt(t.m)-5, 12/math.Sqrt(t.m)+5
	if t.bounded {
		lo, hi = t.lo, t.hi
	}
	return newQuadrature(func(x float64) float64 { return t.Value([]float64{x}) + t.m/2*x*x }, lo, hi, 200000)
}

// normalCDF is Φ.
func normalCDF(x float64) float64 { return detmath.NormalCDF(x) }

// normalTail is Q(x) = 1 − Φ(x), accurate in the upper tail.
func normalTail(x float64) float64 { return detmath.NormalTail(x) }
