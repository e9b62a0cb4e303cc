package sampler

import (
	"github.com/privopt/privopt/pkg/detmath"
	"math"
	"testing"
)

// remConstants are the constants of the regularized exponential mechanism on a logistic loss
// with k and μ chosen for μ_GDP: G_e = kG, m = kμ with kG²/μ = (μ_GDP·n)²/4.
func remConstants(muGDP float64, n int) Constants {
	k := 50.0
	G := 1.0
	mu := 4 * k * G * G / (muGDP * muGDP * float64(n*n))
	return Constants{Lipschitz: k * G, ExampleLipschitz: k * G, ExampleRank: 1, StrongConvexity: k * mu}
}

func TestPlansMeetTheirBudget(t *testing.T) {
	for _, oracle := range []Oracle{ValueOracle, StochasticOracle, EnvelopeOracle} {
		for _, tv := range []float64{1e-3, 1e-9} {
			for _, n := range []int{100, 5000} {
				p, err := NewPlan(remConstants(0.25, n), 92, n, oracle, tv)
				if err != nil {
					t.Fatalf("%v tv=%g n=%d: %v", oracle, tv, n, err)
				}
				sum := p.TVMix + p.TVOracle + p.TVCap
				if !(p.TV <= tv) || math.Abs(sum-p.TV) > 1e-12*tv || p.TrialCap < 1 || p.Steps < 1 {
					t.Errorf("%v tv=%g n=%d: %+v", oracle, tv, n, p)
				}
				if relErr := math.Abs(p.Step/(1+p.Step*p.Cost.Steps*0) - p.ProposalVar*(1+p.Step*remConstants(0.25, n).StrongConvexity)); relErr > 1e-9*p.Step {
					t.Errorf("%v: s² = h/(1+hm) does not hold: %+v", oracle, p)
				}
				if oracle == EnvelopeOracle && p.TVOracle != 0 {
					t.Errorf("the envelope oracle has no bias, got %g", p.TVOracle)
				}
			}
		}
	}
}

// TestStepsFollowTheContraction checks T against the mixing bound directly: T − 1 steps are
// not enough and T are.
func TestStepsFollowTheContraction(t *testing.T) {
	c := remConstants(0.5, 1000)
	p, err := NewPlan(c, 10, 1000, EnvelopeOracle, 1e-6)
	if err != nil {
		t.Fatal(err)
	}
	m := c.StrongConvexity
	mix := func(steps int) float64 { return math.Sqrt(p.KL0 * math.Pow(1+p.Step*m, -2*float64(steps)) / 2) }
	if got := mix(p.Steps); math.Abs(got-p.TVMix) > 1e-12 || !(got <= 0.75e-6) || !(mix(p.Steps-1) > 0.75e-6*(1-1e-9)) {
		t.Errorf("T=%d: mixing error %g (T−1: %g), budget 7.5e-7", p.Steps, got, mix(p.Steps-1))
	}
	if want := c.Lipschitz * c.Lipschitz / (2 * m); p.KL0 != want {
		t.Errorf("KL₀ = %g, want G²/(2m) = %g", p.KL0, want)
	}
}

// TestValueOracleBiasBoundsTheGaussianCase compares the bound with the exact bias when f is
// linear, so that Δ = f(x′) − f(x) ~ N(0, 2G²s²) exactly:
// e^α·E[(e^{Δ−α} − 1)₊] = e^{σ²/2}·Q((α − σ²)/σ) − e^α·Q(α/σ) with σ² = 2G²s².
func TestValueOracleBiasBoundsTheGaussianCase(t *testing.T) {
	for _, g := range []float64{1, 10, 300} {
		for _, s2 := range []float64{1e-6, 1e-4, 1e-3, 0.01} {
			sigma := math.Sqrt(2 * g * g * s2)
			exact := math.Exp(sigma*sigma/2)*detmath.NormalTail((1-sigma*sigma)/sigma) - math.E*detmath.NormalTail(1/sigma)
			exact = math.Min(exact, 1) // a total-variation distance is at most 1
			bound := valueOracleBias(g, s2, 1)
			if bound < exact*(1-1e-9) {
				t.Errorf("G=%g s²=%g: bound %g below the exact bias %g", g, s2, bound, exact)
			}
			if exact > 1e-250 && bound > 1e4*exact && bound > 1e-300 {
				// The sub-Gaussian tail is looser than the Gaussian one by a constant factor in
				// the exponent's variance; at moderate variances the bound stays close.
				if sigma > 0.2 {
					t.Errorf("G=%g s²=%g: bound %g far above the exact bias %g", g, s2, bound, exact)
				}
			}
		}
	}
	if valueOracleBias(0, 1, 1) != 0 {
		t.Error("a constant f has no bias")
	}
}

func TestStochasticCostDoesNotGrowWithN(t *testing.T) {
	var prev Plan
	for i, n := range []int{1000, 10000, 100000} {
		c := remConstants(0.25, 1000) // same constants, more examples
		p, err := NewPlan(c, 92, n, StochasticOracle, 1e-8)
		if err != nil {
			t.Fatal(err)
		}
		perStep := p.Cost.Queries / p.Cost.Steps
		if perStep > 2*p.Lambda/p.MinAcceptance*(1+1e-12) || perStep > 20 {
			t.Errorf("n=%d: %g queries per step", n, perStep)
		}
		if i > 0 && p.Cost.Steps > 1.5*prev.Cost.Steps {
			t.Errorf("n=%d: %g steps, %g at the previous n: more than logarithmic growth", n, p.Cost.Steps, prev.Cost.Steps)
		}
		prev = p
	}
	a, _ := NewPlan(remConstants(0.25, 1000), 92, 1000, ValueOracle, 1e-8)
	b, _ := NewPlan(remConstants(0.25, 1000), 92, 1000, StochasticOracle, 1e-8)
	if !(a.Cost.Queries > 10*b.Cost.Queries) {
		t.Errorf("value oracle %g queries, stochastic %g: the stochastic one should be far cheaper at n=1000", a.Cost.Queries, b.Cost.Queries)
	}
}

func TestCertifiedCostGrowsLikeMuNSquared(t *testing.T) {
	p1, _ := NewPlan(remConstants(0.25, 1000), 92, 1000, StochasticOracle, 1e-8)
	p2, _ := NewPlan(remConstants(0.25, 4000), 92, 4000, StochasticOracle, 1e-8)
	ratio := p2.Cost.Steps / p1.Cost.Steps
	if ratio < 16 || ratio > 16*1.6 {
		t.Errorf("4× the examples at the same μ_GDP: %g× the steps, want about 16× (times log factors)", ratio)
	}
}

func TestPlanRejectsBadInput(t *testing.T) {
	good := remConstants(0.25, 1000)
	for name, tc := range map[string]struct {
		c      Constants
		dim, n int
		o      Oracle
		tv     float64
	}{
		"tv 0":          {good, 10, 10, ValueOracle, 0},
		"tv 1":          {good, 10, 10, ValueOracle, 1},
		"m 0":           {Constants{Lipschitz: 1}, 10, 10, ValueOracle, 1e-6},
		"negative G":    {Constants{Lipschitz: -1, StrongConvexity: 1}, 10, 10, ValueOracle, 1e-6},
		"B without n":   {good, 10, 0, StochasticOracle, 1e-6},
		"unknown":       {good, 10, 10, Oracle(9), 1e-6},
		"bad rank":      {Constants{Lipschitz: 1, StrongConvexity: 1, ExampleRank: 11}, 10, 10, StochasticOracle, 1e-6},
		"bad centre":    {Constants{Lipschitz: 1, StrongConvexity: 1, Center: []float64{1}}, 10, 10, ValueOracle, 1e-6},
		"zero dim":      {good, 0, 10, ValueOracle, 1e-6},
		"infinite G":    {Constants{Lipschitz: math.Inf(1), StrongConvexity: 1}, 10, 10, ValueOracle, 1e-6},
		"NaN tv budget": {good, 10, 10, ValueOracle, math.NaN()},
	} {
		if _, err := NewPlan(tc.c, tc.dim, tc.n, tc.o, tc.tv); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
