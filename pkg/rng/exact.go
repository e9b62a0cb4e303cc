package rng

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"
)

// Exact integer samplers after Canonne, Kamath and Steinke (CKS20), "The Discrete Gaussian for
// Differential Privacy" (NeurIPS 2020, arXiv:2004.00010). Every sampling decision is a
// comparison of random bits with an exact rational number; no floating-point value is
// computed on the way to a sample.

// MaxDiscreteScale bounds the scale of DiscreteLaplace and the σ of DiscreteGaussian, in grid
// units: 2^40. It keeps the integers the samplers form below 2^64 except with probability
// below e^−2000 (when one is not, the sample is still exact: it is formed in big integers) and
// their outputs within the int64 range except with probability below e^(−2^22).
const MaxDiscreteScale = 1 << 40

// exactScratch holds the big integers the exact samplers reuse, so that a sample allocates
// nothing once they have grown.
type exactScratch struct {
	a, b, q, frac, rem, n, tmp big.Int
}

// bernoulliRatio returns true with probability a/n exactly, for 0 ≤ a ≤ n, n > 0.
//
// Method: it compares the binary expansion of a/n, produced by long division, with fresh
// random bits, and stops at the first difference (2 bits on average); when the expansion
// terminates first, the uniform is ≥ a/n.
func (r *Rand) bernoulliRatio(a, n *big.Int, s *exactScratch) bool {
	if a.Cmp(n) >= 0 {
		return true
	}
	if a.Sign() == 0 {
		return false
	}
	rem := &s.rem
	rem.Set(a)
	for {
		rem.Lsh(rem, 1)
		bit := rem.Cmp(n) >= 0
		if bit {
			rem.Sub(rem, n)
		}
		if r.bit() != bit {
			return bit
		}
		if rem.Sign() == 0 {
			return false
		}
	}
}

// bernoulliRatio64 is bernoulliRatio for n < 2^63 in uint64 arithmetic: the same comparisons
// (2·rem < 2n fits), so the same bits drawn and the same result.
func (r *Rand) bernoulliRatio64(a, n uint64) bool {
	if a >= n {
		return true
	}
	if a == 0 {
		return false
	}
	rem := a
	for {
		rem <<= 1
		bit := rem >= n
		if bit {
			rem -= n
		}
		if r.bit() != bit {
			return bit
		}
		if rem == 0 {
			return false
		}
	}
}

// bernoulliExpFrac returns true with probability exp(−a/b) exactly, for 0 ≤ a ≤ b, b > 0.
//
// Method: CKS20 Algorithm 1 for γ = a/b ∈ [0, 1]: draw A_k ~ Bernoulli(γ/k) for k = 1, 2, …
// until the first 0, at index K; then P(K odd) = e^(−γ). When b < 2^63 it runs in uint64
// arithmetic (bernoulliExpFrac64), drawing the same bits.
func (r *Rand) bernoulliExpFrac(a, b *big.Int, s *exactScratch) bool {
	if b.BitLen() < 64 && b.Uint64() < 1<<63 {
		return r.bernoulliExpFrac64(a.Uint64(), b.Uint64(), s)
	}
	return r.bernoulliExpFracFrom(1, a, b, s)
}

// bernoulliExpFracFrom runs bernoulliExpFrac's trials from A_k on, in big integers (a and b
// may be s.a and s.b).
func (r *Rand) bernoulliExpFracFrom(k int64, a, b *big.Int, s *exactScratch) bool {
	for ; ; k++ {
		s.n.SetInt64(k)
		s.n.Mul(&s.n, b)
		if !r.bernoulliRatio(a, &s.n, s) {
			return k%2 == 1
		}
	}
}

// bernoulliExpFrac64 is bernoulliExpFrac for uint64 a and b: its trials in uint64 arithmetic
// while k·b < 2^63 (bernoulliRatio64), and on in big integers if k·b grows past that.
func (r *Rand) bernoulliExpFrac64(a, b uint64, s *exactScratch) bool {
	for k := uint64(1); ; k++ {
		hi, n := bits.Mul64(k, b)
		if hi != 0 || n >= 1<<63 {
			s.a.SetUint64(a)
			s.b.SetUint64(b)
			return r.bernoulliExpFracFrom(int64(k), &s.a, &s.b, s)
		}
		if !r.bernoulliRatio64(a, n) {
			return k%2 == 1
		}
	}
}

// bernoulliExpMinusOne returns true with probability e^−1 exactly.
func (r *Rand) bernoulliExpMinusOne(s *exactScratch) bool {
	return r.bernoulliExpFrac64(1, 1, s)
}

// bernoulliExp returns true with probability exp(−num/den) exactly, for num ≥ 0, den > 0
// (num and den are not modified and must not be fields of s; s.tmp is left untouched).
//
// Method: CKS20 Algorithm 1 for γ > 1: ⌊γ⌋ independent Bernoulli(e^−1) trials must all succeed
// (stopping at the first failure), then one Bernoulli(e^−(γ−⌊γ⌋)).
func (r *Rand) bernoulliExp(num, den *big.Int, s *exactScratch) bool {
	s.q.QuoRem(num, den, &s.frac)
	for ; s.q.Sign() > 0; s.q.Sub(&s.q, bigOne) {
		if !r.bernoulliExpMinusOne(s) {
			return false
		}
	}
	return r.bernoulliExpFrac(&s.frac, den, s)
}

var bigOne = big.NewInt(1)

// discreteLaplace draws from the discrete Laplace law P(y) ∝ exp(−|y|·s/t) on the integers,
// for integers t ≥ 1 and s = 2^shift, by CKS20 Algorithm 2 (scale t/s): U uniform on
// {0, …, t−1} kept with probability exp(−U/t); V the number of successes of Bernoulli(e^−1)
// trials before the first failure; X = U + t·V; Y = ⌊X/s⌋; a sign bit B; the pair (B=1, Y=0)
// is rejected. It returns the sign and leaves |Y| in s.tmp.
func (r *Rand) discreteLaplace(t uint64, shift uint, s *exactScratch) (negative bool) {
	for {
		u := r.uint64n(t)
		if !r.bernoulliExpFrac64(u, t, s) {
			continue
		}
		var v uint64
		for r.bernoulliExpMinusOne(s) {
			v++
		}
		hi, x := bits.Mul64(t, v)
		var carry uint64
		x, carry = bits.Add64(x, u, 0)
		if hi == 0 && carry == 0 {
			s.tmp.SetUint64(x >> shift)
		} else { // X ≥ 2^64 (probability below e^−2000): form it in big integers
			s.tmp.SetUint64(v)
			s.n.SetUint64(t)
			s.tmp.Mul(&s.tmp, &s.n)
			s.n.SetUint64(u)
			s.tmp.Add(&s.tmp, &s.n)
			s.tmp.Rsh(&s.tmp, shift)
		}
		neg := r.bit()
		if neg && s.tmp.Sign() == 0 {
			continue
		}
		return neg
	}
}

// saturate returns ±|y| (|y| in mag) as an int64, saturated at ±math.MaxInt64.
func saturate(negative bool, mag *big.Int) int64 {
	m := int64(math.MaxInt64)
	if mag.IsInt64() {
		m = mag.Int64()
	}
	if negative {
		return -m
	}
	return m
}

// dyadic returns M and E with x = M·2^E, M odd (x finite and > 0).
func dyadic(x float64) (m uint64, e int) {
	frac, exp := math.Frexp(x)
	m = uint64(math.Ldexp(frac, 53))
	e = exp - 53
	tz := bits.TrailingZeros64(m)
	return m >> tz, e + tz
}

// DiscreteLaplace is the discrete Laplace (two-sided geometric) law on the integers,
// P(y) = (1−q)/(1+q)·q^|y| with q = exp(−1/scale). Adding it to an integer vector of ℓ1
// sensitivity Δ gives pure ε-DP with ε = Δ/scale exactly (the ratio of probabilities at y and
// y+δ is at most exp(|δ|/scale)).
//
// A DiscreteLaplace holds scratch space: it is not safe for concurrent use.
type DiscreteLaplace struct {
	scale float64
	t     uint64 // scale = t/2^shift, t odd unless shift = 0
	shift uint
	s     exactScratch
}

// NewDiscreteLaplace returns the discrete Laplace law with the given scale, in integer units.
// The float64 scale is used exactly (it is a dyadic rational t/2^k). It returns an error
// wrapping ErrInvalid unless 0 < scale ≤ MaxDiscreteScale.
func NewDiscreteLaplace(scale float64) (*DiscreteLaplace, error) {
	if !(scale > 0 && scale <= MaxDiscreteScale) {
		return nil, fmt.Errorf("rng: NewDiscreteLaplace: scale %v: must be in (0, 2^40]: %w", scale, ErrInvalid)
	}
	m, e := dyadic(scale)
	l := &DiscreteLaplace{scale: scale, t: m}
	if e >= 0 {
		l.t = m << e
	} else {
		l.shift = uint(-e)
	}
	return l, nil
}

// Scale returns the scale, in integer units.
func (l *DiscreteLaplace) Scale() float64 { return l.scale }

// Sample returns a draw, exactly distributed (CKS20 Algorithm 2 with Algorithm 1 for the
// Bernoulli trials, all in integer arithmetic), except that a draw beyond ±(2^63−1), which has
// probability below e^(−2^22), is returned saturated at ±(2^63−1).
func (l *DiscreteLaplace) Sample(r *Rand) int64 {
	neg := r.discreteLaplace(l.t, l.shift, &l.s)
	return saturate(neg, &l.s.tmp)
}

// DiscreteGaussian is the discrete Gaussian law N_Z(0, σ²) on the integers,
// P(y) ∝ exp(−y²/(2σ²)) (CKS20 Definition 1), with σ² given exactly as a float64 (a dyadic
// rational). Adding it independently to each coordinate of an integer vector of ℓ2
// sensitivity Δ gives ρ-zCDP with ρ = Δ²/(2σ²) (see Grid.Release for the exact statement).
//
// A DiscreteGaussian holds scratch space: it is not safe for concurrent use.
type DiscreteGaussian struct {
	sigma2  float64
	t       uint64  // ⌊σ⌋ + 1, the scale of the discrete Laplace proposal
	p, qt   big.Int // σ² = p/q; qt = q·t
	den     big.Int // 2·p·q·t², the denominator of the acceptance exponent
	num     big.Int // scratch for the numerator
	scratch exactScratch
}

// NewDiscreteGaussian returns N_Z(0, sigma2), sigma2 in integer units, used exactly. It returns
// an error wrapping ErrInvalid unless 0 < sigma2 ≤ MaxDiscreteScale².
func NewDiscreteGaussian(sigma2 float64) (*DiscreteGaussian, error) {
	if !(sigma2 > 0 && sigma2 <= MaxDiscreteScale*MaxDiscreteScale) {
		return nil, fmt.Errorf("rng: NewDiscreteGaussian: σ² = %v: must be in (0, 2^80]: %w", sigma2, ErrInvalid)
	}
	g := &DiscreteGaussian{sigma2: sigma2}
	m, e := dyadic(sigma2)
	var q big.Int
	g.p.SetUint64(m)
	q.SetInt64(1)
	if e >= 0 {
		g.p.Lsh(&g.p, uint(e))
	} else {
		q.Lsh(&q, uint(-e))
	}
	var fl big.Int
	fl.Quo(&g.p, &q) // ⌊σ²⌋
	fl.Sqrt(&fl)     // ⌊√⌊σ²⌋⌋ = ⌊σ⌋
	g.t = fl.Uint64() + 1
	var tb big.Int
	tb.SetUint64(g.t)
	g.qt.Mul(&q, &tb)
	g.den.Mul(&g.p, &g.qt)
	g.den.Mul(&g.den, &tb)
	g.den.Lsh(&g.den, 1)
	return g, nil
}

// Sigma2 returns σ², in integer units.
func (g *DiscreteGaussian) Sigma2() float64 { return g.sigma2 }

// Sample returns a draw from N_Z(0, σ²), exactly distributed, except that a draw beyond
// ±(2^63−1), which has probability below e^(−2^44), is returned saturated at ±(2^63−1).
//
// Method: CKS20 Algorithm 3: propose Y from the discrete Laplace of scale t = ⌊σ⌋+1
// (Algorithm 2) and accept with probability exp(−(|Y| − σ²/t)²/(2σ²)) = exp(−N/D) with the
// integers N = (|Y|·q·t − p)² and D = 2·p·q·t² (σ² = p/q), by Algorithm 1.
func (g *DiscreteGaussian) Sample(r *Rand) int64 {
	s := &g.scratch
	for {
		neg := r.discreteLaplace(g.t, 0, s)
		g.num.Mul(&s.tmp, &g.qt)
		g.num.Sub(&g.num, &g.p)
		g.num.Mul(&g.num, &g.num)
		if r.bernoulliExp(&g.num, &g.den, s) {
			return saturate(neg, &s.tmp)
		}
	}
}
