package sampler

import (
	"context"

	"errors"
	"github.com/privopt/privopt/pkg/core/geom"
	"math"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/privopt/privopt/internal/stattest"
	"github.com/privopt/privopt/pkg/rng"
)

// Statistical tests here use fixed seeds. Each KS test is at level 1e-4 and each z-test fails
// with probability 5.7e-7 for a correct sampler (internal/stattest); a plan's TV error, at most
// 1e-2 in these tests, shifts a KS distance by at most that, inside the critical values (about
// 0.055 for 2000 samples, 0.11 for the 500 of go test -short).

// shortN returns n, or a quarter of it under go test -short: the slow tests draw fewer samples
// (or try fewer points) in the inner loop. A check keeps its false-failure probability with
// fewer samples (its critical value grows), and detects only larger errors.
func shortN(n int) int {
	if testing.Short() {
		return n / 4
	}
	return n
}

var allOracles = []Oracle{ValueOracle, StochasticOracle, EnvelopeOracle}

// samples draws n independent samples, one chain each, with a plan for budget tv.
func samples(t *testing.T, newTarget func() Target, oracle Oracle, tv float64, n int, seed uint64) ([][]float64, Stats) {
	xs, stats, _ := samplesPlan(t, newTarget, oracle, tv, n, seed)
	return xs, stats
}

// samplesPlan is samples, also returning the plan.
func samplesPlan(t *testing.T, newTarget func() Target, oracle Oracle, tv float64, n int, seed uint64) ([][]float64, Stats, Plan) {
	t.Helper()
	tg := newTarget()
	nEx := 0
	if ex, ok := tg.(Examples); ok {
		nEx = ex.NumExamples()
	}
	p, err := NewPlan(tg.Constants(), tg.Dim(), nEx, oracle, tv)
	if err != nil {
		t.Fatal(err)
	}
	results, err := RunChains(context.Background(), newTarget, p, rng.Seeded(seed), n, nil)
	if err != nil {
		t.Fatal(err)
	}
	xs := make([][]float64, n)
	var total Stats
	for i, r := range results {
		if !r.Certified || r.TV != p.TV {
			t.Fatalf("a certified run says %+v", r)
		}
		xs[i] = r.X
		total.Trials += r.Stats.Trials
		total.Accepted += r.Stats.Accepted
		total.Clipped += r.Stats.Clipped
		total.CapHits += r.Stats.CapHits
		total.Queries += r.Stats.Queries
		total.Gradients += r.Stats.Gradients
	}
	checkCounts(t, oracle, p, total, n)
	return xs, total, p
}

// checkCounts checks the clips and cap hits of n runs: oracle B must clip no factor at its
// planned settings (the plan makes any clip in a run less likely than its TV budget), and cap
// hits must be consistent with the plan's bound TVCap per run (at most the Poisson mean plus
// five standard deviations plus 3; probability below 1e-6 for a correct sampler).
func checkCounts(t *testing.T, oracle Oracle, p Plan, s Stats, n int) {
	t.Helper()
	if oracle == StochasticOracle && s.Clipped != 0 {
		t.Errorf("%v: %d clipped factors at the planned settings", oracle, s.Clipped)
	}
	mean := float64(n) * p.TVCap
	if float64(s.CapHits) > mean+5*math.Sqrt(mean)+3 {
		t.Errorf("%v: %d cap hits in %d runs; the plan bounds them by %g per run", oracle, s.CapHits, n, p.TVCap)
	}
}

// TestGaussianTarget: with a linear f the target is exactly N(c − b̄/m, I/m). Check the mean
// and covariance, KS on random one-dimensional projections, and m‖x − mean‖² against χ²_d.
func TestGaussianTarget(t *testing.T) {
	b := [][]float64{{1.2, -0.4, 0.3, 0}, {0.8, -0.6, 0.1, 0.2}, {1.0, -0.5, 0.2, -0.2}}
	center := []float64{0.5, 0, -0.5, 1}
	newTarget := func() Target { return newLinearTarget(b, 2, center) }
	lt := newLinearTarget(b, 2, center)
	mean, m, d := lt.exactMean(), lt.m, lt.Dim()
	dirs := [][]float64{{1, 0, 0, 0}, {0.5, 0.5, 0.5, 0.5}, {0.8, -0.6, 0, 0}}
	for k, oracle := range allOracles {
		xs, _ := samples(t, newTarget, oracle, 1e-2, shortN(2000), uint64(10+k))
		z := make([][]float64, len(xs))
		chi := make([]float64, len(xs))
		for i, x := range xs {
			z[i] = make([]float64, d)
			for j := range x {
				z[i][j] = (x[j] - mean[j]) * math.Sqrt(m)
				chi[i] += z[i][j] * z[i][j]
			}
		}
		stattest.Moments(t, oracle.String(), z, 1)
		for _, u := range dirs {
			proj := make([]float64, len(z))
			for i := range z {
				for j, v := range u {
					proj[i] += v * z[i][j]
				}
			}
			stattest.KS(t, oracle.String()+": projection", proj, normalCDF)
		}
		stattest.KS(t, oracle.String()+": m‖x − mean‖²", chi, distuv.ChiSquared{K: float64(d)}.CDF)
	}
}

// absTarget is π ∝ exp(−K((1/5)Σ|x − aᵢ| + x²)) with K = 2, a non-Gaussian target (its
// density has kinks at the aᵢ).
func absTarget() *oneDim {
	return &oneDim{k: 2, m: 4, a: []float64{-1, 0.2, 0.5, 1.3, 2}}
}

// TestOneDimensionalTargets compares samples with the target's CDF by quadrature (KS) and its
// mean and variance (z-tests), for the absolute-value target and a logistic loss on an interval.
func TestOneDimensionalTargets(t *testing.T) {
	targets := map[string]func() *oneDim{
		"abs": absTarget,
		"logistic on box": func() *oneDim {
			return &oneDim{k: 2, m: 3, a: []float64{1, -0.5, 0.7, 1, -1}, logit: true, lo: -0.3, hi: 1.1, bounded: true}
		},
	}
	for name, mk := range targets {
		q := targetQuadrature(mk())
		for k, oracle := range allOracles {
			xs, _ := samples(t, func() Target { return mk() }, oracle, 1e-2, shortN(2000), uint64(20+k))
			flat := make([]float64, len(xs))
			sum, sum2 := 0.0, 0.0
			for i, x := range xs {
				flat[i] = x[0]
				sum += x[0]
				sum2 += x[0] * x[0]
			}
			n := float64(len(xs))
			stattest.Z(t, name+" "+oracle.String()+": mean", sum/n, q.mean, math.Sqrt(q.vari/n))
			stattest.Z(t, name+" "+oracle.String()+": second moment", sum2/n, q.vari+q.mean*q.mean, math.Sqrt(2*q.vari*q.vari/n+4*q.mean*q.mean*q.vari/n))
			stattest.KS(t, name+" "+oracle.String(), flat, q.CDF)
		}
	}
}

// geoMedian is f(x) = (K/N)Σ‖x − aᵢ‖₂ in two dimensions, the geometric-median loss.
type geoMedian struct {
	k, m float64
	a    [][2]float64
}

func (g *geoMedian) Dim() int { return 2 }
func (g *geoMedian) Value(x []float64) float64 {
	s := 0.0
	for i := range g.a {
		s += g.ExampleValue(i, x)
	}
	return s / float64(len(g.a))
}
func (g *geoMedian) Grad(grad, x []float64) float64 {
	grad[0], grad[1] = 0, 0
	for _, a := range g.a {
		dx, dy := x[0]-a[0], x[1]-a[1]
		if r := math.Hypot(dx, dy); r > 0 {
			grad[0] += g.k * dx / r / float64(len(g.a))
			grad[1] += g.k * dy / r / float64(len(g.a))
		}
	}
	return g.Value(x)
}
func (g *geoMedian) NumExamples() int { return len(g.a) }
func (g *geoMedian) ExampleValue(i int, x []float64) float64 {
	return g.k * math.Hypot(x[0]-g.a[i][0], x[1]-g.a[i][1])
}
func (g *geoMedian) Constants() Constants {
	return Constants{Lipschitz: g.k, ExampleLipschitz: g.k, ExampleRank: 2, StrongConvexity: g.m}
}
func (g *geoMedian) Domain() geom.Domain { return geom.Whole{D: 2} }

// TestGeometricMedianTarget compares the mean and covariance of a two-dimensional target with
// values from a quadrature on a grid.
func TestGeometricMedianTarget(t *testing.T) {
	mk := func() *geoMedian {
		return &geoMedian{k: 2, m: 3, a: [][2]float64{{0, 0}, {1, 0.5}, {-0.5, 1}, {0.7, -0.8}}}
	}
	g := mk()
	// Quadrature on [−4, 4]² with 801² points (the density is negligible outside).
	var z, mx, my, sxx, syy, sxy float64
	const n = 801
	x := make([]float64, 2)
	for i := range n {
		for j := range n {
			x[0], x[1] = -4+8*float64(i)/(n-1), -4+8*float64(j)/(n-1)
			w := math.Exp(-g.Value(x) - g.m/2*(x[0]*x[0]+x[1]*x[1]))
			z += w
			mx += w * x[0]
			my += w * x[1]
			sxx += w * x[0] * x[0]
			syy += w * x[1] * x[1]
			sxy += w * x[0] * x[1]
		}
	}
	mx, my = mx/z, my/z
	vx, vy, cxy := sxx/z-mx*mx, syy/z-my*my, sxy/z-mx*my
	for k, oracle := range allOracles {
		xs, _ := samples(t, func() Target { return mk() }, oracle, 1e-2, shortN(2000), uint64(30+k))
		nn := float64(len(xs))
		var ax, ay, axx, ayy, axy float64
		for _, s := range xs {
			ax += s[0] / nn
			ay += s[1] / nn
			axx += (s[0] - mx) * (s[0] - mx) / nn
			ayy += (s[1] - my) * (s[1] - my) / nn
			axy += (s[0] - mx) * (s[1] - my) / nn
		}
		name := oracle.String()
		stattest.Z(t, name+": mean x", ax, mx, math.Sqrt(vx/nn))
		stattest.Z(t, name+": mean y", ay, my, math.Sqrt(vy/nn))
		stattest.Z(t, name+": var x", axx, vx, vx*math.Sqrt(2/nn)*1.2)
		stattest.Z(t, name+": var y", ayy, vy, vy*math.Sqrt(2/nn)*1.2)
		stattest.Z(t, name+": cov xy", axy, cxy, math.Sqrt(vx*vy/nn)*1.2)
	}
}

// TestInvariance starts chains exactly at the target (inverse CDF) and checks that a few steps
// keep it: this isolates the oracles' bias from mixing.
func TestInvariance(t *testing.T) {
	q := targetQuadrature(absTarget())
	r := rng.Seeded(40)
	for _, oracle := range allOracles {
		p, err := NewPlan(absTarget().Constants(), 1, 5, oracle, 1e-2)
		if err != nil {
			t.Fatal(err)
		}
		p.Steps = 20
		xs := make([]float64, 3000)
		for i := range xs {
			ch, err := newChain(absTarget(), r)
			if err != nil {
				t.Fatal(err)
			}
			ch.x[0] = q.Quantile(r.Float64())
			if err := ch.proximalSteps(context.Background(), p, nil); err != nil {
				t.Fatal(err)
			}
			xs[i] = ch.x[0]
		}
		stattest.KS(t, oracle.String()+" from the target", xs, q.CDF)
	}
}

// TestOraclesAlone checks each restricted Gaussian oracle, for a fixed centre c′ and variance
// s², against its exact law ∝ exp(−f(x))·N(x; c′, s²) by quadrature. Oracles A and B are run
// where f is linear over the proposal's reach (f = K|x + 5| near 0, so the law is
// N(c′ − s²K, s²)) at an s whose bias bound is below what 20000 samples can see (the KS
// critical value is 0.017) while the shift s²K = 0.22·s is easy to see; C, exact at any s, is also
// run with a wide proposal across the kinks of a non-linear f.
func TestOraclesAlone(t *testing.T) {
	cases := []struct {
		name    string
		oracles []Oracle
		tg      *oneDim
		cp, s   float64
	}{
		{"linear", allOracles, &oneDim{k: 10, m: 1, a: []float64{-5}}, 0.25, 0.022},
		{"kinked", []Oracle{EnvelopeOracle}, &oneDim{k: 5, m: 1, a: []float64{-1, 0.1, 0.2, 0.4, 2}}, 0.25, 0.3},
	}
	for _, tc := range cases {
		q := newQuadrature(func(x float64) float64 {
			return tc.tg.Value([]float64{x}) + (x-tc.cp)*(x-tc.cp)/(2*tc.s*tc.s)
		}, tc.cp-12*tc.s, tc.cp+12*tc.s, 100000)
		gap := 0.0 // the KS distance between the law and the plain proposal
		for x := tc.cp - 4*tc.s; x < tc.cp+4*tc.s; x += tc.s / 100 {
			gap = math.Max(gap, math.Abs(q.CDF(x)-normalCDF((x-tc.cp)/tc.s)))
		}
		if gap < 0.05 {
			t.Fatalf("%s: the oracle's law is within %g of the proposal: the test has no power", tc.name, gap)
		}
		for k, oracle := range tc.oracles {
			if oracle != EnvelopeOracle && valueOracleBias(tc.tg.k, tc.s*tc.s, 1) > 0.005 {
				t.Fatalf("%s: bias bound %g", tc.name, valueOracleBias(tc.tg.k, tc.s*tc.s, 1))
			}
			ch, err := newChain(tc.tg, rng.Seeded(uint64(50+k)))
			if err != nil {
				t.Fatal(err)
			}
			xs := make([]float64, 20000)
			for i := range xs {
				ch.cp[0] = tc.cp
				var ok bool
				switch oracle {
				case ValueOracle:
					ok = ch.valueOracle(tc.s, 1, 1000)
				case StochasticOracle:
					ok = ch.stochasticOracle(tc.s, 1, 2, 1000)
				case EnvelopeOracle:
					ok = ch.envelopeOracle(tc.s, 0, 1000)
				}
				if !ok {
					t.Fatalf("%v reached its cap", oracle)
				}
				xs[i] = ch.x[0]
			}
			stattest.KS(t, tc.name+": "+oracle.String()+" alone", xs, q.CDF)
		}
	}
}

// TestAcceptanceRates compares empirical acceptance rates with their exact values for a linear
// f(x) = b·x, where Δ = f(x′) − f(x) ~ N(0, σ²), σ² = 2b²s²:
//   - A: E[min(1, e^{Δ−α})] = Q(α/σ) + e^{σ²/2−α}·Φ((α − σ²)/σ);
//   - B: E[e^{−(Δ+α)}] = e^{σ²/2 − α} (no factor is clipped at these settings);
//   - C: the envelope is exact for a linear f, so every proposal is accepted.
func TestAcceptanceRates(t *testing.T) {
	// s = 0.06 keeps every per-example difference |bᵢ(x − x′)| ≤ 2.5·4.7·√2·s below α = 1
	// except with probability 3e-6, so B's factors are never clipped here.
	const s, alpha = 0.06, 1.0
	b := [][]float64{{1.5}, {2.5}}
	sigma := math.Sqrt(2 * 4 * s * s)
	want := map[Oracle]float64{
		ValueOracle:      1 - normalCDF(alpha/sigma) + math.Exp(sigma*sigma/2-alpha)*normalCDF((alpha-sigma*sigma)/sigma),
		StochasticOracle: math.Exp(sigma*sigma/2 - alpha),
		EnvelopeOracle:   1,
	}
	for k, oracle := range allOracles {
		ch, err := newChain(newLinearTarget(b, 1, nil), rng.Seeded(uint64(60+k)))
		if err != nil {
			t.Fatal(err)
		}
		for range 40000 {
			ch.cp[0] = 0.1
			switch oracle {
			case ValueOracle:
				ch.valueOracle(s, alpha, 1000)
			case StochasticOracle:
				ch.stochasticOracle(s, alpha, 2*alpha, 1000)
			case EnvelopeOracle:
				ch.envelopeOracle(s, 0, 1000)
			}
		}
		p := want[oracle]
		n := float64(ch.stats.Trials)
		stattest.Z(t, oracle.String()+": acceptance rate", ch.stats.AcceptanceRate(), p, math.Sqrt(p*(1-p)/n)+1e-12)
	}
}

func TestCancellationAndProgress(t *testing.T) {
	tg := absTarget()
	p, err := NewPlan(tg.Constants(), 1, 5, EnvelopeOracle, 1e-6)
	if err != nil {
		t.Fatal(err)
	}
	var fractions []float64
	res, err := Run(context.Background(), tg, p, rng.Seeded(70), func(f float64) { fractions = append(fractions, f) })
	if err != nil || len(fractions) == 0 || fractions[len(fractions)-1] != 1 || res.Stats.Steps != p.Steps {
		t.Fatalf("progress %v, %v, %+v", fractions, err, res.Stats)
	}
	for i := 1; i < len(fractions); i++ {
		if fractions[i] <= fractions[i-1] {
			t.Fatalf("progress not increasing: %v", fractions)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	_, err = Run(ctx, tg, p, rng.Seeded(71), func(float64) {
		calls++
		if calls == 3 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || calls != 3 {
		t.Errorf("cancelled run: %v after %d progress calls", err, calls)
	}
}

func TestDeterministic(t *testing.T) {
	tg := absTarget()
	p, _ := NewPlan(tg.Constants(), 1, 5, StochasticOracle, 1e-6)
	a, _ := Run(context.Background(), absTarget(), p, rng.Seeded(80), nil)
	b, _ := Run(context.Background(), absTarget(), p, rng.Seeded(80), nil)
	if a.X[0] != b.X[0] || a.Stats != b.Stats {
		t.Errorf("the same seed gave %v and %v", a, b)
	}
	chains1, _ := RunChains(context.Background(), func() Target { return absTarget() }, p, rng.Seeded(81), 4, nil)
	chains2, _ := RunChains(context.Background(), func() Target { return absTarget() }, p, rng.Seeded(81), 4, nil)
	for i := range chains1 {
		if chains1[i].X[0] != chains2[i].X[0] {
			t.Errorf("chain %d differs between runs with the same seed", i)
		}
	}
}

func TestRunRejectsMismatches(t *testing.T) {
	tg := absTarget()
	p, _ := NewPlan(tg.Constants(), 1, 5, StochasticOracle, 1e-6)
	bad := p
	bad.Examples = 6
	if _, err := Run(context.Background(), tg, bad, rng.Seeded(1), nil); err == nil {
		t.Error("a plan for 6 examples ran on 5")
	}
	bad = p
	bad.Dim = 2
	if _, err := Run(context.Background(), tg, bad, rng.Seeded(1), nil); err == nil {
		t.Error("a plan for dimension 2 ran in dimension 1")
	}
	type valueOnly struct{ Target }
	if _, err := Run(context.Background(), valueOnly{tg}, p, rng.Seeded(1), nil); err == nil {
		t.Error("the stochastic oracle ran without per-example terms")
	}
	pc, _ := NewPlan(tg.Constants(), 1, 5, EnvelopeOracle, 1e-6)
	if _, err := Run(context.Background(), valueOnly{tg}, pc, rng.Seeded(1), nil); err == nil {
		t.Error("the envelope oracle ran without subgradients")
	}
}

// TestIdenticalEverywhere pins a digest of seeded runs of every mode: the test runs natively
// and under js/wasm, and both must give these exact bits.
func TestIdenticalEverywhere(t *testing.T) {
	dg := stattest.NewDigest()
	put := func(v float64) { dg.Add(v) }
	box := &oneDim{k: 2, m: 3, a: []float64{1, -0.5, 0.7, 1, -1}, logit: true, lo: -0.3, hi: 1.1, bounded: true}
	for i, tg := range []*oneDim{absTarget(), box} {
		for _, oracle := range allOracles {
			p, err := NewPlan(tg.Constants(), 1, 5, oracle, 1e-3)
			if err != nil {
				t.Fatal(err)
			}
			res, err := Run(context.Background(), tg, p, rng.Seeded(uint64(100+i)), nil)
			if err != nil {
				t.Fatal(err)
			}
			put(res.X[0])
			put(float64(res.Stats.Trials))
		}
		m, _ := MALA(context.Background(), tg, FastSettings{Steps: 100}, rng.Seeded(7), nil)
		l, _ := ProjectedLangevin(context.Background(), tg, FastSettings{Steps: 100}, rng.Seeded(7), nil)
		put(m.X[0])
		put(l.X[0])
	}
	if got := dg.Sum(); got != 0x65f945ee7229ff59 {
		t.Errorf("digest %#x, want the pinned value", got)
	}
}

// TestEnvelopeSmoothStep: for a smooth f on the whole space, oracle C builds its envelope near
// the proximal point and takes its step from the smoothness bound on the gap, much larger than
// the Lipschitz step; the acceptance stays above the planned bound and the samples still
// follow the target (KS against quadrature).
func TestEnvelopeSmoothStep(t *testing.T) {
	mk := func() *oneDim {
		return &oneDim{k: 40, m: 10, a: []float64{1, -0.5, 0.7, 1, -1}, logit: true, smooth: true}
	}
	rough := mk()
	rough.smooth = false
	pSmooth, _ := NewPlan(mk().Constants(), 1, 5, EnvelopeOracle, 1e-2)
	pRough, _ := NewPlan(rough.Constants(), 1, 5, EnvelopeOracle, 1e-2)
	if !(pSmooth.Step > 4*pRough.Step) || pSmooth.MinAcceptance < math.Exp(-1)*(1-1e-12) || pSmooth.ProxSteps == 0 {
		t.Fatalf("smooth step %g (acceptance ≥ %g, %d prox steps), Lipschitz step %g", pSmooth.Step, pSmooth.MinAcceptance, pSmooth.ProxSteps, pRough.Step)
	}
	xs, stats, _ := samplesPlan(t, func() Target { return mk() }, EnvelopeOracle, 1e-2, 2000, 95)
	q := targetQuadrature(mk())
	flat := make([]float64, len(xs))
	for i, x := range xs {
		flat[i] = x[0]
	}
	stattest.KS(t, "smooth envelope", flat, q.CDF)
	acc, n := stats.AcceptanceRate(), float64(stats.Trials)
	if acc < pSmooth.MinAcceptance-5*math.Sqrt(pSmooth.MinAcceptance/n) {
		t.Errorf("acceptance %g below the planned bound %g", acc, pSmooth.MinAcceptance)
	}
}

// TestProxStepsReachThePlannedDistance checks the bound oracle C's plan rests on: after the
// planned gradient steps from c′, the proposal's mean c′ − s²∇f(w_J) is within
// e = (1 + s²β)·q^J·s²G of w_J, for random centres, on a smooth logistic target at d = 92.
func TestProxStepsReachThePlannedDistance(t *testing.T) {
	checkProxSteps(t, newLogisticTarget(t, 300, 92, 400, 0.5), 96, func(int) float64 { return 3 })
}

// checkProxSteps checks, on a smooth target, that after the planned (projected) gradient steps
// from Π_K(c′) the proposal's mode Π_K(c′ − s²∇f(w_J)) is within e = (1 + s²β)·q^J·s²G of
// w_J, and that the distance to the proximal point on K (500 steps) has contracted by q^J, for
// 60 centres c′ (15 under -short) with coordinates N(0, scale(k)²).
func checkProxSteps(t *testing.T, tg Target, seed uint64, scale func(k int) float64) {
	t.Helper()
	d := tg.Dim()
	p, err := NewPlan(tg.Constants(), d, tg.(Examples).NumExamples(), EnvelopeOracle, 1e-6)
	if err != nil {
		t.Fatal(err)
	}
	if p.ProxSteps == 0 {
		t.Fatal("the plan takes no proximal steps")
	}
	c := tg.Constants()
	s2 := p.ProposalVar
	q := s2 * c.Smoothness / (2 + s2*c.Smoothness)
	e := (1 + s2*c.Smoothness) * s2 * c.Lipschitz * math.Pow(q, float64(p.ProxSteps))
	ch, err := newChain(tg, rng.Seeded(seed))
	if err != nil {
		t.Fatal(err)
	}
	dist := func(a, b []float64) float64 {
		s := 0.0
		for i := range a {
			s += (a[i] - b[i]) * (a[i] - b[i])
		}
		return math.Sqrt(s)
	}
	worst := 0.0
	wJ, mode, start := make([]float64, d), make([]float64, d), make([]float64, d)
	for k := range shortN(60) {
		for i := range ch.cp {
			ch.cp[i] = scale(k) * ch.r.Normal()
		}
		ch.envelopeOracle(math.Sqrt(s2), p.ProxSteps, 1)
		if !ch.inDomain(ch.w) {
			t.Fatal("w_J outside the domain")
		}
		ch.project(mode, ch.y) // ch.y holds the proposal's mean c′ − s²∇f(w_J)
		worst = math.Max(worst, dist(mode, ch.w))
		copy(wJ, ch.w)
		ch.project(start, ch.cp)
		ch.envelopeOracle(math.Sqrt(s2), 500, 1)
		if got, want := dist(wJ, ch.w), math.Pow(q, float64(p.ProxSteps))*dist(start, ch.w); got > want*(1+1e-6)+1e-12 {
			t.Errorf("after %d steps the distance to the proximal point is %g, more than q^J times the start's, %g", p.ProxSteps, got, want)
		}
	}
	if worst > e {
		t.Errorf("distance %g after %d steps, the plan assumes at most %g", worst, p.ProxSteps, e)
	}
}
