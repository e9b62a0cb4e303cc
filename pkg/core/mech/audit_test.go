package mech_test

import (
	"context"
	"math"
	"testing"

	"github.com/privopt/privopt/pkg/audit"
	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/geom"
	"github.com/privopt/privopt/pkg/core/loss"
	"github.com/privopt/privopt/pkg/core/mech"
	"github.com/privopt/privopt/pkg/rng"
)

// TestAuditLangevin audits projected noisy gradient descent on the Huber pair, where it is
// tight: the mechanism passes, and two mutants with the same steps but less noise are caught —
// σ halved, and σ calibrated with the constant of seed 004's Lemma 3.1 (β ≤ 2ε/(Δ√(Tη log(1/δ))),
// i.e. μ = √2·ε/√(log(1/δ)), which with the same step and time scales the noise by μ/μ_Lemma).
func TestAuditLangevin(t *testing.T) {
	d0, d1 := audit.HuberPair(10)
	p := mech.Problem{Loss: mech.LossSpec{Name: "huber", Param: 0.1}, Dim: 1, N: 10, Bounds: loss.Bounds{X: 1, XNorm: 2, Y: 1},
		Domain: geom.Whole{D: 1}, Radius: 0.3}
	budget := mech.Budget{Epsilon: 3, Delta: 1e-6}
	good, err := mech.Langevin{}.Plan(budget, p)
	if err != nil {
		t.Fatal(err)
	}
	muGood := math.Sqrt(2 * good.Parameters()["rho_zcdp"])
	muLemma := math.Sqrt2 * budget.Epsilon / math.Sqrt(math.Log(1/budget.Delta))
	run := func(pl mech.Plan) audit.Mechanism {
		return func(ctx context.Context, ds *data.Dataset, r *rng.Rand) ([]float64, error) {
			rel, err := pl.Run(ctx, ds, r, nil)
			if err != nil {
				return nil, err
			}
			return rel.Model.Weights, nil
		}
	}
	for _, tc := range []struct {
		name      string
		scale     float64
		violation bool
	}{
		{"langevin", 1, false},
		{"langevin with half σ", 0.5, true},
		{"langevin with the Lemma 3.1 constant", muGood / muLemma, true},
	} {
		res, err := audit.Run(context.Background(), run(mech.WithLangevinNoise(good, tc.scale)), d0, d1, good.Guarantee(), 1e-6, audit.Config{})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s (σ × %.3f): violation %v, ε lower bound %.3f", tc.name, tc.scale, res.Violation, res.EpsilonLower)
		if res.Violation != tc.violation {
			t.Errorf("%s: violation %v, want %v (worst %+v)", tc.name, res.Violation, tc.violation, res.Worst)
		}
	}
}
