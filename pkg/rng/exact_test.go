package rng

import (
	"errors"
	"fmt"
	"github.com/privopt/privopt/internal/stattest"
	"math"
	"math/big"
	"testing"
)

// binomialCheck draws n Bernoulli trials and checks the count of successes against n·p with
// zCheck (false failure 5.7e-7 for a correct sampler; for p = 0 or 1 the count must be exact).
func binomialCheck(t *testing.T, name string, n int, p float64, trial func() bool) {
	t.Helper()
	k := 0
	for i := 0; i < n; i++ {
		if trial() {
			k++
		}
	}
	stattest.Z(t, name, float64(k), float64(n)*p, math.Sqrt(float64(n)*p*(1-p)))
}

func TestExactBernoulli(t *testing.T) {
	r := Seeded(14)
	var s exactScratch
	for _, tc := range []struct{ a, n int64 }{{0, 5}, {5, 5}, {1, 3}, {2, 7}, {123456789, 1000000007}} {
		a, n := big.NewInt(tc.a), big.NewInt(tc.n)
		p := float64(tc.a) / float64(tc.n) // for p = 0 or 1 the check demands the exact count
		binomialCheck(t, fmt.Sprintf("bernoulliRatio(%d/%d)", tc.a, tc.n), 100000, p, func() bool { return r.bernoulliRatio(a, n, &s) })
	}
	// A ratio beyond 64 bits: (2^100 + 1)/(3·2^100).
	a := new(big.Int).Add(new(big.Int).Lsh(big.NewInt(1), 100), big.NewInt(1))
	n := new(big.Int).Lsh(big.NewInt(3), 100)
	binomialCheck(t, "bernoulliRatio(~1/3, 102 bits)", 100000, 1.0/3, func() bool { return r.bernoulliRatio(a, n, &s) })

	for _, tc := range []struct{ num, den int64 }{{0, 1}, {1, 3}, {1, 1}, {5, 2}, {7, 1}, {1000001, 1000000}} {
		num, den := big.NewInt(tc.num), big.NewInt(tc.den)
		p := math.Exp(-float64(tc.num) / float64(tc.den))
		binomialCheck(t, fmt.Sprintf("bernoulliExp(%d/%d)", tc.num, tc.den), 100000, p, func() bool {
			return r.bernoulliExp(num, den, &s)
		})
	}
}

// TestExactUint64PathsDrawAsBig checks that the uint64 paths of the exact Bernoulli trials
// (bernoulliRatio64, bernoulliExpFrac64) return what the big-integer ones return and draw the
// same bits, for denominators of every width below 2^63 and for b ≥ 2^61, where k·b passes
// 2^63 at k ≤ 4 and the trials go on in big integers: two generators seeded alike stay in step.
func TestExactUint64PathsDrawAsBig(t *testing.T) {
	fast, slow, pick := Seeded(21), Seeded(21), Seeded(22)
	var sf, ss exactScratch
	inStep := func(what string, i int) {
		t.Helper()
		if fast.nBits != slow.nBits || fast.bitBuf != slow.bitBuf {
			t.Fatalf("%s, trial %d: the uint64 path drew other bits than the big one", what, i)
		}
	}
	below := func(width uint64) uint64 { return max(1, pick.src.Uint64()>>(64-width)) } // in [1, 2^width)
	for i := range 20000 {
		n := below(1 + pick.uint64n(63))
		a := pick.uint64n(n + 1)
		if got, want := fast.bernoulliRatio64(a, n), slow.bernoulliRatio(new(big.Int).SetUint64(a), new(big.Int).SetUint64(n), &ss); got != want {
			t.Fatalf("bernoulliRatio64(%d, %d) = %t, the big path %t", a, n, got, want)
		}
		inStep("bernoulliRatio64", i)
		b := below(1 + pick.uint64n(63))
		if i%2 == 0 {
			b = 1<<61 + pick.uint64n(1<<62+1<<61) // k·b ≥ 2^63 from k = 2, 3 or 4
		}
		a = pick.uint64n(b + 1)
		if got, want := fast.bernoulliExpFrac64(a, b, &sf), slow.bernoulliExpFracFrom(1, new(big.Int).SetUint64(a), new(big.Int).SetUint64(b), &ss); got != want {
			t.Fatalf("bernoulliExpFrac64(%d, %d) = %t, the big path %t", a, b, got, want)
		}
		inStep("bernoulliExpFrac64", i)
	}
	if fast.src.Uint64() != slow.src.Uint64() {
		t.Fatal("the generators are out of step")
	}
}

func TestDyadic(t *testing.T) {
	for _, tc := range []struct {
		x float64
		m uint64
		e int
	}{{1, 1, 0}, {3, 3, 0}, {0.375, 3, -3}, {2.75, 11, -2}, {1 << 40, 1, 40}, {0x1p-1074, 1, -1074}, {0.1, 3602879701896397, -55}} {
		if m, e := dyadic(tc.x); m != tc.m || e != tc.e || math.Ldexp(float64(m), e) != tc.x {
			t.Errorf("dyadic(%v) = %d·2^%d, want %d·2^%d", tc.x, m, e, tc.m, tc.e)
		}
	}
}

func TestDiscreteLaplace(t *testing.T) {
	r := Seeded(15)
	for _, scale := range []float64{0x1p-10, 0.375, 1, 2.5, 7, 1000} {
		l, err := NewDiscreteLaplace(scale)
		if err != nil {
			t.Fatal(err)
		}
		if l.Scale() != scale {
			t.Errorf("Scale() = %v", l.Scale())
		}
		xs := make([]int64, 40000)
		for i := range xs {
			xs[i] = l.Sample(r)
		}
		q := math.Exp(-1 / scale)
		pmf := func(k int64) float64 { return (1 - q) / (1 + q) * math.Pow(q, math.Abs(float64(k))) }
		w := int64(30*scale + 30)
		stattest.Chi2(t, fmt.Sprintf("DiscreteLaplace(%g)", scale), xs, pmf, -w, w)
	}
}

func TestDiscreteGaussian(t *testing.T) {
	r := Seeded(16)
	for _, sigma2 := range []float64{0x1p-20, 0.1, 0.5, 1, 2.75, 10, 1e4, 1e6} {
		g, err := NewDiscreteGaussian(sigma2)
		if err != nil {
			t.Fatal(err)
		}
		if g.Sigma2() != sigma2 {
			t.Errorf("Sigma2() = %v", g.Sigma2())
		}
		xs := make([]int64, 40000)
		for i := range xs {
			xs[i] = g.Sample(r)
		}
		sigma := math.Sqrt(sigma2)
		w := int64(12*sigma + 12)
		z := 0.0
		for k := -w; k <= w; k++ {
			z += math.Exp(-float64(k*k) / (2 * sigma2))
		}
		pmf := func(k int64) float64 { return math.Exp(-float64(k*k)/(2*sigma2)) / z }
		stattest.Chi2(t, fmt.Sprintf("DiscreteGaussian(σ²=%g)", sigma2), xs, pmf, -w, w)
	}
}

// TestExactSamplersExtremes checks the largest scales: the t and den arithmetic at 2^40 and
// 2^80, by the sample variance (2b² for the Laplace of scale b up to O(e^(−1/b)), σ² for the
// discrete Gaussian up to O(e^(−2π²σ²))).
func TestExactSamplersExtremes(t *testing.T) {
	r := Seeded(17)
	const n = 20000
	l, err := NewDiscreteLaplace(MaxDiscreteScale)
	if err != nil {
		t.Fatal(err)
	}
	g, err := NewDiscreteGaussian(MaxDiscreteScale * MaxDiscreteScale)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		sample func(*Rand) int64
		v, v4  float64 // variance and fourth moment
	}{
		{"DiscreteLaplace(2^40)", l.Sample, 2 * 0x1p80, 24 * 0x1p160},
		{"DiscreteGaussian(2^80)", g.Sample, 0x1p80, 3 * 0x1p160},
	} {
		s := 0.0
		for i := 0; i < n; i++ {
			x := float64(tc.sample(r))
			s += x * x
		}
		stattest.Z(t, tc.name+" variance", s/n, tc.v, math.Sqrt((tc.v4-tc.v*tc.v)/n))
	}
}

func TestSaturate(t *testing.T) {
	huge := new(big.Int).Lsh(big.NewInt(1), 70)
	for _, tc := range []struct {
		neg  bool
		mag  *big.Int
		want int64
	}{{false, big.NewInt(5), 5}, {true, big.NewInt(5), -5}, {false, huge, math.MaxInt64}, {true, huge, -math.MaxInt64}} {
		if got := saturate(tc.neg, tc.mag); got != tc.want {
			t.Errorf("saturate(%v, %v) = %d, want %d", tc.neg, tc.mag, got, tc.want)
		}
	}
}

func TestExactInvalid(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"NewDiscreteLaplace(0)", second(NewDiscreteLaplace(0))},
		{"NewDiscreteLaplace(-1)", second(NewDiscreteLaplace(-1))},
		{"NewDiscreteLaplace(NaN)", second(NewDiscreteLaplace(math.NaN()))},
		{"NewDiscreteLaplace(2^41)", second(NewDiscreteLaplace(2 * MaxDiscreteScale))},
		{"NewDiscreteGaussian(0)", second(NewDiscreteGaussian(0))},
		{"NewDiscreteGaussian(Inf)", second(NewDiscreteGaussian(math.Inf(1)))},
		{"NewDiscreteGaussian(2^81)", second(NewDiscreteGaussian(0x1p81))},
	} {
		if !errors.Is(tc.err, ErrInvalid) {
			t.Errorf("%s: error %v, want one wrapping ErrInvalid", tc.name, tc.err)
		}
	}
}
