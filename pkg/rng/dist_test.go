package rng

import (
	"errors"
	"fmt"
	"github.com/privopt/privopt/internal/stattest"
	"math"
	"math/big"
	"testing"

	"gonum.org/v1/gonum/mathext"
)

func TestNormal(t *testing.T) {
	r := Seeded(1)
	xs := make([]float64, 1_000_000)
	r.NormalVec(xs)
	stattest.KS(t, "Normal", xs, normalCDF)

	// The tail sampler alone, against the normal law conditioned on x > r.
	zr := normalZig.r
	qr := 0.5 * math.Erfc(zr/math.Sqrt2)
	tail := make([]float64, 20000)
	for i := range tail {
		tail[i] = zr + r.normalTail()
	}
	stattest.KS(t, "Normal tail", tail, func(x float64) float64 { return 1 - 0.5*math.Erfc(x/math.Sqrt2)/qr })
}

func TestExp(t *testing.T) {
	r := Seeded(2)
	xs := make([]float64, 1_000_000)
	for i := range xs {
		xs[i] = r.Exp()
	}
	stattest.KS(t, "Exp", xs, func(x float64) float64 { return -math.Expm1(-x) })
	// The tail beyond r (one draw in 2200) by memorylessness: X − r given X > r is Exp(1).
	var tail []float64
	for _, x := range xs {
		if x > expZig.r {
			tail = append(tail, x-expZig.r)
		}
	}
	if len(tail) < 200 {
		t.Fatalf("only %d tail draws", len(tail))
	}
	stattest.KS(t, "Exp tail", tail, func(x float64) float64 { return -math.Expm1(-x) })
}

func TestLaplace(t *testing.T) {
	r := Seeded(3)
	for _, b := range []float64{1e-300, 0.5, 3, MaxScale} {
		xs := make([]float64, 50000)
		for i := range xs {
			v, err := r.Laplace(b)
			if err != nil {
				t.Fatal(err)
			}
			xs[i] = v
		}
		stattest.KS(t, fmt.Sprintf("Laplace(%g)", b), xs, func(x float64) float64 {
			if x < 0 {
				return 0.5 * math.Exp(x/b)
			}
			return 1 - 0.5*math.Exp(-x/b)
		})
	}
}

func TestGamma(t *testing.T) {
	r := Seeded(4)
	for _, tc := range []struct{ shape, scale float64 }{
		{0.001, 1}, {0.01, 1}, {0.3, 2}, {0.999, 1}, {1, 1}, {1.5, 0.1}, {2.5, 1}, {30, 7}, {1e6, 1}, {1e12, 3},
		{1e-3, MaxScale}, {2, MaxScale / 2}, // the largest scales: no draw may overflow
	} {
		xs := make([]float64, 40000)
		for i := range xs {
			v, err := r.Gamma(tc.shape, tc.scale)
			if err != nil {
				t.Fatal(err)
			}
			xs[i] = v
		}
		// The law of the float64 result: values below 2^−1075 round to 0, which has mass
		// F0 = F(2^−1075). Where x/scale underflows, F is the leading term (x/scale)^a/Γ(a+1)
		// of the lower incomplete gamma function, taken in logarithms.
		cdf := func(lx float64) float64 {
			z := lx - math.Log(tc.scale)
			if z < -700 {
				lg, _ := math.Lgamma(tc.shape + 1)
				return math.Exp(tc.shape*z - lg)
			}
			return mathext.GammaIncReg(tc.shape, math.Exp(z))
		}
		f0 := cdf(-1075 * math.Ln2)
		var pos []float64
		for _, x := range xs {
			if x > 0 {
				pos = append(pos, x)
			}
		}
		name := fmt.Sprintf("Gamma(%g, %g)", tc.shape, tc.scale)
		n := float64(len(xs))
		stattest.Z(t, name+" zeros", n-float64(len(pos)), n*f0, math.Sqrt(n*f0*(1-f0)))
		stattest.KS(t, name, pos, func(x float64) float64 {
			lx := math.Log(x)
			if x < 0x1p-1000 { // scaled: math.Log is wrong on subnormals on amd64
				lx = math.Log(x*0x1p100) - 100*math.Ln2
			}
			return (cdf(lx) - f0) / (1 - f0)
		})
	}
	// A shape beyond what the CDF routine handles, but where float64 still resolves the
	// spread (ulp(1e15) = 0.125 against a standard deviation of 3e7): the standardised variate
	// is N(0, 1) to within the skewness 2/√shape = 6e-8.
	xs := make([]float64, 40000)
	for i := range xs {
		v, err := r.Gamma(1e15, 1)
		if err != nil {
			t.Fatal(err)
		}
		xs[i] = (v - 1e15) / math.Sqrt(1e15)
	}
	stattest.KS(t, "standardised Gamma(1e15)", xs, normalCDF)
}

// TestGammaExponent checks the Marsaglia–Tsang log-acceptance exponent x²/2 + d·(1 − v + ln v),
// v = (1+cx)³, as the sampler evaluates it, against a 2048-bit evaluation, for shapes up to
// 1e300. The textbook float64 formula is off by about √d·1e-16·|x|: 1e-1 at d = 1e30 and
// beyond any meaning at d = 1e100, which this test would catch.
func TestGammaExponent(t *testing.T) {
	const prec = 2048 // 1 − v + ln v ~ y² ~ 1e−300 must survive next to 1
	for _, a := range []float64{1, 1.5, 30, 1e6, 1e15, 1e30, 1e100, 1e300} {
		d := a - 1.0/3
		c := 1 / math.Sqrt(9*d)
		e := oneMinus9dc2(d, c)
		for _, x := range []float64{-2.9, -0.5, 0.01, 0.7, 2.9} {
			y := c * x
			if y <= -1 { // outside the support: the sampler rejects before evaluating
				continue
			}
			got := 0.5*x*x*e + d*gammaR(y)
			// Exact: with y = c·x exactly (as a big.Float product), 1 − v + ln v where
			// ln v = 3·ln(1+y); ln(1+y) by its series for |y| < 0.1, else from float64 (only
			// small shapes reach that, where float64 is accurate enough).
			bx := new(big.Float).SetPrec(prec).SetFloat64(x)
			by := new(big.Float).SetPrec(prec).Mul(new(big.Float).SetFloat64(c), bx)
			var lnv *big.Float
			if math.Abs(y) < 0.1 {
				lnv = new(big.Float).SetPrec(prec)
				term := new(big.Float).SetPrec(prec).Set(by)
				for j := 1; j < 120; j++ {
					q := new(big.Float).SetPrec(prec).Quo(term, new(big.Float).SetInt64(int64(j)))
					if j%2 == 1 {
						lnv.Add(lnv, q)
					} else {
						lnv.Sub(lnv, q)
					}
					term.Mul(term, by)
				}
				lnv.Mul(lnv, new(big.Float).SetInt64(3))
			} else {
				lnv = new(big.Float).SetPrec(prec).SetFloat64(3 * math.Log1p(y))
			}
			w := new(big.Float).SetPrec(prec).Add(big.NewFloat(1), by)
			v := new(big.Float).SetPrec(prec).Mul(w, w)
			v.Mul(v, w)
			inner := new(big.Float).SetPrec(prec).Sub(big.NewFloat(1), v)
			inner.Add(inner, lnv)
			inner.Mul(inner, new(big.Float).SetPrec(prec).SetFloat64(d))
			half := new(big.Float).SetPrec(prec).Mul(bx, bx)
			half.Quo(half, big.NewFloat(2))
			want, _ := inner.Add(inner, half).Float64()
			if math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) {
				t.Errorf("shape %g, x = %v: exponent %.17g, want %.17g", a, x, got, want)
			}
		}
	}
}

func TestPoisson(t *testing.T) {
	r := Seeded(5)
	for _, mean := range []float64{0, 1e-3, 0.5, 3, 9.99, 10, 37.5, 1000, 1e6} {
		xs := make([]int64, 40000)
		for i := range xs {
			k, err := r.Poisson(mean)
			if err != nil {
				t.Fatal(err)
			}
			xs[i] = k
		}
		pmf := func(k int64) float64 {
			if mean == 0 {
				if k == 0 {
					return 1
				}
				return 0
			}
			lg, _ := math.Lgamma(float64(k) + 1)
			return math.Exp(-mean + float64(k)*math.Log(mean) - lg)
		}
		w := int64(12*math.Sqrt(mean) + 30)
		stattest.Chi2(t, fmt.Sprintf("Poisson(%g)", mean), xs, pmf, max(0, int64(mean)-w), int64(mean)+w)
	}
	// Large means: (k + ½ − λ)/√λ is N(0, 1) to within the skewness 1/√λ ≤ 1e-6 (far below
	// what 40000 samples resolve); the +½ is the continuity correction.
	for _, mean := range []float64{1e13, MaxPoissonMean} {
		xs := make([]float64, 40000)
		for i := range xs {
			k, err := r.Poisson(mean)
			if err != nil {
				t.Fatal(err)
			}
			xs[i] = (float64(k) + 0.5 - mean) / math.Sqrt(mean)
		}
		stattest.KS(t, fmt.Sprintf("standardised Poisson(%g)", mean), xs, normalCDF)
	}
}

// TestPoissonLogPMF checks the cancellation-free log-pmf against a direct evaluation where the
// direct one is accurate (small values), and its symmetry-free identity p(k+1)/p(k) = λ/(k+1)
// where the direct one is not (large λ).
func TestPoissonLogPMF(t *testing.T) {
	for _, tc := range []struct{ k, lam float64 }{{0, 10}, {1, 10}, {7, 10}, {15, 12}, {16, 12}, {40, 25}, {300, 250}} {
		lg, _ := math.Lgamma(tc.k + 1)
		want := -tc.lam + tc.k*math.Log(tc.lam) - lg
		if got := poissonLogPMF(tc.k, tc.lam); math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) {
			t.Errorf("poissonLogPMF(%v, %v) = %.17g, want %.17g", tc.k, tc.lam, got, want)
		}
	}
	for _, lam := range []float64{1e6, 1e12, MaxPoissonMean} {
		for _, dk := range []float64{-5, 0, 3} {
			k := math.Floor(lam + dk*math.Sqrt(lam))
			got := poissonLogPMF(k+1, lam) - poissonLogPMF(k, lam)
			want := math.Log(lam / (k + 1))
			if math.Abs(got-want) > 1e-9 {
				t.Errorf("λ = %g, k = %g: ln p(k+1) − ln p(k) = %.12g, want %.12g", lam, k, got, want)
			}
		}
	}
}

func TestUnitSphere(t *testing.T) {
	r := Seeded(6)
	for _, d := range []int{1, 2, 3, 6} {
		xs := make([][]float64, 30000)
		for i := range xs {
			xs[i] = make([]float64, d)
			if err := r.UnitSphere(xs[i]); err != nil {
				t.Fatal(err)
			}
			if n := norm2(xs[i]); math.Abs(n-1) > 4e-16*float64(d) {
				t.Fatalf("d = %d: norm %v", d, n)
			}
		}
		stattest.Moments(t, fmt.Sprintf("UnitSphere(d=%d)", d), xs, 1/float64(d))
		switch d {
		case 2: // the angle is uniform
			ks := make([]float64, len(xs))
			for i, x := range xs {
				ks[i] = math.Atan2(x[1], x[0])
			}
			stattest.KS(t, "UnitSphere(d=2) angle", ks, func(a float64) float64 { return (a + math.Pi) / (2 * math.Pi) })
		case 3: // Archimedes: each coordinate is uniform on [−1, 1]
			ks := make([]float64, len(xs))
			for i, x := range xs {
				ks[i] = x[2]
			}
			stattest.KS(t, "UnitSphere(d=3) coordinate", ks, func(z float64) float64 { return (z + 1) / 2 })
		}
	}
}

func TestUnitBall(t *testing.T) {
	r := Seeded(7)
	for _, d := range []int{1, 2, 5, 40} {
		xs := make([][]float64, 30000)
		rad := make([]float64, len(xs))
		for i := range xs {
			xs[i] = make([]float64, d)
			if err := r.UnitBall(xs[i]); err != nil {
				t.Fatal(err)
			}
			rad[i] = math.Pow(norm2(xs[i]), float64(d)) // uniform on [0, 1]
		}
		stattest.KS(t, fmt.Sprintf("UnitBall(d=%d) radius^d", d), rad, func(u float64) float64 { return u })
		if d <= 5 {
			stattest.Moments(t, fmt.Sprintf("UnitBall(d=%d)", d), xs, 1/float64(d+2))
		}
	}
}

func TestLpBall(t *testing.T) {
	r := Seeded(8)
	for _, tc := range []struct {
		p float64
		d int
	}{{1, 2}, {1, 7}, {1.5, 3}, {2, 4}, {3, 2}, {50, 3}, {1e6, 2}, {math.Inf(1), 3}} {
		name := fmt.Sprintf("LpBall(p=%g, d=%d)", tc.p, tc.d)
		xs := make([][]float64, 30000)
		rad := make([]float64, len(xs))
		for i := range xs {
			xs[i] = make([]float64, tc.d)
			if err := r.LpBall(xs[i], tc.p); err != nil {
				t.Fatal(err)
			}
			n := normP(xs[i], tc.p)
			if n > 1+1e-12 {
				t.Fatalf("%s: ‖x‖_p = %v > 1", name, n)
			}
			rad[i] = math.Pow(n, float64(tc.d)) // P(‖x‖_p ≤ s) = s^d for a uniform point
		}
		stattest.KS(t, name+" radius^d", rad, func(u float64) float64 { return u })
		stattest.Moments(t, name, xs, math.NaN())
		if tc.p == 1 && tc.d == 2 { // the marginal density of the diamond is 1 − |t|
			ks := make([]float64, len(xs))
			for i, x := range xs {
				ks[i] = x[0]
			}
			stattest.KS(t, name+" marginal", ks, func(z float64) float64 {
				if z < 0 {
					return (1 + z) * (1 + z) / 2
				}
				return 1 - (1-z)*(1-z)/2
			})
		}
		if tc.p == 2 {
			stattest.Moments(t, name+" (exact second moment)", xs, 1/float64(tc.d+2))
		}
	}
}

func TestL2Laplace(t *testing.T) {
	r := Seeded(9)
	for _, tc := range []struct {
		d int
		b float64
	}{{1, 1}, {3, 0.25}, {10, 2}, {92, 1e-3}} {
		name := fmt.Sprintf("L2Laplace(d=%d, b=%g)", tc.d, tc.b)
		xs := make([][]float64, 30000)
		rad := make([]float64, len(xs))
		for i := range xs {
			xs[i] = make([]float64, tc.d)
			if err := r.L2Laplace(xs[i], tc.b); err != nil {
				t.Fatal(err)
			}
			rad[i] = norm2(xs[i])
		}
		stattest.KS(t, name+" radius ~ Gamma(d, b)", rad, func(x float64) float64 {
			return mathext.GammaIncReg(float64(tc.d), x/tc.b)
		})
		if tc.d <= 10 { // E[xxᵀ] = (E‖x‖²/d)·I = (d+1)b²·I
			stattest.Moments(t, name, xs, float64(tc.d+1)*tc.b*tc.b)
		}
	}
}

func TestInvalidParameters(t *testing.T) {
	r := Seeded(11)
	nan, inf := math.NaN(), math.Inf(1)
	two := make([]float64, 2)
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"Laplace(0)", second(r.Laplace(0))},
		{"Laplace(NaN)", second(r.Laplace(nan))},
		{"Laplace(Inf)", second(r.Laplace(inf))},
		{"Gamma(0, 1)", second(r.Gamma(0, 1))},
		{"Gamma(-1, 1)", second(r.Gamma(-1, 1))},
		{"Gamma(NaN, 1)", second(r.Gamma(nan, 1))},
		{"Gamma(Inf, 1)", second(r.Gamma(inf, 1))},
		{"Gamma(1, 0)", second(r.Gamma(1, 0))},
		{"Gamma(1, Inf)", second(r.Gamma(1, inf))},
		{"Gamma(2^1001, 1)", second(r.Gamma(0x1p1001, 1))},
		{"Gamma(1, 2^1001)", second(r.Gamma(1, 0x1p1001))},
		{"Gamma(2^600, 2^600)", second(r.Gamma(0x1p600, 0x1p600))},
		{"Laplace(2^1001)", second(r.Laplace(0x1p1001))},
		{"L2Laplace(d·b > 2^1000)", r.L2Laplace(two, 0x1p1000)},
		{"Poisson(-1)", second(r.Poisson(-1))},
		{"Poisson(NaN)", second(r.Poisson(nan))},
		{"Poisson(2^52+2)", second(r.Poisson(MaxPoissonMean + 2))},
		{"UnitSphere(empty)", r.UnitSphere(nil)},
		{"UnitBall(empty)", r.UnitBall(nil)},
		{"LpBall(empty)", r.LpBall(nil, 2)},
		{"LpBall(p=0.5)", r.LpBall(two, 0.5)},
		{"LpBall(p=NaN)", r.LpBall(two, nan)},
		{"L2Laplace(empty)", r.L2Laplace(nil, 1)},
		{"L2Laplace(b=0)", r.L2Laplace(two, 0)},
		{"L2Laplace(b=NaN)", r.L2Laplace(two, nan)},
	} {
		if !errors.Is(tc.err, ErrInvalid) {
			t.Errorf("%s: error %v, want one wrapping ErrInvalid", tc.name, tc.err)
		}
	}
}

func second[T any](_ T, err error) error { return err }

func norm2(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v * v
	}
	return math.Sqrt(s)
}

func normP(x []float64, p float64) float64 {
	if math.IsInf(p, 1) {
		m := 0.0
		for _, v := range x {
			m = math.Max(m, math.Abs(v))
		}
		return m
	}
	m := normP(x, math.Inf(1))
	if m == 0 {
		return 0
	}
	s := 0.0
	for _, v := range x {
		s += math.Pow(math.Abs(v)/m, p) // scaled so that large p does not underflow
	}
	return m * math.Pow(s, 1/p)
}

func TestFloat64(t *testing.T) {
	r := Seeded(20)
	xs := make([]float64, 200000)
	for i := range xs {
		xs[i] = r.Float64()
		if xs[i] < 0 || xs[i] >= 1 {
			t.Fatalf("Float64 = %v", xs[i])
		}
		if u := r.openFloat64(); u <= 0 || u >= 1 {
			t.Fatalf("openFloat64 = %v", u)
		}
	}
	stattest.KS(t, "Float64", xs, func(u float64) float64 { return u })
}

// TestNoAllocations checks that the vector and exact samplers do not allocate once warm.
func TestNoAllocations(t *testing.T) {
	r := Seeded(22)
	dst := make([]float64, 92)
	dg, _ := NewDiscreteGaussian(1e9)
	dl, _ := NewDiscreteLaplace(123.5)
	g, _ := NewGrid(20)
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"NormalVec", func() { r.NormalVec(dst) }},
		{"UnitSphere", func() { _ = r.UnitSphere(dst) }},
		{"UnitBall", func() { _ = r.UnitBall(dst) }},
		{"LpBall", func() { _ = r.LpBall(dst, 3) }},
		{"L2Laplace", func() { _ = r.L2Laplace(dst, 2) }},
		{"Gamma", func() { _, _ = r.Gamma(0.5, 2) }},
		{"Poisson", func() { _, _ = r.Poisson(1e5) }},
		{"DiscreteGaussian.Sample", func() { dg.Sample(r) }},
		{"DiscreteLaplace.Sample", func() { dl.Sample(r) }},
		{"Grid.Release", func() { _ = g.Release(r, dst, dst, dg) }},
	} {
		for i := 0; i < 100; i++ { // warm up the big-integer scratch space
			tc.f()
		}
		if a := testing.AllocsPerRun(200, tc.f); a != 0 {
			t.Errorf("%s: %v allocations per call", tc.name, a)
		}
	}
}
