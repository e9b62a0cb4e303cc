package mech

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/privopt/privopt/pkg/core/geom"
	"github.com/privopt/privopt/pkg/core/loss"
	"github.com/privopt/privopt/pkg/rng"
)

// This file holds what the exact Gibbs samplers share (the exponential mechanism and the pure-ε
// Rashomon-set sampler): bounded domains with uniform proposals, a certified lower bound on the
// minimum of a convex mean loss, public bounds on the range of a loss, and the rejection loop.

// fpSlack is the relative amount by which computed bounds that shape a guarantee are rounded
// up (a diameter, a range): it exceeds the rounding error of the sums that form them (below
// d·2⁻⁵³ for d ≤ 10⁶).
const fpSlack = 1e-9

// boundedDomain is a bounded parameter domain on which proposals are drawn uniformly: a box or
// an ℓp ball (p ∈ [1, ∞]).
type boundedDomain struct {
	dom    geom.Domain
	lo, hi []float64  // a box
	ball   *geom.Ball // or a ball
	center []float64  // the ball's centre (zeros for the origin)
	diam   float64    // the ℓ2 diameter, rounded up
}

// newBoundedDomain returns the domain as a boundedDomain, or an error when it is not a box or
// an ℓp ball.
func newBoundedDomain(dom geom.Domain) (*boundedDomain, error) {
	switch b := dom.(type) {
	case *geom.Box:
		lo, hi := b.Lo(), b.Hi()
		width := make([]float64, len(lo))
		for i := range lo {
			width[i] = hi[i] - lo[i]
		}
		return &boundedDomain{dom: dom, lo: lo, hi: hi, diam: geom.Norm(width, 2) * (1 + fpSlack)}, nil
	case *geom.Ball:
		c := b.Center()
		if c == nil {
			c = make([]float64, b.Dim())
		}
		// sup ‖x − y‖₂ over the ball is 2·sup{‖v‖₂ : ‖v‖_p ≤ R}, attained at y = 2c − x.
		return &boundedDomain{dom: dom, ball: b, center: c, diam: 2 * geom.NormBound(b.R(), b.P(), 2, b.Dim()) * (1 + fpSlack)}, nil
	}
	if isWhole(dom) {
		return nil, errors.New("mech: exact Gibbs sampling needs a bounded domain (a box or an ℓp ball), not the whole space: use --domain ball or box with a --radius (on the page: Domain)")
	}
	return nil, fmt.Errorf("mech: exact Gibbs sampling needs a bounded domain (a box or an ℓp ball), not %T", dom)
}

// draw fills dst with a uniform point of the domain: independent uniform coordinates on a box,
// rng.LpBall scaled and shifted on a ball.
func (c *boundedDomain) draw(r *rng.Rand, dst []float64) error {
	if c.ball == nil {
		for i := range dst {
			dst[i] = math.Min(c.lo[i]+(c.hi[i]-c.lo[i])*r.Float64(), c.hi[i])
		}
		return nil
	}
	if err := r.LpBall(dst, c.ball.P()); err != nil {
		return fmt.Errorf("mech: uniform proposal: %w", err)
	}
	for i := range dst {
		dst[i] = c.center[i] + c.ball.R()*dst[i]
	}
	return nil
}

// minLinear returns min_{y ∈ C} ⟨g, y⟩: Σ min(g_i·lo_i, g_i·hi_i) on a box, ⟨g, c⟩ − R‖g‖_{p*}
// on the ℓp ball of centre c and radius R (Hölder's inequality, attained).
func (c *boundedDomain) minLinear(g []float64) float64 {
	s := 0.0
	if c.ball == nil {
		for i, v := range g {
			s += math.Min(v*c.lo[i], v*c.hi[i])
		}
		return s
	}
	for i, v := range g {
		s += v * c.center[i]
	}
	return s - c.ball.R()*geom.Norm(g, geom.Dual(c.ball.P()))
}

// minimum is the outcome of minimizing a convex mean loss F over a bounded domain C.
type minimum struct {
	// lower ≤ min_C F: the best Frank–Wolfe (linearization) bound met.
	lower float64
	// upper is the smallest value of F met at a point of C, so min_C F ≤ upper.
	upper float64
	// last is F at the last iterate x_K of an accelerated run that took all its iterations
	// (NaN otherwise); F(x_K) − min_C F ≤ 2βD²/(K + 1)².
	last       float64
	iterations int
}

// minimizeMean minimizes F = l.Mean over the bounded domain c, for at most iters iterations
// or until upper − lower ≤ gap, and returns certified bounds on min_C F.
//
// Method: for a β-smooth F (smooth finite), FISTA with step 1/β (Beck and Teboulle 2009),
// started at the projection of the origin; for a non-smooth F, projected subgradient descent
// with steps D/(G√(k+1)). Every point y where a gradient g is computed gives the lower bound
// F(y) + min_{y′∈C}⟨g, y′ − y⟩ ≤ min_C F, by convexity of F on the whole space (y need not lie
// in C), and every point of C gives an upper bound. The bounds hold in exact arithmetic for
// the computed values of F and g; their rounding (relative, about n·2⁻⁵³) is not included.
// For FISTA after K iterations, F(x_K) − min_C F ≤ 2β‖x₀ − x*‖²/(K + 1)² ≤ 2βD²/(K + 1)²
// (Beck and Teboulle 2009, Theorem 4.4), with D the ℓ2 diameter of C.
func minimizeMean(ctx context.Context, l loss.Loss, c *boundedDomain, smooth, lipschitz float64, iters int, gap float64) (minimum, error) {
	d := l.Dim()
	x, prev, y, g := make([]float64, d), make([]float64, d), make([]float64, d), make([]float64, d)
	c.dom.Project(x, x)
	copy(y, x)
	m := minimum{lower: math.Inf(-1), upper: math.Inf(1), last: math.NaN()}
	// bound evaluates F and its gradient at a point and updates the bounds.
	bound := func(at []float64) (float64, error) {
		f := l.Mean(g, at)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return f, errors.New("mech: the loss is not finite at a point the solver met")
		}
		lb := f + c.minLinear(g)
		for i, v := range g {
			lb -= v * at[i]
		}
		m.lower = math.Max(m.lower, lb)
		if c.dom.Contains(at) {
			m.upper = math.Min(m.upper, f)
		}
		return f, nil
	}
	t := 1.0
	for k := range iters {
		if err := ctx.Err(); err != nil {
			return m, err
		}
		m.iterations = k + 1
		// FISTA's extrapolated points leave C when the minimizer is on the boundary: then the
		// iterate x_k (in C) is evaluated every 8th iteration for the upper bound.
		if k%8 == 7 && !c.dom.Contains(y) {
			if _, err := bound(x); err != nil {
				return m, err
			}
		}
		if _, err := bound(y); err != nil {
			return m, err
		}
		if m.upper-m.lower <= gap {
			return m, nil
		}
		if math.IsInf(smooth, 1) {
			step := c.diam / (lipschitz * math.Sqrt(float64(k+1)))
			for i := range y {
				y[i] -= step * g[i]
			}
			c.dom.Project(y, y)
			continue
		}
		copy(prev, x)
		for i := range x {
			x[i] = y[i] - g[i]/smooth
		}
		c.dom.Project(x, x)
		tNext := (1 + math.Sqrt(1+4*t*t)) / 2
		for i := range y {
			y[i] = x[i] + (t-1)/tNext*(x[i]-prev[i])
		}
		t = tNext
	}
	if !math.IsInf(smooth, 1) && iters > 0 {
		f, err := bound(x)
		if err != nil {
			return m, err
		}
		m.last = f
	}
	return m, nil
}

// fistaIterations returns the number K of FISTA iterations whose a-priori bound 2βD²/(K + 1)²
// is at most gap.
func fistaIterations(smooth, diam, gap float64) (int, error) {
	k := math.Ceil(diam*math.Sqrt(2*smooth/gap)) - 1
	if !(k < 1<<31) {
		return 0, fmt.Errorf("mech: a solver accuracy of %.3g needs %.3g iterations, more than can be run", gap, k)
	}
	return max(1, int(k)), nil
}

// exampleRange returns an upper bound, from public quantities only, on the range
// sup_{w,w′∈C} |ℓ(w; z) − ℓ(w′; z)| of the loss of any one example z the declared bounds admit:
// G·D for every loss (G the ℓ2 Lipschitz constant on C, D the ℓ2 diameter of C) and, for a
// margin loss φ(y⟨w, x⟩) with φ non-increasing (logistic, hinge, smooth hinge, not robust),
// also φ(−Z) − φ(Z) with Z = X·sup_{w∈C}‖w‖_{q*} ≥ |⟨w, x⟩| (X the declared bound on ‖x‖_q,
// inflated by loss.Slack as the losses do); the smaller is returned. For the logistic loss the
// second is exactly Z, about half of G·D on a box centred at the origin.
func exampleRange(p Problem, g2, diam float64) float64 {
	r := g2 * diam * (1 + fpSlack)
	if p.Loss.RobustRadius > 0 || p.Loss.Name == LossMultinomial {
		return r
	}
	s, err := p.Loss.scalar()
	if err != nil {
		return r
	}
	phi, ok := s.(loss.Margin)
	if !ok {
		return r
	}
	z := p.Bounds.X * (1 + 2*loss.Slack) * p.Domain.Radius(geom.Dual(p.Bounds.XNorm))
	return math.Min(r, (phi.MarginValue(-z)-phi.MarginValue(z))*(1+fpSlack))
}

// gibbsScore evaluates the score of a proposal x, or stops early: it returns the score, or
// above = true as soon as the score is certain to exceed limit.
type gibbsScore func(x []float64, limit float64) (score float64, above bool)

// meanScore returns the score max{F(x), clip} with F the sum of the per-example losses of l
// divided by the public number of rows n (Problem.N; clip = −∞ for F itself). When every
// per-example loss is non-negative (nonNegative), the rows are summed in order and the
// evaluation stops once the partial sum exceeds n·limit: the remaining rows can only add to
// it, so the score exceeds limit whatever they are. The value returned for a complete
// evaluation is the sum of the rows in order divided by n, which is how the losses compute
// their mean.
func meanScore(l loss.Loss, n int, nonNegative bool, clip float64) gibbsScore {
	rows, div := l.Len(), float64(n)
	return func(x []float64, limit float64) (float64, bool) {
		stop := math.Inf(1)
		if nonNegative {
			stop = limit * div
		}
		sum := 0.0
		for i := range rows {
			sum += l.Value(x, i)
			if i&31 == 31 && sum > stop {
				return sum / div, true
			}
		}
		return math.Max(sum/div, clip), false
	}
}

// nonNegative reports whether every per-example loss of the spec is non-negative everywhere:
// true for every loss privopt knows (log(1 + e^{−m}), max(0, ·), squares, Huber, the softmax
// cross-entropy log Σe^{z_k} − z_y, and the robust versions of the margin losses).
func nonNegative(s LossSpec) bool {
	switch s.Name {
	case LossLogistic, LossHinge, LossSmoothHinge, LossSquared, LossHuber, LossMultinomial:
		return s.Tilt == 0
	}
	return false
}

// sampleGibbs draws one point exactly from the law ∝ exp(−β·score(x)) on the bounded domain c,
// given floor ≤ min_C score, by rejection: it proposes x uniformly on C and accepts it when an
// independent standard exponential E exceeds t = β(score(x) − floor) ≥ 0, which happens with
// probability exp(−t) ≤ 1. The accepted point then has density ∝ exp(−β·score) exactly (the
// constant exp(β·floor) cancels in the normalisation), whatever floor is: floor only sets the
// acceptance rate. The privacy of the result does not even need the proposal to be exactly
// uniform, only data-independent (its law cancels in the ratio of two datasets' laws); it does
// need P(E > t) = exp(−t), which rng's exponential sampler gives up to the rounding of its
// ziggurat tables, with an unbounded tail (so no proposal has acceptance probability 0). E is
// drawn first, so that the score's evaluation can stop as soon as it is certain to exceed
// floor + E/β (a rejection); that changes the work, not the decision.
//
// The loop has no cap: it stops when a proposal is accepted or ctx is cancelled, and a
// cancelled run returns ctx's error and releases nothing. A cap would silently bias the law.
// The number of proposals depends on the data: it is a local diagnostic, never released.
// every is called after each proposal with the number made so far (it may be nil).
func sampleGibbs(ctx context.Context, r *rng.Rand, c *boundedDomain, dim int, beta, floor float64, score gibbsScore, every func(proposals int64)) ([]float64, int64, error) {
	x := make([]float64, dim)
	for proposals := int64(1); ; proposals++ {
		if err := ctx.Err(); err != nil {
			return nil, proposals - 1, err
		}
		if err := c.draw(r, x); err != nil {
			return nil, proposals, err
		}
		e := r.Exp()
		s, above := score(x, floor+e/beta)
		if every != nil {
			every(proposals)
		}
		if above {
			continue
		}
		t := beta * (s - floor)
		if math.IsNaN(t) || t < 0 {
			return nil, proposals, fmt.Errorf("mech: internal error: the score %g at a proposal is below the certified floor %g", s, floor)
		}
		if e > t {
			return x, proposals, nil
		}
	}
}
