package privacy

import (
	"errors"
	"github.com/privopt/privopt/pkg/detmath"
	"math"
	"strconv"
)

// Curve is a privacy guarantee given by its privacy profile: the mechanism is (ε, δ(ε))-DP
// for every ε, with δ non-increasing in ε. Every guarantee privopt reports is a Curve, so the
// page can plot it, a report can sample it and a budget can be checked against it.
type Curve interface {
	// Delta returns δ(ε): the smallest δ for which the mechanism is (ε, δ)-DP that this
	// guarantee certifies.
	Delta(eps float64) float64
	// Epsilon returns the smallest ε ≥ 0 with Delta(ε) ≤ delta, for delta in (0, 1).
	Epsilon(delta float64) (float64, error)
	// Tradeoff returns the tradeoff function T(α): a lower bound on the type II error of any
	// test, at type I error α, of which of two neighbouring datasets was used.
	Tradeoff(alpha float64) float64
	// String describes the guarantee in a few words, for example "μ-GDP with μ = 0.5".
	String() string
}

// Rounding toward privacy: every Delta of this package is an upper bound on the exact δ(ε) of
// its guarantee, and every Tradeoff a lower bound on the exact tradeoff function, not only on
// their floating-point evaluations: each evaluation is rounded by more than its error
// (docs/floating-point.md), so the calibrations and Budget.Meets, which compare evaluations,
// hold for the exact values.

// relSlack is the relative margin of deltaUp and tradeoffDown: twice the accuracy that
// TestHighPrecisionReference checks of the Gaussian curve against 80-digit arithmetic (5e-13),
// the least accurate evaluation; the others are within a few ulps.
const relSlack = 1e-12

// deltaUp returns a δ of at least d·(1 + relSlack), at least the smallest positive double (a δ
// positive in exact arithmetic that underflowed to 0), and at most 1.
func deltaUp(d float64) float64 {
	return math.Min(1, math.Nextafter(d*(1+relSlack), 1))
}

// tradeoffDown returns a value at most t·(1 − relSlack) − abs, and at least 0: a lower bound on
// the tradeoff value whose evaluation gave t with a relative error below relSlack and an
// absolute error below abs.
func tradeoffDown(t, abs float64) float64 {
	return math.Max(0, t*(1-relSlack)-abs)
}

// nudge returns x if ok(x), or else the first of x moved toward toward by 1, 3, 7, 15, …
// ulps of x (each move twice the last) at which ok holds: the last step of a calibration, from
// a root found in floating point to the nearest value that passes the rounded check, in at
// most a few dozen evaluations even where one ulp of the result moves the check by less than
// one ulp of a subnormal δ. It returns NaN when maxCalibrationSteps moves do not pass.
func nudge(x, toward float64, ok func(float64) bool) float64 {
	step := math.Nextafter(x, toward) - x
	for k := 0; !ok(x); k++ {
		if k == maxCalibrationSteps || math.IsInf(x, 0) {
			return math.NaN()
		}
		x, step = x+step, 2*step
	}
	return x
}

// errDelta is the error for a δ outside (0, 1).
func errDelta(delta float64) error {
	return errors.New("privacy: δ must be in (0, 1), got " + num(delta))
}

// epsilonByBisection returns the smallest ε ≥ 0 with c.Delta(ε) ≤ delta for a profile with no
// closed-form inverse: bisection to a relative width of 1e-13, then rounded up so that
// c.Delta(ε) ≤ delta holds when evaluated. It fails when δ(ε) > delta for every ε ≤ 2²⁴
// (above 1.6e7: beyond the budgets the mechanisms take, mech.MaxEpsilon = 1e6, and the
// composition of a few of them).
func epsilonByBisection(c Curve, delta float64) (float64, error) {
	if !(delta > 0 && delta < 1) {
		return 0, errDelta(delta)
	}
	if c.Delta(0) <= delta {
		return 0, nil
	}
	lo, hi := 0.0, 1.0
	for c.Delta(hi) > delta {
		lo, hi = hi, 2*hi
		if hi > 1<<24 {
			return 0, errors.New("privacy: " + describe(c) + " does not reach δ = " + num(delta) + " for any ε ≤ 2²⁴")
		}
	}
	for hi-lo > 1e-13*hi {
		mid := lo + (hi-lo)/2
		if c.Delta(mid) > delta {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi, nil
}

// tradeoffFromProfile returns a lower bound on the tradeoff function of a profile, from the
// duality f(α) = sup_ε max(0, 1 − δ(ε) − e^ε·α, e^{−ε}·(1 − δ(ε) − α)) (Dong, Roth and Su
// 2019, Proposition 2.12, for a symmetric guarantee). The supremum is taken over a fixed grid
// of ε (dense near 0, geometric up to 200) and refined around the best point; a supremum over
// fewer points is smaller, so the result never overstates privacy.
func tradeoffFromProfile(c Curve, alpha float64) float64 {
	switch {
	case alpha <= 0:
		return 1 - c.Delta(math.Inf(1))
	case alpha >= 1:
		return 0
	}
	return tradeoffOnGrid(c, alpha, profileGrid(c))
}

// profilePoint is δ(ε) of a profile at one ε of tradeoffFromProfile's grid.
type profilePoint struct{ eps, delta float64 }

// profileGrid evaluates c's profile on tradeoffFromProfile's grid: ε = 0, then 10⁻³·1.08^k up
// to 200.
func profileGrid(c Curve) []profilePoint {
	grid := []profilePoint{{0, c.Delta(0)}}
	for eps := 1e-3; eps <= 200; eps *= 1.08 {
		grid = append(grid, profilePoint{eps, c.Delta(eps)})
	}
	return grid
}

// tradeoffOnGrid is tradeoffFromProfile at α in (0, 1), given c's profile on the grid.
func tradeoffOnGrid(c Curve, alpha float64, grid []profilePoint) float64 {
	best, bestEps := supOnGrid(alpha, grid)
	at := func(eps float64) float64 { return tradeoffAt(alpha, eps, c.Delta(eps)) }
	// Golden-section refinement in the neighbourhood of the best grid point.
	lo, hi := bestEps/1.08, bestEps*1.08
	const phi = 0.6180339887498949
	for range 60 {
		a, b := hi-phi*(hi-lo), lo+phi*(hi-lo)
		if at(a) > at(b) {
			hi = b
		} else {
			lo = a
		}
	}
	return math.Max(best, at((lo+hi)/2))
}

// tradeoffAt is the bound on the tradeoff function at α from one point (ε, δ) of a profile:
// max(0, 1 − δ − e^ε·α, e^{−ε}·(1 − δ − α)), rounded down by more than its few roundings of
// numbers below 2 (16 ulps of 1).
func tradeoffAt(alpha, eps, d float64) float64 {
	return tradeoffDown(math.Max(1-d-detmath.Exp(eps)*alpha, detmath.Exp(-eps)*(1-d-alpha)), 0x1p-48)
}

// supOnGrid returns the largest of tradeoffAt(α) over the grid's points, and its ε: a lower
// bound on the tradeoff function at α, without tradeoffOnGrid's refinement.
func supOnGrid(alpha float64, grid []profilePoint) (best, bestEps float64) {
	best, bestEps = tradeoffAt(alpha, grid[0].eps, grid[0].delta), grid[0].eps
	for _, p := range grid[1:] {
		if v := tradeoffAt(alpha, p.eps, p.delta); v > best {
			best, bestEps = v, p.eps
		}
	}
	return best, bestEps
}

// Tradeoffs returns c.Tradeoff(α) for every α of alphas, with the same bits, sharing the work
// that does not depend on α: a guarantee whose tradeoff function is computed from its profile
// (Mixed, RDP, PureComposition, Parallel, alone or inside Tightest and WithSamplerError) evaluates the
// profile on the grid once for all of them.
func Tradeoffs(c Curve, alphas []float64) []float64 {
	out := make([]float64, len(alphas))
	switch c := c.(type) {
	case Tightest:
		for _, part := range c {
			for i, v := range Tradeoffs(part, alphas) {
				out[i] = math.Max(out[i], v)
			}
		}
	case WithSamplerError:
		shifted := make([]float64, len(alphas))
		for i, a := range alphas {
			shifted[i] = math.Min(1, math.Max(a, 0)+c.TV)
		}
		for i, v := range Tradeoffs(c.Base, shifted) {
			if alphas[i] < 1 {
				out[i] = math.Max(0, v-c.TV)
			}
		}
	case Parallel:
		grid := profileGrid(c)
		for i, a := range alphas {
			out[i] = c.tradeoffOn(a, grid)
		}
	case Mixed, RDP, PureComposition:
		var grid []profilePoint
		for i, a := range alphas {
			if a <= 0 || a >= 1 {
				out[i] = tradeoffFromProfile(c, a)
				continue
			}
			if grid == nil {
				grid = profileGrid(c)
			}
			out[i] = tradeoffOnGrid(c, a, grid)
		}
	default:
		for i, a := range alphas {
			out[i] = c.Tradeoff(a)
		}
	}
	return out
}

// Budget is a target: the release must be (ε, δ)-DP under the neighbouring relation.
type Budget struct {
	Epsilon float64 `json:"epsilon"`
	Delta   float64 `json:"delta"`
	// Neighbouring is the relation the guarantee protects; empty means replace-one.
	Neighbouring Neighbouring `json:"neighbouring,omitempty"`
}

// Relation returns the budget's neighbouring relation: Neighbouring, or ReplaceOne when it is
// empty.
func (b Budget) Relation() Neighbouring {
	if b.Neighbouring == "" {
		return ReplaceOne
	}
	return b.Neighbouring
}

// Validate checks that ε is finite and positive, δ is in [0, 1) and the relation is known.
func (b Budget) Validate() error {
	switch {
	case !(b.Epsilon > 0) || math.IsInf(b.Epsilon, 1):
		return errors.New("privacy: ε must be finite and positive, got " + num(b.Epsilon))
	case !(b.Delta >= 0 && b.Delta < 1):
		return errors.New("privacy: δ must be in [0, 1), got " + num(b.Delta))
	}
	return b.Relation().Validate()
}

// Weak lists, in words, why the budget guarantees little for n rows (0: unknown), each with
// what is usual: δ not far below 1/n (a mechanism that publishes one row outright with
// probability δ meets it), and ε above 10. The page and the command line warn with them.
func (b Budget) Weak(n int) []string {
	var out []string
	if n > 0 && b.Delta > 0 && b.Delta >= 1/float64(n) {
		out = append(out, "δ = "+sig(b.Delta, 4)+" is not small next to 1/n = 1/"+strconv.Itoa(n)+": a mechanism that publishes one person's row "+
			"outright with probability δ meets it. Choose δ far below 1/n (10⁻⁶ is usual).")
	}
	if b.Epsilon > 10 {
		out = append(out, "ε = "+sig(b.Epsilon, 4)+" says little: anything concluded about one person may become e^ε ≈ "+sig(math.Exp(b.Epsilon), 4)+
			" times more likely than without their row. ε from 0.1 to a few is usual.")
	}
	return out
}

// Meets reports whether a guarantee satisfies the budget: c.Delta(ε) ≤ δ, evaluated.
func (b Budget) Meets(c Curve) bool {
	return c.Delta(b.Epsilon) <= b.Delta
}

// Sample evaluates a curve at the given ε values, for plots and reports.
func Sample(c Curve, eps []float64) []CurvePoint {
	pts := make([]CurvePoint, len(eps))
	for i, e := range eps {
		pts[i] = CurvePoint{Epsilon: e, Delta: c.Delta(e)}
	}
	return pts
}

// CurvePoint is one point (ε, δ(ε)) of a privacy profile.
type CurvePoint struct {
	Epsilon float64 `json:"epsilon"`
	Delta   float64 `json:"delta"`
}
