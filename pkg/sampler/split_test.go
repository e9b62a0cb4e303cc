package sampler

import (
	"context"
	"math"
	"testing"

	"github.com/privopt/privopt/pkg/core/geom"
	"github.com/privopt/privopt/pkg/rng"
)

// splitTarget is a smooth logistic target plus the rough c·‖x‖₁ (c√d-Lipschitz in ℓ2, rank d):
// the shape of REM in ℓq, a smooth loss plus the regularizer's remainder.
type splitTarget struct {
	*logisticTarget
	c float64
}

func (t splitTarget) Value(x []float64) float64 {
	v := t.logisticTarget.Value(x)
	for _, xi := range x {
		v += t.c * math.Abs(xi)
	}
	return v
}

func (t splitTarget) Grad(g, x []float64) float64 {
	v := t.logisticTarget.Grad(g, x)
	for i, xi := range x {
		v += t.c * math.Abs(xi)
		if xi != 0 {
			g[i] += math.Copysign(t.c, xi)
		}
	}
	return v
}

func (t splitTarget) Constants() Constants {
	c := t.logisticTarget.Constants()
	rough := t.c * math.Sqrt(float64(t.Dim()))
	c.Lipschitz += rough
	c.ExampleLipschitz, c.ExampleRank, c.Smoothness = c.Lipschitz, 0, 0
	c.Split = SplitConstants{Rough: rough, Smoothness: t.k / 4, Rank: 1}
	return c
}

func (t splitTarget) Domain() geom.Domain { return geom.Whole{D: t.Dim()} }

// TestSplitEnvelope: for a smooth loss plus a small rough part, oracle C's plan takes a larger
// step with the split bound than with f's Lipschitz bound of rank d; and for a rough part that
// dominates, the acceptance rate measured over a run is at least the planned bound (one-sided,
// 4 standard errors: a false failure about 3e-5 of the time). Planning without the rough
// part's term 2L_r·E‖x − w‖ gives a bound that run falls far below (it reaches its cap with
// no proposal accepted, against a bound of 0.57).
func TestSplitEnvelope(t *testing.T) {
	tg := splitTarget{newLogisticTarget(t, 200, 10, 60, 4), 3}
	c := tg.Constants()
	split, err := NewPlan(c, tg.Dim(), 200, EnvelopeOracle, 1e-3)
	if err != nil {
		t.Fatal(err)
	}
	whole := c
	whole.Split = SplitConstants{}
	plain, err := NewPlan(whole, tg.Dim(), 200, EnvelopeOracle, 1e-3)
	if err != nil {
		t.Fatal(err)
	}
	if !(split.ProposalVar > 2*plain.ProposalVar) || !(split.Steps < plain.Steps) {
		t.Errorf("split: s² %g, %d steps; Lipschitz bound: s² %g, %d steps", split.ProposalVar, split.Steps, plain.ProposalVar, plain.Steps)
	}
	rough := splitTarget{newLogisticTarget(t, 200, 10, 1, 4), 5}
	p, err := NewPlan(rough.Constants(), rough.Dim(), 200, EnvelopeOracle, 1e-3)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), rough, p, rng.Seeded(3), nil)
	if err != nil {
		t.Fatal(err)
	}
	n := float64(res.Stats.Trials)
	rate := res.Stats.AcceptanceRate()
	if se := math.Sqrt(rate * (1 - rate) / n); rate < p.MinAcceptance-4*se {
		t.Errorf("acceptance %.4f over %g trials, below the planned bound %.4f", rate, n, p.MinAcceptance)
	}
	t.Logf("split: s² %.3g, %d steps; Lipschitz bound: s² %.3g, %d steps; a dominant rough part: bound %.3f, measured %.3f over %g trials",
		split.ProposalVar, split.Steps, plain.ProposalVar, plain.Steps, p.MinAcceptance, rate, n)
}
