package sampler

import (
	"cmp"
	"errors"
	"fmt"
	"github.com/privopt/privopt/pkg/core/cost"
	"math"

	"github.com/privopt/privopt/pkg/detmath"
)

// Oracle selects how the proximal sampler draws from its restricted Gaussian oracle (RGO): the
// law ∝ exp(−f(x))·N(x; c′, s²I) on K, where c′ and s² follow from the current point.
type Oracle int

const (
	// ValueOracle (A) proposes x and x′ from N(c′, s²I) and accepts x with probability
	// min(1, exp(f(x′) − f(x) − α)), using values of f only. Where the min binds, the oracle
	// is biased; the plan bounds that bias by Gaussian concentration.
	ValueOracle Oracle = iota
	// StochasticOracle (B) replaces exp(f(x′) − f(x) − α) by an unbiased Poisson estimate from
	// a Poisson(λ) number of per-example differences, so its cost per step does not grow with
	// the number of examples. A factor outside [0, 1] is clipped (and counted); the plan bounds
	// the probability that any example's difference is large enough for that.
	StochasticOracle
	// EnvelopeOracle (C) proposes from N(c′ − s²g, s²I) with g a subgradient of f at c′ and
	// accepts with probability exp(−[f(x) − f(c′) − g·(x − c′)]) ≤ 1: exact, with no bias.
	EnvelopeOracle
)

// String names the oracle.
func (o Oracle) String() string {
	switch o {
	case ValueOracle:
		return "value rejection (A)"
	case StochasticOracle:
		return "stochastic Poisson estimator (B)"
	case EnvelopeOracle:
		return "exact envelope rejection (C)"
	}
	return fmt.Sprintf("Oracle(%d)", int(o))
}

// Plan fixes every parameter of a certified proximal-sampler run from public quantities alone,
// before any data is touched, and states the total-variation error it certifies.
type Plan struct {
	Oracle Oracle
	// Dim is d and Examples is N (the number of per-example terms, for the cost model).
	Dim, Examples int
	// Step is the proximal step h; ProposalVar is s² = h/(1 + hm).
	Step, ProposalVar float64
	// Alpha is the acceptance shift α (oracles A and B); Lambda the Poisson rate λ (B).
	Alpha, Lambda float64
	// ProxSteps is the number of gradient steps oracle C takes towards the proximal point of
	// f at c′ before it builds its envelope there (0: the envelope at c′ itself).
	ProxSteps int
	// Steps is the number T of outer steps; TrialCap bounds the proposals of one oracle call.
	Steps, TrialCap int
	// MinAcceptance is a lower bound on one proposal's acceptance probability, for every
	// dataset; the cap is sized from it.
	MinAcceptance float64
	// KL0 bounds the Kullback–Leibler divergence of the start from the target.
	KL0 float64
	// TV is the certified total-variation error of the output from the target, for every
	// dataset: TVMix + TVOracle + TVCap (+ TVFloat for a safe plan).
	TV, TVMix, TVOracle, TVCap float64
	// Certificate names the results the bound rests on.
	Certificate string
	// Cost is the expected work of the run.
	Cost cost.Cost
	// Safe marks a floating-point-safe plan (NewSafePlan): TVFloat bounds the probability that
	// the computed release differs from the exact-arithmetic run's and is part of TV; the
	// release is rounded to a grid of spacing Grid; StateRadius is the radius around c within
	// which the plan's bounds hold every state (the rest is in TVFloat).
	Safe                       bool
	Grid, StateRadius, TVFloat float64
}

// Defaults of the acceptance shift and the Poisson rate (λ = 2α keeps every factor of the
// Poisson estimator in [0, 1] while |per-example difference| ≤ α).
const (
	defaultAlpha   = 1.0
	defaultLambda  = 2.0
	maxSteps       = 1 << 52
	minProposalVar = 1e-300
)

// NewPlan plans a certified run of the proximal sampler for a target with these constants,
// dimension dim, n per-example terms (needed by the stochastic oracle; 0 otherwise) and a
// total-variation budget tv in (0, 1). The budget is split: half for mixing, a quarter for
// the oracle's bias (oracles A and B; C has none and gives it to mixing) and a quarter for
// the trial caps.
//
// Mixing (Chen, Chewi, Salim and Wibisono 2022, Theorem 3): with an exact RGO, the law after T
// steps from a start ρ₀ satisfies KL(ρ_T ‖ π) ≤ KL(ρ₀ ‖ π)·(1 + hm)^{−2T} when π satisfies a
// log-Sobolev inequality with constant m, as every m-strongly log-concave law on a convex
// domain does (Bakry–Émery); TV ≤ √(KL/2) by Pinsker. The start is N(c, I/m) restricted to K,
// which is data-independent and, since f is G-Lipschitz and the start satisfies the same
// inequality, has KL(ρ₀ ‖ π) ≤ G²/(2m) (Herbst's argument). Errors add along the chain: the
// output's TV is at most the mixing error plus T times each step's oracle error plus the
// probability that any trial cap is reached.
func NewPlan(c Constants, dim, n int, oracle Oracle, tv float64) (Plan, error) {
	return newPlan(c, dim, n, oracle, tv, math.Inf(1))
}

// newPlan is NewPlan with oracle C's proposal variance s² at most maxVar (NewSafePlan's ball
// draws need σ small against the radius).
func newPlan(c Constants, dim, n int, oracle Oracle, tv, maxVar float64) (Plan, error) {
	if err := c.Validate(dim); err != nil {
		return Plan{}, err
	}
	if !(tv > 0 && tv < 1) {
		return Plan{}, fmt.Errorf("sampler: the total-variation budget must be in (0, 1), got %g", tv)
	}
	if dim < 1 {
		return Plan{}, fmt.Errorf("sampler: the dimension must be at least 1, got %d", dim)
	}
	if c.Domain == OtherDomain {
		return Plan{}, errors.New("sampler: the certified sampler supports the whole space, boxes and ℓ2 balls (no exact draw of a Gaussian restricted to another domain with a bounded cost is known); use a fast mode")
	}
	m, g := c.StrongConvexity, c.Lipschitz
	p := Plan{Oracle: oracle, Dim: dim, Examples: n, KL0: g * g / (2 * m), Alpha: defaultAlpha}
	mixBudget, oracleBudget, capBudget := tv/2, tv/4, tv/4
	switch oracle {
	case ValueOracle:
		p.Certificate = "proximal sampler, KL contraction (1+hm)^(-2T) (Chen, Chewi, Salim and Wibisono 2022, Thm 3); RGO A bias by Gaussian concentration of f(x') - f(x)"
		p.ProposalVar = largestVar(func(s2 float64) bool {
			return p.stepsNeeded(s2, m, mixBudget)*valueOracleBias(g, s2, p.Alpha) <= oracleBudget
		})
		p.TVOracle = valueOracleBias(g, p.ProposalVar, p.Alpha)
		p.MinAcceptance = detmath.Exp(-p.Alpha) * (1 - p.TVOracle)
	case StochasticOracle:
		if n < 1 {
			return Plan{}, errors.New("sampler: the stochastic oracle needs a target with per-example terms")
		}
		p.Lambda = defaultLambda
		gi, r := c.ExampleLipschitz, c.rank(dim)
		p.Certificate = "proximal sampler, KL contraction (1+hm)^(-2T) (Chen, Chewi, Salim and Wibisono 2022, Thm 3); RGO B: Poisson estimator exact unless some example's difference exceeds α, bounded by Gaussian concentration and a union bound over the examples"
		p.ProposalVar = largestVar(func(s2 float64) bool {
			return p.stepsNeeded(s2, m, mixBudget)*stochasticOracleBias(g, gi, r, dim, n, s2, p.Alpha) <= oracleBudget
		})
		p.TVOracle = stochasticOracleBias(g, gi, r, dim, n, p.ProposalVar, p.Alpha)
		p.MinAcceptance = detmath.Exp(-p.Alpha) * (1 - p.TVOracle)
	case EnvelopeOracle:
		p.Certificate = "proximal sampler, KL contraction (1+hm)^(-2T) (Chen, Chewi, Salim and Wibisono 2022, Thm 3); RGO C exact (envelope from a subgradient, Liang and Chen)"
		mixBudget += oracleBudget
		sp := c.proposalSpread(dim)
		maxVar = math.Min(maxVar, 0.5/m)
		p.ProposalVar, p.MinAcceptance = envelopeStep(g, c.Smoothness, maxVar, sp)
		if c.split() {
			rough := c.spreadOfRank(dim, dim)
			smooth := c.spreadOfRank(dim, cmp.Or(c.Split.Rank, dim))
			if s2, acc := splitEnvelopeStep(g, maxVar, c.Split, smooth, rough); s2 > p.ProposalVar {
				p.ProposalVar, p.MinAcceptance = s2, acc
			}
		}
		if c.Smoothness > 0 {
			if s2, j, acc := proxEnvelopeStep(g, c.Smoothness, maxVar, sp); s2 > p.ProposalVar {
				p.ProposalVar, p.ProxSteps, p.MinAcceptance = s2, j, acc
			}
		}
	default:
		return Plan{}, fmt.Errorf("sampler: unknown oracle %v", oracle)
	}
	if p.ProposalVar < minProposalVar {
		return Plan{}, fmt.Errorf("sampler: no step size meets a total-variation budget of %g for these constants", tv)
	}
	p.Step = p.ProposalVar / (1 - p.ProposalVar*m)
	need := p.stepsNeeded(p.ProposalVar, m, mixBudget)
	if need > maxSteps {
		return Plan{}, fmt.Errorf("sampler: a total-variation budget of %g needs %.3g steps for these constants, more than can be run", tv, need)
	}
	p.Steps = int(need)
	p.TVMix = math.Sqrt(p.KL0 * detmath.Pow(1+p.Step*m, -2*float64(p.Steps)) / 2)
	p.TVOracle *= float64(p.Steps)
	// Cap: every call reaches it with probability ≤ (1 − MinAcceptance)^cap.
	perCall := capBudget / float64(p.Steps)
	p.TrialCap = int(math.Ceil(detmath.Log(perCall) / detmath.Log1p(-p.MinAcceptance)))
	p.TVCap = float64(p.Steps) * detmath.Pow(1-p.MinAcceptance, float64(p.TrialCap))
	// Proposals restricted to K have caps of their own: on a box every coordinate is a
	// truncated-normal draw, on a ball every proposal a radial and a truncated-normal draw
	// (two proposals per trial for oracles A and B, plus the start).
	proposals := 2*float64(p.Steps)*float64(p.TrialCap) + 1
	switch c.Domain {
	case BoxDomain:
		p.TVCap += proposals * float64(dim) * truncFailure
	case BallDomain:
		p.TVCap += proposals * ballFailure
	}
	p.TV = p.TVMix + p.TVOracle + p.TVCap
	if !(p.TV <= tv) {
		return Plan{}, fmt.Errorf("sampler: internal error: the plan's error %g exceeds the budget %g", p.TV, tv)
	}
	p.Cost = p.work()
	return p, nil
}

// envelopeStep chooses the proposal variance s² of oracle C and bounds its acceptance, for a
// target that is a mean of terms each depending on x through an r-dimensional projection P
// (r = d claims nothing). The gap f(x) − f(w) − g·(x − w) is the mean of the terms' gaps,
// each at most 2G‖P(x − w)‖, and at most (β/2)‖P(x − w)‖² when the terms are β-smooth; by
// Jensen the acceptance is at least exp(−2G·E‖P(x − w)‖) and exp(−(β/2)·E‖P(x − w)‖²).
//
// The proposal is x ~ N(μ, s²I) restricted to K with μ = c′ − s²g, and w = Π_K(c′). Its mode
// is x* = Π_K(μ), and ‖x* − w‖ ≤ ‖μ − c′‖ ≤ s²G since Π_K is non-expansive. On the whole
// space x − w = −s²g + s·z, so E‖P(x − w)‖² ≤ r·s² + s⁴G² exactly. On a constrained K,
// proposalSpread bounds √E‖P(x − x*)‖² by a·s + b·s², and by Minkowski E‖P(x − w)‖ and
// √E‖P(x − w)‖² are at most a·s + (b + G)·s². (The cross term is real: restricting the
// proposal can push x away from w, see TestRestrictedEnvelopeMoments.)
//
// s is the largest value for which either bound is at least 1/e, with s² at most maxVar (below
// 1/(2m), so that h = s²/(1 − s²m) is finite).
func envelopeStep(g, beta, maxVar float64, sp proposalSpread) (s2, minAcceptance float64) {
	rf := float64(sp.r)
	// 2G·E‖P(x − w)‖ = 1: (b + G)·s² + a·s = 1/(2G).
	s := 1 / (2 * sp.a)
	if g > 0 {
		s = (math.Sqrt(rf+2) - math.Sqrt(rf)) / (2 * g)
		if sp.b > 0 {
			s = positiveRoot(sp.b+g, sp.a, 1/(2*g))
		}
	}
	if beta > 0 {
		var u float64 // u = s², with (β/2)·E‖P(x − w)‖² = 1
		switch {
		case g == 0 && sp.b == 0:
			u = 2 / (beta * rf)
		case sp.whole: // G²·u² + r·u − 2/β = 0
			u = (math.Sqrt(rf*rf+8*g*g/beta) - rf) / (2 * g * g)
		case sp.b == 0: // G·s² + √r·s − √(2/β) = 0
			root := (math.Sqrt(rf+4*g*math.Sqrt(2/beta)) - math.Sqrt(rf)) / (2 * g)
			u = root * root
		default: // (b + G)·s² + a·s − √(2/β) = 0
			root := positiveRoot(sp.b+g, sp.a, math.Sqrt(2/beta))
			u = root * root
		}
		s = math.Max(s, math.Sqrt(u))
	}
	s2 = math.Min(s*s, maxVar)
	mean, meanSquare := envelopeMoments(math.Sqrt(s2), g, sp)
	minAcceptance = detmath.Exp(-2 * g * mean)
	if beta > 0 {
		minAcceptance = math.Max(minAcceptance, detmath.Exp(-beta/2*meanSquare))
	}
	return s2, minAcceptance
}

// splitEnvelopeStep is envelopeStep for a split target (SplitConstants): the largest s ≤ √maxVar
// at which (β_s/2)·E‖P(x − w)‖² + 2L_r·E‖x − w‖ ≤ 1, the moments bounded as in envelopeStep
// with the smooth part's rank (smooth) and with Dim (rough), w within s²G of the proposal's
// mode (G the whole f's Lipschitz constant); the acceptance is at least e to the minus that.
func splitEnvelopeStep(g, maxVar float64, sc SplitConstants, smooth, rough proposalSpread) (s2, minAcceptance float64) {
	gap := func(s float64) float64 {
		_, square := envelopeMoments(s, g, smooth)
		mean, _ := envelopeMoments(s, g, rough)
		return sc.Smoothness/2*square + 2*sc.Rough*mean
	}
	lo, hi := 0.0, math.Sqrt(maxVar)
	if gap(hi) > 1 {
		for range 100 { // the gap increases with s
			if mid := (lo + hi) / 2; gap(mid) <= 1 {
				lo = mid
			} else {
				hi = mid
			}
		}
		hi = lo
	}
	return hi * hi, detmath.Exp(-gap(hi))
}

// positiveRoot returns the positive root of A·x² + B·x − C = 0 (A ≥ 0, B, C > 0), in the form
// without cancellation.
func positiveRoot(a, b, c float64) float64 {
	return 2 * c / (b + math.Sqrt(b*b+4*a*c))
}

// proposalSpread is a bound a·s + b·s² on √E‖P(x − x*)‖² for oracle C's proposal x ~ N(μ, s²I)
// restricted to K and its mode x* = Π_K(μ), P the projection of the per-example terms (rank r):
//   - on the whole space x − x* = s·z, and E‖P(x − x*)‖² = r·s² exactly (whole is set);
//   - on a box (any convex K): the restricted proposal is (1/s²)-strongly log-concave with its
//     mode at x*, so E‖x − x*‖² ≤ d·s² (integrate by parts: the boundary term ⟨x − x*, n(x)⟩ is
//     non-negative on ∂K because x* ∈ K; TestRestrictedSecondMomentOnDisk): a = √d, b = 0;
//   - on an ℓ2 ball of radius R: a = √r, b = d/R. With e = μ/‖μ‖ (centred at the ball's
//     centre), x − x* = (α − x*_e)·e + s·t·v as in ballnormal.go, v uniform on the sphere of e⊥
//     and independent of (α, t). For a unit u, E⟨u, x − x*⟩² = ⟨u, e⟩²·E(α − x*_e)² +
//     (1 − ⟨u, e⟩²)·s²·E[t²]/(d − 1), the cross term vanishing by the symmetry of v. The law of
//     t is χ_{d−1} reweighted by the non-increasing A(t), so it is stochastically smaller:
//     E t² ≤ d − 1 and E t⁴ ≤ d² − 1. Given t, α is N(M, s²) restricted to [−ρ, ρ], so
//     E[(α − min(M, ρ))² | t] ≤ s² (the one-dimensional case of the box's lemma), and
//     |min(M, ρ) − x*_e| ≤ R − ρ = s²t²/(R + ρ) ≤ s²t²/R (x*_e = min(M, R)); by Minkowski
//     √E(α − x*_e)² ≤ s + s²d/R. Summing over an orthonormal basis of P's range,
//     E‖P(x − x*)‖² ≤ (s + s²d/R)² + (r − 1)s² ≤ (s√r + s²d/R)² (TestBallSpread).
type proposalSpread struct {
	whole bool
	r     int // the rank r on the whole space and on a ball, d on a box
	a, b  float64
}

// proposalSpread returns the spread bound for the constants' domain in dimension dim.
func (c Constants) proposalSpread(dim int) proposalSpread { return c.spreadOfRank(dim, c.rank(dim)) }

// spreadOfRank is proposalSpread for terms of rank r.
func (c Constants) spreadOfRank(dim, r int) proposalSpread {
	switch c.Domain {
	case WholeSpace:
		return proposalSpread{whole: true, r: r, a: math.Sqrt(float64(r))}
	case BallDomain:
		return proposalSpread{r: r, a: math.Sqrt(float64(r)), b: float64(dim) / c.Radius}
	}
	return proposalSpread{r: dim, a: math.Sqrt(float64(dim))}
}

// envelopeMoments bounds E‖P(x − w)‖ and E‖P(x − w)‖² for oracle C's proposal x and a point w
// within s²G of its mode (w = Π_K(c′)), as derived in envelopeStep's comment.
func envelopeMoments(s, g float64, sp proposalSpread) (mean, meanSquare float64) {
	mean = sp.a*s + (sp.b+g)*s*s
	if sp.whole {
		return mean, float64(sp.r)*s*s + s*s*s*s*g*g
	}
	return mean, mean * mean
}

// proxEnvelopeStep plans oracle C with the envelope built near the proximal point
// w* = argmin_K f(w) + ‖w − c′‖²/(2s²) of a β-smooth f. The prox objective is m = 1/s²
// strongly convex and L = β + 1/s² smooth, so J projected gradient steps of size 2/(L + m) from
// Π_K(c′) contract the distance to w* by q = (L − m)/(L + m) = s²β/(2 + s²β) each (the
// gradient map is a q-contraction and Π_K is non-expansive), and ‖Π_K(c′) − w*‖ ≤ s²G (w* is
// the fixed point Π_K(c′ − s²∇f(w*))). The proposal's mode x* = Π_K(c′ − s²∇f(w_J)) is then
// within ‖x* − w*‖ + ‖w* − w_J‖ ≤ (1 + s²β)·q^J·s²G = e of w_J. On the whole space
// E‖P(x − w_J)‖² ≤ r·s² + e² (x − x* = s·z has mean 0), elsewhere (a·s + b·s² + e)² by
// Minkowski, with proposalSpread's a and b; the acceptance is at least exp(−(β/2) times that)
// (Jensen, as in envelopeStep). s is set so that the bound with e = a·s/4 is 1 — on the whole
// space (β/2)·r·s²·(1 + 1/16) = 1 — and J so that e ≤ a·s/4; the acceptance is then at least
// 1/e (s² at most maxVar, the acceptance then only larger).
func proxEnvelopeStep(g, beta, maxVar float64, sp proposalSpread) (s2 float64, steps int, minAcceptance float64) {
	rf := float64(sp.r)
	if sp.whole {
		s2 = 2 / (beta * rf * (1 + 1.0/16))
	} else {
		root := positiveRoot(sp.b, 1.25*sp.a, math.Sqrt(2/beta))
		s2 = root * root
	}
	s2 = math.Min(s2, maxVar)
	s := math.Sqrt(s2)
	q := s2 * beta / (2 + s2*beta)
	e := (1 + s2*beta) * s2 * g
	for e > s*sp.a/4 && steps < 200 {
		e *= q
		steps++
	}
	if sp.whole {
		return s2, steps, detmath.Exp(-beta / 2 * (rf*s2 + e*e))
	}
	spread := sp.a*s + sp.b*s2 + e
	return s2, steps, detmath.Exp(-beta / 2 * spread * spread)
}

// stepsNeeded returns the number of steps (a whole number, at least 1, possibly beyond
// maxSteps) whose mixing error is at most budget for s²:
// TV ≤ √(KL₀(1 + hm)^{−2T}/2) ≤ budget ⟺ T ≥ log(KL₀/(2 budget²)) / (2 log(1 + hm)).
func (p *Plan) stepsNeeded(s2, m, budget float64) float64 {
	h := s2 / (1 - s2*m)
	if !(h > 0) {
		return math.Inf(1)
	}
	return math.Max(1, math.Ceil(detmath.Log(p.KL0/(2*budget*budget))/(2*detmath.Log1p(h*m))))
}

// largestVar returns the largest proposal variance s² with ok(s²), by bisection on log s²
// over [1e-300, 1e6], assuming ok holds below some threshold and fails above it. It returns 0
// when ok fails everywhere.
func largestVar(ok func(s2 float64) bool) float64 {
	lo, hi := detmath.Log(minProposalVar), detmath.Log(1e6)
	if !ok(detmath.Exp(lo)) {
		return 0
	}
	if ok(detmath.Exp(hi)) {
		return detmath.Exp(hi)
	}
	for range 200 {
		mid := (lo + hi) / 2
		if ok(detmath.Exp(mid)) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return detmath.Exp(lo)
}

// valueOracleBias bounds the total-variation error of one call of oracle A:
// e^α·E[(e^{Δ−α} − 1)₊] with Δ = f(x′) − f(x) for x, x′ independent from the (restricted)
// proposal, which satisfies a log-Sobolev inequality with constant 1/s². Δ is a √2·G-Lipschitz
// function of (x, x′), so P(Δ > t) ≤ exp(−t²/(4G²s²)), and the integral is
// e^α·∫_α^∞ e^{t−α} P(Δ > t) dt ≤ e^{v/4}·√(πv)·Q((α − v/2)·√(2/v)) with v = 4G²s².
func valueOracleBias(g, s2, alpha float64) float64 {
	v := 4 * g * g * s2
	if v == 0 {
		return 0
	}
	logQ := detmath.LogNormalTail((alpha - v/2) * math.Sqrt(2/v))
	return math.Min(1, detmath.Exp(v/4+0.5*detmath.Log(math.Pi*v)+logQ))
}

// stochasticOracleBias bounds the total-variation error of one call of oracle B. The Poisson
// estimator is exact for a pair (x, x′) when every example's difference z_i = f_i(x) − f_i(x′)
// lies in [−α, α] (then every factor 1 − (z + α)/λ with λ = 2α is in [0, 1]). Each f_i is
// Gᵢ-Lipschitz and depends on an r-dimensional projection P x, and ‖P(x − x′)‖ is a
// √2-Lipschitz function with mean at most s√(2r): P(|z_i| > α) ≤ exp(−(α/Gᵢ − s√(2r))²/(4s²))
// (for r = 1, 2·exp(−α²/(4Gᵢ²s²))). With a union bound over the n examples, P(bad) ≤ n times
// that. As for oracle A, the error is at most e^α·E[1{bad}·(1 + e^{|Δ|})] ≤
// e^α·√P(bad)·√(2 + 2·E e^{2G‖x−x′‖}), and E e^{2G‖x−x′‖} ≤ exp(2G·s√(2d) + 4G²s²).
func stochasticOracleBias(g, gi float64, r, dim, n int, s2, alpha float64) float64 {
	if gi == 0 {
		return 0
	}
	s := math.Sqrt(s2)
	var logTail float64
	if r == 1 {
		logTail = math.Ln2 - alpha*alpha/(4*gi*gi*s2)
	} else {
		margin := alpha/gi - s*math.Sqrt(2*float64(r))
		if margin <= 0 {
			return 1
		}
		logTail = -margin * margin / (4 * s2)
	}
	logBad := math.Min(0, detmath.Log(float64(n))+logTail)
	logMoment := detmath.Log(2 + 2*detmath.Exp(2*g*s*math.Sqrt(2*float64(dim))+4*g*g*s2))
	return math.Min(1, detmath.Exp(alpha+0.5*logBad+0.5*logMoment))
}

// cost returns the expected work of the run: expected trials per call are at most
// 1/MinAcceptance; oracle A evaluates f at two points per trial (2N queries), B evaluates 2λ
// per-example terms on average, and C one value per trial plus, per call, a value and a
// subgradient at the envelope's point (N gradient queries) and one gradient per step towards
// the proximal point. Every step draws d coordinates for y, and every
// trial d per proposal (two proposals for A and B, one for C).
func (p *Plan) work() cost.Cost {
	trials := 1 / p.MinAcceptance
	n, d := float64(max(p.Examples, 1)), float64(p.Dim)
	steps := float64(p.Steps)
	var queries, grads, draws float64
	switch p.Oracle {
	case ValueOracle:
		queries, draws = trials*2*n, d+trials*2*d
	case StochasticOracle:
		queries, draws = trials*2*p.Lambda, d+trials*2*d
	case EnvelopeOracle:
		queries, grads, draws = trials*n, float64(p.ProxSteps+1)*n, d+trials*d
	}
	if p.Safe {
		draws *= safeDrawCost
	}
	return cost.Cost{Steps: steps, Queries: steps * queries, Gradients: steps * grads, Draws: steps * draws}
}

// safeDrawCost is the cost of one double-double normal (rng.NormalPairDD, half a pair) in the
// cost model's draws: about 14 µs against 10 ns (`go test -bench 'Normal$|NormalPairDD'
// ./pkg/rng`: 27 µs a pair, 6.7 ns a ziggurat draw, on 2026-11-26). A box's truncated draws
// take one to three such draws each; the model counts one.
const safeDrawCost = 1400
