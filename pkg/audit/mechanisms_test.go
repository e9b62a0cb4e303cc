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

// hingePair returns neighbouring datasets on which the hinge loss is linear wherever the
// regularized exponential mechanism puts its mass (|w| < 1 with ‖x‖ ≤ 1): rows alternate
// x = ±1 with label +1, and the first row is flipped to the opposite extreme. Then π_D and
// π_D′ are Gaussians whose shift is exactly the mechanism's μ_GDP: the worst case.
func hingePair(n int) (d0, d1 *data.Dataset, p mech.Problem) {
	mk := func(first float64) *data.Dataset {
		ds := &data.Dataset{N: n, D: 1, X: make([]float64, n), Y: make([]float64, n), Features: []string{"x"}, P: 2, Radius: 1}
		for i := range n {
			ds.X[i] = float64(1 - 2*(i%2))
			ds.Y[i] = 1
		}
		ds.X[0] = first
		return ds
	}
	p = mech.Problem{Loss: mech.LossSpec{Name: "hinge"}, Dim: 1, N: n, Bounds: loss.Bounds{X: 1, XNorm: 2, Y: 1},
		Domain: geom.Whole{D: 1}, Radius: 0.2}
	return mk(1), mk(-1), p
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
	d0, d1, p := hingePair(10)
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
