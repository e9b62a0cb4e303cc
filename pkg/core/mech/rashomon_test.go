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
	"github.com/privopt/privopt/pkg/solve"
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
		b    privacy.Budget
	}{
		{"defaults eps=0.5", Rashomon{}, whole, privacy.Budget{Epsilon: 0.5, Delta: 1e-6}},
		{"defaults eps=4 box", Rashomon{}, box, privacy.Budget{Epsilon: 4, Delta: 1e-6}},
		{"add-remove", Rashomon{}, whole, privacy.Budget{Epsilon: 1, Delta: 1e-5, Neighbouring: privacy.AddRemove}},
		{"explicit", Rashomon{Psi: 0.01, Ridge: 0.05, Steps: 300}, whole, privacy.Budget{Epsilon: 1, Delta: 1e-6}},
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
		// The chain's steps release w − η∇U/β on a grid, η = 1/(4M), with discrete Gaussian noise
		// calibrated to the budget for the sensitivity η·Δ_ψ (and the grid's rounding); the noise
		// is the Langevin step h = σ²/2 at β = η/h, within 1 % of the continuous model's β.
		eta := 1 / (4 * mm)
		if pl.chain.h != eta || pl.chain.driftSensitivity() < eta*pl.deltaPsi || pl.chain.steps != pl.steps {
			t.Errorf("%s: drift step %g (want %g), drift sensitivity %g (want ≥ %g), %d steps", tc.name, pl.chain.h, eta, pl.chain.driftSensitivity(), eta*pl.deltaPsi, pl.chain.steps)
		}
		if math.Abs(pl.step-pl.chain.sigma*pl.chain.sigma/2) > 1e-15*pl.step || pl.beta != eta/pl.step {
			t.Errorf("%s: h = %g, β = %g for σ = %g", tc.name, pl.step, pl.beta, pl.chain.sigma)
		}
		target, _ := privacy.CalibrateGDP(tc.b.Epsilon, tc.b.Delta)
		if betaC := 8 * mm * target * target / (pl.deltaPsi * pl.deltaPsi * float64(pl.steps)); math.Abs(pl.beta-betaC) > 0.01*betaC {
			t.Errorf("%s: β = %g, the continuous model's %g", tc.name, pl.beta, betaC)
		}
		if mu := pl.Parameters()["mu_gdp"]; pl.chain.gdp && !(mu <= target) {
			t.Errorf("%s: μ = %g above the calibrated %g", tc.name, mu, target)
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
		plan, err := Rashomon{Psi: psi, Ridge: 0.05, Steps: 10}.Plan(privacy.Budget{Epsilon: 1, Delta: 1e-6}, p)
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
// (seeded: not private; the chain's own guarantee, its releases on a grid, their discrete
// noise's certified distance from rounded Gaussian noise), the progress, the
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
		plan, err := Rashomon{Psi: psi}.Plan(privacy.Budget{Epsilon: 2, Delta: 1e-5}, p)
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
			if last.Fraction != 1 || len(rel.Model.Weights) != 2 || rel.Report.Private || !rel.Report.Sampler.Certified {
				t.Fatalf("ψ = %g: progress %v, release %+v", psi, last, rel.Report)
			}
			if !strings.Contains(rel.Report.Statement, "not certified, which affects only the utility") || !strings.Contains(rel.Report.Statement, "floating-point safe") ||
				rel.Utility.Bound != plan.Utility().Bound {
				t.Errorf("ψ = %g: statement %q, utility %v", psi, rel.Report.Statement, rel.Utility)
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
	if _, err := (Rashomon{}).Plan(privacy.Budget{Epsilon: 1, Delta: 1e-6}, hinge); err == nil {
		t.Error("a non-smooth loss accepted")
	}
	if _, err := (Rashomon{Psi: -1}).Plan(privacy.Budget{Epsilon: 1, Delta: 1e-6}, p); err == nil {
		t.Error("ψ < 0 accepted")
	}
	if _, err := (Rashomon{Psi: math.NaN()}).Plan(privacy.Budget{Epsilon: 1}, boxProblem(t, ds, 1)); err == nil {
		t.Error("ψ = NaN accepted")
	}
}

// neumaierMean returns F_λ(x) = (1/n)Σ ℓᵢ(x) + (λ/2)‖x‖² with the sum compensated (Neumaier),
// and its gradient likewise: within a few units in the last place of F, far below ψ.
func neumaierMean(l loss.Loss, n int, lambda float64, g, x []float64) float64 {
	add := func(s, c *float64, v float64) {
		t := *s + v
		if math.Abs(*s) >= math.Abs(v) {
			*c += (*s - t) + v
		} else {
			*c += (v - t) + *s
		}
		*s = t
	}
	var s, c float64
	gs, gc := make([]float64, len(x)), make([]float64, len(x))
	gi := make([]float64, len(x))
	for i := range l.Len() {
		add(&s, &c, l.Grad(gi, x, i))
		for j := range gi {
			add(&gs[j], &gc[j], gi[j])
		}
	}
	sq := 0.0
	for j, v := range x {
		sq += v * v
		g[j] = (gs[j]+gc[j])/float64(n) + lambda*v
	}
	return (s+c)/float64(n) + lambda/2*sq
}

// TestRashomonFlatTestAtLargeN: with 300,000 rows the rounding of the summed loss is of the
// order of the default ψ; the threshold τ is still below the infimum of F_λ computed with
// compensated sums, and every point the chain counts as flat has F_λ ≤ inf F_λ + ψ, so the
// sensitivity's proof holds. (The plain test, computed F_λ ≤ computed τ + ψ, counts points
// whose F_λ exceeds that: the test reports how many.)
func TestRashomonFlatTestAtLargeN(t *testing.T) {
	if testing.Short() {
		t.Skip("300,000 rows: run without -short")
	}
	const n = 300000
	ds := toyData(n, 2, 31)
	p := toyProblem(ds)
	plan, err := Rashomon{}.Plan(privacy.Budget{Epsilon: 1, Delta: 1e-6}, p)
	if err != nil {
		t.Fatal(err)
	}
	pl := plan.(*rashomonPlan)
	l, err := p.NewLoss(ds)
	if err != nil {
		t.Fatal(err)
	}
	obj := ridged{loss: l, lambda: pl.lambda}
	tau, _ := pl.threshold(obj)
	// A certified lower bound on inf F_λ from compensated sums at the minimiser.
	res, err := solve.LBFGS(solve.Problem{Func: func(x []float64) float64 { return obj.valueGrad(nil, x) }, Grad: func(g, x []float64) { obj.valueGrad(g, x) }, FuncGrad: obj.valueGrad},
		make([]float64, 2), solve.Settings{Target: 1e-12, StrongConvexity: pl.lambda, Smoothness: pl.smooth + pl.lambda, MaxIter: 1000})
	if err != nil {
		t.Fatal(err)
	}
	g := make([]float64, 2)
	f := neumaierMean(l, n, pl.lambda, g, res.X)
	inf := f - (g[0]*g[0]+g[1]*g[1])/(2*pl.lambda)
	t.Logf("n = %d: ψ = %.3g, the rounding bound at the minimiser %.3g, τ − inf = %.3g", n, pl.psi, pl.valueError(f, res.X), tau-inf)
	if !(tau <= inf) {
		t.Fatalf("τ = %.17g above the infimum %.17g", tau, inf)
	}
	r := rng.Seeded(5)
	flat, plainWrong := 0, 0
	fast := make([]float64, 2)
	plainTau := obj.valueGrad(fast, res.X) - (fast[0]*fast[0]+fast[1]*fast[1])/(2*pl.lambda)
	for range 200 {
		// A point where F_λ − inf is about a uniform draw from [0, 2ψ], along a random
		// direction u, from the curvature measured along u.
		a := 2 * math.Pi * r.Float64()
		u := []float64{math.Cos(a), math.Sin(a)}
		const probe = 1e-3
		curv := 2 * (neumaierMean(l, n, pl.lambda, g, []float64{res.X[0] + probe*u[0], res.X[1] + probe*u[1]}) - inf) / (probe * probe)
		step := math.Sqrt(2 * 2 * pl.psi * r.Float64() / curv)
		x := []float64{res.X[0] + step*u[0], res.X[1] + step*u[1]}
		exact := neumaierMean(l, n, pl.lambda, g, x)
		if pl.gradient(obj, tau, fast, x) {
			flat++
			if exact > inf+pl.psi {
				t.Errorf("x = %v counted flat with F_λ − inf = %.3g > ψ = %.3g", x, exact-inf, pl.psi)
			}
		}
		if obj.valueGrad(nil, x) <= plainTau+pl.psi && exact > inf+pl.psi {
			plainWrong++
		}
	}
	if flat < 40 || flat > 160 {
		t.Errorf("%d of 200 points flat: the points do not straddle the flat set's boundary", flat)
	}
	t.Logf("%d of 200 points flat; the plain test would have counted %d points flat wrongly", flat, plainWrong)
}
