package mech

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/geom"
	"github.com/privopt/privopt/pkg/core/loss"
	"github.com/privopt/privopt/pkg/core/privacy"
	"github.com/privopt/privopt/pkg/rng"
)

// TestRashomonLangevinCalibration checks the (ε, δ) plan: the chain's μ = βΔ_ψ√(Th/2) is the
// calibrated μ (never above it), Δ_ψ = s + √(2Mψ) with s = 2G/n (G/n under add/remove), the
// step h = 1/(4βM), the default ψ = s²/(2M₀), the guarantee meets the budget, and the utility
// bound is λD²/2 + ψ + d/β; explicit ψ, λ and T are honoured.
func TestRashomonLangevinCalibration(t *testing.T) {
	ds := toyData(200, 3, 1)
	whole := toyProblem(ds)
	box := boxProblem(t, ds, 2)
	for _, tc := range []struct {
		name string
		mech Rashomon
		p    Problem
		b    Budget
	}{
		{"defaults eps=0.5", Rashomon{}, whole, Budget{Epsilon: 0.5, Delta: 1e-6}},
		{"defaults eps=4 box", Rashomon{}, box, Budget{Epsilon: 4, Delta: 1e-6}},
		{"add-remove", Rashomon{}, whole, Budget{Epsilon: 1, Delta: 1e-5, Neighbouring: privacy.AddRemove}},
		{"explicit", Rashomon{Psi: 0.01, Ridge: 0.05, Steps: 300}, whole, Budget{Epsilon: 1, Delta: 1e-6}},
	} {
		plan, err := tc.mech.Plan(tc.b, tc.p)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		pl := plan.(*rashomonPlan)
		c, _ := tc.p.Constants(2)
		factor := 2.0
		if tc.b.Neighbouring == privacy.AddRemove {
			factor = 1
		}
		s := factor * c.Lipschitz / 200
		if pl.sens != s {
			t.Errorf("%s: s = %g, want %g", tc.name, pl.sens, s)
		}
		wantPsi := tc.mech.Psi
		if wantPsi == 0 {
			wantPsi = s * s / (2 * c.Smoothness)
		}
		if pl.psi != wantPsi {
			t.Errorf("%s: ψ = %g, want %g", tc.name, pl.psi, wantPsi)
		}
		mm := c.Smoothness + pl.lambda
		if want := s + math.Sqrt(2*mm*pl.psi); math.Abs(pl.deltaPsi-want) > 1e-15*want {
			t.Errorf("%s: Δ_ψ = %g, want s + √(2Mψ) = %g", tc.name, pl.deltaPsi, want)
		}
		if h := 1 / (4 * pl.beta * mm); math.Abs(pl.step-h) > 1e-12*h {
			t.Errorf("%s: h = %g, want 1/(4βM) = %g", tc.name, pl.step, h)
		}
		target, _ := privacy.CalibrateGDP(tc.b.Epsilon, tc.b.Delta)
		mu := pl.beta * pl.deltaPsi * math.Sqrt(float64(pl.steps)*pl.step/2)
		if mu > target || mu < target*(1-1e-9) || pl.mu != mu {
			t.Errorf("%s: the chain's μ = %g (reported %g), calibrated μ = %g", tc.name, mu, pl.mu, target)
		}
		if d := plan.Guarantee().Delta(tc.b.Epsilon); d > tc.b.Delta {
			t.Errorf("%s: δ(ε) = %g > %g", tc.name, d, tc.b.Delta)
		}
		if tc.mech.Ridge != 0 && (pl.lambda != tc.mech.Ridge || pl.steps != tc.mech.Steps) {
			t.Errorf("%s: λ = %g, T = %d, want the explicit values", tc.name, pl.lambda, pl.steps)
		}
		dd := tc.p.Radius
		if want := pl.lambda*dd*dd/2 + pl.psi + 3/pl.beta; math.Abs(plan.Utility().Bound-want) > 1e-12*want {
			t.Errorf("%s: utility %g, want λD²/2 + ψ + d/β = %g", tc.name, plan.Utility().Bound, want)
		}
	}
}

// TestRashomonGradientSensitivity computes, on a fine 1-D grid, the gradient the chain uses on
// two replace-one neighbours (each with its own threshold from the mechanism's solver) and
// checks that the two never differ by more than the planned Δ_ψ = s + √(2Mψ), and that the
// worst difference reaches half of it; for the larger ψ it exceeds s = 2G/n, so the √(2Mψ)
// term is needed (where one dataset's set is flat and the other's is not, the gradient is of
// order √(2Mψ)).
func TestRashomonGradientSensitivity(t *testing.T) {
	const n = 20
	rows, labels := repeatRow(n/2, []float64{1}, -1, nil, nil)
	rows, labels = repeatRow(n/2, []float64{1}, 1, rows, labels)
	d1 := rowsData(1, rows, labels)
	labels2 := append([]float64(nil), labels...)
	labels2[0] = -labels2[0]
	d2 := rowsData(1, rows, labels2)
	p := Problem{Loss: LossSpec{Name: "logistic"}, Dim: 1, N: n, Bounds: loss.Bounds{X: 1, XNorm: 2, Y: 1}, Domain: geom.Whole{D: 1}, Radius: 3}
	for _, psi := range []float64{0.002, 0.02} {
		plan, err := Rashomon{Psi: psi, Ridge: 0.05, Steps: 10}.Plan(Budget{Epsilon: 1, Delta: 1e-6}, p)
		if err != nil {
			t.Fatal(err)
		}
		pl := plan.(*rashomonPlan)
		var objs [2]ridged
		var taus [2]float64
		for k, ds := range []*data.Dataset{d1, d2} {
			l, _ := p.NewLoss(ds)
			objs[k] = ridged{loss: l, lambda: pl.lambda}
			taus[k], _ = pl.threshold(objs[k])
			if math.IsInf(taus[k], -1) {
				t.Fatal("no threshold")
			}
		}
		worst := 0.0
		g1, g2 := make([]float64, 1), make([]float64, 1)
		for _, th := range grid1(-3, 3, 60000) {
			x := []float64{th}
			pl.gradient(objs[0], taus[0], g1, x)
			pl.gradient(objs[1], taus[1], g2, x)
			worst = math.Max(worst, math.Abs(g1[0]-g2[0]))
		}
		if worst > pl.deltaPsi {
			t.Errorf("ψ = %g: the chain's gradients differ by %g > Δ_ψ = %g", psi, worst, pl.deltaPsi)
		}
		if worst < pl.deltaPsi/2 || (psi > 0.01 && worst <= pl.sens) {
			t.Errorf("ψ = %g: the worst difference %g is below Δ_ψ/2 = %g (or, for the larger ψ, below s = %g): the test is not adversarial", psi, worst, pl.deltaPsi/2, pl.sens)
		}
	}
}

// TestRashomonLangevinRuns runs the (ε, δ) mode end to end on a small problem: the report
// (seeded: not private; the chain's own guarantee, with no sampler error), the progress, the
// flat set used when ψ is large, and the utility bound on the mean of 20 runs (the bound is
// the theory's for the exact Gibbs measure; on this small problem the chain is far inside it).
func TestRashomonLangevinRuns(t *testing.T) {
	ds := toyData(150, 2, 21)
	p := toyProblem(ds)
	p.Radius = 3
	l, _ := p.NewLoss(ds)
	best := math.Inf(1) // min of F over ‖w‖ ≤ 3, on a grid
	for _, u := range grid1(-3, 3, 300) {
		for _, v := range grid1(-3, 3, 300) {
			if u*u+v*v <= 9 {
				best = math.Min(best, l.Mean(nil, []float64{u, v}))
			}
		}
	}
	for _, psi := range []float64{0, 0.05} {
		plan, err := Rashomon{Psi: psi}.Plan(Budget{Epsilon: 2, Delta: 1e-5}, p)
		if err != nil {
			t.Fatal(err)
		}
		r := rng.Seeded(4)
		mean, flat := 0.0, 0.0
		for range 20 {
			var last Progress
			rel, err := plan.Run(context.Background(), ds, r, func(pr Progress) { last = pr })
			if err != nil {
				t.Fatal(err)
			}
			if last.Fraction != 1 || len(rel.Model.Weights) != 2 || rel.Report.Private || !rel.Report.Sampler.Exact {
				t.Fatalf("ψ = %g: progress %v, release %+v", psi, last, rel.Report)
			}
			if !strings.Contains(rel.Report.Sampler.Statement, "not certified") || rel.Utility.Bound != plan.Utility().Bound {
				t.Errorf("ψ = %g: statement %q, utility %v", psi, rel.Report.Sampler.Statement, rel.Utility)
			}
			mean += rel.Diagnostics.TrainLoss / 20
			flat += rel.Diagnostics.Details["flat_steps"]
		}
		if mean-best > plan.Utility().Bound {
			t.Errorf("ψ = %g: mean excess risk %g > bound %g", psi, mean-best, plan.Utility().Bound)
		}
		if psi > 0 && flat == 0 {
			t.Errorf("ψ = %g: the chain never met the flat set", psi)
		}
	}
}

// TestRashomonRejects: a non-smooth loss and an invalid ψ are refused in the (ε, δ) mode.
func TestRashomonRejects(t *testing.T) {
	ds := toyData(40, 2, 5)
	p := toyProblem(ds)
	hinge := p
	hinge.Loss.Name = "hinge"
	if _, err := (Rashomon{}).Plan(Budget{Epsilon: 1, Delta: 1e-6}, hinge); err == nil {
		t.Error("a non-smooth loss accepted")
	}
	if _, err := (Rashomon{Psi: -1}).Plan(Budget{Epsilon: 1, Delta: 1e-6}, p); err == nil {
		t.Error("ψ < 0 accepted")
	}
	if _, err := (Rashomon{Psi: math.NaN()}).Plan(Budget{Epsilon: 1}, boxProblem(t, ds, 1)); err == nil {
		t.Error("ψ = NaN accepted")
	}
}
