// Package stattest holds the statistical checks privopt's tests use on samplers: one-sample
// Kolmogorov–Smirnov and χ² tests at a fixed level, z-tests of estimates, and moment checks of
// vector samples; also the digests of pinned releases and the reader of reference tables. Tests call them with fixed seeds, so a run either always passes or always
// fails; each function states its false-failure probability for a correct sampler.
package stattest

import (
	"encoding/binary"
	"hash"
	"hash/fnv"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// Level is the level of KS and Chi2: for a correct sampler and a random seed each fails with
// probability at most Level.
const Level = 1e-4

// KS runs the one-sample Kolmogorov–Smirnov test of xs (sorted in place) against the
// continuous cdf at level 1e-4, with Stephens' (1970) finite-n form of the asymptotic critical
// value: D·(√n + 0.12 + 0.11/√n) > √(−ln(α/2)/2) rejects. For a discrete law the test is
// conservative (fails less often).
func KS(t testing.TB, name string, xs []float64, cdf func(float64) float64) {
	t.Helper()
	slices.Sort(xs)
	n := float64(len(xs))
	d := 0.0
	for i, x := range xs {
		f := cdf(x)
		if math.IsNaN(f) {
			t.Fatalf("%s: cdf(%v) is NaN", name, x)
		}
		d = math.Max(d, math.Max(float64(i+1)/n-f, f-float64(i)/n))
	}
	sn := math.Sqrt(n)
	crit := math.Sqrt(-math.Log(Level/2)/2) / (sn + 0.12 + 0.11/sn)
	if d > crit {
		t.Errorf("%s: KS distance %.5g > critical %.5g (n = %d)", name, d, crit, len(xs))
	}
}

// Chi2 runs Pearson's χ² test of the integer samples xs against the pmf, at level 1e-4.
// Consecutive values in [lo, hi] are merged into bins of expected count ≥ 20; every sample
// must lie in [lo, hi], and the pmf mass outside must be below 1e-9 (both checked).
func Chi2(t testing.TB, name string, xs []int64, pmf func(int64) float64, lo, hi int64) {
	t.Helper()
	n := float64(len(xs))
	count := make(map[int64]float64)
	for _, x := range xs {
		if x < lo || x > hi {
			t.Fatalf("%s: sample %d outside [%d, %d]", name, x, lo, hi)
		}
		count[x]++
	}
	var exp, obs []float64
	e, o, total := 0.0, 0.0, 0.0
	for k := lo; k <= hi; k++ {
		p := pmf(k)
		total += p
		e += n * p
		o += count[k]
		if e >= 20 {
			exp, obs = append(exp, e), append(obs, o)
			e, o = 0, 0
		}
	}
	if len(exp) == 0 {
		t.Fatalf("%s: no bin reaches 20 expected samples", name)
	}
	exp[len(exp)-1] += e
	obs[len(obs)-1] += o
	if math.Abs(total-1) > 1e-9 {
		t.Fatalf("%s: pmf mass in [%d, %d] is %v", name, lo, hi, total)
	}
	if len(exp) == 1 { // a point mass: every sample must be that value
		return
	}
	chi2 := 0.0
	for i := range exp {
		chi2 += (obs[i] - exp[i]) * (obs[i] - exp[i]) / exp[i]
	}
	df := float64(len(exp) - 1)
	crit := distuv.ChiSquared{K: df}.Quantile(1 - Level)
	if chi2 > crit {
		t.Errorf("%s: χ² = %.4g > critical %.4g (df %v, n = %d)", name, chi2, crit, df, len(xs))
	}
}

// Z fails when |got − want| > 5·sd: for a correct sampler and an approximately normal
// estimate, probability 5.7e-7.
func Z(t testing.TB, name string, got, want, sd float64) {
	t.Helper()
	if math.Abs(got-want) > 5*sd {
		t.Errorf("%s = %.6g, want %.6g ± 5·%.3g", name, got, want, sd)
	}
}

// Moments checks E[x] = 0 and E[xxᵀ] = c·I for vector samples: each mean and each
// second moment against its target with Z, the standard error estimated from the
// samples. With d = len(xs[0]), that is d + d(d+1)/2 checks, a false-failure probability
// below 6e-7 each. If c is NaN the diagonal is checked against its own average instead.
func Moments(t testing.TB, name string, xs [][]float64, c float64) {
	t.Helper()
	n, d := len(xs), len(xs[0])
	mean := func(f func(x []float64) float64) (m, se float64) {
		s, s2 := 0.0, 0.0
		for _, x := range xs {
			v := f(x)
			s += v
			s2 += v * v
		}
		m = s / float64(n)
		return m, math.Sqrt((s2/float64(n) - m*m) / float64(n))
	}
	if math.IsNaN(c) {
		tr, _ := mean(func(x []float64) float64 {
			s := 0.0
			for _, v := range x {
				s += v * v
			}
			return s
		})
		c = tr / float64(d)
	}
	for i := 0; i < d; i++ {
		m, se := mean(func(x []float64) float64 { return x[i] })
		Z(t, name+": mean", m, 0, se)
		for j := 0; j <= i; j++ {
			want := 0.0
			if i == j {
				want = c
			}
			m, se := mean(func(x []float64) float64 { return x[i] * x[j] })
			Z(t, name+": second moment", m, want, se)
		}
	}
}

// Digest accumulates the exact bits of floating-point results, for tests that pin a
// computation's output natively and under js/wasm: the same computation must give the same
// digest on every platform.
type Digest struct{ h hash.Hash64 }

// NewDigest returns an empty digest.
func NewDigest() *Digest { return &Digest{h: fnv.New64a()} }

// Add adds the bits of each value.
func (d *Digest) Add(vs ...float64) {
	var b [8]byte
	for _, v := range vs {
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
		d.h.Write(b[:])
	}
}

// Sum returns the digest.
func (d *Digest) Sum() uint64 { return d.h.Sum64() }
