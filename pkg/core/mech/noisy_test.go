package mech

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/privopt/privopt/pkg/core/privacy"
	"github.com/privopt/privopt/pkg/rng"
)

// gaussianTestTarget returns the largest ρ a release of discrete Gaussian noise may use for b:
// under the Gaussian accounting (gdp) μ²/2 for the μ that meets (ε, δ·127/128), the rest of δ
// being left to the discrete noise's total variation; otherwise the zCDP calibration.
func gaussianTestTarget(t *testing.T, b privacy.Budget, gdp bool) float64 {
	t.Helper()
	if gdp {
		mu, err := privacy.CalibrateGDP(b.Epsilon, b.Delta*127/128)
		if err != nil {
			t.Fatal(err)
		}
		return mu * mu / 2
	}
	rho, err := privacy.CalibrateZCDP(b.Epsilon, b.Delta)
	if err != nil {
		t.Fatal(err)
	}
	return rho
}

// TestRoundedGaussianTV computes the total-variation distance between the discrete Gaussian
// N_Z(0, σ²) and the rounded continuous N(0, σ²) exactly (their probabilities summed over
// |k| ≤ 40σ, the rest below 10⁻³⁰⁰) for σ from 0.7 to 300: roundedGaussianTV bounds it, within a
// factor 8 of it from σ = 2 on (the distance is about 0.020/σ², the bound 0.121/σ²: of the
// right order), and adds up over coordinates.
func TestRoundedGaussianTV(t *testing.T) {
	for _, sigma := range []float64{0.7, 1, 2, 5, 20, 300} {
		k := math.Ceil(40 * sigma)
		s := 0.0
		for j := -k; j <= k; j++ {
			s += math.Exp(-j * j / (2 * sigma * sigma))
		}
		tv := 0.0
		for j := -k; j <= k; j++ {
			disc := math.Exp(-j*j/(2*sigma*sigma)) / s
			round := 0.5 * (math.Erfc((j-0.5)/(sigma*math.Sqrt2)) - math.Erfc((j+0.5)/(sigma*math.Sqrt2)))
			tv += math.Abs(disc-round) / 2
		}
		bound := roundedGaussianTV(1, sigma*sigma)
		if tv > bound || (sigma >= 2 && bound > 8*tv) {
			t.Errorf("σ = %g: total variation %g, bound %g", sigma, tv, bound)
		}
		if got := roundedGaussianTV(7, sigma*sigma); math.Abs(got/bound-7) > 1e-12 {
			t.Errorf("σ = %g: 7 coordinates give %g, one %g", sigma, got, bound)
		}
	}
}

// TestNoisyStepsGaussianAccounting: at the budgets of the benchmark the noisy gradient methods
// use the Gaussian accounting: the certified curve is μ-GDP with μ = √(2ρ) of the steps (and
// the second moments), with the discrete noise's total variation τ = Σ 0.121·d/σ_g² folded in
// as (1 + e^ε)·τ; τ fits the δ/128 set aside for it (the grid is refined when it must be, here
// at ε = 8, where the default grid's τ would not fit), the curve meets the budget, and the
// report says so (Gaussian-DP with that μ, the total variation certified). At ε = 10⁴ the
// (1 + e^ε)·τ term cannot fit: the steps are accounted as zCDP, and say so.
func TestNoisyStepsGaussianAccounting(t *testing.T) {
	ds := toyData(2000, 6, 5)
	p := toyProblem(ds)
	for _, tc := range []struct {
		m      Mechanism
		b      privacy.Budget
		refine bool // whether the default grid (σ_g < 2²⁴) is too coarse for τ to fit
	}{
		{NoisyGD{}, privacy.Budget{Epsilon: 1, Delta: 1e-6}, false},
		{NoisyGD{}, privacy.Budget{Epsilon: 8, Delta: 1e-8}, true},
		{NoisyGD{MaxSteps: 5000, MaxStepLength: 0.2}, privacy.Budget{Epsilon: 8, Delta: 1e-6}, true},
		{Langevin{}, privacy.Budget{Epsilon: 2, Delta: 1e-6}, false},
	} {
		pl, s := noisyPlan(t, tc.m, tc.b, p)
		if !s.gdp {
			t.Fatalf("%s %+v: not the Gaussian accounting", tc.m.Name(), tc.b)
		}
		tv := float64(s.steps) * roundedGaussianTV(s.dim, s.sigma2)
		if s.pre != nil {
			dv, _ := s.pre.grid.DiscreteGaussian(s.pre.sigma)
			tv += roundedGaussianTV(ds.D, dv.Sigma2())
		}
		budget := tc.b.Delta / 128 / (1 + math.Exp(tc.b.Epsilon))
		if tv > budget*(1+1e-12) {
			t.Errorf("%s %+v: total variation %g above its share %g", tc.m.Name(), tc.b, tv, budget)
		}
		if refined := math.Sqrt(s.sigma2) >= 1<<24; refined != tc.refine {
			t.Errorf("%s %+v: σ_g = %g grid spacings, refined %v, want %v", tc.m.Name(), tc.b, math.Sqrt(s.sigma2), refined, tc.refine)
		}
		mu := math.Sqrt(2 * s.rhoAt(s.steps))
		want, _ := privacy.FoldSamplerError(privacy.GDP{Mu: mu}, tv)
		got := pl.Guarantee().Delta(tc.b.Epsilon)
		if w := want.Delta(tc.b.Epsilon); got > tc.b.Delta || math.Abs(got-w) > 1e-9*w {
			t.Errorf("%s %+v: δ(ε) = %g, want %g = δ_μ(ε) + (1 + e^ε)·τ for μ = %g, τ = %g", tc.m.Name(), tc.b, got, w, mu, tv)
		}
		if ps := pl.Parameters(); ps["mu_gdp"] != math.Sqrt(2*ps["rho_zcdp"]) && math.Abs(ps["mu_gdp"]/mu-1) > 1e-12 || math.Abs(ps["discretization_tv"]/tv-1) > 1e-9 {
			t.Errorf("%s %+v: parameters μ %g, τ %g; want %g, %g", tc.m.Name(), tc.b, ps["mu_gdp"], ps["discretization_tv"], mu, tv)
		}
		rel, err := pl.Run(context.Background(), ds, rng.Seeded(3), nil)
		if err != nil {
			t.Fatal(err)
		}
		r := rel.Report
		if r.Guarantee.Kind != "gaussian-dp" || math.Abs(r.Guarantee.Mu-mu) > 1e-12*mu || !r.Sampler.Certified || math.Abs(r.Sampler.TV-tv) > 1e-9*tv ||
			!strings.Contains(r.Statement, "Dong, Roth and Su") {
			t.Errorf("%s %+v: report %+v, sampler %+v", tc.m.Name(), tc.b, r.Guarantee, r.Sampler)
		}
	}
	pl, s := noisyPlan(t, NoisyGD{}, privacy.Budget{Epsilon: 1e4, Delta: 1e-6}, p)
	rel, err := pl.Run(context.Background(), ds, rng.Seeded(3), nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.gdp || rel.Report.Guarantee.Kind != "renyi-dp" || !rel.Report.Sampler.Exact || !strings.Contains(rel.Report.Statement, "ρ-zCDP") {
		t.Errorf("ε = 10⁴: Gaussian accounting %v, report %+v", s.gdp, rel.Report.Guarantee)
	}
}
