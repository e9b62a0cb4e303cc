package sampler

import (
	"context"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/privopt/privopt/internal/stattest"
	"github.com/privopt/privopt/pkg/interval"
	"github.com/privopt/privopt/pkg/rng"
)

// safeOneDim is the logistic oneDim target with the rounding bounds of Enclosed: each term
// k·φ(z), z = −a·x, is computed within a relative 2⁻⁴⁰ of its exact value at the rounded z
// (detmath's Exp and Log1p), z within 2⁻⁵³|z| of −a·x, φ is 1-Lipschitz; the sum of N terms
// and the division add γ_{N+1}.
type safeOneDim struct{ *oneDim }

func (t safeOneDim) Constants() Constants {
	c := t.oneDim.Constants()
	if t.bounded {
		_, c.Radius = DomainOf(t.Domain())
	}
	n := float64(len(t.a))
	c.GradErrorFloor = t.k * (0x1p-40 + (n+4)*0x1p-53) * 2
	c.GradErrorSlope = t.k * 0x1p-50
	return c
}

func (t safeOneDim) ValueError(x []float64, v float64) float64 {
	n := float64(len(t.a))
	return 2 * (t.k*0x1p-53*math.Abs(x[0]) + (0x1p-40+(n+2)*0x1p-53)*math.Abs(v))
}

func (t safeOneDim) GradError(x, g []float64) float64 {
	c := t.Constants()
	return c.GradErrorFloor + c.GradErrorSlope*math.Abs(x[0])
}

// partsPoint encloses the one coordinate of p₁ + … + p_k.
func partsPoint(prec uint, parts [][]float64) interval.I {
	x := interval.Point(0, prec)
	for _, p := range parts {
		x = interval.Add(x, interval.Point(p[0], prec), prec)
	}
	return x
}

func (t safeOneDim) ValueEnclosure(prec uint, parts ...[]float64) (lo, hi *big.Int, exp int) {
	x := partsPoint(prec, parts)
	sum := interval.Point(0, prec)
	for _, a := range t.a {
		sum = interval.Add(sum, interval.Log1pExp(interval.MulFloat(x, -a, prec), prec), prec)
	}
	return interval.MulFloat(interval.Quo(sum, interval.Point(float64(len(t.a)), prec), prec), t.k, prec).Ends()
}

func safeLogistic() safeOneDim {
	return safeOneDim{&oneDim{k: 3, m: 2, a: []float64{1, -0.5, 0.7, 1, -1, 0.3}, logit: true, smooth: true}}
}

// safeBoxed is the logistic target restricted to [0.4, 2.5], where its mass piles up against
// the lower end.
func safeBoxed() safeOneDim {
	return safeOneDim{&oneDim{k: 3, m: 2, a: []float64{1, -0.5, 0.7, 1, -1, 0.3}, logit: true, smooth: true,
		bounded: true, lo: 0.4, hi: 2.5}}
}

// safeBalled is the logistic target restricted to the ball [−1.2, 1.2], which cuts its mass
// 1.9 standard deviations above its mean (proposals beyond the end take the tilted draws).
func safeBalled() safeOneDim {
	return safeOneDim{&oneDim{k: 20, m: 2, a: []float64{1, -0.5, 0.7, 1, -1, 0.3}, logit: true, smooth: true,
		bounded: true, ball: true, lo: -1.2, hi: 1.2}}
}

// safeAbs is the non-smooth oneDim target (1/N)Σ k·|x − aᵢ| with the rounding bounds of
// Enclosed: each |x − aᵢ| within u of its value, the sums γ_{N+1}; its subgradient's terms ±k
// are exact at the float point (the comparison x ≥ aᵢ is exact), so only their sum rounds.
type safeAbs struct{ *oneDim }

func newSafeAbs() safeAbs {
	return safeAbs{&oneDim{k: 2, m: 1.5, a: []float64{1, -0.5, 0.7, 1, -1, 0.3}}}
}

func (t safeAbs) Constants() Constants {
	c := t.oneDim.Constants()
	c.GradErrorFloor = t.k * float64(len(t.a)+4) * 0x1p-53 * 2
	return c
}

func (t safeAbs) ValueError(x []float64, v float64) float64 {
	return 2 * float64(len(t.a)+4) * 0x1p-53 * math.Abs(v)
}

func (t safeAbs) GradError(x, g []float64) float64 { return t.Constants().GradErrorFloor }

func (t safeAbs) ValueEnclosure(prec uint, parts ...[]float64) (lo, hi *big.Int, exp int) {
	x := partsPoint(prec, parts)
	sum := interval.Point(0, prec)
	for _, a := range t.a {
		d := interval.Sub(x, interval.Point(a, prec), prec)
		switch {
		case d.Hi.Sign() <= 0:
			d = interval.Neg(d)
		case d.Lo.Sign() < 0: // [0, max(−lo, hi)]
			top := d.Hi
			if new(big.Float).Neg(d.Lo).Cmp(top) > 0 {
				top = new(big.Float).Neg(d.Lo)
			}
			d = interval.I{Lo: new(big.Float), Hi: top}
		}
		sum = interval.Add(sum, d, prec)
	}
	return interval.MulFloat(interval.Quo(sum, interval.Point(float64(len(t.a)), prec), prec), t.k, prec).Ends()
}

// TestSafeOneDimensional: the floating-point-safe sampler's releases follow the target, smooth
// (logistic terms) or not (absolute values, planned on the Lipschitz route), by KS against
// quadrature, mean and second moment, at fixed seeds: each test's false-failure rate is below
// 1e-4, up to the grid's rounding (2⁻¹⁴, far below the tests' resolution).
func TestSafeOneDimensional(t *testing.T) {
	for name, c := range map[string]struct {
		target func() Enclosed
		oneDim *oneDim
		seed   uint64
	}{
		"logistic": {func() Enclosed { return safeLogistic() }, safeLogistic().oneDim, 41},
		"abs":      {func() Enclosed { return newSafeAbs() }, newSafeAbs().oneDim, 42},
		"box":      {func() Enclosed { return safeBoxed() }, safeBoxed().oneDim, 43},
		"ball":     {func() Enclosed { return safeBalled() }, safeBalled().oneDim, 44},
	} {
		t.Run(name, func(t *testing.T) { checkSafeOneDimensional(t, c.target, c.oneDim, c.seed) })
	}
}

func checkSafeOneDimensional(t *testing.T, target func() Enclosed, od *oneDim, seed uint64) {
	tg := target()
	p, err := NewSafePlan(tg.Constants(), 1, len(od.a), 1e-2)
	if err != nil {
		t.Fatal(err)
	}
	n := shortN(2000)
	results, err := RunChains(context.Background(), func() Target { return target() }, p, rng.Seeded(seed), n, nil)
	if err != nil {
		t.Fatal(err)
	}
	q := targetQuadrature(od)
	flat := make([]float64, n)
	var sum, sum2 float64
	var stats Stats
	for i, r := range results {
		if !r.Certified || !r.FloatingPointSafe || r.TV != p.TV || !strings.Contains(r.Statement, "floating-point rounding included") {
			t.Fatalf("a safe run says %+v", r)
		}
		flat[i] = r.X[0]
		sum += r.X[0]
		sum2 += r.X[0] * r.X[0]
		stats.CapHits += r.Stats.CapHits
		stats.Undecided += r.Stats.Undecided
	}
	checkCounts(t, EnvelopeOracle, p, stats, n)
	if stats.Undecided != 0 {
		t.Errorf("%d undecided decisions", stats.Undecided)
	}
	nf := float64(n)
	stattest.Z(t, "safe: mean", sum/nf, q.mean, math.Sqrt(q.vari/nf))
	stattest.Z(t, "safe: second moment", sum2/nf, q.vari+q.mean*q.mean, math.Sqrt(2*q.vari*q.vari/nf+4*q.mean*q.mean*q.vari/nf))
	stattest.KS(t, "safe", flat, q.CDF)
}

// TestSafeOracleAlone checks one call of the floating-point-safe envelope oracle, for a fixed
// centre c′ and variance s², against its exact law ∝ exp(−f(x))·N(x; c′, s²) by quadrature
// (KS over 10,000 calls: false-failure rate 1e-4), for the logistic target and for the
// non-smooth one with a proposal wide across its kinks, where the envelope sits at c′ itself.
// An envelope built from half the gradient (ĝ/2, outside the θ-split's cover) fails it on
// the logistic target (KS distance 0.05 against a critical 0.022).
func TestSafeOracleAlone(t *testing.T) {
	for name, c := range map[string]struct {
		tg        Enclosed
		cp, s     float64
		proxSteps int
	}{
		"logistic": {safeOneDim{&oneDim{k: 10, m: 1, a: []float64{1, -0.5, 0.7, 1, 0.3}, logit: true, smooth: true}}, 0.25, 0.4, 2},
		"abs":      {safeAbs{&oneDim{k: 5, m: 1, a: []float64{-1, 0.1, 0.2, 0.4, 2}}}, 0.25, 0.3, 0},
		// On a box, the centre inside it near an end, and outside it (the exponential branch).
		"box inside": {safeOneDim{&oneDim{k: 10, m: 1, a: []float64{1, -0.5, 0.7, 1, 0.3}, logit: true, smooth: true,
			bounded: true, lo: 0.1, hi: 3}}, 0.25, 0.4, 2},
		"box outside": {safeOneDim{&oneDim{k: 10, m: 1, a: []float64{1, -0.5, 0.7, 1, 0.3}, logit: true, smooth: true,
			bounded: true, lo: 0.1, hi: 3}}, -0.8, 0.3, 2},
		// On a ball (an interval in one dimension), the centre inside near the sphere (the plain
		// draws), and outside it (the tilted ones).
		"ball inside": {safeOneDim{&oneDim{k: 10, m: 1, a: []float64{1, -0.5, 0.7, 1, 0.3}, logit: true, smooth: true,
			bounded: true, ball: true, lo: -1, hi: 1}}, 0.8, 0.2, 2},
		"ball outside": {safeOneDim{&oneDim{k: 10, m: 1, a: []float64{1, -0.5, 0.7, 1, 0.3}, logit: true, smooth: true,
			bounded: true, ball: true, lo: -1, hi: 1}}, 1.3, 0.2, 2},
	} {
		lo, hi := c.cp-12*c.s, c.cp+12*c.s
		if od, ok := c.tg.(safeOneDim); ok && od.bounded {
			lo, hi = od.lo, od.hi
		}
		q := newQuadrature(func(x float64) float64 {
			return c.tg.Value([]float64{x}) + (x-c.cp)*(x-c.cp)/(2*c.s*c.s)
		}, lo, hi, 100000)
		gap := 0.0 // the KS distance between the law and the plain proposal
		for x := c.cp - 4*c.s; x < c.cp+4*c.s; x += c.s / 100 {
			gap = math.Max(gap, math.Abs(q.CDF(x)-normalCDF((x-c.cp)/c.s)))
		}
		if gap < 0.05 {
			t.Fatalf("%s: the oracle's law is within %g of the proposal: the test has no power", name, gap)
		}
		ch, sc := safeTestChain(t, c.tg, rng.Seeded(61), c.s*c.s)
		p := Plan{ProxSteps: c.proxSteps, TrialCap: 1000}
		xs := make([]float64, 10000)
		for i := range xs {
			ch.x[0], ch.cp[0], sc.ocHi[0], sc.ocLo[0] = c.cp, c.cp, 0, 0
			if !ch.safeEnvelope(sc, p) {
				t.Fatalf("%s: the cap was reached", name)
			}
			xs[i] = ch.x[0] + sc.oHi[0] + sc.oLo[0]
		}
		stattest.KS(t, name+": the safe oracle alone", xs, q.CDF)
	}
}

// safeTestChain returns a chain on the target at a random centre c′ with its envelope (ŵ, ĝ),
// ready for safeEnclosure, and the scratch of a safe run.
func safeTestChain(t *testing.T, tg Enclosed, r *rng.Rand, s2 float64) (*chain, *safeChain) {
	t.Helper()
	ch, err := newChain(tg, r)
	if err != nil {
		t.Fatal(err)
	}
	d := tg.Dim()
	sc := &safeChain{t: tg, s2: s2, cq: safeTheta / (2 * s2)}
	for _, v := range []*[]float64{&sc.oHi, &sc.oLo, &sc.ocHi, &sc.ocLo, &sc.moHi, &sc.moLo, &sc.pHi, &sc.pLo, &sc.xf} {
		*v = make([]float64, d)
	}
	sc.sqrtH, sc.sigma, sc.inv, sc.invSigma = safeConstants(s2, ch.c.StrongConvexity, sc.cq)
	if ch.kind == BallDomain {
		sc.ball = newSafeBall(d)
	}
	for i := range ch.cp {
		ch.cp[i] = 3 * r.Normal()
	}
	ch.proxPoint(2, s2, 3*s2*ch.c.Lipschitz)
	return ch, sc
}

// TestSafeEnclosures: the float enclosure of exp(−G) contains the 320-bit interval one for
// random proposals around random envelopes, on a target with 400 terms and K = 5,000, whose
// sums round visibly; and safeDecide's decisions agree with the exact comparison wherever the
// float path decides. A float bound a thousand times too small fails (checked by hand: the
// containment fails for most proposals).
func TestSafeEnclosures(t *testing.T) {
	r := rng.Seeded(43)
	a := make([]float64, 400)
	for i := range a {
		a[i] = 2*r.Float64() - 1
	}
	tg := safeOneDim{&oneDim{k: 5000, m: 50, a: a, logit: true, smooth: true}}
	s2 := 1e-3
	trials := 20
	if testing.Short() {
		trials = 5
	}
	for trial := range trials {
		ch, sc := safeTestChain(t, tg, r, s2)
		fwErr := tg.ValueError(ch.w, ch.fw)
		e := tg.GradError(ch.w, ch.g)
		bigE := roundUp(e * e / (4 * sc.cq))
		sc.moHi[0], sc.moLo[0] = twoSum(0.01*r.Normal(), 1e-20*r.Normal())
		zh, zl := sc.normal(r)
		sc.pHi[0], sc.pLo[0] = ddMul(sc.sigma[0], sc.sigma[1], zh, zl)
		lo, hi := ch.safeEnclosure(sc, bigE, fwErr)
		exact := ch.safeIntervalEnclosure(sc, bigE, safeFallbackPrec)
		if exact.Lo.Cmp(big.NewFloat(lo)) < 0 || exact.Hi.Cmp(big.NewFloat(hi)) > 0 {
			t.Fatalf("trial %d: the float enclosure [%g, %g] misses the exact [%v, %v]", trial, lo, hi, exact.Lo, exact.Hi)
		}
		if !(hi-lo < 1e-6) {
			t.Errorf("trial %d: the float enclosure is %g wide", trial, hi-lo)
		}
		// Decisions: a uniform just inside each end of [lo, hi] goes to the fallback and must
		// come out as the exact comparison says.
		mid, _ := new(big.Float).Quo(new(big.Float).Add(exact.Lo, exact.Hi), big.NewFloat(2)).Float64()
		for _, u := range []float64{lo / 2, (lo + mid) / 2, (mid + hi) / 2, (hi + 1) / 2} {
			if !(u < 1) {
				continue
			}
			want := reject
			if u < mid {
				want = accept
			}
			if got := decideAt(ch, sc, bigE, fwErr, u); got != want && got != undecided {
				t.Errorf("trial %d: u = %g, exp(−G) ≈ %g: decision %d, want %d", trial, u, mid, got, want)
			}
		}
	}
}

// decideAt runs safeDecide with its uniform's first 53 bits set to those of u.
func decideAt(ch *chain, sc *safeChain, bigE, fwErr, u float64) int {
	j := uint64(u * 0x1p53)
	saved := ch.r
	ch.r = rng.WithSource(&fixedFirst{first: j << 11, rest: saved})
	defer func() { ch.r = saved }()
	return ch.safeDecide(sc, bigE, fwErr)
}

// fixedFirst returns first, then the draws of rest.
type fixedFirst struct {
	first uint64
	used  bool
	rest  *rng.Rand
}

func (f *fixedFirst) Uint64() uint64 {
	if !f.used {
		f.used = true
		return f.first
	}
	return f.rest.Uint64()
}

// TestSafeGridRelease: the release is within the grid's spacing of the state and, for states
// a tiny distance apart, the same grid point except within that distance of a cell's end.
func TestSafeGridRelease(t *testing.T) {
	tg := safeLogistic()
	for seed := range uint64(200) {
		x := 10 * rng.Seeded(seed+1000).Normal()
		rel := func(shift float64) float64 {
			ch, err := newChain(tg, rng.Seeded(seed))
			if err != nil {
				t.Fatal(err)
			}
			ch.x[0] = x
			ch.gridRelease([]float64{shift}, []float64{1e-30}, safeGrid)
			return ch.x[0]
		}
		a, b := rel(0), rel(1e-12)
		if !(math.Abs(a-x) < safeGrid) {
			t.Fatalf("release %v of %v: more than the spacing away", a, x)
		}
		k := (a - x) / safeGrid // the distance to the cell's lower end, in spacings
		if a != b && k < -1e-6 && k > -1+1e-6 {
			t.Errorf("a shift of 1e-12 moved the release of %v from %v to %v", x, a, b)
		}
	}
}

// TestNewSafePlan: a safe plan's TV is its three terms, the floating-point term within its
// share; the plan refuses the domains, targets and centres it does not cover.
func TestNewSafePlan(t *testing.T) {
	tg := safeLogistic()
	c := tg.Constants()
	p, err := NewSafePlan(c, 1, len(tg.a), 1e-6)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Safe || p.Grid != safeGrid || !(p.TVFloat > 0 && p.TVFloat <= 1e-6/8) || p.TV != p.TVMix+p.TVCap+p.TVFloat || !(p.TV <= 1e-6) {
		t.Errorf("plan %+v", p)
	}
	if !(p.MinAcceptance > 0.3) {
		t.Errorf("minimum acceptance %g", p.MinAcceptance)
	}
	abs := newSafeAbs()
	pa, err := NewSafePlan(abs.Constants(), 1, len(abs.a), 1e-6)
	if err != nil {
		t.Fatal(err)
	}
	if pa.ProxSteps != 0 || !(pa.MinAcceptance > 0.3) || !(pa.TVFloat > 0 && pa.TV <= 1e-6) {
		t.Errorf("a non-smooth target's plan %+v", pa)
	}
	boxed := safeBoxed()
	pb, err := NewSafePlan(boxed.Constants(), 1, len(boxed.a), 1e-6)
	if err != nil {
		t.Fatal(err)
	}
	if !(pb.MinAcceptance > 0.1) || !(pb.TVFloat > 0 && pb.TV <= 1e-6) {
		t.Errorf("a box's plan %+v", pb)
	}
	balled := safeBalled()
	pl, err := NewSafePlan(balled.Constants(), 1, len(balled.a), 1e-6)
	if err != nil {
		t.Fatal(err)
	}
	if !(pl.MinAcceptance > 0.1) || !(pl.TVFloat > 0 && pl.TV <= 1e-6) || !(pl.TVCap > float64(pl.Steps*pl.TrialCap)*safeBallFailure) {
		t.Errorf("a ball's plan %+v", pl)
	}
	// A steep target (its Lipschitz constant and smoothness 1000 times the logistic's) on a
	// tiny budget: an eighth of tv is below its floating-point term, and the plan gives that
	// term a larger share, its total still within tv.
	steep := c
	steep.Lipschitz *= 1000
	steep.Smoothness *= 1000
	const tiny = 6e-17
	if _, err := newSafePlan(steep, 1, len(tg.a), tiny, safeFloatShares[0]); err == nil {
		t.Error("a steep target: planned within an eighth of the budget")
	}
	pt, err := NewSafePlan(steep, 1, len(tg.a), tiny)
	if err != nil {
		t.Fatal(err)
	}
	if !(pt.TVFloat > tiny/8 && pt.TV <= tiny && pt.TV == pt.TVMix+pt.TVCap+pt.TVFloat) {
		t.Errorf("a steep target's plan %+v", pt)
	}
	// A ball small against the unconstrained plan's σ√d: σ is capped at R/(3√d), at the cost
	// of more steps.
	small := balled.Constants()
	small.Radius = 0.5
	ps, err := NewSafePlan(small, 1, len(balled.a), 1e-6)
	if err != nil {
		t.Fatal(err)
	}
	if sigma := math.Sqrt(ps.ProposalVar / (1 - safeTheta)); !(3*sigma <= small.Radius) || !(3*math.Sqrt(pl.ProposalVar/(1-safeTheta)) > small.Radius) || !(ps.Steps > pl.Steps) {
		t.Errorf("a small ball's plan: σ %g, steps %d (radius 1.2: σ %g, steps %d)", sigma, ps.Steps, math.Sqrt(pl.ProposalVar/(1-safeTheta)), pl.Steps)
	}
	for name, mutate := range map[string]func(*Constants){
		"box, no extent":       func(c *Constants) { c.Domain = BoxDomain },
		"ball, no radius":      func(c *Constants) { c.Domain = BallDomain },
		"ball below the start": func(c *Constants) { c.Domain, c.Radius = BallDomain, 0.05 },
		"no rounding":          func(c *Constants) { c.GradErrorFloor = 0 },
		"centre":               func(c *Constants) { c.Center = []float64{1} },
		"rounding too big":     func(c *Constants) { c.GradErrorFloor = 1e3 },
	} {
		m := c
		mutate(&m)
		if _, err := NewSafePlan(m, 1, len(tg.a), 1e-6); err == nil {
			t.Errorf("%s: planned", name)
		}
	}
}

// TestThetaSplitEnvelope: with ĝ off the gradient by ê, G(x) = f(x) − f(ŵ) − ĝ·(x − ŵ) +
// c_q(x − ŵ)² + E stays non-negative when E = ê²/(4c_q) (item 1), which keeps the acceptance
// exp(−G) at most 1 and the accepted law exact; half that E lets G go negative near
// x = ŵ ± ê/(2c_q), so the test would catch a shift too small.
func TestThetaSplitEnvelope(t *testing.T) {
	tg := safeOneDim{&oneDim{k: 0.05, m: 1, a: []float64{1, -0.5, 0.7}, logit: true, smooth: true}}
	r := rng.Seeded(47)
	cq := 0.5
	g := []float64{0}
	for trial := range 50 {
		w := []float64{4 * r.Normal()}
		fw := tg.Grad(g, w)
		e := 0.5 + r.Float64()
		sign := 1.0
		if trial%2 == 1 {
			sign = -1
		}
		gHat := g[0] + sign*e
		minG := func(bigE float64) float64 {
			least := math.Inf(1)
			centre := w[0] + sign*e/(2*cq)
			for i := -2000; i <= 2000; i++ {
				x := centre + float64(i)*1e-3
				v := tg.Value([]float64{x}) - fw - gHat*(x-w[0]) + cq*(x-w[0])*(x-w[0]) + bigE
				least = math.Min(least, v)
			}
			return least
		}
		if got := minG(e * e / (4 * cq)); got < -1e-12 {
			t.Errorf("trial %d: G reaches %g < 0 with E = ê²/(4c_q)", trial, got)
		}
		if got := minG(e * e / (8 * cq)); !(got < 0) {
			t.Errorf("trial %d: half the shift keeps G ≥ 0 (%g): the test cannot see a shift too small", trial, got)
		}
	}
}

// TestSafeCentre: a step's centre c′ = (1 − s²m)·(b + o + √h·ξ), computed as a new base and a
// double-double offset, is within 2⁻⁹⁸|b| + 2⁻⁹⁵·(|o| + √h|ξ| + 1) of its exact value (at 400
// bits), for bases up to 10⁶: about u² of every magnitude, as TVFloat assumes. Computing
// 1 − s²m in float64 (an error of about 2⁻⁵³|o|), or the offset in float64, fails.
func TestSafeCentre(t *testing.T) {
	const prec = 400
	r := rng.Seeded(53)
	for trial := range 2000 {
		s2, m := 1e-3*(1+r.Float64()), 0.1+5*r.Float64()
		sc := &safeChain{s2: s2, cq: safeTheta / (2 * s2)}
		sc.tHi, sc.tLo = twoProd(s2, m)
		sc.sqrtH, sc.sigma, sc.inv, _ = safeConstants(s2, m, sc.cq)
		b := math.Ldexp(r.Normal(), r.IntN(21))
		oHi, oLo := twoSum(r.Normal(), 1e-17*r.Normal())
		zHi := r.Normal() // exact as a float: its double-double has lo = 0
		b1, h, l := sc.centre(b, oHi, oLo, zHi, 0)
		// Exact: (1 − s²m)(b + o + √h·z) with h = s²/(1 − s²m), enclosed at 400 bits.
		one := interval.Point(1, prec)
		rest := interval.Sub(one, interval.MulFloat(interval.Point(s2, prec), m, prec), prec)
		sqrtH := interval.Sqrt(interval.Quo(interval.Point(s2, prec), rest, prec), prec)
		y := interval.Add(interval.Point(b, prec), interval.Add(interval.Point(oHi, prec), interval.Point(oLo, prec), prec), prec)
		y = interval.Add(y, interval.MulFloat(sqrtH, zHi, prec), prec)
		exact := interval.Mul(rest, y, prec)
		got := new(big.Float).SetPrec(prec).SetFloat64(b1)
		got.Add(got, new(big.Float).SetFloat64(h))
		got.Add(got, new(big.Float).SetFloat64(l))
		bound := 0x1p-98*math.Abs(b) + 0x1p-95*(math.Abs(oHi)+math.Sqrt(s2)*math.Abs(zHi)+1)
		for _, end := range []*big.Float{exact.Lo, exact.Hi} {
			diff, _ := new(big.Float).Sub(got, end).Float64()
			if math.Abs(diff) > bound {
				t.Fatalf("trial %d: c′ is off by %g, beyond %g (b = %g)", trial, diff, bound, b)
			}
		}
	}
}

// TestSafeMeanOffset: the proposal's mean offset [(b + oc − ŵ) − s²ĝ]/(1 − θ′), with its large
// terms nearly cancelling as at a proximal point, is within 2⁻⁹⁵ of the terms' magnitudes of
// its exact value (at 400 bits); a float64 evaluation is off by about 2⁻⁵³ of them and fails.
func TestSafeMeanOffset(t *testing.T) {
	const prec = 400
	r := rng.Seeded(59)
	for trial := range 2000 {
		s2 := 1e-3 * (1 + r.Float64())
		sc := &safeChain{s2: s2, cq: safeTheta / (2 * s2)}
		sc.sqrtH, sc.sigma, sc.inv, _ = safeConstants(s2, 1, sc.cq)
		b := math.Ldexp(r.Normal(), r.IntN(21))
		g := 1e4 * r.Normal()
		ocHi, ocLo := twoSum(r.Normal(), 1e-17*r.Normal())
		w := b + ocHi - s2*g + 1e-3*r.Normal() // near the proximal point
		hi, lo := sc.meanOffset(b, w, ocHi, ocLo, g)
		num := interval.Add(interval.Point(b, prec), interval.Add(interval.Point(ocHi, prec), interval.Point(ocLo, prec), prec), prec)
		num = interval.Sub(num, interval.Point(w, prec), prec)
		num = interval.Sub(num, interval.MulFloat(interval.Point(s2, prec), g, prec), prec)
		rest := interval.Sub(interval.Point(1, prec), interval.MulFloat(interval.Point(2*s2, prec), sc.cq, prec), prec)
		exact := interval.Quo(num, rest, prec)
		got := new(big.Float).SetPrec(prec).SetFloat64(hi)
		got.Add(got, new(big.Float).SetFloat64(lo))
		bound := 0x1p-95 * (math.Abs(b) + math.Abs(w) + math.Abs(ocHi) + s2*math.Abs(g))
		for _, end := range []*big.Float{exact.Lo, exact.Hi} {
			diff, _ := new(big.Float).Sub(got, end).Float64()
			if math.Abs(diff) > bound {
				t.Fatalf("trial %d: the mean offset is off by %g, beyond %g", trial, diff, bound)
			}
		}
	}
}
