package mech

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/loss"
	"github.com/privopt/privopt/pkg/core/privacy"
	"github.com/privopt/privopt/pkg/rng"
)

// squaresOf returns the sums of the squares of the rows of ds as they are, from the pass that
// noisy-gd runs (symmetricMap.squares).
func squaresOf(ds *data.Dataset) []float64 {
	l, err := loss.NewLinear(loss.Logistic{}, ds, loss.Bounds{X: math.Inf(1), XNorm: 2, Y: 1})
	if err != nil {
		panic(err)
	}
	sums, err := (*symmetricMap)(nil).squares(l, ds.D)
	if err != nil {
		panic(err)
	}
	return sums
}

// momentsOf returns the second moments that m computes from the rows of ds as they are.
func momentsOf(m *secondMoments, ds *data.Dataset) []float64 { return m.moments(squaresOf(ds)) }

// momentsDistance returns ‖v(a) − v(b)‖₂ for the second moments m computes.
func momentsDistance(m *secondMoments, a, b *data.Dataset) float64 {
	va, vb := momentsOf(m, a), momentsOf(m, b)
	s := 0.0
	for j := range va {
		s += (va[j] - vb[j]) * (va[j] - vb[j])
	}
	return math.Sqrt(s)
}

// TestSecondMomentsSensitivity: neighbouring datasets' computed second moments differ by at
// most the planned Δ_v (before the grid), for rows at the declared bound: under replace-one
// the worst case, two rows with disjoint supports at the bound (R₄·e₁ and R₄·e₂), is attained
// within rounding, so Δ_v = √2·R₄²/n is tight and dropping the √2 fails; random rows at the
// bound and, with the ℓ∞ bound (R₄ = d^{1/4}), rows at the corners stay within it; under
// add/remove (one row replaced by zeros, the sum divided by the same public n) the distance
// is R₄²/n.
func TestSecondMomentsSensitivity(t *testing.T) {
	const n, d = 50, 6
	r := rng.Seeded(3)
	for _, tc := range []struct {
		rel   privacy.Neighbouring
		xnorm float64
	}{
		{privacy.ReplaceOne, 2}, {privacy.AddRemove, 2}, {privacy.ReplaceOne, math.Inf(1)}, {privacy.AddRemove, math.Inf(1)},
	} {
		b := privacy.Budget{Epsilon: 1, Delta: 1e-6, Neighbouring: tc.rel}
		m, err := newSecondMoments(b, loss.Bounds{X: 1, XNorm: tc.xnorm, Y: 1}, n, d, 0.01, 1, 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		r4sq := 1.0 // R₄² for ‖x‖₂ ≤ 1, and √d for ‖x‖∞ ≤ 1
		if math.IsInf(tc.xnorm, 1) {
			r4sq = math.Sqrt(d)
		}
		exact := r4sq / n
		if tc.rel == privacy.ReplaceOne {
			exact *= math.Sqrt2
		}
		if m.sens < exact || m.sens > exact*(1+1e-8) {
			t.Errorf("%s ℓ%g: Δ_v = %g, want %g plus rounding", tc.rel, tc.xnorm, m.sens, exact)
		}
		ds := toyData(n, d, 4)
		if math.IsInf(tc.xnorm, 1) {
			for i := range ds.X {
				ds.X[i] = math.Copysign(1, ds.X[i])
			}
		}
		// The extreme pair: one row at the bound against zeros (add/remove) or against a row of
		// disjoint support at the bound (replace-one, ℓ2; in ℓ∞ every corner has full support).
		a, bb := make([]float64, d), make([]float64, d)
		if math.IsInf(tc.xnorm, 1) {
			for j := range a {
				a[j] = 1
			}
		} else {
			a[0] = 1
			if tc.rel == privacy.ReplaceOne {
				bb[1] = 1
			}
		}
		worst := momentsDistance(m, withRow(ds, 7, a, 1), withRow(ds, 7, bb, 1))
		if worst > m.sens {
			t.Errorf("%s ℓ%g: extreme pair at distance %g above Δ_v = %g", tc.rel, tc.xnorm, worst, m.sens)
		}
		if tc.xnorm == 2 && worst < exact*(1-1e-12) {
			t.Errorf("%s ℓ2: extreme pair at distance %g, below the bound %g it should attain", tc.rel, worst, exact)
		}
		for range 200 {
			x, y := make([]float64, d), make([]float64, d)
			for _, v := range [][]float64{x, y} {
				if math.IsInf(tc.xnorm, 1) {
					for j := range v {
						v[j] = 2*r.Float64() - 1
					}
				} else if err := r.UnitBall(v); err != nil {
					t.Fatal(err)
				}
			}
			if tc.rel == privacy.AddRemove {
				clear(y)
			}
			if dist := momentsDistance(m, withRow(ds, 3, x, 1), withRow(ds, 3, y, 1)); dist > m.sens {
				t.Errorf("%s ℓ%g: rows %v and %v at distance %g above Δ_v = %g", tc.rel, tc.xnorm, x, y, dist, m.sens)
			}
		}
	}
}

// TestSecondMomentsNoise: 2,000 releases of v̂ on one dataset have mean v and variance σ_v²
// in each of 4 coordinates: the standard error of a coordinate's sample variance is
// σ_v²·√(2/1999) ≈ 3.2 %, so the tolerance of 15 % is 4.7 standard errors (a false failure has
// probability below 10⁻⁴ over the 4 coordinates), and σ_v halved (variance −75 %) fails.
func TestSecondMomentsNoise(t *testing.T) {
	ds := toyData(300, 4, 8)
	m, err := newSecondMoments(privacy.Budget{Epsilon: 1, Delta: 1e-6}, toyProblem(ds).Bounds, ds.N, ds.D, 0.05, 1, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	sums := squaresOf(ds)
	v := m.moments(slices.Clone(sums))
	const draws = 2000
	r := rng.Seeded(21)
	mean, sq := make([]float64, ds.D), make([]float64, ds.D)
	for range draws {
		vhat, err := m.release(slices.Clone(sums), r)
		if err != nil {
			t.Fatal(err)
		}
		for j, x := range vhat {
			mean[j] += (x - v[j]) / draws
			sq[j] += (x - v[j]) * (x - v[j]) / draws
		}
	}
	for j := range v {
		variance := (sq[j] - mean[j]*mean[j]) * draws / (draws - 1)
		if math.Abs(mean[j]) > 5*m.sigma/math.Sqrt(draws) || math.Abs(variance/(m.sigma*m.sigma)-1) > 0.15 {
			t.Errorf("coordinate %d: bias %g, variance %g, want 0 and σ_v² = %g", j, mean[j], variance, m.sigma*m.sigma)
		}
	}
}

// TestNoisyGDPreconditionThreshold: below ρ₀ = 0.01 (ε = 0.25 and 0.5 at δ = 10⁻⁶, ρ = 0.0018
// and 0.0066) the default release is bit-identical to the release without the preconditioner,
// and above it (ε = 0.75, ρ = 0.0142) the preconditioner is planned and changes the release.
func TestNoisyGDPreconditionThreshold(t *testing.T) {
	ds := toyData(500, 4, 2)
	p := toyProblem(ds)
	for _, eps := range []float64{0.25, 0.5, 0.75} {
		var digests []uint64
		for _, m := range []NoisyGD{{}, {NoPrecondition: true}} {
			pl, err := m.Plan(privacy.Budget{Epsilon: eps, Delta: 1e-6}, p)
			if err != nil {
				t.Fatal(err)
			}
			if on := pl.(*noisyGDPlan).pre != nil; on != (eps == 0.75 && !m.NoPrecondition) {
				t.Errorf("ε = %g, %+v: preconditioner %v", eps, m, on)
			}
			digests = append(digests, releaseDigest(t, pl, ds, 5))
		}
		if same := digests[0] == digests[1]; same != (eps < 0.75) {
			t.Errorf("ε = %g: releases with and without the preconditioner identical: %v", eps, same)
		}
	}
}

// TestPreconditionedStep: one preconditioned step from Π_C(0) = 0 on the whole space is
// θ₁ = 0 + a·p∘(z − 0), exactly scale × the plain step's release z with the same noise, also
// without momentum (where y must not share memory with θ, or the scale would be lost).
func TestPreconditionedStep(t *testing.T) {
	ds := toyData(200, 4, 6)
	p := toyProblem(ds)
	pl, err := NoisyGD{MaxSteps: 1}.Plan(privacy.Budget{Epsilon: 8, Delta: 1e-6}, p)
	if err != nil {
		t.Fatal(err)
	}
	s := &pl.(*noisyGDPlan).noisySteps
	l, err := p.NewLoss(ds)
	if err != nil {
		t.Fatal(err)
	}
	scale := []float64{2, 0.5, 3, 1}
	for _, momentum := range []float64{0, 0.9} {
		plain, _, err := s.run(context.Background(), l, p.Domain, stepRule{shrink: 1, momentum: momentum}, rng.Seeded(1), nil)
		if err != nil {
			t.Fatal(err)
		}
		scaled, _, err := s.run(context.Background(), l, p.Domain, stepRule{shrink: 1, momentum: momentum, scale: scale}, rng.Seeded(1), nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := range plain {
			if scaled[i] != scale[i]*plain[i] || plain[i] == 0 {
				t.Errorf("momentum %g: θ₁ = %v, want %v × %v", momentum, scaled, scale, plain)
				break
			}
		}
	}
}
