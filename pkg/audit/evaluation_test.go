package audit

import (
	"context"
	"testing"

	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/mech"
	"github.com/privopt/privopt/pkg/core/privacy"
	"github.com/privopt/privopt/pkg/rng"
)

// evaluationPair is a held-out pair on which the private evaluation's guarantee is tight: ten
// rows at x = 1 (which the model w = 1 predicts positive) labelled positive, and in d1 the
// last one labelled negative, which moves one count from the "true positive" cell to the
// "false positive" one (ℓ2 distance √2). Under add/remove d0 has the first nine rows only, and
// d1 adds the tenth (one count: ℓ2 distance 1).
func evaluationPair(addRemove bool) (d0, d1 *data.Dataset) {
	mk := func(n int, last float64) *data.Dataset {
		ds := &data.Dataset{N: n, D: 1, X: make([]float64, n), Y: make([]float64, n), Features: []string{"x"}, P: 2, Radius: 1}
		for i := range n {
			ds.X[i], ds.Y[i] = 1, 1
		}
		ds.Y[n-1] = last
		return ds
	}
	if addRemove {
		return mk(auditN-1, 1), mk(auditN, -1)
	}
	return mk(auditN, 1), mk(auditN, -1)
}

// TestEvaluationAudit audits the private evaluation of a binary classifier (ε = 4, δ = 1e-6)
// on evaluationPair under both relations: no violation (false-failure rate 1e-3 each); and the
// same release claimed with half its μ (a mutant declaring half the sensitivity) is caught.
func TestEvaluationAudit(t *testing.T) {
	if testing.Short() {
		t.Skip("4 audits of 2,200 runs on each of two datasets: run by ./build.sh test")
	}
	for _, rel := range []privacy.Neighbouring{privacy.ReplaceOne, privacy.AddRemove} {
		b := privacy.Budget{Epsilon: 4, Delta: 1e-6, Neighbouring: rel}
		plan := func(b privacy.Budget) *mech.EvaluationPlan {
			e, err := mech.PlanEvaluation(HingeProblem(auditN), b, mech.HeldOut{Rows: auditN})
			if err != nil {
				t.Fatal(err)
			}
			return e
		}
		e := plan(b)
		run := func(_ context.Context, ds *data.Dataset, r *rng.Rand) ([]float64, error) {
			ev, err := e.Run(ds, []float64{1}, r)
			if err != nil {
				return nil, err
			}
			return ev.Sums, nil
		}
		d0, d1 := evaluationPair(rel == privacy.AddRemove)
		res, err := Run(context.Background(), run, d0, d1, e.Guarantee(), b.Delta, Config{})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: violation %v, ε lower bound %.3f, μ lower bound %.3f (claimed %v)", rel, res.Violation, res.EpsilonLower, res.MuLower, e.Guarantee())
		if res.Violation {
			t.Errorf("%s: the private evaluation violates its claim", rel)
		}
		// The mutant: the same noise claimed with half its μ, as if the sensitivity were half.
		mu := e.Guarantee().(privacy.WithSamplerError).Base.(privacy.GDP).Mu
		res, err = Run(context.Background(), run, d0, d1, privacy.GDP{Mu: mu / 2}, b.Delta, Config{})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s mutant: violation %v, μ lower bound %.3f against the claimed %.3f", rel, res.Violation, res.MuLower, mu/2)
		if !res.Violation {
			t.Errorf("%s: the evaluation claimed with half its μ was not caught", rel)
		}
	}
}
