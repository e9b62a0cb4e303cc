package sampler

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/privopt/privopt/pkg/detmath"
	"github.com/privopt/privopt/pkg/rng"
)

// safeGrid is the spacing of the floating-point-safe release's grid, 2⁻¹⁴ ≈ 6·10⁻⁵.
const safeGrid = 0x1p-14

// safeMaxE bounds the envelope's constant E = ê²s²/(2θ) on every step the plan counts as
// regular: it costs at most a factor e^{−2⁻²⁰} of acceptance.
const safeMaxE = 0x1p-20

// safeTail is the total probability the plan allows for the events it excludes by tail bounds
// (a state farther than StateRadius from c, a draw's norm beyond its bound).
const safeTail = 0x1p-100

// NewSafePlan plans a floating-point-safe run (safe.go; docs/floating-point.md, "The
// floating-point-safe REM: the argument"): oracle C with the θ-split envelope and exact
// decisions, on the whole space, a box (Radius its extent) or an ℓ2 ball centred at the origin
// (σ capped at R/(3√d) for safeball.go), for a target whose constants bound its (sub)gradient's rounding
// (GradErrorFloor, GradErrorSlope), smooth or not. Its TV is TVMix + TVCap + TVFloat ≤ tv, where
// TVFloat bounds the probability that the computed release differs from the exact-arithmetic
// run's, computed here from public constants only; the run releases its state rounded to a
// grid of spacing Grid with a random offset.
func NewSafePlan(c Constants, dim, n int, tv float64) (Plan, error) {
	switch {
	case c.Domain != WholeSpace && c.Domain != BoxDomain && c.Domain != BallDomain:
		return Plan{}, errors.New("sampler: the floating-point-safe sampler runs on the whole space, a box or an ℓ2 ball only")
	case c.Domain != WholeSpace && !(c.Radius > 0 && !math.IsInf(c.Radius, 1)):
		return Plan{}, errors.New("sampler: the floating-point-safe sampler needs the domain's extent (Constants.Radius)")
	case !(c.GradErrorFloor > 0) || !(c.GradErrorSlope >= 0):
		return Plan{}, errors.New("sampler: the floating-point-safe sampler needs the target's gradient rounding bounds")
	case slices.ContainsFunc(c.Center, func(v float64) bool { return v != 0 }):
		return Plan{}, errors.New("sampler: the floating-point-safe sampler needs the Gaussian part centred at the origin")
	case float64(n)*float64(dim) > 0x1p40:
		return Plan{}, errors.New("sampler: too many rows for the floating-point-safe sampler's fallback precision")
	}
	// TVFloat grows with the steps, which grow only like the logarithm of the rest of the
	// budget: a plan whose floating-point term exceeds an eighth of tv tries larger shares.
	var err error
	for _, share := range safeFloatShares {
		var p Plan
		if p, err = newSafePlan(c, dim, n, tv, share); err == nil {
			return p, nil
		}
	}
	return Plan{}, err
}

// safeFloatShares are the shares of the budget NewSafePlan offers the floating-point term, in
// order.
var safeFloatShares = []float64{1.0 / 8, 1.0 / 2, 7.0 / 8}

// newSafePlan is NewSafePlan with the share of tv given to TVFloat (the rest to mixing and the
// caps, as NewPlan splits it).
func newSafePlan(c Constants, dim, n int, tv, share float64) (Plan, error) {
	maxVar := math.Inf(1)
	if c.Domain == BallDomain {
		// The ball draws' proposal scale σ = s/√(1 − θ) at most R/(3√d) (safeBallMinRadius).
		maxVar = (1 - safeTheta) * c.Radius * c.Radius / (safeBallMinRadius * safeBallMinRadius * float64(dim)) * (1 - 0x1p-20)
	}
	p, err := newPlan(c, dim, n, EnvelopeOracle, tv*(1-share), maxVar)
	if err != nil {
		return Plan{}, err
	}
	p.Safe, p.Grid = true, safeGrid
	b := safeBounds(c, dim, p)
	if !(b.gradErr <= b.maxGradErr) {
		return Plan{}, fmt.Errorf("sampler: the target's gradient rounding (%.3g within the states' radius %.3g) is too large for a floating-point-safe run", b.gradErr, b.radius)
	}
	if c.Domain == BallDomain {
		// Safe ball draws (safeball.go) need R ≥ 3σ√d for the oracle's proposals (maxVar
		// above), and an acceptance bound for the start N(0, I/m) restricted to the ball.
		if !(c.Radius >= safeBallMinRadius*b.sigma*math.Sqrt(float64(dim))) {
			return Plan{}, fmt.Errorf("sampler: the floating-point-safe sampler needs a ball's radius (%.3g) at least 3σ√d = %.3g", c.Radius, safeBallMinRadius*b.sigma*math.Sqrt(float64(dim)))
		}
		if !chooseBallMethod(0, b.startSD, c.Radius, dim).usable {
			return Plan{}, fmt.Errorf("sampler: the floating-point-safe sampler's start, a Gaussian of standard deviation %.3g per coordinate, lands in the ball of radius %.3g too rarely (m·R² = %.3g, below about 1.9·d = %.3g)",
				b.startSD, c.Radius, c.Radius*c.Radius/(b.startSD*b.startSD), 1.9*float64(dim))
		}
	}
	p.StateRadius = b.radius
	p.MinAcceptance = b.minAcceptance
	if !(p.MinAcceptance > 0.01) {
		return Plan{}, fmt.Errorf("sampler: the floating-point-safe envelope accepts too rarely (%.3g)", p.MinAcceptance)
	}
	capBudget := tv / 4 * (1 - share)
	p.TrialCap = int(math.Ceil(detmath.Log(capBudget/float64(p.Steps)) / detmath.Log1p(-p.MinAcceptance)))
	p.TVCap = float64(p.Steps) * detmath.Pow(1-p.MinAcceptance, float64(p.TrialCap))
	// Restricted proposals' own caps: one draw a trial, and the start.
	switch draws := float64(p.Steps)*float64(p.TrialCap) + 1; c.Domain {
	case BoxDomain:
		p.TVCap += draws * float64(dim) * truncFailure
	case BallDomain:
		p.TVCap += draws * safeBallFailure
	}
	p.TVFloat = b.tvFloat(p)
	if !(p.TVFloat <= tv*share) {
		return Plan{}, fmt.Errorf("sampler: the floating-point error bound %.3g exceeds its share %.3g of the budget", p.TVFloat, tv*share)
	}
	p.TV = p.TVMix + p.TVCap + p.TVFloat
	if !(p.TV <= tv) {
		return Plan{}, fmt.Errorf("sampler: internal error: the safe plan's error %g exceeds the budget %g", p.TV, tv)
	}
	p.Certificate += "; floating-point safe: exact decisions, θ-split envelope, centre-shift coupling, grid release (docs/floating-point.md)"
	p.Cost = p.work()
	if c.Domain == BallDomain {
		// A ball's draws take about two proposals of d normals each (safeball.go: at least a
		// third of the proposals are accepted, most often about half).
		p.Cost.Draws += float64(p.Steps) / p.MinAcceptance * float64(dim) * safeDrawCost
	}
	return p, nil
}

// On a box (docs/floating-point.md, "On a box"), the proposal is N(μ, σ²I) restricted to K,
// drawn coordinate by coordinate (safeTruncNormal), and the envelope point ŵ stays in K (no
// clamp). Its mode x* = Π_K(μ) is then within eJ + δŵ + ‖μ − v‖ of ŵ, v = c′ − s²∇f(w_J) the
// exact proposal's mean (Π_K(v) is within eJ of w_J, and Π_K is non-expansive), where
// μ − v = θ′/(1 − θ′)·(c′ − ŵ − s²ĝ) + s²(∇f(w_J) − ĝ); and E‖x − x*‖² ≤ d·σ² (the box's
// lemma, proposalSpread), so by Minkowski √E‖x − ŵ‖² ≤ σ√d + ‖x* − ŵ‖, which replaces the
// whole space's √(‖μ − ŵ‖² + r·σ²) in the acceptance bound.

// safeBounded are the a-priori magnitudes of a safe run (norms, and expectations over the
// fresh normals of a step), valid while every state of the ideal chain is within radius of c
// (item 6; the rest is counted in TVFloat).
type safeBounded struct {
	radius              float64 // B
	sigma, s, sqrtH, cq float64 // σ = s/√(1 − θ), s, √h, θ/(2s²)
	startSD, contract   float64 // 1/√m, and s²m (c′ = (1 − s²m)·y)
	mode                float64 // ‖μ − ŵ‖: the proposal's mean from the envelope point
	gradErr, maxGradErr float64 // ê at the farthest envelope point, and what safeMaxE allows
	minAcceptance       float64
	beta, lipschitz     float64 // f's smoothness and Lipschitz constant
	flip, extent        float64 // a box: truncFlip's bound per proposal, and the box's extent
	ballRadius          float64 // a ball: its radius
}

const u53 = 0x1p-53

// safeBounds computes the bounds of a safe run of plan p (docs/floating-point.md, items 1–6).
func safeBounds(c Constants, dim int, p Plan) safeBounded {
	d := float64(dim)
	m, l, beta, s2 := c.StrongConvexity, c.Lipschitz, c.Smoothness, p.ProposalVar
	b := safeBounded{beta: beta, lipschitz: l, contract: s2 * m}
	b.s, b.sqrtH = math.Sqrt(s2), math.Sqrt(p.Step)
	b.sigma = math.Sqrt(s2 / (1 - safeTheta))
	b.cq = safeTheta / (2 * s2)
	b.startSD = 1 / math.Sqrt(m)
	// Item 6: D₂(ρ₀‖π) ≤ 2L√(d/m) + L²/m and P(‖X_t − c‖ ≥ L/m + √(d/m) + r) ≤
	// exp((D₂ − mr²/2)/2), for each of the steps + 1 states of the ideal chain.
	d2 := 2*l*math.Sqrt(d/m) + l*l/m
	logShare := detmath.Log(float64(p.Steps)+1) + 101*math.Ln2
	r := math.Sqrt(2 * (d2 + 2*logShare) / m)
	b.radius = (l/m + math.Sqrt(d/m) + r) * (1 + 0x1p-20)
	box := c.Domain == BoxDomain
	restricted := box || c.Domain == BallDomain
	switch {
	case box:
		b.radius = math.Min(b.radius, c.Radius*math.Sqrt(d)*(1+0x1p-50))
	case restricted: // a ball centred at the origin (the run checks it)
		b.radius = math.Min(b.radius, c.Radius*(1+0x1p-50))
		b.ballRadius = c.Radius
	}
	// The envelope point is within 3s²L of ĉ′ (clamped; on a box, in it), ĉ′ within ‖c′ − b‖
	// of the base, the base within B + ‖o‖ of c = 0: far bounds every coordinate vector the
	// step meets.
	far := b.radius + 8*s2*l + 4*b.sigma*math.Sqrt(d) + 4*b.sqrtH*math.Sqrt(d) + 1
	if box {
		// On a box ŵ is in it and the truncated draws' ends within 2·extent of ŵ, coordinate
		// by coordinate.
		far = math.Max(far, 2*c.Radius*math.Sqrt(d)+1)
	}
	b.gradErr = c.GradErrorFloor + c.GradErrorSlope*far
	b.maxGradErr = math.Sqrt(2*safeTheta*safeMaxE) / b.s
	// ‖μ − ŵ‖ ≤ (e_J + (1 + s²β)·δŵ + s²ê)/(1 − θ): e_J the exact prox iterate's distance from
	// the proposal's mode (the plan's), δŵ the computed iterate's rounding (a q-contraction from
	// ĉ′, within u·far of c′), s²ê the gradient's.
	q := s2 * beta / (2 + s2*beta)
	eJ := (1 + s2*beta) * s2 * l * math.Pow(q, float64(p.ProxSteps))
	dw := 8 * u53 * float64(p.ProxSteps+2) * (far + s2*l) / (1 - q)
	b.mode = (eJ + (1+s2*beta)*dw + s2*b.maxGradErr) / (1 - safeTheta) * (1 + 0x1p-30)
	// Acceptance (Jensen, items 1 and the plan's): E_q[G] ≤ B + ê·(‖μ − ŵ‖ + σ√d) +
	// (θ/2s²)(‖μ − ŵ‖² + d·σ²) + E, where B bounds the mean Bregman gap of f: 2L·E‖P(x − ŵ)‖ ≤
	// 2L·√(‖μ − ŵ‖² + r·σ²) for any convex L-Lipschitz f, and (β/2)(‖μ − ŵ‖² + r·σ²) for a
	// β-smooth one (P the per-example terms' projection, of rank r); for a split target
	// (SplitConstants) also (β_s/2)·E‖P_s(x − ŵ)‖² + 2L_r·√E‖x − ŵ‖², the parts' gaps added.
	rank := float64(c.rank(dim))
	smoothRank := float64(cmp.Or(c.Split.Rank, dim))
	spread := b.mode*b.mode + rank*b.sigma*b.sigma // E‖P(x − ŵ)‖²
	spreadSmooth := b.mode*b.mode + smoothRank*b.sigma*b.sigma
	spreadAll := b.mode*b.mode + d*b.sigma*b.sigma // E‖x − ŵ‖²
	if restricted {
		// ‖c′ − ŵ‖ ≤ s²m·B + √h·‖ξ‖ + 3s²L + δŵ (c′ = (1 − s²m)(x + √hξ), x and ŵ in K), with
		// ‖ξ‖ ≤ √d + 20 (beyond it with probability e^{−200} a step, in tvFloat).
		dc := s2*m*b.radius + b.sqrtH*(math.Sqrt(d)+20) + 3*s2*l + dw
		gradDiff := 2 * l
		if beta > 0 {
			gradDiff = math.Min(gradDiff, beta*dw)
		}
		b.mode = (eJ + dw + 2*safeTheta*(dc+s2*l) + s2*(gradDiff+b.maxGradErr)) * (1 + 0x1p-30)
		root := b.sigma*math.Sqrt(d) + b.mode
		spread, spreadSmooth, spreadAll = root*root, root*root, root*root
		if !box {
			// A ball: E‖P(x − ŵ)‖² ≤ r·σ² + ‖E x − ŵ‖² (Brascamp–Lieb: the restricted
			// proposal's covariance is at most σ²I), and E x − x* lies along μ − c, within
			// σ√(2/π) + σ²(d − 1)/R of x* (docs/floating-point.md, "On a ball").
			shift := b.mode + b.sigma*(math.Sqrt(2/math.Pi)+b.sigma*(d-1)/c.Radius)
			spread = shift*shift + rank*b.sigma*b.sigma
			spreadSmooth = shift*shift + smoothRank*b.sigma*b.sigma
		}
		// truncFlip's M: |μᵢ − ŵᵢ|/σ ≤ ‖μ − ŵ‖/σ ≤ (‖c′ − ŵ‖ + s²L)/((1 − θ)σ).
		if box {
			bigM := (dc + s2*l) / ((1 - safeTheta) * b.sigma) * (1 + 0x1p-30)
			b.flip, b.extent = truncFlip(bigM, c.Radius/b.sigma), c.Radius
		}
	}
	bregman := 2 * l * math.Sqrt(spread)
	if beta > 0 {
		bregman = math.Min(bregman, beta/2*spread)
	}
	if c.split() {
		bregman = math.Min(bregman, c.Split.Smoothness/2*spreadSmooth+2*c.Split.Rough*math.Sqrt(spreadAll))
	}
	gap := bregman + b.maxGradErr*math.Sqrt(spreadAll) + b.cq*spreadAll + safeMaxE
	b.minAcceptance = detmath.Exp(-gap*(1+0x1p-30)) * (1 - 0x1p-40)
	return b
}

// truncFlip bounds the probability that one proposal of safeTruncNormal decides otherwise than
// the exact run's, when |μᵢ − ŵᵢ| ≤ M·σ, the box's coordinates are within extent of 0
// (extentOverSigma = extent/σ) and the ends are computed within ηᵢ = 2⁻⁹⁷(|endᵢ − ŵᵢ| +
// |moᵢ|)/σ ≤ 2⁻⁹⁷(2·extent/σ + 2M). Each end is then within W = 2·extent/σ + M of 0 and the
// variates' distance δ ≤ η + 2⁻⁹⁷(1 + 3W) (safeTruncNormal's err, the comparisons' 2⁻¹⁰⁰ of
// their operands). A plain proposal flips when the exact variate is within δ of an end
// (density ≤ φ(0) = 0.4, two ends); a uniform or exponential one when its acceptance moves by
// its Lipschitz constant times δ (at most max(1, b) ≤ 1 + √(M² + 2) for the uniform ones, whose
// near end is at most M; 1 for Robert's) or the comparison z ≤ b flips (Robert's variate has
// density at most λ ≤ M + 1); or on an undecided decision (2⁻¹⁹⁰) or an exponential drawn again
// (expDDFailure). So each proposal flips with probability at most
// (M + 3)·δ + 2⁻¹⁹⁰ + expDDFailure, δ ≤ 2⁻⁹⁵·(1 + W).
func truncFlip(bigM, extentOverSigma float64) float64 {
	w := 2*extentOverSigma + bigM
	delta := 0x1p-95 * (1 + w)
	return ((bigM+3)*delta + 0x1p-190 + expDDFailure) * (1 + 0x1p-30)
}

// tvFloat is β_fp (docs/floating-point.md). Every point the run builds — the state, y, c′,
// the proposal's mean and Gaussian part — is a double-double whose error, against the exact
// run's point, is the sum of its operations' roundings (each within 2⁻¹⁰⁰ of its operands'
// magnitudes, at most 32 a coordinate) and of the normals' coupling errors (2⁻⁹⁹·(1 + |z|)
// each, times a scale at most far): E[ε] ≤ 2⁻⁹⁴·√d·far per point vector, with far bounding
// the magnitudes in expectation. Then: per step the centre shift over 2s (item 3, twice: the
// step's own points and the accepted point carried into the next), per expected trial the
// decision's move (item 4, with G's Lipschitz constant 2L + 2c_q·far), the grid (item 7, the
// offset drawn with 128 bits), the tails (item 6), the normals' and the fallback's failures.
func (b safeBounded) tvFloat(p Plan) float64 {
	// (On a ball, also the flips of the restricted draws: ballFlip.)
	steps, d := float64(p.Steps), float64(p.Dim)
	rd := math.Sqrt(d)
	scale := b.sigma + b.sqrtH + b.startSD
	far := math.Max(b.radius+b.mode+4*scale*rd+1, 2*b.extent*rd+1) // a box: see safeBounds
	eps := 0x1p-94 * rd * far
	trials := steps / p.MinAcceptance
	lipG := 2*b.lipschitz + 2*b.cq*far
	grid := rd*eps/p.Grid + d*0x1p-128
	pairs := (steps*(1+float64(p.TrialCap))*d + d) / 2
	var box float64
	if b.flip > 0 {
		// A box: at most 1/truncMinAcceptance proposals per truncated draw in expectation (by
		// Wald's identity the expected number of flips is that times the per-proposal bound),
		// d draws a trial and at the start (M = 0, scale 1/√m: extent/σ becomes extent·√m),
		// each proposal up to one normal pair, and a step whose ‖ξ‖ exceeds √d + 20 (e^{−200}).
		proposals := (trials + 1) * d / truncMinAcceptance
		startFlip := truncFlip(0, b.extent/b.startSD)
		box = proposals*math.Max(b.flip, startFlip) + steps*detmath.Exp(-200)
		pairs += proposals
	}
	if b.ballRadius > 0 {
		// A ball: at most 1/0.1 proposals per draw in expectation (the chosen method's bound is
		// at least safeBallMinAcceptance), one draw a trial and the start, each proposal d
		// normals (d/2 + 1 pairs) and its flips (ballFlip); the draws' point errors enter the
		// decisions as item 4's.
		perDraw := 1 / 0.1
		tries := (trials + 1) * perDraw
		flipTry, errX := ballFlip(d, b.sigma, b.ballRadius, far, false)
		startTry, _ := ballFlip(d, b.startSD, b.ballRadius, far, true)
		box += trials*perDraw*flipTry + perDraw*startTry + trials*lipG*errX + steps*detmath.Exp(-200)
		pairs += tries * (d/2 + 1)
	}
	normals := (pairs + 1) * rng.NormalDDFailure
	fallback := steps * float64(p.TrialCap) * 0x1p-180
	tv := (steps+1)*2*eps/(2*b.s) + trials*lipG*eps + grid + safeTail + normals + fallback + box
	return tv * (1 + 0x1p-20)
}

// ballFlip bounds the probability that one proposal of a safe ball draw (safeball.go), with
// scale sigma (at the start when start is set: a plain proposal with M = 0), on a ball of
// radius R centred at the origin, decides otherwise than the exact run's, and the distance
// between the two runs' points, when every vector the draw meets is within far of the origin
// (docs/floating-point.md, "On a ball"). Every quantity of a proposal but ρ is within
// errX = 2⁻⁹⁰(d + 8)(far + R + σ(√d + 20)) of the exact run's (double-double operations within
// 2⁻¹⁰⁰ of their operands, sums of d terms, normals within 2⁻⁹⁹(1 + |z|), ‖ζ‖ ≤ √d + 20 but for
// e^{−200}); R² − w within 2R·errX, so ρ within 2R·errX/ρ. Terms in 1/ρ are integrated against
// w's density: E[c/ρ(w)] ≤ c·H with H = √2/R + √2·G·R, G bounding w's density on [R²/2, R²]
// (dw = 2ρ dρ). Then:
//   - a plain proposal flips when ‖x‖² is within η = 2R·errX(1 + 2⁻²⁰) of R²: given w, a ~
//     N(M, σ²) and the set of a with a² within η of R² − w has length at most 4η/ρ(w), so
//     4η·H/(σ√(2π)); at the start (M = 0) ‖x‖/σ has a χ_d density, at most 1: 2·errX/σ;
//   - a tilted one when w crosses R² (2·2R·errX·G), δ ~ Exp(κ) crosses 2ρ (density κ ≤
//     (far + R + σ)/σ², distance errX + 4R·errX·H in expectation), or E′ crosses X (its density
//     e^{−X} ≤ 1 near X, and e^{−X}·|ΔX| ≤ e^{−1/2}(|Δz| + √(z₀/ρ₀)·|Δρ|)/σ with ρ₀ ≥ 0.94R and
//     Δz ≤ errX + Δρ), or an exponential is drawn again (expDDFailure each).
func ballFlip(d, sigma, radius, far float64, start bool) (flip, errX float64) {
	errX = 0x1p-90 * (d + 8) * (far + radius + sigma*(math.Sqrt(d)+20))
	if start {
		return 2 * errX / sigma * (1 + 0x1p-20), errX
	}
	g := chi2DensityBeyond(d-1, radius*radius/(2*sigma*sigma)) / (sigma * sigma)
	h := math.Sqrt2/radius + math.Sqrt2*g*radius
	eta := 2 * radius * errX * (1 + 0x1p-20)
	plain := 4 * eta * h / (sigma * math.Sqrt(2*math.Pi))
	z0 := far + radius + sigma
	kappa := z0 / (sigma * sigma)
	drho := 2 * radius * errX * h // E|Δρ|
	tilted := 2*eta*g + kappa*(errX+2*drho) +
		2*math.E*(detmath.Exp(-0.5)*((errX+drho)+math.Sqrt(z0/(0.94*radius))*drho)/sigma+0x1p-95) + 2*expDDFailure
	return math.Max(plain, tilted) * (1 + 0x1p-20), errX
}

// chi2DensityBeyond bounds the density of χ²_k on [x, ∞): its value at x when x ≥ k (past
// the mode), with Γ(k/2) bounded below by Stirling's √(2π/z)(z/e)^z (detmath, so that plans
// are the same on every platform); else its maximum (1/2 for k ≥ 2; k = 0 has no density: 0).
// k = 1 needs x ≥ 1.
func chi2DensityBeyond(k, x float64) float64 {
	switch {
	case k == 0:
		return 0
	case x < k && k >= 2:
		return 0.5
	case x < k:
		return math.Inf(1)
	}
	z := k / 2
	lg := 0.5*detmath.Log(2*math.Pi/z) + z*(detmath.Log(z)-1) // ≤ log Γ(z)
	return detmath.Exp((z-1)*detmath.Log(x) - x/2 - z*math.Ln2 - lg)
}
