package audit

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/geom"
	"github.com/privopt/privopt/pkg/core/loss"
	"github.com/privopt/privopt/pkg/core/mech"
	"github.com/privopt/privopt/pkg/core/privacy"
	"github.com/privopt/privopt/pkg/rng"
)

// Case is the audit of one registered mechanism, with its default settings, on a pair of
// neighbouring datasets on which its guarantee is tight (or as close to tight as the pairs of
// this package allow).
type Case struct {
	// Mechanism is the mechanism's name in the registry of pkg/core/mech.
	Mechanism string `json:"mechanism"`
	// Settings, when not nil, replace the registry's default settings (a setting the defaults
	// cannot use in one dimension, as REM in ℓ1, which needs d ≥ 3).
	Settings mech.Mechanism `json:"-"`
	// Variant says what distinguishes two cases of one mechanism ("" when it has one).
	Variant string `json:"variant,omitempty"`
	// Budget is the privacy target the mechanism is planned for.
	Budget privacy.Budget `json:"budget"`
	// Problem is the public problem; Pair builds the two datasets from Problem.N (of N rows
	// each for replace-one, of N − 1 and N rows for add/remove).
	Problem mech.Problem `json:"problem"`
	// PairName names the pair of datasets ("hinge" or "huber").
	PairName string                             `json:"pair"`
	Pair     func(n int) (d0, d1 *data.Dataset) `json:"-"`
}

// auditN is the number of rows of the audited datasets: small, so that one flipped record
// moves the output far, and the runs are cheap.
const auditN = 10

// HingeProblem is the problem of HingePair with n rows: the hinge loss in one dimension with
// ‖x‖ ≤ 1 on the whole line, at the radius 0.2, where the mechanisms' outputs stay in |w| < 1
// (the region where the pair is tight).
func HingeProblem(n int) mech.Problem {
	return mech.Problem{Loss: mech.LossSpec{Name: mech.LossHinge}, Dim: 1, N: n, Bounds: loss.Bounds{X: 1, XNorm: 2, Y: 1},
		Domain: geom.Whole{D: 1}, Radius: 0.2}
}

// HuberProblem is the problem of HuberPair with n rows: the Huber loss with threshold 0.1 in one
// dimension on the whole line, at the radius 0.3, where the outputs stay in |w| < 0.9.
func HuberProblem(n int) mech.Problem {
	return mech.Problem{Loss: mech.LossSpec{Name: mech.LossHuber, Param: 0.1}, Dim: 1, N: n, Bounds: loss.Bounds{X: 1, XNorm: 2, Y: 1},
		Domain: geom.Whole{D: 1}, Radius: 0.3}
}

// auditBox is the parameter box [−0.8, 0.8] of the mechanisms that need a bounded domain: the
// Huber pair is tight on it.
func auditBox() *geom.Box {
	b, err := geom.NewBox([]float64{-0.8}, []float64{0.8})
	if err != nil {
		panic(err) // a valid constant box
	}
	return b
}

// auditBall is the ℓ2 ball |w| ≤ 0.8 in one dimension (the hinge pair is tight inside).
func auditBall() *geom.Ball {
	b, err := geom.NewBall(1, 2, 0.8, nil)
	if err != nil {
		panic(err) // a valid constant ball
	}
	return b
}

// Cases returns the audits of every registered mechanism, in the order of mech.Names (a
// mechanism with two guarantees, pure ε and (ε, δ), has a case for each). The budgets are
// moderate (ε of 2 or 3, δ = 1e-6 where the mechanism needs one), where a sampled tradeoff
// curve has power.
func Cases() []Case {
	hinge := func(name string, b privacy.Budget) Case {
		return Case{Mechanism: name, Budget: b, Problem: HingeProblem(auditN), PairName: "hinge", Pair: HingePair}
	}
	huber := func(name string, b privacy.Budget) Case {
		return Case{Mechanism: name, Budget: b, Problem: HuberProblem(auditN), PairName: "huber", Pair: HuberPair}
	}
	boxed := func(c Case) Case {
		c.Problem.Domain = auditBox()
		c.PairName += " on [−0.8, 0.8]"
		return c
	}
	pureRashomon := boxed(huber("rashomon", privacy.Budget{Epsilon: 2}))
	pureRashomon.Variant = "pure ε"
	langevinRashomon := huber("rashomon", privacy.Budget{Epsilon: 3, Delta: 1e-6})
	langevinRashomon.Variant = "(ε, δ): Langevin"
	// noisy-gd's release averages half its iterates, far less than its accounting charges
	// (which covers the whole trajectory); with one step its release is one noisy step, where
	// the accounting is tight enough for the audit to test its calibration.
	oneStep := huber("noisy-gd", privacy.Budget{Epsilon: 3, Delta: 1e-6})
	oneStep.Settings, oneStep.Variant = mech.NoisyGD{MaxSteps: 1}, "one step"
	// With a declared bias coordinate, noisy-gd's noise on the features of a margin loss is
	// 0.729 times the isotropic one (a regression loss keeps isotropic noise); one step on
	// BiasPair tests that reduction.
	biasStep := oneStep
	biasStep.Problem = mech.Problem{Loss: mech.LossSpec{Name: mech.LossSmoothHinge, Param: 0.1}, Dim: 2, N: auditN,
		Bounds: loss.Bounds{X: 1, XNorm: 2, Y: 1, Bias: math.Sqrt2 / 2}, Domain: geom.Whole{D: 2}, Radius: 0.3}
	biasStep.Variant, biasStep.PairName, biasStep.Pair = "one step, bias shaping", "bias", BiasPair
	// REM on an ℓ2 ball runs the certified float64 sampler's ball path (in one dimension its
	// proposals are truncated normals; the radial draws are tested in pkg/sampler), like the
	// whole space's case below: the floating-point-safe sampler takes 145 s on this case, and
	// its ball draws are tested in pkg/sampler (TestSafeBall*, TestSafeOracleAlone).
	remBall := hinge("rem", privacy.Budget{Epsilon: 2, Delta: 1e-6})
	remBall.Problem.Domain, remBall.Variant = auditBall(), "ℓ2 ball, float64 sampler"
	remBall.Settings = mech.REM{FloatSampler: true}
	remBall.PairName += " on |w| ≤ 0.8"
	// REM in ℓp runs its float64 sampler too (the safe one took 569 s on this case; its
	// target's bounds are tested in pkg/core/mech, TestLpRemainderRounding).
	remLp := boxed(huber("rem-lp", privacy.Budget{Epsilon: 2, Delta: 1e-6}))
	remLp.Settings, remLp.Variant = mech.REMLp{Norm: 1.5, FloatSampler: true}, "p = 1.5, float64 sampler"
	// Add/remove pairs of different sizes (a row at the bound added), planned for the public
	// N = auditN: the sensitivity is half the replace-one one, so these test that the
	// mechanisms divide by the declared N and calibrate to G/N.
	addRemove := func(c Case) Case {
		c.Budget.Neighbouring = privacy.AddRemove
		c.Pair = AddRemove(c.Pair)
		c.PairName += ", add/remove"
		if c.Variant == "" {
			c.Variant = "add/remove"
		} else {
			c.Variant += ", add/remove"
		}
		return c
	}
	// REM on the whole space runs its float64 sampler here: the audit tests the mechanism's
	// calibration (k, μ, the sensitivity), which every certified sampler draws within its TV;
	// REM's default there, the floating-point-safe sampler, costs tens of times as much a run
	// with its double-double normals (57 ms against 11 ms for oracle B on this pair), too much
	// for the audits' runs. Its law is tested in pkg/sampler (TestSafeOracleAlone,
	// TestSafeOneDimensional).
	autoHalves := huber("auto", privacy.Budget{Epsilon: 3, Delta: 1e-6})
	autoHalves.Settings, autoHalves.Variant = mech.Auto{Tuning: 0.5}, "tuning on half the rows"
	autoBest := huber("auto", privacy.Budget{Epsilon: 3, Delta: 1e-6})
	autoBest.Settings, autoBest.Variant = mech.Auto{Tuning: 1}, "best run released"
	remWhole := hinge("rem", privacy.Budget{Epsilon: 2, Delta: 1e-6})
	remWhole.Settings, remWhole.Variant = mech.REM{FloatSampler: true}, "float64 sampler"
	byName := map[string][]Case{
		"rem":           {remWhole, remBall},
		"rem-lp":        {remLp},
		"outpert":       {huber("outpert", privacy.Budget{Epsilon: 3})},
		"outpert-gauss": {huber("outpert-gauss", privacy.Budget{Epsilon: 3, Delta: 1e-6})},
		"langevin":      {huber("langevin", privacy.Budget{Epsilon: 3, Delta: 1e-6})},
		"noisy-gd":      {huber("noisy-gd", privacy.Budget{Epsilon: 3, Delta: 1e-6}), oneStep, biasStep},
		"expmech":       {boxed(huber("expmech", privacy.Budget{Epsilon: 2}))},
		"rashomon":      {pureRashomon, langevinRashomon},
		// auto selects among a random number of runs on the tuning rows (the exact test of that
		// accounting is privacy's TestRandomStoppingExact) and fits the selected configuration
		// on the others: half and half here, since its default tenth of auditN rows is too few
		// to tune on. At Tuning 1 it releases the best run's own model.
		"auto": {autoHalves, autoBest},
	}
	for _, name := range []string{"rem", "outpert", "outpert-gauss", "langevin", "expmech", "auto"} {
		byName[name] = append(byName[name], addRemove(byName[name][0]))
	}
	byName["noisy-gd"] = append(byName["noisy-gd"], addRemove(oneStep))
	var out []Case
	for _, name := range mech.Names() {
		out = append(out, byName[name]...)
	}
	return out
}

// Sizes states the sizes of the case's two datasets and, under add/remove, the public N the
// mechanism divides by, as the audit's table shows them.
func (c Case) Sizes() string {
	d0, d1 := c.Pair(c.Problem.N)
	if d0.N == d1.N {
		return fmt.Sprintf("n=%d", d0.N)
	}
	return fmt.Sprintf("n=%d/%d N=%d", d0.N, d1.N, c.Problem.N)
}

// Name is the case's mechanism and variant, as the audit's table shows it.
func (c Case) Name() string {
	if c.Variant == "" {
		return c.Mechanism
	}
	return c.Mechanism + " (" + c.Variant + ")"
}

// auditDelta returns the δ at which a case's ε lower bound is reported: the budget's δ, or
// 1e-6 for a pure-ε mechanism (whose claimed ε holds at every δ).
func (c Case) auditDelta() float64 {
	if c.Budget.Delta > 0 {
		return c.Budget.Delta
	}
	return 1e-6
}

// Plan plans the case's mechanism with its settings (the registry's defaults unless Settings).
func (c Case) Plan() (mech.Plan, error) {
	m := c.Settings
	if m == nil {
		var err error
		if m, err = mech.ByName(c.Mechanism); err != nil {
			return nil, err
		}
	}
	return m.Plan(c.Budget, c.Problem)
}

// Outcome is the result of auditing one case.
type Outcome struct {
	Case
	Result
	// ClaimedEpsilon is the ε the plan claims at the audited δ.
	ClaimedEpsilon float64 `json:"claimed_epsilon"`
	// Runs is the number of runs on each dataset (calibration included).
	Runs int `json:"runs"`
	// Seconds is the audit's wall-clock time.
	Seconds float64 `json:"seconds"`
}

// Audit runs the case's audit with the given configuration.
func (c Case) Audit(ctx context.Context, cfg Config) (Outcome, error) {
	pl, err := c.Plan()
	if err != nil {
		return Outcome{}, fmt.Errorf("audit %s: %w", c.Name(), err)
	}
	return c.AuditPlan(ctx, pl, cfg)
}

// AuditPlan audits a plan of the case's problem (the case's mechanism or a mutant of it)
// against the guarantee the plan claims.
func (c Case) AuditPlan(ctx context.Context, pl mech.Plan, cfg Config) (Outcome, error) {
	cfg.defaults()
	d0, d1 := c.Pair(c.Problem.N)
	start := time.Now()
	claimed := pl.Guarantee()
	res, err := Run(ctx, RunPlan(pl), d0, d1, claimed, c.auditDelta(), cfg)
	if err != nil {
		return Outcome{}, fmt.Errorf("audit %s: %w", c.Name(), err)
	}
	eps, err := claimed.Epsilon(c.auditDelta())
	if err != nil {
		return Outcome{}, fmt.Errorf("audit %s: %w", c.Name(), err)
	}
	return Outcome{Case: c, Result: res, ClaimedEpsilon: eps, Runs: cfg.Runs + cfg.Calibration,
		Seconds: time.Since(start).Seconds()}, nil
}

// RunPlan runs a plan as an audited mechanism whose output is the model's weights.
func RunPlan(pl mech.Plan) Mechanism {
	return func(ctx context.Context, ds *data.Dataset, r *rng.Rand) ([]float64, error) {
		rel, err := pl.Run(ctx, ds, r, nil)
		if err != nil {
			return nil, err
		}
		return rel.Model.Weights, nil
	}
}
