// Package audit tests a mechanism's privacy claim empirically, by the attack it defends
// against: run the mechanism many times on each of two neighbouring datasets, reduce each
// output to a scalar, and estimate, with Clopper–Pearson confidence bounds, the type I and
// type II errors of threshold tests that try to tell the datasets apart. A test whose errors
// (with confidence) fall below the claimed tradeoff function is a privacy bug; the same
// errors give a high-confidence lower bound on ε at the claimed δ.
//
// An audit can only see what its samples resolve: violations at moderate false-positive rates
// (0.01 to 0.5 at a few thousand runs), not those that live only at very large ε or tiny δ.
// Power reports the smallest error in μ an audit of a given size detects.
package audit

import (
	"context"
	"errors"
	"fmt"
	"github.com/privopt/privopt/pkg/detmath"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/privacy"
	"github.com/privopt/privopt/pkg/rng"
)

// Mechanism runs a mechanism once on a dataset with a random source and returns its output.
type Mechanism func(ctx context.Context, ds *data.Dataset, r *rng.Rand) ([]float64, error)

// Config sizes an audit.
type Config struct {
	// Runs is the number of runs on each dataset used for the test (default 2000).
	Runs int
	// Calibration is the number of runs on each dataset used only to choose the direction
	// onto which outputs are projected (default 200), so the test's runs are not reused.
	Calibration int
	// Level is the probability that an audit of a correct mechanism reports a violation
	// (default 1e-3). It is split by Bonferroni over the thresholds, the two tests at each (above
	// and below it) and their two error rates.
	Level float64
	// Thresholds is the number of thresholds tried, at quantiles of the calibration runs'
	// statistics (default 40, between the 1% and 99% quantiles).
	Thresholds int
	// Seed seeds the audit's randomness (default 1): every run draws from its own stream,
	// split from rng.Seeded(Seed) in order, so an audit is reproducible.
	Seed uint64
}

func (c *Config) defaults() {
	if c.Runs == 0 {
		c.Runs = 2000
	}
	if c.Calibration == 0 {
		c.Calibration = 200
	}
	if c.Level == 0 {
		c.Level = 1e-3
	}
	if c.Thresholds == 0 {
		c.Thresholds = 40
	}
	if c.Seed == 0 {
		c.Seed = 1
	}
}

// Point is one threshold test: "dataset 1" when the statistic exceeds the threshold, or, when
// Below, when it does not (the direction estimated from the calibration runs can point the
// wrong way when the datasets' outputs differ little, so both tests are made).
type Point struct {
	Threshold float64 `json:"threshold"`
	Below     bool    `json:"below"`
	// Alpha and Beta are the empirical type I error (on dataset 0) and type II error (on
	// dataset 1); AlphaUpper and BetaUpper their Clopper–Pearson upper confidence bounds.
	Alpha, Beta           float64
	AlphaUpper, BetaUpper float64
	// Claimed is the claimed tradeoff at AlphaUpper: a correct mechanism has β ≥ T(α).
	Claimed float64
}

// Result is the outcome of an audit.
type Result struct {
	Points []Point `json:"points"`
	// Violation is true when some test's errors, with confidence 1 − Level, fall below the
	// claimed tradeoff: BetaUpper < T(AlphaUpper). For a correct mechanism this happens with
	// probability at most Level.
	Violation bool `json:"violation"`
	// Worst is the test closest to (or furthest below) the claimed curve relative to it: the
	// smallest ratio BetaUpper/Claimed among the tests with Claimed > 0 (a ratio below 1 is a
	// violation); the first test when the claimed curve is 0 at every test.
	Worst Point `json:"worst"`
	// EpsilonLower is a lower bound, with confidence 1 − Level, on the ε of any (ε, δ) the
	// mechanism satisfies at the audited δ.
	EpsilonLower float64 `json:"epsilon_lower"`
	// Delta is the δ at which EpsilonLower holds.
	Delta float64 `json:"delta"`
	// MuLower is a lower bound, with confidence 1 − Level, on the μ of any μ-GDP guarantee the
	// mechanism satisfies: a μ-GDP mechanism has β ≥ Φ(Φ⁻¹(1 − α) − μ) for every test, so
	// μ ≥ Φ⁻¹(1 − α) − Φ⁻¹(β). It is the natural scale for Gaussian-like mechanisms, whose ε at a
	// tiny δ lives in tails a sampled audit cannot reach.
	MuLower float64 `json:"mu_lower"`
}

// Run audits a mechanism on the neighbouring datasets d0 and d1 against the claimed guarantee:
// it runs the mechanism cfg.Calibration times on each to choose the direction v (direction:
// mean₁ − mean₀, each coordinate divided by its variance),
// then cfg.Runs times on each, projects every output on v, and evaluates threshold tests.
// delta is the δ at which the lower bound on ε is reported.
func Run(ctx context.Context, mech Mechanism, d0, d1 *data.Dataset, claimed privacy.Curve, delta float64, cfg Config) (Result, error) {
	cfg.defaults()
	if cfg.Runs < 10 || cfg.Calibration < 1 || !(cfg.Level > 0 && cfg.Level < 1) || cfg.Thresholds < 1 {
		return Result{}, fmt.Errorf("audit: invalid configuration %+v", cfg)
	}
	base := rng.Seeded(cfg.Seed)
	sample := func(ds *data.Dataset, count int) ([][]float64, error) {
		out := make([][]float64, count)
		for i := range count {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			w, err := mech(ctx, ds, base.Split())
			if err != nil {
				return nil, err
			}
			out[i] = w
		}
		return out, nil
	}
	cal0, err := sample(d0, cfg.Calibration)
	if err != nil {
		return Result{}, err
	}
	cal1, err := sample(d1, cfg.Calibration)
	if err != nil {
		return Result{}, err
	}
	dir := direction(cal0, cal1)
	run0, err := sample(d0, cfg.Runs)
	if err != nil {
		return Result{}, err
	}
	run1, err := sample(d1, cfg.Runs)
	if err != nil {
		return Result{}, err
	}
	// Thresholds come from the calibration runs, so that each test's confidence bounds are
	// about samples independent of the choice of the test.
	thresholds := slices.Concat(project(cal0, dir), project(cal1, dir))
	slices.Sort(thresholds)
	return evaluate(project(run0, dir), project(run1, dir), thresholds, claimed, delta, cfg)
}

// direction returns the direction on which the audit projects the outputs: the difference of
// the calibration runs' means, each coordinate divided by its variance (pooled over both
// datasets) where that is positive, which is the best linear test for independent Gaussian
// coordinates of unequal variances (a mechanism whose noise is larger on some coordinates,
// such as noisy-gd with a bias coordinate, is audited where it is tight); in one dimension it
// is the difference of the means up to a positive factor, which leaves the tests unchanged.
// It depends on the calibration runs only, so the tests' runs stay independent of it.
func direction(cal0, cal1 [][]float64) []float64 {
	n := float64(len(cal0))
	mean := func(xs [][]float64, k int) float64 {
		s := 0.0
		for _, x := range xs {
			s += x[k]
		}
		return s / n
	}
	dir := make([]float64, len(cal0[0]))
	for k := range dir {
		m0, m1 := mean(cal0, k), mean(cal1, k)
		v := 0.0
		for i := range cal0 {
			v += (cal0[i][k]-m0)*(cal0[i][k]-m0) + (cal1[i][k]-m1)*(cal1[i][k]-m1)
		}
		dir[k] = m1 - m0
		if v > 0 {
			dir[k] /= v / (2*n - 2)
		}
	}
	if slices.Max(dir) == 0 && slices.Min(dir) == 0 {
		dir[0] = 1 // the outputs did not move: any direction will do
	}
	return dir
}

// project returns ⟨x, v⟩ for every output x.
func project(xs [][]float64, v []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		for k, vk := range v {
			out[i] += x[k] * vk
		}
	}
	return out
}

// evaluate computes the threshold tests of two samples of the statistic, at thresholds taken
// at quantiles of the sorted reference values (independent of s0 and s1).
func evaluate(s0, s1, reference []float64, claimed privacy.Curve, delta float64, cfg Config) (Result, error) {
	if len(s0) == 0 || len(s1) == 0 || len(reference) == 0 {
		return Result{}, errors.New("audit: no samples")
	}
	slices.Sort(s0)
	slices.Sort(s1)
	// Each threshold gives two tests (above and below it) of two upper bounds each; all must
	// hold for the claim, so the level is split over 4·Thresholds bounds.
	conf := cfg.Level / float64(4*cfg.Thresholds)
	res := Result{Delta: delta}
	worstRatio := math.Inf(1)
	for k := range cfg.Thresholds {
		q := 0.01 + 0.98*float64(k)/float64(max(cfg.Thresholds-1, 1))
		t := reference[int(q*float64(len(reference)-1))]
		above0 := len(s0) - upperIndex(s0, t) // on dataset 0, above the threshold
		below1 := upperIndex(s1, t)           // on dataset 1, at or below it
		for _, below := range []bool{false, true} {
			errI, errII := above0, below1 // said "1" on dataset 0; said "0" on dataset 1
			if below {
				errI, errII = len(s0)-above0, len(s1)-below1
			}
			p := Point{Threshold: t, Below: below,
				Alpha: float64(errI) / float64(len(s0)), Beta: float64(errII) / float64(len(s1)),
				AlphaUpper: clopperPearsonUpper(errI, len(s0), conf),
				BetaUpper:  clopperPearsonUpper(errII, len(s1), conf)}
			p.Claimed = claimed.Tradeoff(p.AlphaUpper)
			res.Points = append(res.Points, p)
			if len(res.Points) == 1 {
				res.Worst = p
			}
			if p.Claimed > 0 && p.BetaUpper/p.Claimed < worstRatio {
				worstRatio, res.Worst = p.BetaUpper/p.Claimed, p
			}
			if p.BetaUpper < p.Claimed {
				res.Violation = true
			}
			// An (ε, δ)-DP mechanism has α + e^ε·β ≥ 1 − δ and β + e^ε·α ≥ 1 − δ.
			res.EpsilonLower = math.Max(res.EpsilonLower, epsilonLower(p.AlphaUpper, p.BetaUpper, delta))
			res.EpsilonLower = math.Max(res.EpsilonLower, epsilonLower(p.BetaUpper, p.AlphaUpper, delta))
			if p.AlphaUpper < 1 && p.BetaUpper < 1 {
				res.MuLower = math.Max(res.MuLower, detmath.NormalTailInverse(p.AlphaUpper)+detmath.NormalTailInverse(p.BetaUpper))
			}
		}
	}
	return res, nil
}

// upperIndex returns the number of elements of the sorted xs that are ≤ t.
func upperIndex(xs []float64, t float64) int {
	i, found := slices.BinarySearch(xs, t)
	for found && i < len(xs) && xs[i] == t {
		i++
	}
	return i
}

// epsilonLower returns the smallest ε compatible with a test whose errors are at most
// (alpha, beta): any (ε, δ)-DP mechanism has α + e^ε·β ≥ 1 − δ and β + e^ε·α ≥ 1 − δ, so
// ε ≥ log((1 − δ − β)/α) (Kairouz, Oh and Viswanath 2015). It returns 0 when that is not positive.
func epsilonLower(alpha, beta, delta float64) float64 {
	if alpha <= 0 || 1-delta-beta <= alpha {
		return 0
	}
	return math.Log((1 - delta - beta) / alpha)
}

// clopperPearsonUpper returns the one-sided upper confidence bound, at confidence 1 − level,
// on a binomial proportion after k successes in n trials: the (1 − level) quantile of
// Beta(k + 1, n − k) (1 when k = n).
func clopperPearsonUpper(k, n int, level float64) float64 {
	if k >= n {
		return 1
	}
	return distuv.Beta{Alpha: float64(k + 1), Beta: float64(n - k)}.Quantile(1 - level)
}

// Power returns the smallest μ_true/μ_claimed ratio that an audit of a Gaussian-DP claim with
// the given runs per dataset and level detects with probability about one half: a μ_true-GDP
// mechanism whose projected statistic is exactly Gaussian, audited at the best threshold,
// whose expected empirical errors fall below the claimed tradeoff by the width of the
// Clopper–Pearson bounds. It is computed by a search over thresholds and μ_true.
func Power(muClaimed float64, runs, thresholds int, level float64) float64 {
	claimed := privacy.GDP{Mu: muClaimed}
	conf := level / float64(4*thresholds)
	detects := func(muTrue float64) bool {
		for k := range 200 {
			alpha := 0.005 + 0.99*float64(k)/199
			x := detmath.NormalTailInverse(alpha) // threshold on N(0, 1) for dataset 0
			beta := detmath.NormalCDF(x - muTrue) // type II error on N(μ_true, 1)
			ka, kb := int(math.Round(alpha*float64(runs))), int(math.Round(beta*float64(runs)))
			au, bu := clopperPearsonUpper(ka, runs, conf), clopperPearsonUpper(kb, runs, conf)
			if bu < claimed.Tradeoff(au) {
				return true
			}
		}
		return false
	}
	lo, hi := 1.0, 1.0
	for !detects(muClaimed * hi) {
		hi *= 1.5
		if hi > 1e3 {
			return math.Inf(1)
		}
	}
	for range 40 {
		mid := (lo + hi) / 2
		if detects(muClaimed * mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}
