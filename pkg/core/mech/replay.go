package mech

import "github.com/privopt/privopt/pkg/sampler"

// floatingPointSafe is what the report of a floating-point-safe certified sampler's release
// says of floating point (a format with the grid's spacing).
const floatingPointSafe = "The sample is released on a grid of spacing %g with a uniformly random offset, and the certified total-variation distance includes the floating-point computation: the run's decisions are exact, and the probability that its rounding changes the released grid point is bounded and folded into δ (docs/floating-point.md)."

// exactArithmetic is what the report of a mechanism that releases a sampler's float64 sample
// says when its floating-point computation is not covered.
const exactArithmetic = "The sample is computed in floating point and released as computed: the guarantee is proven for the sampler in exact arithmetic, and does not cover what the low-order bits of a floating-point sample may reveal (outpert, outpert-gauss, langevin, noisy-gd and the (ε, δ) rashomon chain release on a grid with exact discrete noise instead)."

// replayHooks let the replay tests (replay_test.go) watch what a run feeds its noise and its
// samplers, to check every declared sensitivity on neighbouring datasets. They are nil outside
// those tests; a run reads nothing from them, except that release may overwrite a released
// value, which lets a run on one dataset follow the releases of a run on its neighbour: the
// coupling under which each step's sensitivity is stated (given the earlier releases).
type replayHooks struct {
	// release sees every vector noise is added to: in, its value before the noise; out, the
	// released value; sens, the bound the plan declared on the ℓ2 distance between the ins of
	// two neighbouring datasets given the same earlier releases; grid, the spacing of the grid
	// every coordinate of out is a multiple of (0 for a release that is not on a grid).
	release func(site string, in, out []float64, sens, grid float64)
	// target sees a sampler's target and the bound the plan declared on the Lipschitz
	// constant, in ℓ_norm, of the difference of two neighbouring datasets' potentials.
	target func(site string, t sampler.Target, lipschitz, norm float64)
	// score sees an exponential mechanism's score and the bound the plan declared on the span
	// (largest minus smallest value over the domain) of the difference of two neighbouring
	// datasets' scores.
	score func(site string, s gibbsScore, span float64)
}

// replay holds the hooks of the running replay test, if any.
var replay replayHooks

// releasing returns, when a replay test watches releases, a copy of in to report with the
// released value (release's own arguments may alias); nil otherwise, at no cost.
func releasing(in []float64) []float64 {
	if replay.release == nil {
		return nil
	}
	return append([]float64(nil), in...)
}

// released reports a release to the watching replay test, if any (in from releasing).
func released(site string, in, out []float64, sens, grid float64) {
	if replay.release != nil {
		replay.release(site, in, out, sens, grid)
	}
}
