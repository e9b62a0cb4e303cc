package loss

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/privopt/privopt/pkg/core/geom"
	"github.com/privopt/privopt/pkg/interval"
)

// TestLinearRoundingBounds: for the logistic, smoothed hinge, Huber and squared losses over
// rows held dense and sparse, with parameters of norm up to 10² and a declared public N above
// n, the computed mean and mean gradient are within MeanError and GradError of the exact ones
// (enclosed at 256 bits), and meanInterval encloses the exact mean tightly; a MeanError 10⁶
// times smaller fails.
func TestLinearRoundingBounds(t *testing.T) {
	const prec = 256
	r := rand.New(rand.NewPCG(7, 8))
	sign := func() float64 { return float64(2*r.IntN(2) - 1) }
	target := func() float64 { return 2*r.Float64() - 1 }
	for _, c := range []struct {
		s      Scalar
		sparse bool
	}{{Logistic{}, false}, {Logistic{}, true}, {SmoothHinge{H: 0.5}, true}, {Huber{Delta: 0.7}, false}, {Squared{}, true}} {
		label := sign
		switch c.s.(type) {
		case Huber, Squared:
			label = target
		}
		n := 3000
		if testing.Short() {
			n = 800
		}
		ds := randData(r, n, 12, 2, 1, label)
		sparse := c.sparse
		if sparse {
			ds = heldSparse(ds, false)
		}
		l, err := NewLinear(c.s, ds, Bounds{X: 1, XNorm: 2, Y: 1, Rows: 3200})
		if err != nil {
			t.Fatal(err)
		}
		if !l.Enclosable() {
			t.Fatalf("%T is not enclosable", c.s)
		}
		for trial := range 5 {
			w := randVec(r, 12, math.Pow(10, float64(trial-2)))
			g := make([]float64, 12)
			v := l.Mean(g, w)
			checkMean(t, fmt.Sprintf("%T, sparse %v, trial %d", c.s, sparse, trial), l.meanInterval(prec, w), v, l.MeanError(w, v))
			gx := exactGradient(l, w, prec)
			var off float64
			for j := range g {
				off += (g[j] - gx[j]) * (g[j] - gx[j])
			}
			if bound := l.GradError(w); math.Sqrt(off) > bound {
				t.Errorf("%T, sparse %v, trial %d: the gradient is off by %g, beyond its bound %g", c.s, sparse, trial, math.Sqrt(off), bound)
			}
		}
	}
}

// exactGradient returns (1/N)Σ s′(zᵢ, yᵢ)·xᵢ at w, to about 2⁻²⁰⁰: the logistic derivative
// −y/(1 + e^{yz}) enclosed, the others' piecewise-linear derivatives in 256-bit arithmetic.
func exactGradient(l *Linear, w []float64, prec uint) []float64 {
	sum := make([]interval.I, l.d)
	for j := range sum {
		sum[j] = interval.Point(0, prec)
	}
	row := make([]float64, l.d)
	wi := interval.SumParts(prec, l.d, [][]float64{w})
	for i := range l.n {
		x := denseRow(l.x, l.sparse, i, l.d, row)
		z := dotInterval(wi, x, prec)
		var c interval.I
		y := l.y[i]
		switch s := l.s.(type) {
		case Logistic:
			den := interval.Add(interval.Point(1, prec), interval.Exp(interval.MulFloat(z, y, prec), prec), prec)
			c = interval.MulFloat(interval.Quo(interval.Point(1, prec), den, prec), -y, prec)
		case SmoothHinge: // y·φ′(y·z)
			c = interval.MulFloat(smoothHingeDeriv(new(big.Float).Mul(z.Lo, big.NewFloat(y)), s.H, prec), y, prec)
		case Hinge: // −y where y·z < 1, else 0 (the kink itself is never met here)
			if new(big.Float).Mul(z.Hi, big.NewFloat(y)).Cmp(big.NewFloat(1)) < 0 && new(big.Float).Mul(z.Lo, big.NewFloat(y)).Cmp(big.NewFloat(1)) < 0 {
				c = interval.Point(-y, prec)
			} else {
				c = interval.Point(0, prec)
			}
		case Squared: // z − y
			c = interval.Sub(z, interval.Point(y, prec), prec)
		case Huber: // clamp(z − y, −Δ, Δ)
			d := new(big.Float).SetPrec(prec).Sub(z.Lo, big.NewFloat(y))
			if d.Cmp(big.NewFloat(s.Delta)) > 0 {
				d.SetFloat64(s.Delta)
			}
			if d.Cmp(big.NewFloat(-s.Delta)) < 0 {
				d.SetFloat64(-s.Delta)
			}
			c = interval.FromBig(d, prec)
		}
		for j, v := range x {
			sum[j] = interval.Add(sum[j], interval.MulFloat(c, v, prec), prec)
		}
	}
	return meanOf(sum, l.b.divisor(l.n), prec)
}

// TestMultinomialRoundingBounds: for K = 3 and 7 classes over rows held dense and sparse, with
// weights of norm up to about 10⁴ (some with a large part common to every class) and a
// declared public N above n, the computed mean and mean
// gradient are within MeanError and GradError of the exact ones (enclosed at 256 bits), the
// enclosure is tight, and the bounds are not vacuous: the largest error seen is more than
// 10⁻⁴ of the value's bound and 10⁻⁶ of the gradient's (whose sum over n rows is bounded by
// the worst case, about √n times the typical one), so bounds that much smaller fail.
func TestMultinomialRoundingBounds(t *testing.T) {
	const prec = 256
	r := rand.New(rand.NewPCG(9, 10))
	for _, c := range []struct {
		k      int
		sparse bool
	}{{3, false}, {3, true}, {7, false}} {
		n := 400
		if testing.Short() {
			n = 150
		}
		ds := randData(r, n, 12, 2, 1, func() float64 { return float64(r.IntN(c.k)) })
		if c.sparse {
			ds = heldSparse(ds, false)
		}
		m, err := NewMultinomial(ds, c.k, Bounds{X: 1, XNorm: 2, Rows: n + 100})
		if err != nil {
			t.Fatal(err)
		}
		var worstMean, worstGrad float64
		for trial := range 7 {
			w := randVec(r, c.k*12, math.Pow(10, float64(trial-2)))
			if trial >= 5 {
				// Every class's weights share a large common part: large, nearly equal scores.
				common := randVec(r, 12, 1e4)
				for j := range w {
					w[j] = common[j%12] + w[j]*1e-6
				}
			}
			g := make([]float64, c.k*12)
			v := m.Mean(g, w)
			ratio := checkMean(t, fmt.Sprintf("K = %d, sparse %v, trial %d", c.k, c.sparse, trial), m.meanInterval(prec, w), v, m.MeanError(w, v))
			worstMean = math.Max(worstMean, ratio)
			gx := exactMultinomialGradient(m, w, prec)
			var off float64
			for j := range g {
				off += (g[j] - gx[j]) * (g[j] - gx[j])
			}
			gb := m.GradError(w)
			if math.Sqrt(off) > gb {
				t.Errorf("K = %d, sparse %v, trial %d: the gradient is off by %g, beyond its bound %g", c.k, c.sparse, trial, math.Sqrt(off), gb)
			}
			worstGrad = math.Max(worstGrad, math.Sqrt(off)/gb)
		}
		t.Logf("K = %d, sparse %v: largest error / bound: mean %.3g, gradient %.3g", c.k, c.sparse, worstMean, worstGrad)
		if worstMean < 1e-4 || worstGrad < 1e-6 {
			t.Errorf("K = %d: the bounds are looser than expected (mean %.3g, gradient %.3g of them seen)", c.k, worstMean, worstGrad)
		}
	}
}

// exactMultinomialGradient returns (1/N)Σ (p(zᵢ) − e_{yᵢ})·xᵢᵀ at W to about 2⁻²⁰⁰.
func exactMultinomialGradient(m *Multinomial, w []float64, prec uint) []float64 {
	sum := make([]interval.I, m.k*m.d)
	for j := range sum {
		sum[j] = interval.Point(0, prec)
	}
	buf := make([]float64, m.d)
	z := make([]interval.I, m.k)
	wi := interval.SumParts(prec, m.k*m.d, [][]float64{w})
	for i := range m.n {
		x := denseRow(m.x, m.sparse, i, m.d, buf)
		s := interval.Point(0, prec)
		for c := range z {
			z[c] = dotInterval(wi[c*m.d:(c+1)*m.d], x, prec)
			s = interval.Add(s, interval.Exp(z[c], prec), prec)
		}
		lse := interval.Log(s, prec)
		for c := range z {
			p := interval.Exp(interval.Sub(z[c], lse, prec), prec)
			if c == int(m.y[i]) {
				p = interval.Sub(p, interval.Point(1, prec), prec)
			}
			for j, v := range x {
				sum[c*m.d+j] = interval.Add(sum[c*m.d+j], interval.MulFloat(p, v, prec), prec)
			}
		}
	}
	return meanOf(sum, m.b.divisor(m.n), prec)
}

// TestHingeKinks: at weights scaled so that a row's computed margin is within a few ulps of
// the hinge's kink, on the other side of it than the exact margin, Mean's gradient is off by
// that row's term (beyond GradError), and EnclosedMean's is within GradError of the exact
// subgradient; the hinge's value stays within MeanError, and its enclosure is tight (rows held
// dense and sparse).
func TestHingeKinks(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, sparse := range []bool{false, true} {
		ds := randData(r, 300, 12, 2, 1, func() float64 { return float64(2*r.IntN(2) - 1) })
		if sparse {
			ds = heldSparse(ds, false)
		}
		l, err := NewLinear(Hinge{}, ds, Bounds{X: 1, XNorm: 2, Y: 1})
		if err != nil {
			t.Fatal(err)
		}
		checkHingeKinks(t, r, l)
	}
}

func checkHingeKinks(t *testing.T, r *rand.Rand, l *Linear) {
	const prec = 256
	crossed := 0
	for trial := range 40 {
		i := r.IntN(l.n)
		w := randVec(r, 12, 3)
		m := l.y[i] * l.rowDot(i, w)
		for j := range w {
			w[j] /= m
		}
		// Nudge w by ulps until the computed and exact margins of row i lie on either side of 1.
		row := denseRow(l.x, l.sparse, i, l.d, make([]float64, l.d))
		found := false
		for nudge := range 64 {
			c := 1 + float64(nudge-32)*0x1p-52
			v := make([]float64, len(w))
			for j := range w {
				v[j] = w[j] * c
			}
			computedBelow := l.y[i]*l.rowDot(i, v) < 1
			if computedBelow != exactMarginBelowOne(row, v, l.y[i]) {
				w, found = v, true
				break
			}
		}
		if !found {
			continue
		}
		crossed++
		exact := exactGradient(l, w, prec)
		dist := func(g []float64) float64 {
			var s float64
			for j := range g {
				s += (g[j] - exact[j]) * (g[j] - exact[j])
			}
			return math.Sqrt(s)
		}
		bound := l.GradError(w)
		plain, fixed := make([]float64, 12), make([]float64, 12)
		l.Mean(plain, w)
		v := l.EnclosedMean(fixed, w)
		if d := dist(fixed); d > bound {
			t.Errorf("trial %d: EnclosedMean's gradient is off by %g, beyond its bound %g", trial, d, bound)
		}
		if d := dist(plain); !(d > bound) {
			t.Errorf("trial %d: Mean's gradient is off by only %g (bound %g): the kink was not crossed", trial, d, bound)
		}
		checkMean(t, fmt.Sprintf("hinge, trial %d", trial), l.meanInterval(prec, w), v, l.MeanError(w, v))
	}
	if crossed < 10 {
		t.Errorf("only %d of 40 trials put a margin across the kink", crossed)
	}
}

// TestRobustRoundingBounds: for the robust loss with the logistic, smoothed hinge and hinge
// margin losses and perturbations in ℓ1, ℓ2 and ℓ∞ (dual norms ∞, 2, 1), over rows held dense
// and sparse, the computed mean and subgradient are within MeanError and GradError of the
// exact ones (256 bits), the public RobustGradRounding bound covers GradError, and the
// enclosure is tight; for the hinge, weights scaled so that a row's margin is within ulps of
// the kink, on the other side of it than the exact margin, leave Mean's subgradient beyond
// GradError and EnclosedMean's within it.
func TestRobustRoundingBounds(t *testing.T) {
	const prec = 256
	r := rand.New(rand.NewPCG(13, 14))
	sign := func() float64 { return float64(2*r.IntN(2) - 1) }
	crossed := 0
	for _, phi := range []Margin{Logistic{}, SmoothHinge{H: 0.5}, Hinge{}} {
		for _, q := range []float64{1, 2, math.Inf(1)} {
			for _, sparse := range []bool{false, true} {
				ds := randData(r, 200, 8, 2, 1, sign)
				if sparse {
					ds = heldSparse(ds, false)
				}
				l, err := NewRobust(phi, 0.3, q, ds, Bounds{X: 1, XNorm: 2, Y: 1, Rows: 230})
				if err != nil {
					t.Fatal(err)
				}
				if !l.Enclosable() {
					t.Fatalf("%T, q = %g: not enclosable", phi, q)
				}
				floor, perNorm := RobustGradRounding(phi, l.rounding().a, 0.3, q, 8, 200)
				for trial := range 4 {
					w := randVec(r, 8, math.Pow(10, float64(trial-1)))
					if _, ok := phi.(Hinge); ok && trial == 3 {
						// Put row 0's margin across the kink by ulps (the margin is homogeneous in w).
						w, ok = kinkedRobust(l, w)
						if !ok {
							continue
						}
						crossed++
						plain := make([]float64, 8)
						l.Mean(plain, w)
						if d := vecDist(plain, exactRobustGradient(l, w, prec)); !(d > l.GradError(w)) {
							t.Errorf("q = %g: Mean's subgradient off by only %g across the kink", q, d)
						}
					}
					g := make([]float64, 8)
					v := l.EnclosedMean(g, w)
					checkMean(t, fmt.Sprintf("%T, q = %g, sparse %v, trial %d", phi, q, sparse, trial), l.meanInterval(prec, w), v, l.MeanError(w, v))
					bound := l.GradError(w)
					if d := vecDist(g, exactRobustGradient(l, w, prec)); d > bound {
						t.Errorf("%T, q = %g, sparse %v, trial %d: the subgradient is off by %g, beyond %g", phi, q, sparse, trial, d, bound)
					}
					if public := floor + perNorm*norm2(w); !(bound <= public) {
						t.Errorf("%T, q = %g: GradError %g above the public bound %g", phi, q, bound, public)
					}
				}
			}
		}
	}
	if crossed < 4 {
		t.Errorf("only %d hinge trials put a margin across the kink", crossed)
	}
}

// kinkedRobust turns w towards y₀x₀ (‖w‖·y₀x₀ + w/100), so that row 0's margin is positive,
// scales it so that the computed margin is 1, and nudges it by ulps until the computed and
// exact margins lie on either side of 1.
func kinkedRobust(l *Robust, w []float64) ([]float64, bool) {
	row := denseRow(l.x, l.sparse, 0, l.d, make([]float64, l.d))
	margin := func(v []float64) float64 { return l.y[0]*dot(row, v) - l.rho*geom.Norm(v, l.qd) }
	nw := norm2(w)
	for j := range w {
		w[j] = nw*l.y[0]*row[j] + w[j]/100
	}
	m := margin(w)
	if !(m > 0) {
		return nil, false
	}
	for nudge := range 64 {
		c := (1 + float64(nudge-32)*0x1p-52) / m
		v := make([]float64, len(w))
		for j := range w {
			v[j] = w[j] * c
		}
		if (margin(v) < 1) != l.exactMarginBelowOne(row, v, l.y[0]) {
			return v, true
		}
	}
	return nil, false
}

func vecDist(a, b []float64) float64 {
	var s float64
	for j := range a {
		s += (a[j] - b[j]) * (a[j] - b[j])
	}
	return math.Sqrt(s)
}

// exactRobustGradient returns (1/N)Σ φ′(mᵢ)(yᵢxᵢ − ρg) at w to about 2⁻²⁰⁰, g the norm's
// subgradient geom.NormGrad picks (w/‖w‖₂, the signs, or the first largest coordinate's).
func exactRobustGradient(l *Robust, w []float64, prec uint) []float64 {
	wi := interval.SumParts(prec, l.d, [][]float64{w})
	norm := normInterval(wi, l.qd, prec)
	g := make([]interval.I, l.d)
	switch l.qd {
	case 2:
		for j := range g {
			g[j] = interval.Quo(wi[j], norm, prec)
		}
	default:
		gf := make([]float64, l.d)
		geom.NormGrad(gf, w, l.qd)
		for j := range g {
			g[j] = interval.Point(gf[j], prec)
		}
	}
	sum := make([]interval.I, l.d)
	for j := range sum {
		sum[j] = interval.Point(0, prec)
	}
	row := make([]float64, l.d)
	for i := range l.n {
		x := denseRow(l.x, l.sparse, i, l.d, row)
		z := dotInterval(wi, x, prec)
		y := l.y[i]
		m := interval.Sub(interval.MulFloat(z, y, prec), interval.MulFloat(norm, l.rho, prec), prec)
		var d interval.I
		switch phi := l.phi.(type) {
		case Logistic: // −1/(1 + e^m)
			d = interval.Neg(interval.Quo(interval.Point(1, prec), interval.Add(interval.Point(1, prec), interval.Exp(m, prec), prec), prec))
		case SmoothHinge:
			d = smoothHingeDeriv(m.Lo, phi.H, prec)
		case Hinge:
			c := 0.0
			if l.exactMarginBelowOne(x, w, y) {
				c = -1
			}
			d = interval.Point(c, prec)
		}
		for j, v := range x {
			term := interval.Sub(interval.Point(y*v, prec), interval.MulFloat(g[j], l.rho, prec), prec)
			sum[j] = interval.Add(sum[j], interval.Mul(d, term, prec), prec)
		}
	}
	return meanOf(sum, l.b.divisor(l.n), prec)
}

// meanOf returns the sums divided by n, rounded to float64 (the lower ends: the enclosures are
// far narrower than a float64's ulp).
func meanOf(sum []interval.I, n float64, prec uint) []float64 {
	out := make([]float64, len(sum))
	for j := range out {
		q := interval.Quo(sum[j], interval.Point(n, prec), prec)
		out[j], _ = q.Lo.Float64()
	}
	return out
}

// smoothHingeDeriv returns φ′(m) = max(−1, min(0, −(1 − m)/H)) of the smoothed hinge at m, in
// prec-bit arithmetic (piecewise linear: no enclosure needed beyond its rounding).
func smoothHingeDeriv(m *big.Float, h float64, prec uint) interval.I {
	u := new(big.Float).SetPrec(prec).Sub(big.NewFloat(1), m)
	u.Quo(u, big.NewFloat(h)).Neg(u)
	if u.Cmp(big.NewFloat(-1)) < 0 {
		u.SetFloat64(-1)
	}
	if u.Sign() > 0 {
		u.SetFloat64(0)
	}
	return interval.FromBig(u, prec)
}

// checkMean fails the test when the enclosure of the exact mean is wider than 10⁻⁶⁰ or the
// computed mean v is farther than bound from it, and returns the distance over the bound.
func checkMean(t *testing.T, name string, exact interval.I, v, bound float64) float64 {
	t.Helper()
	if w := exact.Width(); w.Cmp(big.NewFloat(1e-60)) > 0 {
		t.Errorf("%s: the enclosure is %v wide", name, w)
	}
	diff, _ := new(big.Float).Sub(exact.Lo, big.NewFloat(v)).Float64()
	if math.Abs(diff) > bound {
		t.Errorf("%s: the mean is off by %g, beyond its bound %g", name, diff, bound)
	}
	return math.Abs(diff) / bound
}
