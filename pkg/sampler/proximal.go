package sampler

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/privopt/privopt/pkg/core/geom"
	"github.com/privopt/privopt/pkg/detmath"
	"github.com/privopt/privopt/pkg/rng"
)

// Stats are local diagnostics of a run. They depend on the data: show them to the data's
// owner, never put them in a release.
type Stats struct {
	// Steps is the number of outer steps taken.
	Steps int `json:"steps"`
	// Trials counts proposals and Accepted the accepted ones.
	Trials   int64 `json:"trials"`
	Accepted int64 `json:"accepted"`
	// Queries counts per-example value evaluations and Gradients per-example gradient
	// evaluations (a full value or gradient of f over N examples counts N).
	Queries   int64 `json:"queries"`
	Gradients int64 `json:"gradients"`
	// Clipped counts the times an oracle's acceptance was clipped: oracle A's min(1, ·) binding
	// or a factor of oracle B's Poisson estimator outside [0, 1]. Each one is a small bias,
	// covered by the plan's error bound; a well-planned run has none.
	Clipped int64 `json:"clipped"`
	// CapHits counts oracle calls (and truncated-normal draws) that reached their caps.
	CapHits int64 `json:"cap_hits"`
	// Fallbacks counts the decisions of a floating-point-safe run that needed the interval
	// fallback, and Undecided those it could not separate either (rejected; counted in the
	// plan's bound).
	Fallbacks int64 `json:"fallbacks,omitempty"`
	Undecided int64 `json:"undecided,omitempty"`
}

// AcceptanceRate is Accepted/Trials.
func (s Stats) AcceptanceRate() float64 {
	if s.Trials == 0 {
		return 0
	}
	return float64(s.Accepted) / float64(s.Trials)
}

// progressEvery is how many progress reports a run makes at most.
const progressEvery = 1000

// Result is the outcome of a run.
type Result struct {
	// X is the sample.
	X []float64
	// Stats are local diagnostics (not private).
	Stats Stats
	// Certified is true when TV bounds the sample's total-variation distance from the target
	// for every dataset; Statement says why, or why not.
	Certified bool
	// FloatingPointSafe is true when TV also covers the floating-point computation of the
	// released X (a safe plan, NewSafePlan); otherwise TV holds in exact arithmetic.
	FloatingPointSafe bool
	TV                float64
	Statement         string
}

// chain holds a run's state and scratch space, so that the steps do not allocate.
type chain struct {
	target   Target
	grad     Gradient
	examples Examples
	n        int
	dom      geom.Domain
	kind     DomainKind
	lo, hi   []float64   // the box's corners (BoxDomain)
	ball     *ballNormal // draws restricted to the ℓ2 ball (BallDomain)
	c        Constants
	center   []float64
	r        *rng.Rand
	stats    Stats
	fw       float64 // f at the envelope point (safe.go)
	// scratch
	x, xp, y, cp, g, w []float64
}

func newChain(t Target, r *rng.Rand) (*chain, error) {
	d := t.Dim()
	c := t.Constants()
	if err := c.Validate(d); err != nil {
		return nil, err
	}
	ch := &chain{target: t, c: c, center: c.center(d), r: r, n: 1, dom: t.Domain()}
	if ch.dom.Dim() != d {
		return nil, fmt.Errorf("sampler: the domain has dimension %d, the target %d", ch.dom.Dim(), d)
	}
	ch.kind = KindOf(ch.dom)
	if ch.kind != c.Domain {
		return nil, fmt.Errorf("sampler: the domain is %v, but the constants are for %v (Constants.Domain)", ch.kind, c.Domain)
	}
	switch ch.kind {
	case BoxDomain:
		ch.lo, ch.hi = boxCorners(ch.dom)
		if _, extent := DomainOf(ch.dom); c.Radius > 0 && extent > c.Radius {
			return nil, fmt.Errorf("sampler: the constants are for a box within %g of the origin, the domain reaches %g", c.Radius, extent)
		}
	case BallDomain:
		b := ch.dom.(*geom.Ball)
		if c.Radius > b.R() {
			return nil, fmt.Errorf("sampler: the constants are for a ball of radius %g, the domain's is %g", c.Radius, b.R())
		}
		ch.ball = newBallNormal(b.Center(), b.R(), d)
	}
	ch.grad, _ = t.(Gradient)
	if ex, ok := t.(Examples); ok {
		ch.examples, ch.n = ex, ex.NumExamples()
	}
	for _, p := range []*[]float64{&ch.x, &ch.xp, &ch.y, &ch.cp, &ch.g, &ch.w} {
		*p = make([]float64, d)
	}
	return ch, nil
}

// gaussian fills dst with a draw from N(mean, s²I) restricted to the domain (on an
// OtherDomain, which only the fast modes accept, with its projection on the domain).
func (ch *chain) gaussian(dst, mean []float64, s float64) {
	switch ch.kind {
	case BoxDomain:
		for i := range dst {
			v, capped := truncNormal(ch.r, mean[i], s, ch.lo[i], ch.hi[i])
			if capped {
				ch.stats.CapHits++
			}
			dst[i] = v
		}
	case BallDomain:
		if ch.ball.draw(ch.r, dst, mean, s) {
			ch.stats.CapHits++
		}
	default:
		for i := range dst {
			dst[i] = mean[i] + s*ch.r.Normal()
		}
		if ch.kind == OtherDomain {
			ch.dom.Project(dst, dst)
		}
	}
}

// project writes the projection of x onto the domain into dst.
func (ch *chain) project(dst, x []float64) {
	switch ch.kind {
	case WholeSpace:
		copy(dst, x)
	case BoxDomain:
		for i, v := range x {
			dst[i] = math.Min(math.Max(v, ch.lo[i]), ch.hi[i])
		}
	default:
		ch.dom.Project(dst, x)
	}
}

// inDomain reports whether x is in the domain.
func (ch *chain) inDomain(x []float64) bool {
	switch ch.kind {
	case WholeSpace:
		return true
	case BoxDomain:
		for i, v := range x {
			if v < ch.lo[i] || v > ch.hi[i] {
				return false
			}
		}
		return true
	}
	return ch.dom.Contains(x)
}

// value evaluates f and counts the queries.
func (ch *chain) value(x []float64) float64 {
	ch.stats.Queries += int64(ch.n)
	return ch.target.Value(x)
}

// start draws the data-independent start N(c, I/m) restricted to the domain.
func (ch *chain) start() {
	ch.gaussian(ch.x, ch.center, 1/math.Sqrt(ch.c.StrongConvexity))
}

// Run draws one sample from the target with the proximal (alternating) sampler of Lee, Shen
// and Tian, as used by Gopi, Lee and Liu, following a plan made beforehand from public
// constants. Each step draws y ~ N(x, hI) and then x from the restricted Gaussian oracle
// ∝ exp(−f(x))·N(x; c′, s²I) on K with c′ = (y + hm·c)/(1 + hm) and s² = h/(1 + hm). The
// result's TV is the plan's certified bound. The run stops early, with ctx's error, when ctx
// is cancelled; progress (which may be nil) is called at most about a thousand times.
func Run(ctx context.Context, t Target, p Plan, r *rng.Rand, progress func(fraction float64)) (Result, error) {
	ch, err := newChain(t, r)
	if err != nil {
		return Result{}, err
	}
	if p.Dim != t.Dim() {
		return Result{}, fmt.Errorf("sampler: the plan is for dimension %d, the target has %d", p.Dim, t.Dim())
	}
	switch p.Oracle {
	case StochasticOracle:
		if ch.examples == nil {
			return Result{}, errors.New("sampler: the stochastic oracle needs a target with per-example terms (Examples)")
		}
		if ch.n != p.Examples {
			return Result{}, fmt.Errorf("sampler: the plan is for %d examples, the target has %d", p.Examples, ch.n)
		}
	case EnvelopeOracle:
		if ch.grad == nil {
			return Result{}, errors.New("sampler: the envelope oracle needs a target with subgradients (Gradient)")
		}
	}
	if ch.kind == OtherDomain {
		return Result{}, errUnsupportedDomain(ch.dom)
	}
	if p.Safe {
		enc, ok := t.(Enclosed)
		if !ok || p.Oracle != EnvelopeOracle {
			return Result{}, errors.New("sampler: a floating-point-safe plan needs the envelope oracle and a target that bounds its rounding (Enclosed)")
		}
		if err := ch.safeSteps(ctx, enc, p, progress); err != nil {
			return Result{X: nil, Stats: ch.stats}, err
		}
		return Result{
			X: ch.x, Stats: ch.stats, Certified: true, TV: p.TV, FloatingPointSafe: true,
			Statement: fmt.Sprintf("certified: total-variation distance at most %.3g from the target for every dataset, floating-point rounding included (released on a grid of spacing %g with a random offset; %s)", p.TV, p.Grid, p.Certificate),
		}, nil
	}
	ch.start()
	if err := ch.proximalSteps(ctx, p, progress); err != nil {
		return Result{X: ch.x, Stats: ch.stats}, err
	}
	return Result{
		X: ch.x, Stats: ch.stats, Certified: true, TV: p.TV,
		Statement: fmt.Sprintf("certified: total-variation distance at most %.3g from the target for every dataset (%s)", p.TV, p.Certificate),
	}, nil
}

// proximalSteps takes the plan's steps from the current point ch.x.
func (ch *chain) proximalSteps(ctx context.Context, p Plan, progress func(fraction float64)) error {
	m, h := ch.c.StrongConvexity, p.Step
	sqrtH, s := math.Sqrt(h), math.Sqrt(p.ProposalVar)
	every := max(1, p.Steps/progressEvery)
	for step := 1; step <= p.Steps; step++ {
		for i := range ch.y {
			ch.y[i] = ch.x[i] + sqrtH*ch.r.Normal()
			ch.cp[i] = (ch.y[i] + h*m*ch.center[i]) / (1 + h*m)
		}
		var ok bool
		switch p.Oracle {
		case ValueOracle:
			ok = ch.valueOracle(s, p.Alpha, p.TrialCap)
		case StochasticOracle:
			ok = ch.stochasticOracle(s, p.Alpha, p.Lambda, p.TrialCap)
		case EnvelopeOracle:
			ok = ch.envelopeOracle(s, p.ProxSteps, p.TrialCap)
		default:
			return fmt.Errorf("sampler: unknown oracle %v", p.Oracle)
		}
		if !ok {
			ch.stats.CapHits++
			ch.project(ch.x, ch.cp)
		}
		if err := ch.report(ctx, step, p.Steps, every, progress); err != nil {
			return err
		}
	}
	return nil
}

// report records the step, checks for cancellation (every step: a step costs far more than
// the check) and reports progress every few steps.
func (ch *chain) report(ctx context.Context, step, steps, every int, progress func(fraction float64)) error {
	ch.stats.Steps = step
	if err := ctx.Err(); err != nil {
		return err
	}
	if step%every != 0 && step != steps {
		return nil
	}
	if progress != nil {
		progress(float64(step) / float64(steps))
	}
	return nil
}

// proxPoint writes into ch.w the envelope point — Π_K(c′), then proxSteps projected gradient
// steps towards the proximal point of f at c′ on K, then moved within clamp of c′ (+Inf: not
// moved) — and into ch.g a subgradient there, with f there in ch.fw. Any point keeps oracle C
// exact; a better one only raises the acceptance.
func (ch *chain) proxPoint(proxSteps int, s2, clamp float64) {
	ch.project(ch.w, ch.cp)
	// The prox objective f(w) + ‖w − c′‖²/(2s²) is (1/s²)-strongly convex and (β + 1/s²)-smooth;
	// gradient steps of size 2/(L + m) = 2/(β + 2/s²) contract the distance to its minimizer by
	// (κ − 1)/(κ + 1) = s²β/(2 + s²β) each, the rate the plan assumes (proxEnvelopeStep).
	eta := 2 / (ch.c.Smoothness + 2/s2)
	sub, _ := ch.grad.(Subgradient)
	for range proxSteps {
		ch.stats.Gradients += int64(ch.n)
		if sub != nil {
			sub.Subgradient(ch.g, ch.w)
		} else {
			ch.grad.Grad(ch.g, ch.w)
		}
		for i := range ch.w {
			ch.w[i] -= eta * (ch.g[i] + (ch.w[i]-ch.cp[i])/s2)
		}
		ch.project(ch.w, ch.w) // projected gradient steps on a constrained K
	}
	if !math.IsInf(clamp, 1) {
		clampDistance(ch.w, ch.cp, clamp)
	}
	ch.stats.Gradients += int64(ch.n)
	ch.fw = ch.grad.Grad(ch.g, ch.w)
}

// valueOracle (A) draws x and x′ from the proposal and accepts x with probability
// min(1, exp(f(x′) − f(x) − α)). It leaves the accepted point in ch.x and reports success.
func (ch *chain) valueOracle(s, alpha float64, trialCap int) bool {
	for range trialCap {
		ch.stats.Trials++
		ch.gaussian(ch.w, ch.cp, s)
		ch.gaussian(ch.xp, ch.cp, s)
		delta := ch.value(ch.xp) - ch.value(ch.w)
		if delta > alpha {
			ch.stats.Clipped++
		}
		if delta >= alpha || ch.r.Float64() < detmath.Exp(delta-alpha) {
			ch.stats.Accepted++
			copy(ch.x, ch.w)
			return true
		}
	}
	return false
}

// stochasticOracle (B) draws x and x′ from the proposal and accepts x with probability equal
// to the Poisson estimate Π_{j≤N} (1 − (z_j + α)/λ), N ~ Poisson(λ), z_j the difference of a
// uniformly drawn example's term at x and x′; its expectation is exp(−(f(x) − f(x′)) − α).
func (ch *chain) stochasticOracle(s, alpha, lambda float64, trialCap int) bool {
	for range trialCap {
		ch.stats.Trials++
		ch.gaussian(ch.w, ch.cp, s)
		ch.gaussian(ch.xp, ch.cp, s)
		count, _ := ch.r.Poisson(lambda) // λ is a valid constant
		estimate := 1.0
		for range count {
			i := ch.r.IntN(ch.n)
			z := ch.examples.ExampleValue(i, ch.w) - ch.examples.ExampleValue(i, ch.xp)
			ch.stats.Queries += 2
			factor := 1 - (z+alpha)/lambda
			if factor < 0 || factor > 1 {
				ch.stats.Clipped++
				factor = math.Min(math.Max(factor, 0), 1)
			}
			estimate *= factor
		}
		if ch.r.Float64() < estimate {
			ch.stats.Accepted++
			copy(ch.x, ch.w)
			return true
		}
	}
	return false
}

// envelopeOracle (C) takes a point w — Π_K(c′), or the point reached by proxSteps projected
// gradient steps from there towards the proximal point of f at c′ on K — and a subgradient g
// of f at w, proposes x from N(c′ − s²g, s²I) on K, and accepts with probability
// exp(−[f(x) − f(w) − g·(x − w)]), which is at most 1 by convexity; the accepted x follows the
// oracle's law exactly, whatever w is (a better w only raises the acceptance).
func (ch *chain) envelopeOracle(s float64, proxSteps, trialCap int) bool {
	s2 := s * s
	ch.proxPoint(proxSteps, s2, math.Inf(1))
	fw := ch.fw
	for i := range ch.y {
		ch.y[i] = ch.cp[i] - s2*ch.g[i] // the proposal's mean
	}
	for range trialCap {
		ch.stats.Trials++
		ch.gaussian(ch.xp, ch.y, s)
		gap := ch.value(ch.xp) - fw
		for i, gi := range ch.g {
			gap -= gi * (ch.xp[i] - ch.w[i])
		}
		if gap < 0 { // rounding; convexity makes the exact gap non-negative
			gap = 0
		}
		if ch.r.Float64() < detmath.Exp(-gap) {
			ch.stats.Accepted++
			copy(ch.x, ch.xp)
			return true
		}
	}
	return false
}
