package sampler

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/privopt/privopt/pkg/detmath"
	"github.com/privopt/privopt/pkg/rng"
)

// NotCertified is the statement of a run whose mixing is not certified.
const NotCertified = "mixing not certified"

// FastSettings configure the fast modes (MALA and projected Langevin), which are not certified.
type FastSettings struct {
	// Steps is the number of iterations (required).
	Steps int
	// Step is the step size h; zero chooses 1/(2(β + m)·√d) for MALA and 1/(4(β + m)) for
	// projected Langevin, with β the smoothness of f and m the strong convexity.
	Step float64
	// Preconditioner, if not nil, is a fixed positive diagonal P (one entry per coordinate):
	// the proposal becomes x − hP∇U(x) + √(2h)·P^{1/2}ξ. It must not depend on the data.
	Preconditioner []float64
}

// fastRun holds the state of MALA and projected Langevin.
type fastRun struct {
	*chain
	h, sqrt2h float64
	pre       []float64 // P (ones when not given)
	sqrtPre   []float64
	gradU     []float64 // ∇U at the current point
	gradUp    []float64 // ∇U at the proposal
}

func newFastRun(t Target, r *rng.Rand, set FastSettings, defaultStep func(beta, m float64, d int) float64) (*fastRun, error) {
	ch, err := newChain(t, r)
	if err != nil {
		return nil, err
	}
	if ch.grad == nil {
		return nil, errors.New("sampler: the fast modes need a target with gradients (Gradient)")
	}
	if set.Steps < 1 {
		return nil, fmt.Errorf("sampler: the number of steps must be at least 1, got %d", set.Steps)
	}
	d := t.Dim()
	h := set.Step
	if h == 0 {
		h = defaultStep(ch.c.Smoothness, ch.c.StrongConvexity, d)
	}
	if !(h > 0) || math.IsInf(h, 1) {
		return nil, fmt.Errorf("sampler: the step size must be finite and positive, got %g", h)
	}
	f := &fastRun{chain: ch, h: h, sqrt2h: math.Sqrt(2 * h), pre: make([]float64, d), sqrtPre: make([]float64, d),
		gradU: make([]float64, d), gradUp: make([]float64, d)}
	for i := range f.pre {
		f.pre[i] = 1
		if set.Preconditioner != nil {
			if len(set.Preconditioner) != d || !(set.Preconditioner[i] > 0) || math.IsInf(set.Preconditioner[i], 1) {
				return nil, fmt.Errorf("sampler: the preconditioner must have %d finite positive entries", d)
			}
			f.pre[i] = set.Preconditioner[i]
		}
		f.sqrtPre[i] = math.Sqrt(f.pre[i])
	}
	return f, nil
}

// potential returns U(x) = f(x) + (m/2)‖x − c‖² and writes ∇U(x) into grad.
func (f *fastRun) potential(grad, x []float64) float64 {
	f.stats.Gradients += int64(f.n)
	return f.addGaussian(grad, x, f.grad.Grad(grad, x))
}

// gradient writes ∇U(x) into grad, without f(x) when the target can (Subgradient writes the
// same bits as Grad), for projected Langevin, which needs no values.
func (f *fastRun) gradient(grad, x []float64) {
	f.stats.Gradients += int64(f.n)
	if sub, ok := f.grad.(Subgradient); ok {
		sub.Subgradient(grad, x)
	} else {
		f.grad.Grad(grad, x)
	}
	f.addGaussian(grad, x, 0)
}

// addGaussian adds the gradient m(x − c) of the Gaussian part to grad and returns u plus its
// value (m/2)‖x − c‖², added term by term.
func (f *fastRun) addGaussian(grad, x []float64, u float64) float64 {
	m := f.c.StrongConvexity
	for i, v := range x {
		dv := v - f.center[i]
		u += m / 2 * dv * dv
		grad[i] += m * dv
	}
	return u
}

// MALA draws a sample with the Metropolis-adjusted Langevin algorithm: from x, propose
// x′ = x − hP∇U(x) + √(2h)·P^{1/2}ξ and accept with the Metropolis–Hastings probability, which
// makes the target its stationary law; proposals outside K are rejected. It starts from the
// same data-independent point as the proximal sampler. MALA mixes fast for smooth, well
// conditioned targets, but privopt has no theorem with explicit constants to certify its
// error for a given number of steps: the result says "mixing not certified".
func MALA(ctx context.Context, t Target, set FastSettings, r *rng.Rand, progress func(fraction float64)) (Result, error) {
	f, err := newFastRun(t, r, set, func(beta, m float64, d int) float64 { return 1 / (2 * (beta + m) * math.Sqrt(float64(d))) })
	if err != nil {
		return Result{}, err
	}
	f.start()
	u := f.potential(f.gradU, f.x)
	every := max(1, set.Steps/progressEvery)
	for step := 1; step <= set.Steps; step++ {
		f.stats.Trials++
		for i := range f.xp {
			f.xp[i] = f.x[i] - f.h*f.pre[i]*f.gradU[i] + f.sqrt2h*f.sqrtPre[i]*f.r.Normal()
		}
		if f.inDomain(f.xp) {
			up := f.potential(f.gradUp, f.xp)
			// log q(x | x′) − log q(x′ | x) for the Gaussian proposal with covariance 2hP.
			var back, forth float64
			for i := range f.x {
				b := f.x[i] - f.xp[i] + f.h*f.pre[i]*f.gradUp[i]
				fo := f.xp[i] - f.x[i] + f.h*f.pre[i]*f.gradU[i]
				back += b * b / f.pre[i]
				forth += fo * fo / f.pre[i]
			}
			logRatio := u - up - (back-forth)/(4*f.h)
			if logRatio >= 0 || f.r.Float64() < detmath.Exp(logRatio) {
				f.stats.Accepted++
				f.x, f.xp = f.xp, f.x
				f.gradU, f.gradUp = f.gradUp, f.gradU
				u = up
			}
		}
		if err := f.report(ctx, step, set.Steps, every, progress); err != nil {
			return Result{X: f.x, Stats: f.stats}, err
		}
	}
	return Result{X: f.x, Stats: f.stats, Statement: NotCertified + ": MALA has the target as its stationary law, but no explicit mixing bound is applied"}, nil
}

// ProjectedLangevin runs the projected (unadjusted) Langevin algorithm
// x ← Π_K(x − hP∇U(x) + √(2h)·P^{1/2}ξ). Its stationary law differs from the target by a bias
// that shrinks with h; it is not certified.
func ProjectedLangevin(ctx context.Context, t Target, set FastSettings, r *rng.Rand, progress func(fraction float64)) (Result, error) {
	f, err := newFastRun(t, r, set, func(beta, m float64, _ int) float64 { return 1 / (4 * (beta + m)) })
	if err != nil {
		return Result{}, err
	}
	f.start()
	every := max(1, set.Steps/progressEvery)
	for step := 1; step <= set.Steps; step++ {
		f.gradient(f.gradU, f.x)
		for i := range f.x {
			f.x[i] += -f.h*f.pre[i]*f.gradU[i] + f.sqrt2h*f.sqrtPre[i]*f.r.Normal()
		}
		f.project(f.x, f.x)
		f.stats.Trials++
		f.stats.Accepted++
		if err := f.report(ctx, step, set.Steps, every, progress); err != nil {
			return Result{X: f.x, Stats: f.stats}, err
		}
	}
	return Result{X: f.x, Stats: f.stats, Statement: NotCertified + ": projected Langevin is biased; its error is not bounded"}, nil
}

// KineticLangevin runs underdamped (kinetic) Langevin dynamics, discretised by the BAOAB
// splitting of Leimkuhler and Matthews (2013), with a velocity v of unit mass in the
// coordinates whitened by P: from x and v ~ N(0, I), each step is
//
//	v ← v − (h/2)·P^{1/2}∇U(x),  x ← Π_K(x + (h/2)·P^{1/2}v),
//	v ← η·v + √(1 − η²)·ξ,        x ← Π_K(x + (h/2)·P^{1/2}v),
//	v ← v − (h/2)·P^{1/2}∇U(x),
//
// with η = e^{−γh}, one gradient per step (the last half-kick's gradient is the next step's
// first). The friction γ = 2√m (m the target's strong convexity) damps the flattest direction
// critically, and the default step h = 1/√(β + m) is half the stability limit 2/√(β + m) of
// the stiffest one, so that a step moves like a heavy ball with momentum about 1 − 2/√κ
// (κ = (β + m)/m): the dynamics travels and mixes in about √κ steps where projected Langevin
// needs κ. On a Gaussian target on the whole space BAOAB's law of x at stationarity is the
// target exactly for every stable h (Leimkuhler and Matthews 2013); otherwise its bias is of
// order h². It is not certified.
func KineticLangevin(ctx context.Context, t Target, set FastSettings, r *rng.Rand, progress func(fraction float64)) (Result, error) {
	f, err := newFastRun(t, r, set, func(beta, m float64, _ int) float64 { return 1 / math.Sqrt(beta+m) })
	if err != nil {
		return Result{}, err
	}
	f.start()
	eta := detmath.Exp(-2 * math.Sqrt(f.c.StrongConvexity) * f.h)
	kick := math.Sqrt(1 - eta*eta)
	v := f.xp // the velocity; MALA's proposal buffer is free here
	for i := range v {
		v[i] = f.r.Normal()
	}
	half := f.h / 2
	f.gradient(f.gradU, f.x)
	every := max(1, set.Steps/progressEvery)
	for step := 1; step <= set.Steps; step++ {
		for i := range v {
			v[i] -= half * f.sqrtPre[i] * f.gradU[i]
			f.x[i] += half * f.sqrtPre[i] * v[i]
		}
		f.project(f.x, f.x)
		for i := range v {
			v[i] = eta*v[i] + kick*f.r.Normal()
			f.x[i] += half * f.sqrtPre[i] * v[i]
		}
		f.project(f.x, f.x)
		f.gradient(f.gradU, f.x)
		for i := range v {
			v[i] -= half * f.sqrtPre[i] * f.gradU[i]
		}
		f.stats.Trials++
		f.stats.Accepted++
		if err := f.report(ctx, step, set.Steps, every, progress); err != nil {
			return Result{X: f.x, Stats: f.stats}, err
		}
	}
	return Result{X: f.x, Stats: f.stats, Statement: NotCertified + ": kinetic Langevin (BAOAB) is biased off Gaussian targets; its error is not bounded"}, nil
}
