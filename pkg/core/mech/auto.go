package mech

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"github.com/privopt/privopt/pkg/core/cost"
	"math"
	"math/bits"
	"strings"
	"time"

	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/privacy"
	"github.com/privopt/privopt/pkg/rng"
)

// Auto tunes noisy-gd privately and releases the model of the configuration that scored best.
//
// Releases: one model, the configuration it came from and its noisy validation score.
// Guarantee: (ε, δ)-DP under either relation, with δ > 0, for the whole procedure: the
// validation rows are split from the data (a uniform random split of public sizes under
// replace-one, data.SplitByContent under add/remove); K runs are made, K drawn from the
// logarithmic (or geometric) law with γ = 1/Runs, each fitting a configuration drawn uniformly from a public grid (noisy-gd's settings, a
// formula of the problem) on the other rows with ρ-zCDP noise and scoring it on the
// validation rows by a sum of per-row terms in [0, 1] with discrete Gaussian noise of the same
// ρ; only the best-scored run is released. Each run is ρ-zCDP (a row is on one side of the
// split only), and the release is RDP by Papernot and Steinke 2022, Theorem 2
// (privacy.RandomStopping), which sets ρ from (ε, δ). Neither K nor the other runs are released
// (they are local diagnostics). Utility: none proven; it is the best of the candidates' up to
// the score's noise. Settings: Stopping (K's law), Runs (1/γ) and Validation (the validation
// share).
type Auto struct {
	// Stopping is the law of the number of runs K: "logarithmic" (the default) or "geometric"
	// (privacy.Stopping).
	Stopping string
	// Runs is 1/γ of K's law, a power of two from 2 to 64 (0: the default, 32 for the
	// logarithmic, E[K] = (Runs − 1)/ln Runs = 8.94, and 8 for the geometric, E[K] = Runs).
	Runs int
	// Validation is the share of the tuning rows that score the candidates, in (0, 1) (0: the
	// default, 0.2).
	Validation float64
	// Tuning is the share of the rows the candidates use, in (0, 1]. Below 1, the selected
	// configuration is then fitted on the other rows with the whole budget, and the guarantee
	// is the worse of the selection's and that fit's (privacy.Parallel); at 1, the
	// best-scored candidate's own model is released (0: the default, 0.1).
	Tuning float64
}

// The laws of Auto's number of runs.
const (
	stopLogarithmic = "logarithmic"
	stopGeometric   = "geometric"
)

// Defaults of Auto's settings.
const (
	defaultAutoLogRuns    = 32
	defaultAutoGeoRuns    = 8
	defaultAutoValidation = 0.2
	defaultAutoTuning     = 0.1
)

// autoCandidate is a configuration of the grid: noisy-gd with some settings changed.
type autoCandidate struct {
	name string
	mech NoisyGD
}

// autoGrid returns the grid of configurations for a problem: noisy-gd's defaults and one knob
// turned each, those whose change moved a validation measure of the development suite
// (docs/auto.md); the features as encoded only where the defaults use symmetric ones (rows with
// a FitScale factor and a bias).
func autoGrid(p Problem) []autoCandidate {
	grid := []autoCandidate{
		{name: "noisy-gd's defaults"},
		{name: "clipping at 0.3", mech: NoisyGD{Clip: 0.3}},
		{name: "step scale 16", mech: NoisyGD{StepScale: 16}},
		{name: "no preconditioner", mech: NoisyGD{NoPrecondition: true}},
	}
	if newSymmetricMap(p) != nil {
		grid = append(grid, autoCandidate{name: "numeric features as encoded", mech: NoisyGD{NoSymmetric: true}})
	}
	return grid
}

func (Auto) Name() string { return "auto" }

func (Auto) Paper() string {
	return "Papernot and Steinke, Hyperparameter Tuning with Rényi Differential Privacy (ICLR 2022), Theorem 2; noisy-gd for the candidates"
}

// Plan fixes the split's sizes, ρ, the candidates' plans and the score's noise.
func (a Auto) Plan(b privacy.Budget, p Problem) (Plan, error) {
	if err := ValidateBudget(b); err != nil {
		return nil, err
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if b.Delta == 0 {
		return nil, errors.New("mech: auto needs δ > 0 (its candidates add Gaussian noise)")
	}
	a.Stopping = cmp.Or(a.Stopping, stopLogarithmic)
	if a.Stopping != stopLogarithmic && a.Stopping != stopGeometric {
		return nil, fmt.Errorf("mech: auto's Stopping is %q or %q (have %q)", stopLogarithmic, stopGeometric, a.Stopping)
	}
	if a.Stopping == stopLogarithmic {
		a.Runs = cmp.Or(a.Runs, defaultAutoLogRuns)
	} else {
		a.Runs = cmp.Or(a.Runs, defaultAutoGeoRuns)
	}
	a.Validation = cmp.Or(a.Validation, defaultAutoValidation)
	a.Tuning = cmp.Or(a.Tuning, defaultAutoTuning)
	if a.Runs < 2 || a.Runs > 64 || bits.OnesCount(uint(a.Runs)) != 1 {
		return nil, fmt.Errorf("mech: auto needs Runs a power of two from 2 to 64 (have %d)", a.Runs)
	}
	if !(a.Validation > 0 && a.Validation < 1) {
		return nil, fmt.Errorf("mech: auto needs Validation in (0, 1) (have %g)", a.Validation)
	}
	if !(a.Tuning > 0 && a.Tuning <= 1) {
		return nil, fmt.Errorf("mech: auto needs Tuning in (0, 1] (have %g)", a.Tuning)
	}
	pl := &autoPlan{mech: a, problem: p, budget: b, stopping: privacy.Stopping{Gamma: 1 / float64(a.Runs), Logarithmic: a.Stopping == stopLogarithmic}}
	tuning, final := p, p // under add/remove every part keeps the declared N, a bound on its rows
	if b.Relation() == privacy.ReplaceOne {
		var rows int
		if rows, pl.validRows = a.split(p.N); pl.validRows < 1 {
			return nil, fmt.Errorf("mech: auto needs at least %d rows (it tunes on a share %g of them and scores its candidates on a share %g of those, each part at least one row); "+
				"these %d rows are too few: use noisy-gd", a.minRows(), a.Tuning, a.Validation, p.N)
		}
		if a.Tuning < 1 {
			pl.tuningRows, tuning.N, final.N = rows, rows, p.N-rows
		}
	}
	train := tuning
	train.N -= pl.validRows
	var err error
	if pl.rho, err = privacy.CalibrateRandomStopping(pl.stopping, b.Epsilon, b.Delta); err != nil {
		return nil, err
	}
	c, err := privacy.ZCDP(pl.rho)
	if err != nil {
		return nil, err
	}
	eps, err := c.Epsilon(b.Delta)
	if err != nil {
		return nil, err
	}
	cb := privacy.Budget{Epsilon: math.Max(eps, b.Epsilon*0x1p-30), Delta: b.Delta, Neighbouring: b.Relation()}
	pl.grid = autoGrid(p)
	for _, cand := range pl.grid {
		m := cand.mech
		m.zcdp = pl.rho
		cpl, err := m.Plan(cb, train)
		if err != nil {
			return nil, err // the problem's: every candidate is noisy-gd on it
		}
		if rho := cpl.Parameters()["rho_zcdp"]; !(rho <= pl.rho) {
			return nil, fmt.Errorf("mech: internal error: auto's candidate %q is %g-zCDP, above ρ = %g", cand.name, rho, pl.rho)
		}
		pl.plans = append(pl.plans, cpl)
		if a.Tuning < 1 {
			fpl, err := cand.mech.Plan(b, final)
			if err != nil {
				return nil, err
			}
			pl.finals = append(pl.finals, fpl)
		}
	}
	if regression(p.Loss.Name) && !(p.Bounds.Y > 0 && !math.IsInf(p.Bounds.Y, 1)) {
		return nil, fmt.Errorf("mech: auto scores a regression model on a bounded label; the label's bound is %g", p.Bounds.Y)
	}
	pl.score = vectorNoise{noise: noiseDiscreteGaussian, coords: 1, rho: pl.rho}
	if err := pl.score.calibrate(cb, 1, 1); err != nil {
		return nil, err
	}
	if pl.selection, err = privacy.RandomStopping(pl.rho, pl.stopping); err != nil {
		return nil, err
	}
	pl.guarantee = pl.selection
	target := privacy.Budget{Epsilon: b.Epsilon, Delta: b.Delta}
	if len(pl.finals) > 0 {
		worst := privacy.Parallel{pl.selection}
		for _, f := range pl.finals {
			worst = append(worst, f.Guarantee())
		}
		// One bound for the final fits, unless it is too loose to meet the budget (their μ may
		// differ in their last digits, and each meets the budget alone).
		if bound := finalsBound(pl.finals); bound != nil && target.Meets(privacy.Parallel{pl.selection, bound}) {
			worst = privacy.Parallel{pl.selection, bound}
		}
		pl.guarantee = worst
	}
	if !target.Meets(pl.guarantee) {
		return nil, fmt.Errorf("mech: internal error: auto's guarantee %v does not meet its budget", pl.guarantee)
	}
	return pl, nil
}

// split returns, for n rows under replace-one, the rows auto tunes on (all n when Tuning is 1)
// and the rows of those it scores its candidates on, or 0 scoring rows when a part (the tuning
// rows' fit and score parts, and the rest that the final fit takes) would be empty.
func (a Auto) split(n int) (tuningRows, validRows int) {
	tuningRows = n
	if a.Tuning < 1 {
		if tuningRows = int(math.Round(a.Tuning * float64(n))); tuningRows < 2 || n-tuningRows < 1 {
			return tuningRows, 0
		}
	}
	if validRows = int(math.Round(a.Validation * float64(tuningRows))); tuningRows-validRows < 1 {
		return tuningRows, 0
	}
	return tuningRows, validRows
}

// minRows returns the fewest rows that split divides into parts none of which is empty.
func (a Auto) minRows() int {
	n := 2
	for ; n < 1<<20; n++ {
		if _, v := a.split(n); v > 0 {
			break
		}
	}
	return n
}

// finalsBound returns one curve at least as bad everywhere as every final fit's guarantee, when
// they are all μ-GDP up to a sampler's total variation (noisy-gd's): the largest μ with the
// largest TV, since δ(ε) grows with each. It keeps the guarantee's profile cheap to evaluate
// (the page draws its tradeoff function from it). Else it returns nil.
func finalsBound(plans []Plan) privacy.Curve {
	mu, tv := 0.0, 0.0
	for _, p := range plans {
		g := p.Guarantee()
		if w, ok := g.(privacy.WithSamplerError); ok {
			g, tv = w.Base, math.Max(tv, w.TV)
		}
		gdp, ok := g.(privacy.GDP)
		if !ok {
			return nil
		}
		mu = math.Max(mu, gdp.Mu)
	}
	if tv == 0 {
		return privacy.GDP{Mu: mu}
	}
	return privacy.WithSamplerError{Base: privacy.GDP{Mu: mu}, TV: tv}
}

type autoPlan struct {
	mech       Auto
	problem    Problem
	budget     privacy.Budget
	stopping   privacy.Stopping // γ = 1/Runs, a power of two
	rho        float64          // each run's zCDP
	tuningRows int              // under replace-one with Tuning < 1; else 0
	validRows  int              // under replace-one; 0 under add/remove
	grid       []autoCandidate  // autoGrid's
	plans      []Plan           // grid's on the tuning rows, in order
	finals     []Plan           // grid's on the other rows at the whole budget; nil at Tuning 1
	score      vectorNoise
	selection  privacy.RDP   // the selection's, on the tuning rows
	guarantee  privacy.Curve // the selection's, or the worse of it and the finals'
}

func (pl *autoPlan) Guarantee() privacy.Curve { return pl.guarantee }

func (pl *autoPlan) Utility() Utility {
	return Utility{Bound: math.Inf(1), Statement: "none proven: the release is the best-scored of the candidates' models, up to the score's noise"}
}

// Cost is E[K] times the mean cost of a candidate, plus the mean cost of the final fit.
func (pl *autoPlan) Cost() cost.Cost {
	tuning, final := pl.costs()
	return cost.Cost{Steps: tuning.Steps + final.Steps, Queries: tuning.Queries + final.Queries,
		Gradients: tuning.Gradients + final.Gradients, Draws: tuning.Draws + final.Draws}
}

// costs returns the expected costs of the tuning runs and of the final fit (zero at Tuning 1).
func (pl *autoPlan) costs() (tuning, final cost.Cost) {
	mean := func(plans []Plan, f float64) cost.Cost {
		var c cost.Cost
		f /= float64(len(pl.grid))
		for _, p := range plans {
			pc := p.Cost()
			c.Steps += f * pc.Steps
			c.Queries += f * pc.Queries
			c.Gradients += f * pc.Gradients
			c.Draws += f * pc.Draws
		}
		return c
	}
	return mean(pl.plans, pl.stopping.Mean()), mean(pl.finals, 1)
}

func (pl *autoPlan) Parameters() map[string]float64 {
	return map[string]float64{
		"expected_runs":      pl.stopping.Mean(),
		"candidates":         float64(len(pl.plans)),
		"validation_share":   pl.mech.Validation,
		"tuning_share":       pl.mech.Tuning,
		"tuning_rows":        float64(pl.tuningRows),
		"rho_zcdp_per_run":   pl.rho,
		"score_sigma":        pl.score.scale,
		"validation_rows":    float64(pl.validRows),
		"stopping_prob":      pl.stopping.Gamma,
		"score_grid_spacing": pl.score.grid.Spacing(),
	}
}

// autoRun is one candidate run: its configuration, model and noisy score.
type autoRun struct {
	candidate int
	release   *Release
	score     float64
}

// better orders the runs' outputs totally: the higher score, then the earlier configuration
// of the grid, then the lexicographically smaller weights.
func (a autoRun) better(b autoRun) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	if a.candidate != b.candidate {
		return a.candidate < b.candidate
	}
	for i, w := range a.release.Model.Weights {
		if v := b.release.Model.Weights[i]; w != v {
			return w < v
		}
	}
	return false
}

// Run splits the rows, draws K, runs K candidates, and releases the best-scored one or, below
// Tuning 1, its configuration fitted on the rows the candidates did not use.
func (pl *autoPlan) Run(ctx context.Context, ds *data.Dataset, r *rng.Rand, progress func(Progress)) (*Release, error) {
	start := time.Now()
	if pl.budget.Relation() == privacy.ReplaceOne && ds.N != pl.problem.N {
		return nil, fmt.Errorf("mech: the data has %d rows, the plan was made for %d", ds.N, pl.problem.N)
	}
	tuning, final := ds, (*data.Dataset)(nil)
	if len(pl.finals) > 0 {
		var err error
		if final, tuning, err = pl.split(ds, pl.tuningRows, pl.mech.Tuning, r); err != nil {
			return nil, err
		}
	}
	train, valid, err := pl.split(tuning, pl.validRows, pl.mech.Validation, r)
	if err != nil {
		return nil, err
	}
	tc, fc := pl.costs()
	share := 1.0 // of the progress bar the tuning runs fill
	if len(pl.finals) > 0 {
		share = tc.Gradients / (tc.Gradients + fc.Gradients)
	}
	var best autoRun
	runs := []string{}
	kmax := pl.draws(r)
	for k := 1; k <= kmax; k++ {
		c := r.IntN(len(pl.plans))
		step := func(p Progress) {
			if progress != nil {
				progress(Progress{Fraction: share * p.Fraction, Stage: fmt.Sprintf("run %d (%s): %s", k, pl.grid[c].name, p.Stage)})
			}
		}
		rel, err := pl.plans[c].Run(ctx, train, r, step)
		if err != nil {
			return nil, err // nothing is released: a stopped procedure releases no model
		}
		score, err := pl.scoreOf(valid, rel.Model.Weights, r)
		if err != nil {
			return nil, err
		}
		run := autoRun{candidate: c, release: rel, score: score}
		if k == 1 || run.better(best) {
			best = run
		}
		runs = append(runs, fmt.Sprintf("%s: %.6g", pl.grid[c].name, score))
		if progress != nil {
			progress(Progress{Fraction: share * pl.below(k), Stage: fmt.Sprintf("run %d done", k)})
		}
	}
	if len(pl.finals) > 0 {
		step := func(p Progress) {
			if progress != nil {
				progress(Progress{Fraction: share + (1-share)*p.Fraction, Stage: fmt.Sprintf("the selected %s on the other rows: %s", pl.grid[best.candidate].name, p.Stage)})
			}
		}
		rel, err := pl.finals[best.candidate].Run(ctx, final, r, step)
		if err != nil {
			return nil, err
		}
		best.release = rel
	}
	return pl.release(best, kmax, runs, ds, r, start)
}

// split holds out rows of ds: rows of them under replace-one (a uniform random split of that
// public size), else a share by content (data.SplitByContent, with a random key). The split
// does not depend on the data, so each row is on one side only.
func (pl *autoPlan) split(ds *data.Dataset, rows int, share float64, r *rng.Rand) (rest, held *data.Dataset, err error) {
	if pl.budget.Relation() != privacy.ReplaceOne {
		return data.SplitByContent(ds, share, r.Uint64())
	}
	rest, held, err = data.Split(ds, float64(rows)/float64(ds.N), r)
	if err == nil && held.N != rows {
		err = fmt.Errorf("mech: internal error: the split holds out %d rows, the plan %d", held.N, rows)
	}
	return rest, held, err
}

// draws draws the number of runs K, exactly, from random bits: a geometric K (each of the
// trials stops with probability γ = 2^−j, from j random bits), and for the logarithmic law
// that K accepted with probability 1/K (a uniform integer below K is 0), else drawn again:
// P(K = k) ∝ γ(1 − γ)^(k−1)/k ∝ (1 − γ)^k/k. The acceptance averages γ·log(1/γ)/(1 − γ)
// (0.11 at γ = 1/32), and the draws cost no fit.
func (pl *autoPlan) draws(r *rng.Rand) int {
	j := bits.TrailingZeros(uint(pl.mech.Runs))
	for {
		k := 1
		for r.Uint64()>>(64-j) != 0 {
			k++
		}
		if !pl.stopping.Logarithmic || r.IntN(k) == 0 {
			return k
		}
	}
}

// below returns P(K ≤ k), the progress bar's estimate of the fraction done after k runs: it
// does not show K, which stays a local diagnostic.
func (pl *autoPlan) below(k int) float64 {
	g := pl.stopping.Gamma
	if !pl.stopping.Logarithmic {
		return 1 - math.Pow(1-g, float64(k))
	}
	sum, term := 0.0, 1.0
	for i := 1; i <= k; i++ {
		term *= 1 - g
		sum += term / float64(i)
	}
	return min(sum/-math.Log(g), 1)
}

// scoreOf releases the noisy score of weights w on the validation rows: the number of rows
// classified right, or for a regression model Σ 1 − q(((y − ŷ)/2Y)²) with ŷ clipped to
// [−Y, Y] and q the evaluation's rounding to 2⁻²⁰; each row's term is in [0, 1], so the sum's
// sensitivity is 1 under both relations.
func (pl *autoPlan) scoreOf(ds *data.Dataset, w []float64, r *rng.Rand) (float64, error) {
	p := pl.problem
	classes := 0
	if p.Loss.Name == LossMultinomial {
		classes = p.Loss.Classes
	}
	y := p.Bounds.Y
	sum := 0.0
	x := make([]float64, ds.D)
	for i := range ds.N {
		x = ds.Row(i, x)
		label := ds.Y[i]
		switch {
		case regression(p.Loss.Name):
			if !(math.Abs(label) <= y) {
				return 0, fmt.Errorf("mech: a validation label %g is outside [−%g, %g]", label, y, y)
			}
			e := (label - min(max(dot(w, x), -y), y)) / (2 * y)
			sum += 1 - quantize(e*e)
		case classes > 0:
			if argmaxScore(w, x, classes) == int(label) {
				sum++
			}
		case (dot(w, x) >= 0) == (label > 0):
			sum++
		}
	}
	in, out := []float64{sum}, []float64{0}
	watched := releasing(in)
	grid, err := pl.score.add(r, out, in)
	if err != nil {
		return 0, err
	}
	released("auto's validation score", watched, out, 1, grid)
	return out[0], nil
}

// release builds the released model's report from the best run, and keeps K and every run's
// score in the local diagnostics.
func (pl *autoPlan) release(best autoRun, k int, runs []string, ds *data.Dataset, r *rng.Rand, start time.Time) (*Release, error) {
	b := pl.budget
	rep, err := privacy.NewReport(pl.guarantee, privacy.ReportSpec{
		Mechanism:    "auto (private selection among noisy-gd configurations by a random number of runs)",
		Paper:        pl.mech.Paper(),
		Target:       privacy.Budget{Epsilon: b.Epsilon, Delta: b.Delta},
		Neighbouring: b.Relation(),
		Sensitivity: privacy.Sensitivity{Value: 1, Of: "the validation score, a sum of per-row terms in [0, 1]",
			Derivation: pl.tuningPart() + fmt.Sprintf("each run fits one of %d configurations (%s) drawn uniformly, with noisy-gd's own calibration at ρ = %.6g, on the rows not held out, and adds discrete Gaussian noise (σ = %.6g) to its score on the %s held-out rows; a row is on one side only, so each run is %.6g-zCDP",
				len(pl.plans), pl.gridNames(), pl.rho, pl.score.scale, pl.heldOut(), pl.rho) + pl.finalPart()},
		Sampler:    privacy.SamplerStatus{Exact: true, Statement: fmt.Sprintf("no sampler: the %s is drawn exactly from random bits, and every noise is exact discrete Gaussian noise on a grid (floating-point safe)", pl.stopping)},
		Randomness: randomness(r),
	})
	if err != nil {
		return nil, err
	}
	if len(pl.finals) == 0 {
		rep.Statement += fmt.Sprintf(" The procedure made a %s, each fitting a candidate (the number is not released), and released only the best-scored one, configuration %q with noisy validation score %.6g; the guarantee covers the whole procedure (Papernot and Steinke 2022, Theorem 2, converted to (ε, δ) by Canonne, Kamath and Steinke 2020).",
			pl.stopping, pl.grid[best.candidate].name, best.score)
	} else {
		rep.Statement += fmt.Sprintf(" The procedure made a %s on a share %g of the rows, each fitting a candidate (the number is not released), selected configuration %q by its noisy validation score %.6g, and released that configuration fitted by noisy-gd with the whole budget on the other rows; the guarantee covers the whole procedure: the selection's (Papernot and Steinke 2022, Theorem 2, converted to (ε, δ) by Canonne, Kamath and Steinke 2020) and the final fit's are each within the budget, and since the two parts of the rows are disjoint the whole is within the worse of the two.",
			pl.stopping, pl.mech.Tuning, pl.grid[best.candidate].name, best.score)
	}
	if d := best.release.Diagnostics.Details; len(pl.finals) > 0 && d["steps_taken"] < d["steps_planned"] {
		rep.Statement += fmt.Sprintf(" The final fit was stopped early, after %g of its %g steps: the model is that of the steps taken, and the guarantee above, which counts all of them, holds.",
			d["steps_taken"], d["steps_planned"])
	}
	ps := pl.Parameters()
	ps["selected_candidate"] = float64(best.candidate)
	ps["selected_score"] = best.score
	rel := &Release{Model: newModel(pl.problem, ds, best.release.Model.Weights), Report: rep, Utility: pl.Utility(), Parameters: ps}
	rel.Diagnostics = best.release.Diagnostics
	rel.Diagnostics.Seconds = time.Since(start).Seconds()
	rel.Diagnostics.Details = map[string]float64{"runs": float64(k)}
	rel.Diagnostics.NotPrivate = notPrivate + "; the runs and their scores: " + strings.Join(runs, "; ")
	return rel, nil
}

func (pl *autoPlan) gridNames() string {
	names := make([]string, len(pl.grid))
	for i, c := range pl.grid {
		names[i] = c.name
	}
	return strings.Join(names, ", ")
}

// tuningPart states, for the report, the split into tuning rows and the others (nothing at
// Tuning 1).
func (pl *autoPlan) tuningPart() string {
	switch {
	case len(pl.finals) == 0:
		return ""
	case pl.tuningRows > 0:
		return fmt.Sprintf("the rows are split at random into %d tuning rows and %d others; on the tuning rows, ", pl.tuningRows, pl.problem.N-pl.tuningRows)
	}
	return fmt.Sprintf("the rows are split by their content with a random key into tuning rows (a private number, about %g of them) and the others; on the tuning rows, ", pl.mech.Tuning)
}

// finalPart states, for the report, how the selected configuration is fitted on the other rows
// (nothing at Tuning 1).
func (pl *autoPlan) finalPart() string {
	if len(pl.finals) == 0 {
		return ""
	}
	return "; the selected configuration is then fitted by noisy-gd with its own calibration at the whole budget on the other rows, and a row is in one part only, so the whole is within the worse of the two guarantees"
}

// heldOut names the number of validation rows for the report.
func (pl *autoPlan) heldOut() string {
	if pl.validRows > 0 {
		return fmt.Sprint(pl.validRows)
	}
	return fmt.Sprintf("(private number of, about %g of the)", pl.mech.Validation)
}
