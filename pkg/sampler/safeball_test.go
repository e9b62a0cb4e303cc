package sampler

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"testing"

	"github.com/privopt/privopt/internal/stattest"
	"github.com/privopt/privopt/pkg/core/geom"
	"github.com/privopt/privopt/pkg/interval"
	"github.com/privopt/privopt/pkg/rng"
)

// TestSafeBallBound: the acceptance bound of the method a safe ball draw chooses is at least
// 0.145 wherever R ≥ 3σ√d, for means from the centre to 10¹² radii away (the grid's least value
// is 0.1455, at d = 100; safeBallMinAcceptance is 0.11), so such draws never stop at once.
func TestSafeBallBound(t *testing.T) {
	for _, d := range []int{1, 2, 3, 5, 10, 30, 100, 1000, 10000} {
		for _, c := range []float64{safeBallMinRadius, 4, 5, 8, 30, 300} {
			radius := c * math.Sqrt(float64(d)) // σ = 1
			worst, at := math.Inf(1), 0.0
			check := func(m float64) {
				if b := chooseBallMethod(m, 1, radius, d); b.bound < worst {
					worst, at = b.bound, m
				}
			}
			for i := 0; i <= 20000; i++ {
				check(3 * radius * float64(i) / 20000)
			}
			for e := 0.0; e <= 12; e += 0.01 {
				check(radius * math.Pow(10, e))
			}
			if worst < 0.145 {
				t.Errorf("d = %d, R = %gσ: the acceptance bound falls to %.4f at a mean %g from the centre", d, radius, worst, at)
			}
		}
	}
}

// safeBallChain returns a chain and safe scratch space for safe ball draws in dimension d.
func safeBallChain(d int, center []float64, radius float64, seed uint64) (*chain, *safeChain) {
	ch := &chain{kind: BallDomain, ball: newBallNormal(center, radius, d), r: rng.Seeded(seed), w: make([]float64, d)}
	return ch, &safeChain{ball: newSafeBall(d)}
}

// safeBallDraws returns n safe draws from N(mu, s²I) restricted to the chain's ball (the mean as
// a float base ch.w plus a double-double offset) and how many used the tilted method.
func safeBallDraws(t *testing.T, ch *chain, sc *safeChain, mu []float64, s float64, n int) (xs [][]float64, tilted int) {
	t.Helper()
	d := len(mu)
	moHi, moLo := make([]float64, d), make([]float64, d)
	for i := range mu {
		ch.w[i] = math.Round(mu[i]*8) / 8 // an exact base, the rest in the offset
		moHi[i] = mu[i] - ch.w[i]
	}
	var m2 float64
	for i := range mu {
		m2 += (mu[i] - ch.ball.c(i)) * (mu[i] - ch.ball.c(i))
	}
	if chooseBallMethod(math.Sqrt(m2), s, ch.ball.radius, d).tilted {
		tilted = n
	}
	sigma := [2]float64{s, 0}
	pHi, pLo := make([]float64, d), make([]float64, d)
	for range n {
		if ch.safeBallPart(sc, pHi, pLo, moHi, moLo, sigma) {
			t.Fatal("a safe ball draw was capped")
		}
		x := make([]float64, d)
		var r2 float64
		for i := range x {
			x[i] = ch.w[i] + (moHi[i] + (pHi[i] + pLo[i]))
			r2 += (x[i] - ch.ball.c(i)) * (x[i] - ch.ball.c(i))
		}
		if r2 > ch.ball.radius*ch.ball.radius*(1+1e-12) {
			t.Fatalf("draw %v outside the ball", x)
		}
		xs = append(xs, x)
	}
	return xs, tilted
}

// TestSafeBallOnDisk compares safe draws restricted to a disk with the exact marginals of both
// coordinates (KS), for means inside, on and outside the disk, with both methods.
func TestSafeBallOnDisk(t *testing.T) {
	const radius = 1.5
	var tilted, all int
	for _, s := range []float64{0.05, 0.25} {
		for _, mu := range [][2]float64{{0.3, -0.2}, {1.2, 0.9}, {1.3, 0.9}, {2.5, 1}, {-6, 3}} {
			ch, sc := safeBallChain(2, nil, radius, 511)
			xs, k := safeBallDraws(t, ch, sc, mu[:], s, shortN(2000))
			tilted += k
			all += len(xs)
			a, b := make([]float64, len(xs)), make([]float64, len(xs))
			for i, x := range xs {
				a[i], b[i] = x[0], x[1]
			}
			name := fmt.Sprintf("s = %g, μ = %v", s, mu)
			stattest.KS(t, name+": x", a, diskMarginal(mu, s, radius).CDF)
			stattest.KS(t, name+": y", b, diskMarginal([2]float64{mu[1], mu[0]}, s, radius).CDF)
		}
	}
	if tilted == 0 || tilted == all {
		t.Errorf("%d of %d draws tilted: both methods must be tested", tilted, all)
	}
}

// TestSafeBallOneDimension: in one dimension the ball is an interval and the law a truncated
// normal.
func TestSafeBallOneDimension(t *testing.T) {
	const radius, s = 1.0, 0.2
	for _, mu := range []float64{0, 0.9, 1.1, 3, -2} {
		ch, sc := safeBallChain(1, nil, radius, 512)
		xs, _ := safeBallDraws(t, ch, sc, []float64{mu}, s, shortN(3000))
		v := make([]float64, len(xs))
		for i, x := range xs {
			v[i] = x[0]
		}
		lo, hi := normalCDF((-radius-mu)/s), normalCDF((radius-mu)/s)
		stattest.KS(t, fmt.Sprintf("μ = %g", mu), v, func(x float64) float64 {
			return (normalCDF((x-mu)/s) - lo) / (hi - lo)
		})
	}
}

// TestSafeBallAgainstRejection compares safe draws restricted to off-centre balls in 10 and 40
// dimensions, with the mean inside, just outside and outside the sphere, with plain rejection
// from the unrestricted Gaussian, which is exact (with the mean two radii from the centre, with
// the float64 sampler's radial draws, tested against it in ballnormal_test.go): two-sample KS
// on the distance to the centre, on the coordinate along the mean's direction and on another
// direction (700 draws each, level 1e-4). Without the tilt (λ = 1) it fails (checked by hand).
func TestSafeBallAgainstRejection(t *testing.T) {
	r := rng.Seeded(513)
	for _, d := range []int{10, 40} {
		center := make([]float64, d)
		for i := range d {
			center[i] = 0.1 * float64(i%3)
		}
		const s = 0.05
		radius := 4 * s * math.Sqrt(float64(d)) * 1.2
		ball, err := geom.NewBall(d, 2, radius, center)
		if err != nil {
			t.Fatal(err)
		}
		for _, off := range []float64{-2, 0.3, 1.5, radius / s} {
			mu := make([]float64, d)
			copy(mu, center)
			mu[0] += radius + off*s
			mu[1] += 0.5 * s
			far := off*s >= radius
			ch, sc := safeBallChain(d, ball.Center(), radius, 514+uint64(d))
			n := shortN(700)
			ours, tilted := safeBallDraws(t, ch, sc, mu, s, n)
			if off > 0 && tilted == 0 {
				t.Errorf("d = %d, offset %.3gσ: the tilted method did not run", d, off)
			}
			ref := make([][]float64, n)
			for i := range ref {
				if !far {
					ref[i] = rejectionDraw(r, ball, mu, s)
					continue
				}
				// Plain rejection would almost never accept.
				ref[i] = make([]float64, d)
				if newBallNormal(ball.Center(), radius, d).draw(r, ref[i], mu, s) {
					t.Fatal("cap reached")
				}
			}
			compareBallDraws(t, fmt.Sprintf("d = %d, offset %.3gσ", d, off), center, ours, ref)
		}
	}
}

// TestTiltIdentity: for random means, radii and parameters, the log-ratio of the restricted
// Gaussian's density to the tilted proposal's, at points (w, δ) of the region, plus X is the
// same constant at every point, and X ≥ 0 there, so that e^{−X} is the exact acceptance; the
// proposal's scale and rate are σ/√λ and z₀/σ². Dropping X's second term, or the tilt, fails.
func TestTiltIdentity(t *testing.T) {
	r := rng.Seeded(515)
	for trial := range 200 {
		sigma := math.Exp(r.Normal())
		radius := sigma * (2 + 50*r.Float64())
		m := radius * 3 * r.Float64()
		z0 := sigma * math.Exp(r.Normal())
		rho0 := radius * (0.5 + 0.5*r.Float64())
		tl := newTilt([2]float64{sigma, 0}, z0, rho0)
		lambda := 1 + z0/rho0
		if got, want := tl.scale[0], sigma/math.Sqrt(lambda); math.Abs(got-want) > 1e-14*want {
			t.Fatalf("scale %g, want σ/√λ = %g", got, want)
		}
		if got, want := tl.invKappa[0], sigma*sigma/z0; math.Abs(got-want) > 1e-14*want {
			t.Fatalf("1/κ = %g, want σ²/z₀ = %g", got, want)
		}
		kappa := z0 / (sigma * sigma)
		// log target − log proposal at (w, δ): a = ρ(w) − δ.
		ratio := func(w, delta float64) float64 {
			rho := math.Sqrt(radius*radius - w)
			a := rho - delta
			target := -(a-m)*(a-m)/(2*sigma*sigma) - w/(2*sigma*sigma)
			proposal := -lambda*w/(2*sigma*sigma) - kappa*delta
			return target - proposal
		}
		var c0 float64
		for i := range 20 {
			w := radius * radius * r.Float64()
			rho := math.Sqrt(radius*radius - w)
			delta := 2 * rho * r.Float64()
			a := rho - delta
			x := tl.exponent(m, 0, a, 0, rho, 0)
			if x[0] < -1e-9 {
				t.Fatalf("trial %d: X = %g < 0", trial, x[0])
			}
			c := ratio(w, delta) + x[0]
			if i == 0 {
				c0 = c
			} else if math.Abs(c-c0) > 1e-8*(1+math.Abs(c0)+x[0]) {
				t.Fatalf("trial %d: log-ratio + X is %g at one point and %g at another", trial, c0, c)
			}
		}
	}
}

// safeLinearOnDisk is the target f(x) = −c·x on a disk of radius 0.8 at the origin, with the
// rounding bounds of Enclosed (a float dot product of two terms; its gradient −c is exact).
type safeLinearOnDisk struct {
	c    [2]float64
	m    float64
	disk *geom.Ball
}

func (t safeLinearOnDisk) Dim() int            { return 2 }
func (t safeLinearOnDisk) Domain() geom.Domain { return t.disk }
func (t safeLinearOnDisk) Value(x []float64) float64 {
	return -(t.c[0]*x[0] + t.c[1]*x[1])
}
func (t safeLinearOnDisk) Grad(g, x []float64) float64 {
	g[0], g[1] = -t.c[0], -t.c[1]
	return t.Value(x)
}
func (t safeLinearOnDisk) Constants() Constants {
	kind, radius := DomainOf(t.disk)
	return Constants{Lipschitz: math.Hypot(t.c[0], t.c[1]), ExampleLipschitz: math.Hypot(t.c[0], t.c[1]), ExampleRank: 1,
		StrongConvexity: t.m, Domain: kind, Radius: radius, GradErrorFloor: 0x1p-60}
}
func (t safeLinearOnDisk) ValueError(x []float64, v float64) float64 {
	return 4 * 0x1p-53 * (math.Abs(t.c[0]*x[0]) + math.Abs(t.c[1]*x[1]))
}
func (t safeLinearOnDisk) GradError(x, g []float64) float64 { return 0x1p-60 }
func (t safeLinearOnDisk) ValueEnclosure(prec uint, parts ...[]float64) (lo, hi *big.Int, exp int) {
	x := interval.SumParts(prec, 2, parts)
	v := interval.Add(interval.MulFloat(x[0], -t.c[0], prec), interval.MulFloat(x[1], -t.c[1], prec), prec)
	return v.Ends()
}

// TestSafeOnADisk runs the floating-point-safe sampler on a Gaussian target restricted to a
// disk whose mode (c/m, 1.4 radii out) lies outside it, so that the oracle's proposals take
// both methods, and compares 300 releases with quadrature (both means, z-tests; the first
// coordinate, KS): an integration test (a flipped coordinate of the mean's direction fails
// it, at z ≈ 15; the draws' own laws are tested above with more power).
func TestSafeOnADisk(t *testing.T) {
	disk, err := geom.NewBall(2, 2, 0.8, nil)
	if err != nil {
		t.Fatal(err)
	}
	mk := func() Target { return safeLinearOnDisk{c: [2]float64{8.2, -3.7}, m: 8, disk: disk} }
	tg := mk().(safeLinearOnDisk)
	p, err := NewSafePlan(tg.Constants(), 2, 1, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	n := shortN(300)
	results, err := RunChains(context.Background(), mk, p, rng.Seeded(516), n, nil)
	if err != nil {
		t.Fatal(err)
	}
	xs := make([][]float64, n)
	for i, r := range results {
		if !r.FloatingPointSafe || r.Stats.CapHits != 0 {
			t.Fatalf("a safe run says %+v", r)
		}
		xs[i] = r.X
	}
	newDiskQuadrature(tg, 0.8).check(t, "safe", disk, xs)
}
