package mech

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/privopt/privopt/pkg/core/privacy"
	"github.com/privopt/privopt/pkg/rng"
)

// Private ranges. A column declared in [Min, Max] is encoded on the scale z ∈ [0, 1]; when the
// declared bounds are loose (dollars declared up to 100,000 that live below 2,000) most of that
// scale is empty and the feature carries little signal against the rows' norm bound. A
// RangesPlan estimates, for each of a fixed number of columns, the interval [Lo, Hi] ⊆ [0, 1]
// between its RangeLevel and 1 − RangeLevel quantiles, privately, so that the column can be
// clipped to it and rescaled.
//
// Each quantile is a noisy binary search over a fixed grid of rangeGridSize points of [0, 1]
// (RangeGrid): linear steps of 1/32 and, near both ends, a geometric ladder of ratio √2 down to
// 2^−28.5 of the declared range, so that a range orders of magnitude narrower than the declared
// one is found as well as one that fills it. Step k asks whether the grid point t is at or above
// the quantile q of level L, through the query
//
//	f_L(t) = #{i : zᵢ ≤ t} − L·n,
//
// released with noise; the search moves down when the noisy value is ≥ 0 and up otherwise, and
// after rangeSteps = log₂(rangeGridSize + 1) steps it has found the smallest grid point whose
// noisy answer says "at or above" (or 1 when none does). Hi is that point at level 1 − L;
// Lo, at level L, is the grid point before it (0 when it is the first), whose answer said
// "below": so the range holds the quantiles between its ends, rounded outwards to the grid
// (rounding Lo up would cut into the values above the quantile by up to a grid step, 1/32 of the
// declared range). When noise makes Hi ≤ Lo, Hi is the grid point above Lo.
//
// The level L is the smallest power of two from 2⁻⁶ with L·n ≥ 2σ, σ the noise's standard
// deviation and n the public number of rows (rangeLevel): a formula of public quantities.
//
// Sensitivity. L is a power of two (2⁻⁶ to 2⁻³), the counts integers below 2⁴⁶, so f_L is computed
// exactly. Replacing a row changes #{zᵢ ≤ t} by at most 1 and n not at all: |Δf| ≤ 1. Adding or
// removing a row changes the count by 0 or 1 and n by 1: Δf is −L or 1 − L, |Δf| ≤ 1 − L < 1.
// So each query has sensitivity 1 under both relations, whatever t (chosen from earlier
// releases). The search of each quantile makes exactly rangeSteps queries, so a plan for m
// columns makes Q = 2·rangeSteps·m queries, adaptively, each of sensitivity 1.
//
// Guarantee. The noise is that of one release of Q coordinates with ℓ2 sensitivity √Q (ℓ1 Q)
// (vectorNoise: exact discrete Gaussian noise on a grid for δ > 0, exact discrete Laplace for
// δ = 0). Releasing the coordinates one at a time, each query chosen from the earlier answers,
// keeps that guarantee: Gaussian mechanisms compose adaptively to the GDP (or zCDP) of their
// summed squared sensitivities (Dong, Roth and Su, Gaussian differential privacy, Corollary 3.3;
// Bun and Steinke 2016, Lemma 2.3), Laplace mechanisms to the sum of their ε, and the grid's
// rounding and the discretisation's total variation are per coordinate, so they add the same
// way. The estimate is computed from the released answers only.

// RangeLevel is the smallest quantile level of a private range's ends: the range runs from the
// L to the 1 − L quantile of a column (up to the noise and the grid), L ≥ RangeLevel, so that
// about 1.6 % of the values at each end, or more with few rows, are clipped.
const RangeLevel = 0x1p-6

// maxRangeLevel is the largest level: beyond it the ranges would clip an eighth of each tail.
const maxRangeLevel = 0x1p-3

// rangeLevel returns the level L of ranges over n rows whose answers have noise of standard
// deviation sd: the smallest power of two from RangeLevel with L·n ≥ 2·sd. Beyond the values
// (where the counts no longer change) a comparison answers f = ±L·n plus the noise, so it
// goes the wrong way with probability at most Φ(−2) ≈ 2.3 % instead of drifting to the
// declared bounds. It returns 0 when that L would exceed maxRangeLevel (too few rows for the
// noise).
func rangeLevel(n int, sd float64) float64 {
	for l := RangeLevel; l <= maxRangeLevel; l *= 2 {
		if l*float64(n) >= 2*sd {
			return l
		}
	}
	return 0
}

// rangeGridSize is the number of grid points a quantile is searched over, and rangeSteps the
// number of queries of one search: rangeGridSize + 1 = 2^rangeSteps outcomes.
const (
	rangeSteps    = 7
	rangeGridSize = 1<<rangeSteps - 1
)

// maxRangeRows bounds the rows whose counts f_L computes exactly.
const maxRangeRows = 1 << 46

// RangeGrid returns the grid of the private ranges' search: rangeGridSize increasing points of
// [0, 1], 0 and 1 included (see the comment on private ranges).
func RangeGrid() []float64 {
	g := make([]float64, 0, rangeGridSize)
	for j := 0; j <= 32; j++ {
		g = append(g, float64(j)/32)
	}
	// 47 points each side: 2^−(5 + h/2) for h = 1 … 47, from 2^−5.5 down to 2^−28.5.
	for h := 1; h <= 47; h++ {
		t := math.Exp2(-5 - float64(h)/2)
		g = append(g, t, 1-t)
	}
	slices.Sort(g)
	return g
}

// Interval is a private range: the fractions [Lo, Hi] of a column's declared scale, 0 ≤ Lo <
// Hi ≤ 1.
type Interval struct {
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
}

// RangesPlan is a planned private estimate of the ranges of Columns columns (see the comment
// on private ranges): its noise and guarantee follow from the budget and the number of
// columns alone, before any value is read.
type RangesPlan struct {
	// Columns is the number of columns estimated.
	Columns int
	// Level is L, the quantile level of the ranges' ends (rangeLevel), 0 when the noise is too
	// large for the public number of rows (the plan then refuses to run).
	Level  float64
	budget privacy.Budget
	points []float64
	vectorNoise
}

// PlanRanges plans the private ranges of columns columns of a dataset of n rows (the public
// number: observed under replace-one, declared under add/remove; it sets the level only) under
// budget b (δ = 0: pure ε-DP with Laplace noise).
func PlanRanges(b privacy.Budget, columns, n int) (*RangesPlan, error) {
	if err := ValidateBudget(b); err != nil {
		return nil, err
	}
	if columns < 1 || columns > 1<<20 {
		return nil, fmt.Errorf("mech: private ranges need between 1 and %d columns, got %d", 1<<20, columns)
	}
	p := &RangesPlan{Columns: columns, budget: b, points: RangeGrid()}
	q := p.queries()
	kind := noiseDiscreteLaplace
	if b.Delta > 0 {
		kind = noiseDiscreteGaussian
	}
	var err error
	if p.vectorNoise, err = newVectorNoise(kind, b, q); err != nil {
		return nil, err
	}
	if err := p.calibrate(b, roundUp(math.Sqrt(float64(q))), float64(q)); err != nil {
		return nil, err
	}
	if !(privacy.Budget{Epsilon: b.Epsilon, Delta: b.Delta}).Meets(p.guarantee) {
		return nil, fmt.Errorf("mech: internal error: the private ranges' guarantee %v does not meet their budget", p.guarantee)
	}
	if n < 1 {
		return nil, fmt.Errorf("mech: private ranges need a public number of rows, got %d", n)
	}
	p.Level = rangeLevel(n, p.noiseSD())
	return p, nil
}

// queries is Q, the number of queries of the plan.
func (p *RangesPlan) queries() int { return 2 * rangeSteps * p.Columns }

// Guarantee is the privacy curve of all the plan's queries (discretisation included).
func (p *RangesPlan) Guarantee() privacy.Curve { return p.guarantee }

// NoiseSD is the standard deviation of the noise on each query's answer (a count of rows), at
// most.
func (p *RangesPlan) NoiseSD() float64 { return p.noiseSD() }

// Ranges is a released set of private ranges.
type Ranges struct {
	// Intervals holds one range per column, in the order the columns were given.
	Intervals []Interval `json:"intervals"`
	// Level is the quantile level L of the ends (the range runs from the L to the 1 − L
	// quantile), fixed by the plan from public quantities.
	Level float64 `json:"level"`
	// Queries is the number of noisy answers released (2·7 per column), NoiseSD the standard
	// deviation of each answer's noise, in rows (at most).
	Queries int     `json:"queries"`
	NoiseSD float64 `json:"noise_sd"`
	// Report states the ranges' guarantee.
	Report privacy.Report `json:"report"`
}

// Run estimates the range of each of the plan's columns: column(k) returns the values of
// column k on its declared scale, each in [0, 1], one per row (all columns with the same number
// of rows; the slice is not kept, and may be reused by the next call). Under replace-one the
// number of rows is public; under add/remove it is not, and nothing released depends on it
// except through the noisy answers.
func (p *RangesPlan) Run(column func(k int) ([]float64, error), r *rng.Rand) (*Ranges, error) {
	if p.Level == 0 {
		return nil, fmt.Errorf("mech: the private ranges' noise (%.3g rows per count) is too large for their rows: they would clip more than an eighth of each tail", p.noiseSD())
	}
	out := &Ranges{Intervals: make([]Interval, p.Columns), Level: p.Level, Queries: p.queries(), NoiseSD: p.NoiseSD()}
	for k := range p.Columns {
		values, err := column(k)
		if err != nil {
			return nil, err
		}
		if len(values) > maxRangeRows {
			return nil, fmt.Errorf("mech: %d rows, more than the %d private ranges can count exactly", len(values), maxRangeRows)
		}
		for _, v := range values {
			if !(v >= 0 && v <= 1) {
				return nil, fmt.Errorf("mech: a private range's column %d has the value %g outside [0, 1]", k, v)
			}
		}
		lo, err := p.search(values, p.Level, r)
		if err != nil {
			return nil, err
		}
		hi, err := p.search(values, 1-p.Level, r)
		if err != nil {
			return nil, err
		}
		out.Intervals[k] = p.interval(lo, hi)
	}
	rep, err := privacy.NewReport(p.base, privacy.ReportSpec{
		Mechanism:    "private ranges (noisy binary search for quantiles, " + p.noiseName() + ")",
		Paper:        "the Gaussian and Laplace mechanisms on counting queries, answered adaptively; Canonne, Kamath and Steinke 2020 for the discrete noise",
		Target:       privacy.Budget{Epsilon: p.budget.Epsilon, Delta: p.budget.Delta},
		Neighbouring: p.budget.Relation(),
		Sensitivity: privacy.Sensitivity{Value: p.gridSens, Of: fmt.Sprintf("%d counting queries released one at a time (%s of their answers)", p.queries(), p.sensitivityNorm()),
			Derivation: fmt.Sprintf("each query #{zᵢ ≤ t} − L·n (L = %g) changes by at most 1", p.Level) + " when a row is replaced (the count by 1, n not at all) and by at most 1 − L when a row is added or removed; " +
				"Q queries of sensitivity 1 compose like one release of Q coordinates of ℓ2 sensitivity √Q (ℓ1 Q), plus the grid's rounding"},
		Sampler:    p.sampler(),
		Randomness: randomness(r),
	})
	if err != nil {
		return nil, err
	}
	out.Report = rep
	return out, nil
}

// search returns the index in 0 … rangeGridSize of the smallest grid point whose noisy answer
// f_L(t) + noise is ≥ 0 (rangeGridSize when none is): exactly rangeSteps queries.
func (p *RangesPlan) search(values []float64, level float64, r *rng.Rand) (int, error) {
	n := float64(len(values))
	lo, hi := 0, rangeGridSize // the answer is in [lo, hi]
	in, out := make([]float64, 1), make([]float64, 1)
	for range rangeSteps {
		mid := (lo + hi) / 2
		t := p.points[mid]
		below := atMost(values, t)
		in[0] = float64(below) - level*n // exact: see the comment on private ranges
		watched := releasing(in)
		grid, err := p.add(r, out, in)
		if err != nil {
			return 0, err
		}
		released("private ranges", watched, out, 1, grid)
		if out[0] >= 0 {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	if lo != hi {
		return 0, errors.New("mech: internal error: the private ranges' search did not end")
	}
	return lo, nil
}

// atMost returns #{zᵢ ≤ t}, counted: the rangeSteps counts of a search cost less than sorting
// the column.
func atMost(values []float64, t float64) int {
	n := 0
	for _, v := range values {
		if v <= t {
			n++
		}
	}
	return n
}

// interval turns the searches' indices into a range: the grid point before the lower search's
// (0 for the first) and the upper search's (1 past the grid), with Hi moved to the grid point
// above Lo when the noise put it at or below Lo.
func (p *RangesPlan) interval(lo, hi int) Interval {
	at := func(i int) float64 {
		if i >= len(p.points) {
			return 1
		}
		return p.points[i]
	}
	lo = max(lo-1, 0)
	if lo >= len(p.points)-1 {
		lo = len(p.points) - 2 // Lo below 1, so that some grid point lies above it
	}
	if hi <= lo {
		hi = lo + 1
	}
	return Interval{Lo: at(lo), Hi: at(hi)}
}
