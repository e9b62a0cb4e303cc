package sampler

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/privopt/privopt/pkg/core/geom"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/privopt/privopt/internal/stattest"
	"github.com/privopt/privopt/pkg/rng"
)

// TestMALAGaussian: MALA has the target as its stationary law; on a Gaussian target, after
// enough steps from the data-independent start, the samples pass KS on projections (the mixing
// is not certified, so the step count here is generous).
func TestMALAGaussian(t *testing.T) {
	b := [][]float64{{1.2, -0.4, 0.3}, {0.8, -0.6, 0.1}}
	mean := newLinearTarget(b, 2, nil).exactMean()
	r := rng.Seeded(90)
	xs := make([]float64, 2000)
	sq := make([]float64, len(xs))
	for i := range xs {
		res, err := MALA(context.Background(), newLinearTarget(b, 2, nil), FastSettings{Steps: 200}, r.Split(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Certified || !strings.HasPrefix(res.Statement, NotCertified) {
			t.Fatalf("MALA claims a certificate: %+v", res)
		}
		xs[i] = (res.X[0] - mean[0]) * math.Sqrt(2)
		for j, v := range res.X {
			sq[i] += 2 * (v - mean[j]) * (v - mean[j])
		}
	}
	stattest.KS(t, "MALA first coordinate", xs, normalCDF)
	stattest.KS(t, "MALA m‖x − mean‖²", sq, distuv.ChiSquared{K: 3}.CDF)
}

// TestProjectedLangevinStaysInTheBox checks that the iterates stay in the domain and that the
// result is labelled not certified.
func TestProjectedLangevinStaysInTheBox(t *testing.T) {
	tg := &oneDim{k: 2, m: 3, a: []float64{1, -0.5, 0.7}, logit: true, lo: -0.2, hi: 0.3, bounded: true}
	for seed := range uint64(20) {
		res, err := ProjectedLangevin(context.Background(), tg, FastSettings{Steps: 50, Step: 0.05}, rng.Seeded(seed), nil)
		if err != nil {
			t.Fatal(err)
		}
		if x := res.X[0]; x < -0.2 || x > 0.3 || res.Certified {
			t.Fatalf("projected Langevin returned %g (certified %v)", x, res.Certified)
		}
	}
	if _, err := ProjectedLangevin(context.Background(), tg, FastSettings{}, rng.Seeded(1), nil); err == nil {
		t.Error("zero steps accepted")
	}
	if _, err := MALA(context.Background(), tg, FastSettings{Steps: 10, Preconditioner: []float64{-1}}, rng.Seeded(1), nil); err == nil {
		t.Error("a negative preconditioner accepted")
	}
}

// TestTruncatedNormal checks every branch of the truncated-normal samplers — stdTruncNormal and
// the floating-point-safe one in double-double (safeTruncNormal) — against the exact CDF
// [Φ(x) − Φ(a)]/[Φ(b) − Φ(a)] (KS at fixed seeds, false-failure rate 1e-4 each), on intervals
// covering each branch and the far tails.
func TestTruncatedNormal(t *testing.T) {
	intervals := [][2]float64{
		{-3, 2}, {-0.3, 0.4}, {-0.2, 8}, {0.5, 0.9}, {2, 2.2}, {3, math.Inf(1)}, {6, 40},
		{-math.Inf(1), -5}, {-12, -11.9}, {30, 30.5}, {-1e-3, 1e-3}, {0, math.Inf(1)}, {0, 1.4}, {-0.05, 0.95},
	}
	safe, err := newChain(safeLogistic(), rng.Seeded(92))
	if err != nil {
		t.Fatal(err)
	}
	samplers := map[string]func(a, b float64) (float64, bool){
		"std": func(a, b float64) (float64, bool) { return stdTruncNormal(safe.r, a, b) },
		"safe": func(a, b float64) (float64, bool) {
			d := safe.safeTruncNormal(&safeChain{}, truncEnd{a, 0}, truncEnd{b, 0}, 0)
			if !(d.err >= 0x1p-98 && d.err <= 0x1p-90*(1+math.Abs(d.z[0])+math.Abs(a)+math.Abs(b))) {
				t.Fatalf("[%g, %g]: error bound %g for %g", a, b, d.err, d.z[0])
			}
			return d.z[0] + d.z[1], !d.capped
		},
	}
	for name, draw := range samplers {
		for _, iv := range intervals {
			a, b := iv[0], iv[1]
			lo, hi := normalCDF(a), normalCDF(b)
			// In the far upper tail, use the upper tails to keep precision.
			cdf := func(x float64) float64 { return (normalCDF(x) - lo) / (hi - lo) }
			if a > 0 {
				qa, qb := normalTail(a), normalTail(b)
				cdf = func(x float64) float64 { return (qa - normalTail(x)) / (qa - qb) }
			}
			n := 5000
			if name == "safe" {
				n = shortN(5000)
			}
			xs := make([]float64, n)
			for i := range xs {
				z, ok := draw(a, b)
				if !ok || z < a || z > b {
					t.Fatalf("%s [%g, %g]: %g, %v", name, a, b, z, ok)
				}
				xs[i] = z
			}
			stattest.KS(t, name+" truncated normal", xs, cdf)
		}
	}
}

// TestTruncatedNormalAcceptance checks the exact acceptance probability of each branch of
// stdTruncNormal against truncMinAcceptance, over a grid of intervals (the cap's failure bound
// rests on it).
func TestTruncatedNormalAcceptance(t *testing.T) {
	worst := 1.0
	for _, a := range []float64{0, 1e-3, 0.1, 0.5, 1, 2, 3, 5, 10, 30} {
		for _, w := range []float64{1e-6, 1e-3, 0.05, 0.2, 0.5, 1, 2, 5, 100, math.Inf(1)} {
			b := a + w
			acc := acceptance(a, b)
			worst = math.Min(worst, acc)
			if acc < truncMinAcceptance {
				t.Errorf("[%g, %g]: acceptance %g below %g", a, b, acc, truncMinAcceptance)
			}
		}
	}
	for _, a := range []float64{-0.9, -0.5, -0.1} {
		for _, b := range []float64{0.05, 0.09, 0.5, 3} {
			if acc := acceptance(a, b); acc < truncMinAcceptance {
				t.Errorf("[%g, %g]: acceptance %g below %g", a, b, acc, truncMinAcceptance)
			}
		}
	}
	t.Logf("worst acceptance on the grid: %.3f", worst)
}

// acceptance is the exact per-proposal acceptance probability of stdTruncNormal on [a, b].
func acceptance(a, b float64) float64 {
	mass := normalCDF(b) - normalCDF(a)
	if a > 0 {
		mass = normalTail(a) - normalTail(b)
	}
	switch {
	case a < 0 && b-a > 1:
		return mass // proposals from N(0, 1)
	case a < 0:
		return mass / ((b - a) / math.Sqrt(2*math.Pi)) // uniform with envelope φ(0)
	case (b-a)*(b+a) <= 2:
		return mass / ((b - a) * math.Exp(-a*a/2) / math.Sqrt(2*math.Pi)) // uniform with envelope φ(a)
	}
	// Robert's exponential proposal: density λe^{−λ(z−a)}; accepted mass over [a, b] is
	// ∫ λe^{−λ(z−a)}·e^{−(z−λ)²/2} dz = λ·e^{λa − λ²/2}·√(2π)·mass.
	lambda := (a + math.Sqrt(a*a+4)) / 2
	return lambda * math.Exp(lambda*a-lambda*lambda/2) * math.Sqrt(2*math.Pi) * mass
}

// TestTruncatedSecondMoment checks the fact oracle C's acceptance bound uses: for X from
// N(μ, s²) restricted to [l, u], E[(X − clamp(μ, l, u))²] ≤ s², by quadrature over a grid of
// positions of μ relative to the interval.
func TestTruncatedSecondMoment(t *testing.T) {
	const s = 1.0
	for _, l := range []float64{-3, -1, -0.2, 0, 0.5, 2} {
		for _, w := range []float64{0.1, 0.5, 1, 3, 10} {
			u := l + w
			c := math.Min(math.Max(0, l), u) // μ = 0
			q := newQuadrature(func(x float64) float64 { return x * x / (2 * s * s) }, l, u, 20000)
			m2 := 0.0
			for i := 1; i < len(q.xs); i++ {
				x := (q.xs[i] + q.xs[i-1]) / 2
				m2 += (x - c) * (x - c) * (q.cdf[i] - q.cdf[i-1])
			}
			if m2 > s*s*(1+1e-6) {
				t.Errorf("[%g, %g]: E[(X − clamp(μ))²] = %g > s²", l, u, m2)
			}
		}
	}
}

// TestStepsDoNotAllocate checks that the oracles' steps allocate nothing, on the whole space
// and on an ℓ2 ball.
func TestStepsDoNotAllocate(t *testing.T) {
	disk, err := geom.NewBall(2, 2, 0.5, []float64{0.1, 0})
	if err != nil {
		t.Fatal(err)
	}
	for _, tg := range []Target{absTarget(), onBall{&geoMedian{k: 2, m: 1, a: [][2]float64{{2, 1}, {1.5, -0.5}}}, disk}} {
		for _, oracle := range allOracles {
			p, err := NewPlan(tg.Constants(), tg.Dim(), tg.(Examples).NumExamples(), oracle, 1e-3)
			if err != nil {
				t.Fatal(err)
			}
			p.Steps = 10
			ch, err := newChain(tg, rng.Seeded(92))
			if err != nil {
				t.Fatal(err)
			}
			ch.start()
			allocs := testing.AllocsPerRun(20, func() {
				if err := ch.proximalSteps(context.Background(), p, nil); err != nil {
					t.Fatal(err)
				}
			})
			if allocs != 0 {
				t.Errorf("%T, %v: %g allocations per 10 steps", tg, oracle, allocs)
			}
		}
	}
}

// quadTarget is f(x) = ½Σⱼ aⱼxⱼ² with the Gaussian part (m/2)‖x‖²: π = N(0, diag(1/(aⱼ + m)))
// exactly, with curvatures as different as the aⱼ make them (κ = (max aⱼ + m)/m).
type quadTarget struct {
	a []float64
	m float64
}

func (t quadTarget) Dim() int { return len(t.a) }
func (t quadTarget) Value(x []float64) float64 {
	s := 0.0
	for j, v := range x {
		s += t.a[j] * v * v / 2
	}
	return s
}
func (t quadTarget) Grad(g, x []float64) float64 {
	for j, v := range x {
		g[j] = t.a[j] * v
	}
	return t.Value(x)
}
func (t quadTarget) NumExamples() int                        { return 1 }
func (t quadTarget) ExampleValue(_ int, x []float64) float64 { return t.Value(x) }
func (t quadTarget) Constants() Constants {
	return Constants{Lipschitz: 1, ExampleLipschitz: 1, Smoothness: slices.Max(t.a), StrongConvexity: t.m}
}
func (t quadTarget) Domain() geom.Domain { return geom.Whole{D: len(t.a)} }

// TestKineticLangevinGaussian: on a Gaussian target BAOAB's stationary law of x is the target
// exactly at any stable step, so after 3·20√κ default steps from the data-independent start
// each coordinate of 2000 independent chains, standardised, passes KS against N(0, 1), on a
// target with curvatures 1 to 31 (κ = 31), without and with a diagonal preconditioner (six KS
// tests at level 10⁻⁴ each: a false failure has probability below 6·10⁻⁴ for a random seed,
// and the seed is fixed). BAOAB without its last half-kick fails, and so does P in place of
// P^{1/2} in a drift. The result is labelled not certified.
func TestKineticLangevinGaussian(t *testing.T) {
	tg := quadTarget{a: []float64{0, 4, 30}, m: 1}
	steps := 3 * int(math.Ceil(20*math.Sqrt(31)))
	for _, pre := range [][]float64{nil, {2, 0.5, 0.1}} {
		r := rng.Seeded(93)
		xs := make([][]float64, tg.Dim())
		for range 2000 {
			res, err := KineticLangevin(context.Background(), tg, FastSettings{Steps: steps, Preconditioner: pre}, r.Split(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Certified || !strings.HasPrefix(res.Statement, NotCertified) || res.Stats.Steps != steps {
				t.Fatalf("kinetic Langevin: %+v", res)
			}
			for j, v := range res.X {
				xs[j] = append(xs[j], v*math.Sqrt(tg.a[j]+tg.m))
			}
		}
		for j := range xs {
			stattest.KS(t, fmt.Sprintf("kinetic Langevin coordinate %d (preconditioner %v)", j, pre), xs[j], normalCDF)
		}
	}
}

// TestKineticLangevinLogistic: off Gaussian targets BAOAB's bias is of order h²; with a step
// a tenth of the default on a one-dimensional logistic target, 3000 chains pass KS against the
// target's CDF by quadrature, and on a box the iterates stay in it.
func TestKineticLangevinLogistic(t *testing.T) {
	tg := &oneDim{k: 4, m: 1, a: []float64{1, -0.5, 0.7, 0.9}, logit: true}
	c := tg.Constants()
	h := 0.1 / math.Sqrt(c.Smoothness+c.StrongConvexity)
	r := rng.Seeded(94)
	xs := make([]float64, 3000)
	for i := range xs {
		res, err := KineticLangevin(context.Background(), tg, FastSettings{Steps: 400, Step: h}, r.Split(), nil)
		if err != nil {
			t.Fatal(err)
		}
		xs[i] = res.X[0]
	}
	stattest.KS(t, "kinetic Langevin on a logistic target", xs, targetQuadrature(tg).CDF)
	box := &oneDim{k: 2, m: 3, a: []float64{1, -0.5, 0.7}, logit: true, lo: -0.2, hi: 0.3, bounded: true}
	for seed := range uint64(20) {
		res, err := KineticLangevin(context.Background(), box, FastSettings{Steps: 50}, rng.Seeded(seed), nil)
		if err != nil {
			t.Fatal(err)
		}
		if x := res.X[0]; x < -0.2 || x > 0.3 {
			t.Fatalf("kinetic Langevin left the box: %g", x)
		}
	}
}
