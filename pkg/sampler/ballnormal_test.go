package sampler

import (
	"context"
	"fmt"
	"github.com/privopt/privopt/pkg/detmath"
	"math"
	"slices"
	"testing"

	"github.com/privopt/privopt/internal/stattest"
	"github.com/privopt/privopt/pkg/core/geom"
	"github.com/privopt/privopt/pkg/rng"
)

// Statistical tests here use fixed seeds; each KS test is at level 1e-4 (internal/stattest),
// and the two-sample KS tests below too.

// truncMoments returns E|x − w| and E(x − w)² for x ~ N(mu, s²) restricted to [lo, hi], by
// quadrature over the part of the interval that holds the mass.
func truncMoments(mu, s, lo, hi, w float64) (m1, m2 float64) {
	a := math.Max(lo, math.Min(mu, hi)-12*s)
	b := math.Min(hi, math.Max(mu, lo)+12*s)
	q := newQuadrature(func(x float64) float64 { return (x - mu) * (x - mu) / (2 * s * s) }, a, b, 2000)
	for i := 1; i < len(q.xs); i++ {
		x := (q.xs[i] + q.xs[i-1]) / 2
		p := q.cdf[i] - q.cdf[i-1]
		m1 += math.Abs(x-w) * p
		m2 += (x - w) * (x - w) * p
	}
	return m1, m2
}

// TestRestrictedEnvelopeMoments: oracle C's proposal restricted to an interval (a
// one-dimensional box) has E|x − w| and E(x − w)², by quadrature, within envelopeMoments'
// bounds for a constrained domain, over a grid of intervals, centres c′ and subgradients g
// (w = Π(c′), the proposal's mean c′ − s²g). The whole-space second moment s² + s⁴g² is
// exceeded there by up to about 0.29·s² (restriction pushes x away from w when c′ is on the
// boundary and the mean inside); the test checks that too, so the constrained bound cannot
// silently fall back to it.
func TestRestrictedEnvelopeMoments(t *testing.T) {
	const s = 1.0
	worstWhole := 0.0
	for _, width := range []float64{0.1, 1, 5, 1000} {
		centres := []float64{}
		for c := -4.0; c <= 4; c += 0.5 {
			centres = append(centres, c, width+c)
		}
		for _, cp := range centres {
			for g := -6.0; g <= 6; g += 0.25 {
				mu := cp - s*s*g
				w := math.Min(math.Max(cp, 0), width)
				m1, m2 := truncMoments(mu, s, 0, width, w)
				mean, meanSquare := envelopeMoments(s, math.Abs(g), proposalSpread{r: 1, a: 1})
				if m1 > mean*(1+1e-4)+1e-9 || m2 > meanSquare*(1+1e-4)+1e-9 {
					t.Errorf("[0, %g], c′ = %g, g = %g: E|x − w| = %g (bound %g), E(x − w)² = %g (bound %g)", width, cp, g, m1, mean, m2, meanSquare)
				}
				_, whole := envelopeMoments(s, math.Abs(g), proposalSpread{whole: true, r: 1, a: 1})
				worstWhole = math.Max(worstWhole, m2-whole)
			}
		}
	}
	if worstWhole < 0.25 {
		t.Errorf("the whole-space bound should fail on intervals (by about 0.29 s²); its worst excess is %g", worstWhole)
	}
}

// TestRestrictedSecondMomentOnDisk checks the lemma behind envelopeMoments on a disk:
// E‖x − Π_K(μ)‖² ≤ d·s² for x ~ N(μ, s²I) restricted to K, by quadrature on a polar grid, for
// means inside, on and outside the unit disk.
func TestRestrictedSecondMomentOnDisk(t *testing.T) {
	for _, s := range []float64{0.2, 0.7, 3} {
		for _, mu := range [][2]float64{{0, 0}, {0.6, 0.3}, {1, 0}, {0.9, 0.9}, {2, -1}, {5, 0}} {
			n := math.Hypot(mu[0], mu[1])
			px, py := mu[0], mu[1]
			if n > 1 {
				px, py = mu[0]/n, mu[1]/n
			}
			var z, m2 float64
			const nr, na = 800, 800
			for i := range nr {
				r := (float64(i) + 0.5) / nr
				for j := range na {
					a := 2 * math.Pi * (float64(j) + 0.5) / na
					x, y := r*math.Cos(a), r*math.Sin(a)
					w := r * math.Exp(-((x-mu[0])*(x-mu[0])+(y-mu[1])*(y-mu[1]))/(2*s*s))
					z += w
					m2 += w * ((x-px)*(x-px) + (y-py)*(y-py))
				}
			}
			if got := m2 / z; got > 2*s*s*(1+1e-4) {
				t.Errorf("s = %g, μ = %v: E‖x − Π(μ)‖² = %g > 2s² = %g", s, mu, got, 2*s*s)
			}
		}
	}
}

// radialCases are (d, M/R, s/R) triples covering the ball draws' regimes: the proposal's mean
// deep inside, near the sphere and far outside, with tiny to huge variances.
func radialCases() [][3]float64 {
	var cases [][3]float64
	for _, d := range []float64{2, 3, 5, 20, 92, 1000} {
		for _, m := range []float64{0, 0.5, 0.99, 1, 1.01, 1.5, 3, 100} {
			for _, s := range []float64{1e-6, 1e-3, 0.01, 0.1, 1, 10, 1e4} {
				cases = append(cases, [3]float64{d, m, s})
			}
		}
	}
	return cases
}

// TestRadialEnvelope checks, for every radial case, that the envelope lies above the log
// density (at 1000 points per piece, spread by the piece's own quantiles), that the true
// acceptance (the envelope-weighted mean of exp(φ − envelope) at the same points) is at least
// the bound computed by the draw, and that the bound is at least ballMinAcceptance.
func TestRadialEnvelope(t *testing.T) {
	const radius = 2.0
	for _, c := range radialCases() {
		q := radial{d: int(c[0]), m: c[1] * radius, s: c[2] * radius, r: radius}
		env := q.envelope(q.mode())
		bound := env.lower / env.mass
		var accepted float64
		for _, p := range env.pieces[:env.count] {
			const k = 1000
			var mean float64
			for i := range k {
				x := p.sample((float64(i) + 0.5) / k)
				gap := q.value(x) - env.peak - (p.value + p.slope*(x-p.lo))
				if gap > 1e-12 {
					t.Errorf("%v: φ is above the envelope by %g at t = %g", c, gap, x)
				}
				mean += math.Exp(math.Min(gap, 0)) / k
			}
			accepted += p.mass * mean
		}
		accepted /= env.mass
		if !(bound >= ballMinAcceptance) || accepted < bound*(1-1e-3) {
			t.Errorf("%v: acceptance %g, bound %g (want the bound ≥ %g and below the acceptance)", c, accepted, bound, ballMinAcceptance)
		}
	}
}

// TestLogMass compares radial.logMass (less its constant κ) with log(Φ(u) − Φ(v)) where that
// difference is accurate, and its derivative with finite differences, also deep in the tails
// (where only differences of logMass are meaningful), across its branches.
func TestLogMass(t *testing.T) {
	const radius = 7.0
	for _, m := range []float64{0, 0.3, 1, 2.5, 4} {
		for _, rho := range []float64{1e-3, 0.05, 0.2, 0.5, 1, 2, 3, 6} {
			q := radial{d: 5, m: m, s: 1, r: radius}
			tt := math.Sqrt(radius*radius - rho*rho)
			want := math.Log(normalCDF(rho-m) - normalCDF(-rho-m))
			if got, _ := q.logMass(tt); math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
				t.Errorf("M = %g, ρ = %g: %.15g, want %.15g", m, rho, got, want)
			}
		}
	}
	for _, m := range []float64{3, 30, 3e4} {
		for _, s := range []float64{1, 1e-3} {
			q := radial{d: 5, m: m, s: s, r: 3}
			for tt := 0.01 * q.end(); tt < q.end(); tt += 0.0731 * q.end() {
				h := 1e-6 * tt
				hi, _ := q.logMass(tt + h)
				lo, _ := q.logMass(tt - h)
				_, slope := q.logMass(tt)
				// d/dt = d/dρ · dρ/dt with dρ/dt = −s²t/ρ.
				want := (hi - lo) / (2 * h)
				if got := -slope * s * s * tt / q.rho(tt); math.Abs(got-want) > 1e-5*math.Abs(got)+1e-9 {
					t.Errorf("M = %g, s = %g, t = %g: slope %g, finite difference %g", m, s, tt, got, want)
				}
			}
		}
	}
}

// diskMarginal returns the CDF, by quadrature, of the first coordinate of N(mu, s²I) restricted
// to the disk of radius R at the origin: its density is ∝ exp(−(x − μ₁)²/(2s²))·(Φ(b) − Φ(a))
// with a = (−h − μ₂)/s, b = (h − μ₂)/s and h = √(R² − x²), computed in logs from upper tails
// (Q(a) − Q(b) = Q(a)·(1 − Q(b)/Q(a)) for a ≥ 0, and symmetrically) so that it stays accurate
// far in the tails.
func diskMarginal(mu [2]float64, s, radius float64) quadrature {
	logMass := func(a, b float64) float64 {
		if b <= 0 { // Φ(b) − Φ(a) = Q(−b) − Q(−a)
			a, b = -b, -a
		}
		if a >= 0 {
			la, lb := logTail(a), logTail(b)
			return la + math.Log1p(-math.Exp(lb-la))
		}
		return math.Log1p(-normalTail(-a) - normalTail(b))
	}
	return newQuadrature(func(x float64) float64 {
		h := math.Sqrt(math.Max(0, radius*radius-x*x))
		if h == 0 {
			return math.Inf(1)
		}
		return (x-mu[0])*(x-mu[0])/(2*s*s) - logMass((-h-mu[1])/s, (h-mu[1])/s)
	}, -radius, radius, 40000)
}

// logTail is log Q(x).
func logTail(x float64) float64 { return detmath.LogNormalTail(x) }

// TestBallNormalOnDisk compares draws restricted to a disk with the exact marginals of both
// coordinates (KS), for means inside, on and outside the disk and several variances.
func TestBallNormalOnDisk(t *testing.T) {
	const radius = 1.5
	r := rng.Seeded(501)
	for _, s := range []float64{0.05, 0.5, 2, 40} {
		for _, mu := range [][2]float64{{0.3, -0.2}, {1.2, 0.9}, {2.5, 1}, {-6, 3}} {
			b := newBallNormal(nil, radius, 2)
			xs, ys := make([]float64, 2000), make([]float64, 2000)
			x := make([]float64, 2)
			for i := range xs {
				if b.draw(r, x, mu[:], s) {
					t.Fatal("cap reached")
				}
				if math.Hypot(x[0], x[1]) > radius {
					t.Fatalf("draw %v outside the disk", x)
				}
				xs[i], ys[i] = x[0], x[1]
			}
			name := fmt.Sprintf("s = %g, μ = %v", s, mu)
			stattest.KS(t, name+": x", xs, diskMarginal(mu, s, radius).CDF)
			stattest.KS(t, name+": y", ys, diskMarginal([2]float64{mu[1], mu[0]}, s, radius).CDF)
		}
	}
}

// ksTwoSample fails when two samples' empirical CDFs differ by more than the critical value of
// the two-sample Kolmogorov–Smirnov test at level 1e-4 (asymptotic).
func ksTwoSample(t *testing.T, name string, a, b []float64) {
	t.Helper()
	slices.Sort(a)
	slices.Sort(b)
	var i, j int
	d := 0.0
	for i < len(a) && j < len(b) {
		if a[i] <= b[j] {
			i++
		} else {
			j++
		}
		d = math.Max(d, math.Abs(float64(i)/float64(len(a))-float64(j)/float64(len(b))))
	}
	n, m := float64(len(a)), float64(len(b))
	if crit := math.Sqrt(-math.Log(stattest.Level/2)/2) * math.Sqrt((n+m)/(n*m)); d > crit {
		t.Errorf("%s: two-sample KS distance %.4g > critical %.4g", name, d, crit)
	}
}

// TestBallNormalAgainstRejection compares draws restricted to balls in 3, 10 and 40 dimensions
// (off-centre, with the mean near or outside the sphere) with plain rejection from the
// unrestricted Gaussian, which is exact: two-sample KS on the distance to the centre, on the
// coordinate along the mean's direction and on another direction.
func TestBallNormalAgainstRejection(t *testing.T) {
	r := rng.Seeded(502)
	for _, d := range []int{3, 10, 40} {
		center := make([]float64, d)
		mu := make([]float64, d)
		for i := range d {
			center[i] = 0.1 * float64(i%3)
			mu[i] = center[i]
		}
		s := 0.3
		radius := 1.0 + s*math.Sqrt(float64(d))*0.6
		mu[0] += radius + 0.3*s // outside, so that both methods are exercised
		ball, err := geom.NewBall(d, 2, radius, center)
		if err != nil {
			t.Fatal(err)
		}
		b := newBallNormal(ball.Center(), radius, d)
		n := shortN(3000)
		ours, plain := make([][]float64, n), make([][]float64, 0, n)
		for i := range ours {
			ours[i] = make([]float64, d)
			if b.draw(r, ours[i], mu, s) {
				t.Fatal("cap reached")
			}
		}
		for len(plain) < n {
			plain = append(plain, rejectionDraw(r, ball, mu, s))
		}
		compareBallDraws(t, fmt.Sprintf("d = %d", d), center, ours, plain)
	}
}

// rejectionDraw draws from N(mu, s²I) restricted to the ball by plain rejection (exact).
func rejectionDraw(r *rng.Rand, ball *geom.Ball, mu []float64, s float64) []float64 {
	x := make([]float64, len(mu))
	for {
		for i := range x {
			x[i] = mu[i] + s*r.Normal()
		}
		if ball.Contains(x) {
			return x
		}
	}
}

// compareBallDraws runs two-sample KS tests between two samples restricted to a ball around
// center, with the mean off-centre along the first axis: on the distance to the centre, the
// first coordinate and the difference of two others.
func compareBallDraws(t *testing.T, name string, center []float64, ours, ref [][]float64) {
	t.Helper()
	d := len(center)
	stats := map[string]func(x []float64) float64{
		"distance": func(x []float64) float64 {
			var s float64
			for i, v := range x {
				s += (v - center[i]) * (v - center[i])
			}
			return math.Sqrt(s)
		},
		"along the mean": func(x []float64) float64 { return x[0] },
		"across":         func(x []float64) float64 { return x[1] - x[d-1] },
	}
	for stat, f := range stats {
		a, c := make([]float64, len(ours)), make([]float64, len(ref))
		for i := range a {
			a[i] = f(ours[i])
		}
		for i := range c {
			c[i] = f(ref[i])
		}
		ksTwoSample(t, name+": "+stat, a, c)
	}
}

// TestBallNormalOneDimension: in one dimension the ball is an interval.
func TestBallNormalOneDimension(t *testing.T) {
	r := rng.Seeded(503)
	b := newBallNormal([]float64{1}, 0.5, 1)
	xs := make([]float64, 3000)
	x := make([]float64, 1)
	for i := range xs {
		b.draw(r, x, []float64{2.2}, 0.4)
		xs[i] = x[0]
	}
	q := newQuadrature(func(x float64) float64 { return (x - 2.2) * (x - 2.2) / (2 * 0.4 * 0.4) }, 0.5, 1.5, 20000)
	stattest.KS(t, "interval", xs, q.CDF)
}

// fullTarget is a test target with gradients and per-example terms.
type fullTarget interface {
	Target
	Gradient
	Examples
}

// onBall restricts a fullTarget to an ℓ2 ball.
type onBall struct {
	fullTarget
	ball *geom.Ball
}

func (t onBall) Domain() geom.Domain { return t.ball }
func (t onBall) Constants() Constants {
	c := t.fullTarget.Constants()
	c.Domain, c.Radius = DomainOf(t.ball)
	return c
}

// TestTargetsOnADisk runs every oracle on a Gaussian target restricted to a disk (a linear f)
// and on the geometric-median target restricted to a disk, and compares the first coordinate
// with quadrature (KS) and both means with quadrature (z-tests).
func TestTargetsOnADisk(t *testing.T) {
	disk, err := geom.NewBall(2, 2, 0.8, nil)
	if err != nil {
		t.Fatal(err)
	}
	b := [][]float64{{-1.5, -0.6}, {-1.1, -0.9}, {-1.3, -0.6}}
	linear := func() Target {
		lt := newLinearTarget(b, 2, nil)
		lt.dom = disk
		return lt
	}
	median := func() Target {
		return onBall{&geoMedian{k: 1.2, m: 1, a: [][2]float64{{2, 1}, {1.5, -0.5}, {-0.5, 2}}}, disk}
	}
	for name, mk := range map[string]func() Target{"gaussian": linear, "geometric median": median} {
		q := newDiskQuadrature(mk(), 0.8)
		for k, oracle := range allOracles {
			xs, _ := samples(t, mk, oracle, 1e-2, shortN(1000), uint64(510+k))
			q.check(t, name+", "+oracle.String(), disk, xs)
		}
	}
}

// diskQuadrature is a target's law π ∝ exp(−f − (m/2)‖x‖²) on a disk centred at the origin, by
// quadrature on a polar grid: its means, variances and the CDF of the first coordinate.
type diskQuadrature struct {
	mx, my, vx, vy float64
	xs, cum        []float64
}

func newDiskQuadrature(tg Target, radius float64) diskQuadrature {
	const nr, na = 600, 1200
	var q diskQuadrature
	var z float64
	pts := make([][3]float64, 0, nr*na)
	for i := range nr {
		rr := radius * (float64(i) + 0.5) / nr
		for j := range na {
			a := 2 * math.Pi * (float64(j) + 0.5) / na
			x := []float64{rr * math.Cos(a), rr * math.Sin(a)}
			w := rr * math.Exp(-tg.Value(x)-tg.Constants().StrongConvexity/2*(x[0]*x[0]+x[1]*x[1]))
			pts = append(pts, [3]float64{x[0], x[1], w})
			z += w
			q.mx += w * x[0]
			q.my += w * x[1]
		}
	}
	q.mx, q.my = q.mx/z, q.my/z
	for _, p := range pts {
		q.vx += p[2] * (p[0] - q.mx) * (p[0] - q.mx) / z
		q.vy += p[2] * (p[1] - q.my) * (p[1] - q.my) / z
	}
	slices.SortFunc(pts, func(a, b [3]float64) int { return cmpFloat(a[0], b[0]) })
	q.xs, q.cum = make([]float64, len(pts)), make([]float64, len(pts))
	var c float64
	for i, p := range pts {
		c += p[2] / z
		q.xs[i], q.cum[i] = p[0], c
	}
	return q
}

// cdf is the first coordinate's CDF.
func (q diskQuadrature) cdf(x float64) float64 {
	i, _ := slices.BinarySearch(q.xs, x)
	if i == 0 {
		return 0
	}
	return q.cum[i-1]
}

// check tests samples against the law: in the disk, both means (z-tests) and the first
// coordinate (KS).
func (q diskQuadrature) check(t *testing.T, label string, disk *geom.Ball, xs [][]float64) {
	t.Helper()
	first := make([]float64, len(xs))
	var ax, ay float64
	for i, x := range xs {
		if !disk.Contains(x) {
			t.Fatalf("%s: sample %v outside the disk", label, x)
		}
		first[i] = x[0]
		ax += x[0] / float64(len(xs))
		ay += x[1] / float64(len(xs))
	}
	nn := float64(len(xs))
	stattest.Z(t, label+": mean x", ax, q.mx, math.Sqrt(q.vx/nn))
	stattest.Z(t, label+": mean y", ay, q.my, math.Sqrt(q.vy/nn))
	stattest.KS(t, label+": x", first, q.cdf)
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestOtherDomains: the certified sampler refuses an ℓ1 ball with a clear error, and the fast
// modes run on it and stay inside.
func TestOtherDomains(t *testing.T) {
	l1, _ := geom.NewBall(2, 1, 0.5, nil)
	tg := newLinearTarget([][]float64{{1, 2}}, 1, nil)
	tg.dom = l1
	c := tg.Constants()
	if c.Domain != OtherDomain {
		t.Fatalf("kind %v", c.Domain)
	}
	if _, err := NewPlan(c, 2, 1, EnvelopeOracle, 1e-3); err == nil {
		t.Error("a plan on an ℓ1 ball")
	}
	c.Domain = WholeSpace
	p, _ := NewPlan(c, 2, 1, EnvelopeOracle, 1e-3)
	if _, err := Run(context.Background(), tg, p, rng.Seeded(1), nil); err == nil {
		t.Error("constants for the whole space accepted on an ℓ1 ball")
	}
	for _, run := range []func(context.Context, Target, FastSettings, *rng.Rand, func(float64)) (Result, error){MALA, ProjectedLangevin} {
		res, err := run(context.Background(), tg, FastSettings{Steps: 200}, rng.Seeded(2), nil)
		if err != nil || !l1.Contains(res.X) || res.Certified {
			t.Errorf("fast mode on an ℓ1 ball: %v, %v, certified %v", err, res.X, res.Certified)
		}
	}
}

// TestBallSpread checks proposalSpread's bound on a ball (rank 1) by Monte Carlo with exact
// draws: E⟨u, x − x*⟩² ≤ (s + s²d/R)² for the radial direction u = e (the worst) and an oblique one,
// for means inside, on and outside the sphere, including variances where s√d is comparable to
// R (where the bound's second term matters). The sample means of 6,000 draws (1,500 under
// -short) get a margin of five standard errors (a false failure has probability below 1e-6 per
// check).
func TestBallSpread(t *testing.T) {
	r := rng.Seeded(520)
	const d, radius = 10, 1.0
	n := shortN(6000)
	for _, s := range []float64{0.03, 0.3, 1} {
		for _, m := range []float64{0, 0.95, 1.1, 10} {
			mu := make([]float64, d)
			mu[0] = m
			star := math.Min(m, radius) // x* = Π(μ) = (min(M, R), 0, …)
			b := newBallNormal(nil, radius, d)
			x := make([]float64, d)
			sp := Constants{ExampleRank: 1, StrongConvexity: 1, Domain: BallDomain, Radius: radius}.proposalSpread(d)
			bound := math.Pow(sp.a*s+sp.b*s*s, 2)
			for _, u := range [][2]float64{{1, 0}, {0.6, 0.8}} { // weights on e = e₁ and on e₂
				var sum, sum2 float64
				for range n {
					b.draw(r, x, mu, s)
					v := u[0]*(x[0]-star) + u[1]*x[1]
					sum += v * v
					sum2 += v * v * v * v
				}
				mean := sum / float64(n)
				se := math.Sqrt((sum2/float64(n) - mean*mean) / float64(n))
				if mean > bound+5*se {
					t.Errorf("s = %g, M = %g, u = %v: E⟨u, x − x*⟩² = %g ± %g > %g", s, m, u, mean, se, bound)
				}
			}
		}
	}
}

// TestProxStepsOnABall is TestProxStepsReachThePlannedDistance on an ℓ2 ball that binds, with
// centres inside and far outside it: the steps are projected and the bound is on the distance
// from w_J to the proposal's mode.
func TestProxStepsOnABall(t *testing.T) {
	ball, err := geom.NewBall(92, 2, 0.5, nil)
	if err != nil {
		t.Fatal(err)
	}
	tg := onBall{newLogisticTarget(t, 300, 92, 400, 0.5), ball}
	checkProxSteps(t, tg, 97, func(k int) float64 { return 0.02 * float64(k%3) })
}

// TestSmoothEnvelopeOnABall runs oracle C with its proximal steps on a smooth logistic target
// restricted to a ball that binds: every sample is in the ball, and the acceptance rate is at
// least the plan's bound (less five standard errors).
func TestSmoothEnvelopeOnABall(t *testing.T) {
	ball, err := geom.NewBall(5, 2, 0.4, []float64{0.1, 0, 0, 0, 0})
	if err != nil {
		t.Fatal(err)
	}
	mk := func() Target { return onBall{newLogisticTarget(t, 40, 5, 60, 2), ball} }
	xs, stats, p := samplesPlan(t, mk, EnvelopeOracle, 1e-2, shortN(300), 530)
	if p.ProxSteps == 0 {
		t.Fatal("the plan takes no proximal steps")
	}
	for _, x := range xs {
		if !ball.Contains(x) {
			t.Fatalf("sample %v outside the ball", x)
		}
	}
	acc, n := stats.AcceptanceRate(), float64(stats.Trials)
	if acc < p.MinAcceptance-5*math.Sqrt(p.MinAcceptance/n) {
		t.Errorf("acceptance %g below the planned bound %g", acc, p.MinAcceptance)
	}
}

// TestMALAOnAnL1Ball: MALA rejects proposals outside K, so a target restricted to an ℓ1 ball
// (which the certified sampler does not support) is its stationary law; after generous steps
// from the projected start, the first coordinate passes KS against quadrature (the density of
// x₁ is ∝ exp(−m(x − μ₁)²/2)·(Φ(√m(h − μ₂)) − Φ(√m(−h − μ₂))), h = R − |x|).
func TestMALAOnAnL1Ball(t *testing.T) {
	const radius, m = 0.6, 2.0
	l1, err := geom.NewBall(2, 1, radius, nil)
	if err != nil {
		t.Fatal(err)
	}
	b := [][]float64{{-1.4, -0.6}, {-1.0, -1.0}}
	mk := func() Target {
		lt := newLinearTarget(b, m, nil)
		lt.dom = l1
		return lt
	}
	mu := newLinearTarget(b, m, nil).exactMean()
	sd := 1 / math.Sqrt(m)
	q := newQuadrature(func(x float64) float64 {
		h := radius - math.Abs(x)
		return (x-mu[0])*(x-mu[0])/(2*sd*sd) - math.Log(normalCDF((h-mu[1])/sd)-normalCDF((-h-mu[1])/sd)+1e-300)
	}, -radius, radius, 40000)
	r := rng.Seeded(540)
	xs := make([]float64, 1500)
	for i := range xs {
		res, err := MALA(context.Background(), mk(), FastSettings{Steps: 300}, r.Split(), nil)
		if err != nil || !l1.Contains(res.X) || res.Certified {
			t.Fatalf("MALA on an ℓ1 ball: %v, %v, certified %v", err, res.X, res.Certified)
		}
		xs[i] = res.X[0]
	}
	stattest.KS(t, "MALA on an ℓ1 ball", xs, q.CDF)
}

// TestLInfinityBallIsABox: an ℓ∞ ball is sampled as the box c ± R, with the same bits.
func TestLInfinityBallIsABox(t *testing.T) {
	inf, _ := geom.NewBall(2, math.Inf(1), 0.5, []float64{0.2, -0.1})
	box, _ := geom.NewBox([]float64{-0.3, -0.6}, []float64{0.7, 0.4})
	var got [2][]float64
	for k, dom := range []geom.Domain{inf, box} {
		tg := newLinearTarget([][]float64{{1.5, -2}}, 1, nil)
		tg.dom = dom
		p, err := NewPlan(tg.Constants(), 2, 1, EnvelopeOracle, 1e-3)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Run(context.Background(), tg, p, rng.Seeded(541), nil)
		if err != nil || !res.Certified {
			t.Fatalf("%T: %v, %+v", dom, err, res)
		}
		got[k] = res.X
	}
	if !slices.Equal(got[0], got[1]) {
		t.Errorf("ℓ∞ ball %v, box %v", got[0], got[1])
	}
}

// TestRootAlwaysConverges checks that root reaches its precision on functions where regula
// falsi alone crawls: a step that is barely positive left of the root (each halving of the
// bracket then takes the Illinois rule about forty steps; without the forced bisections the
// root from 9.9 is 3.70036 after 200 steps), and a steep power.
func TestRootAlwaysConverges(t *testing.T) {
	const want = 3.7
	for name, f := range map[string]func(float64) float64{
		"step":  func(x float64) float64 { return map[bool]float64{true: 1e-12, false: -1}[x < want] },
		"power": func(x float64) float64 { return math.Pow(want, 40) - math.Pow(x, 40) },
	} {
		for _, guess := range []float64{0.1, 1, 5, 9.9} {
			if got := root(f, 0, 10, guess); math.Abs(got-want) > 2e-9*want {
				t.Errorf("%s from %g: root %.12g, want %g", name, guess, got, want)
			}
		}
	}
}
