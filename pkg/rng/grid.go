package rng

import (
	"fmt"
	"math"
)

// IntNoise is integer-valued noise for Grid.Release: DiscreteGaussian or DiscreteLaplace.
type IntNoise interface {
	Sample(r *Rand) int64
}

// Grid is the lattice g·Z^d with spacing g = 2^−k, on which floating-point-safe releases are
// made: a value released on the grid is g·m for an integer m with |m| ≤ 2^53, so it is an exact
// float64 whose every bit is determined by m, and m is the rounded input plus exact integer
// noise (see Release).
type Grid struct {
	k int
}

// MinGridExp and MaxGridExp bound k: every g·m with |m| ≤ 2^53 is then a normal float64.
const (
	MinGridExp = -960
	MaxGridExp = 960
)

// NewGrid returns the grid of spacing 2^−k. It returns an error wrapping ErrInvalid unless
// MinGridExp ≤ k ≤ MaxGridExp.
func NewGrid(k int) (Grid, error) {
	if k < MinGridExp || k > MaxGridExp {
		return Grid{}, fmt.Errorf("rng: NewGrid: k = %d: must be in [%d, %d]: %w", k, MinGridExp, MaxGridExp, ErrInvalid)
	}
	return Grid{k: k}, nil
}

// Spacing returns g = 2^−k.
func (g Grid) Spacing() float64 { return math.Ldexp(1, -g.k) }

// L2Sensitivity returns an upper bound, in real units, on the ℓ2 sensitivity of the rounded
// vector g·round(x/g) when x ∈ R^d has ℓ2 sensitivity delta: delta + g·√d (each coordinate
// moves by at most g/2 when rounded to nearest, on both neighbours). The float64 result is
// rounded up, so it is never below the exact bound. It returns an error wrapping ErrInvalid
// unless delta ≥ 0 is finite and d ≥ 1.
func (g Grid) L2Sensitivity(delta float64, d int) (float64, error) {
	if err := checkSensitivity("L2Sensitivity", delta, d); err != nil {
		return 0, err
	}
	s := math.Sqrt(float64(d))
	if math.FMA(s, s, -float64(d)) < 0 { // s < √d
		s = math.Nextafter(s, math.Inf(1))
	}
	return math.Nextafter(delta+g.Spacing()*s, math.Inf(1)), nil
}

// L1Sensitivity returns an upper bound, in real units, on the ℓ1 sensitivity of the rounded
// vector g·round(x/g) when x ∈ R^d has ℓ1 sensitivity delta: delta + g·d, rounded up. It
// returns an error wrapping ErrInvalid unless delta ≥ 0 is finite and d ≥ 1.
func (g Grid) L1Sensitivity(delta float64, d int) (float64, error) {
	if err := checkSensitivity("L1Sensitivity", delta, d); err != nil {
		return 0, err
	}
	return math.Nextafter(delta+g.Spacing()*float64(d), math.Inf(1)), nil
}

func checkSensitivity(name string, delta float64, d int) error {
	if !(delta >= 0) || math.IsInf(delta, 1) {
		return fmt.Errorf("rng: Grid.%s: sensitivity %v: must be finite and ≥ 0: %w", name, delta, ErrInvalid)
	}
	if d < 1 {
		return fmt.Errorf("rng: Grid.%s: dimension %d: %w", name, d, ErrInvalid)
	}
	return nil
}

// DiscreteGaussian returns the discrete Gaussian noise, in grid units, for a standard
// deviation sigma in real units: N_Z(0, σ_g²) with σ_g² the float64 value of (sigma/g)² rounded
// up, so that σ_g ≥ sigma/g. It returns an error wrapping ErrInvalid unless sigma is finite,
// > 0 and sigma/g ≤ MaxDiscreteScale.
func (g Grid) DiscreteGaussian(sigma float64) (*DiscreteGaussian, error) {
	sg := math.Ldexp(sigma, g.k) // exact: a power-of-two scaling
	if !(sg > 0 && sg <= MaxDiscreteScale) {
		return nil, fmt.Errorf("rng: Grid.DiscreteGaussian: σ = %v is %v grid steps: must be in (0, 2^40]: %w", sigma, sg, ErrInvalid)
	}
	s2 := sg * sg
	if math.FMA(sg, sg, -s2) > 0 { // s2 < sg² exactly
		s2 = math.Nextafter(s2, math.Inf(1))
	}
	return NewDiscreteGaussian(s2)
}

// DiscreteLaplace returns the discrete Laplace noise, in grid units, for a scale b in real
// units: scale b/g, exact. It returns an error wrapping ErrInvalid unless b is finite, > 0 and
// b/g ≤ MaxDiscreteScale.
func (g Grid) DiscreteLaplace(b float64) (*DiscreteLaplace, error) {
	bg := math.Ldexp(b, g.k)
	if !(bg > 0 && bg <= MaxDiscreteScale) {
		return nil, fmt.Errorf("rng: Grid.DiscreteLaplace: b = %v is %v grid steps: must be in (0, 2^40]: %w", b, bg, ErrInvalid)
	}
	return NewDiscreteLaplace(bg)
}

// Release writes to dst (which may be x itself) the floating-point-safe noisy release of x on
// the grid: for each coordinate, n = round(x_i/g) clamped to [−2^52, 2^52], m = n + Z_i with
// Z_i independent draws of noise (in grid units), clamped to [−2^53, 2^53], and dst_i = g·m,
// an exact float64. It returns an error wrapping ErrInvalid, before drawing any noise, if the
// lengths differ or an x_i is NaN or ±Inf (a bug upstream: invariant 7 of docs/design.md).
//
// The released vector is a function of the integer vector n + Z only, so no floating-point
// effect (Mironov 2012) can leak more than n + Z does. The clamps are post-processing (of x, a
// coordinatewise 1-Lipschitz map, and of n + Z), so they cost nothing; they matter only for
// |x_i| ≥ 2^52·g.
//
// Guarantees, with Δ₂ and Δ₁ the ℓ2 and ℓ1 sensitivities of x and Δ̃ the rounded bounds from
// L2Sensitivity and L1Sensitivity (‖n − n′‖ ≤ Δ̃/g):
//
//   - DiscreteGaussian from g.DiscreteGaussian(σ): the release satisfies ρ-zCDP with
//     ρ = Δ̃₂²/(2σ²) exactly. CKS20 (§2) prove it in one dimension; the reason: the Rényi
//     divergence of order α between N_Z(0, σ²) and N_Z(s, σ²), s an integer, is at most
//     α·s²/(2σ²) (completing the square leaves a shifted theta sum, which is largest at an
//     integer shift), and it adds over independent coordinates, giving α·‖n − n′‖²/(2σ²).
//     Feed the accountant ρ and convert to (ε, δ) with a zCDP or Rényi conversion (e.g.
//     CKS20 §2.3). Do NOT account it as the continuous Gaussian's μ-GDP with μ = Δ̃₂/σ: the
//     discrete law's privacy curve is a different curve (CKS20 Theorem 7 gives it exactly in
//     one dimension: δ(ε) = P[Y > εσ²/Δ − Δ/2] − e^ε·P[Y > εσ²/Δ + Δ/2] for
//     Y ~ N_Z(0, σ²) and an integer sensitivity Δ; numerically close to the continuous one,
//     but not equal), and that it lies below the μ-GDP curve is not proved, so such
//     accounting would rest on no proof.
//   - DiscreteLaplace from g.DiscreteLaplace(b): the release satisfies pure ε-DP with
//     ε = Δ̃₁/b exactly, since P(y)/P(y′) ≤ exp(‖y − y′‖₁·g/b) for the product law. For an ℓ2
//     sensitivity, Δ₁ ≤ √d·Δ₂.
//
// Both guarantees hold for the samplers as implemented, up to the saturation of draws beyond
// ±(2^63−1), which the clamp makes invisible in the output (it is post-processing).
func (g Grid) Release(r *Rand, dst, x []float64, noise IntNoise) error {
	if len(dst) != len(x) {
		return fmt.Errorf("rng: Grid.Release: dst has length %d, x has %d: %w", len(dst), len(x), ErrInvalid)
	}
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("rng: Grid.Release: x[%d] = %v: %w", i, v, ErrInvalid)
		}
	}
	const inLimit, outLimit, noiseLimit = 1 << 52, 1 << 53, 1 << 54
	for i, v := range x {
		n := math.Round(math.Ldexp(v, g.k)) // x/g exactly (or ±Inf past the float64 range)
		n = math.Max(-inLimit, math.Min(inLimit, n))
		z := noise.Sample(r)
		z = max(-noiseLimit, min(noiseLimit, z))
		m := max(-outLimit, min(outLimit, int64(n)+z))
		dst[i] = math.Ldexp(float64(m), -g.k)
	}
	return nil
}
