package audit

import (
	"context"
	"testing"

	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/geom"
	"github.com/privopt/privopt/pkg/core/loss"
	"github.com/privopt/privopt/pkg/core/mech"
	"github.com/privopt/privopt/pkg/core/privacy"
	"github.com/privopt/privopt/pkg/rng"
)

// hingeProblem is the problem of HingePair: the regularized exponential mechanism's samples
// stay in |w| < 1 at the radius 0.2.
func hingeProblem(n int) mech.Problem {
	return mech.Problem{Loss: mech.LossSpec{Name: "hinge"}, Dim: 1, N: n, Bounds: loss.Bounds{X: 1, XNorm: 2, Y: 1},
		Domain: geom.Whole{D: 1}, Radius: 0.2}
}

// huberProblem is the problem of HuberPair with threshold 0.1: the mechanisms' outputs stay in
// |w| < 0.9 at the radius 0.3.
func huberProblem(n int) mech.Problem {
	return mech.Problem{Loss: mech.LossSpec{Name: "huber", Param: 0.1}, Dim: 1, N: n, Bounds: loss.Bounds{X: 1, XNorm: 2, Y: 1},
		Domain: geom.Whole{D: 1}, Radius: 0.3}
}

// planned runs a plan as an audit mechanism.
func planned(pl mech.Plan) Mechanism {
	return func(ctx context.Context, ds *data.Dataset, r *rng.Rand) ([]float64, error) {
		rel, err := pl.Run(ctx, ds, r, nil)
		if err != nil {
			return nil, err
		}
		return rel.Model.Weights, nil
	}
}

// TestAuditREM: the regularized exponential mechanism passes its audit under replace-one; the
// mutant that uses the sensitivity G/n instead of 2G/n (planned for add/remove, audited on
// replace-one neighbours) claims half its true μ and is caught.
func TestAuditREM(t *testing.T) {
	d0, d1 := HingePair(10)
	p := hingeProblem(10)
	budget := mech.Budget{Epsilon: 2, Delta: 1e-6}
	good, err := mech.REM{Sampler: mech.SampleEnvelope}.Plan(budget, p)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), planned(good), d0, d1, good.Guarantee(), 1e-6, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Violation {
		t.Errorf("REM flagged: worst %+v", res.Worst)
	}
	claimedEps, _ := good.Guarantee().Epsilon(1e-6)
	t.Logf("REM: ε lower bound %.3f, claimed ε %.3f", res.EpsilonLower, claimedEps)

	budget.Neighbouring = privacy.AddRemove
	mutant, err := mech.REM{Sampler: mech.SampleEnvelope}.Plan(budget, p)
	if err != nil {
		t.Fatal(err)
	}
	res, err = Run(context.Background(), planned(mutant), d0, d1, mutant.Guarantee(), 1e-6, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Violation {
		t.Errorf("REM with the sensitivity G/n was not caught: worst %+v", res.Worst)
	}
}

// auditPlan runs an audit of a plan against a claimed guarantee and reports whether it flagged
// a violation.
func auditPlan(t *testing.T, name string, pl mech.Plan, claimed privacy.Curve, d0, d1 *data.Dataset) bool {
	t.Helper()
	res, err := Run(context.Background(), planned(pl), d0, d1, claimed, 1e-6, Config{})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	eps, _ := claimed.Epsilon(1e-6)
	t.Logf("%s: violation %v, ε lower bound %.3f, claimed ε %.3f", name, res.Violation, res.EpsilonLower, eps)
	return res.Violation
}

// TestAuditOutputPerturbation: both output-perturbation mechanisms pass their audits; planned
// with the sensitivity G/n (add/remove) and audited on replace-one neighbours, both are caught;
// and so is the Gaussian one with half its calibrated σ (planned for four times the ρ, audited
// against the original claim).
func TestAuditOutputPerturbation(t *testing.T) {
	d0, d1 := HuberPair(10)
	p := huberProblem(10)
	for _, tc := range []struct {
		name string
		m    mech.OutputPerturbation
		b    mech.Budget
	}{
		{"outpert", mech.OutputPerturbation{}, mech.Budget{Epsilon: 3}},
		{"outpert-gauss", mech.OutputPerturbation{Gaussian: true}, mech.Budget{Epsilon: 3, Delta: 1e-6}},
	} {
		good, err := tc.m.Plan(tc.b, p)
		if err != nil {
			t.Fatal(err)
		}
		if auditPlan(t, tc.name, good, good.Guarantee(), d0, d1) {
			t.Errorf("%s flagged", tc.name)
		}
		b := tc.b
		b.Neighbouring = privacy.AddRemove
		mutant, err := tc.m.Plan(b, p)
		if err != nil {
			t.Fatal(err)
		}
		if !auditPlan(t, tc.name+" with G/n", mutant, mutant.Guarantee(), d0, d1) {
			t.Errorf("%s with the sensitivity G/n was not caught", tc.name)
		}
	}
	// Half σ: ρ = Δ²/(2σ²) is four times larger; find the budget whose ρ is four times the
	// calibrated one and claim the original curve.
	good, _ := mech.OutputPerturbation{Gaussian: true}.Plan(mech.Budget{Epsilon: 3, Delta: 1e-6}, p)
	rho := good.Parameters()["rho_zcdp"]
	z4, _ := privacy.ZCDP(4 * rho)
	eps4, _ := z4.Epsilon(1e-6)
	half, err := mech.OutputPerturbation{Gaussian: true}.Plan(mech.Budget{Epsilon: eps4 * (1 - 1e-9), Delta: 1e-6}, p)
	if err != nil {
		t.Fatal(err)
	}
	if r := half.Parameters()["rho_zcdp"]; r < 3.9*rho {
		t.Fatalf("the mutant's ρ is %g, want about 4·%g", r, rho)
	}
	if !auditPlan(t, "outpert-gauss with half σ", half, good.Guarantee(), d0, d1) {
		t.Error("outpert-gauss with half its σ was not caught")
	}
}
