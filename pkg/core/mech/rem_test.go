package mech

import (
	"context"
	"github.com/privopt/privopt/internal/stattest"
	"github.com/privopt/privopt/pkg/core/cost"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/geom"
	"github.com/privopt/privopt/pkg/core/loss"
	"github.com/privopt/privopt/pkg/core/privacy"
	"github.com/privopt/privopt/pkg/rng"
)

// toyData is a small separable-ish classification dataset with ‖x‖₂ ≤ 1.
func toyData(n, d int, seed uint64) *data.Dataset {
	r := rng.Seeded(seed)
	ds := &data.Dataset{N: n, D: d, X: make([]float64, n*d), Y: make([]float64, n), P: 2, Radius: 1}
	for i := range n {
		row := ds.X[i*d : (i+1)*d]
		if err := r.UnitBall(row); err != nil {
			panic(err)
		}
		ds.Y[i] = 1
		if row[0]+0.3*row[1]+0.1*r.Normal() < 0 {
			ds.Y[i] = -1
		}
	}
	for j := range d {
		ds.Features = append(ds.Features, "x"+string(rune('a'+j)))
	}
	return ds
}

func toyProblem(ds *data.Dataset) Problem {
	return Problem{Loss: LossSpec{Name: "logistic"}, Dim: ds.D, N: ds.N, Bounds: loss.Bounds{X: 1, XNorm: 2, Y: 1},
		Domain: geom.Whole{D: ds.D}, Radius: 5}
}

// TestREMCalibration: the planned k and μ give exactly the calibrated μ_GDP = Δ√(k/μ) with
// Δ = 2G/n, the guarantee meets the budget with the sampler's error folded in, and the ERM
// bound is d/k + μΘ.
func TestREMCalibration(t *testing.T) {
	ds := toyData(200, 3, 1)
	p := toyProblem(ds)
	for _, mode := range []SamplerMode{SampleStochastic, SampleEnvelope, SampleValue, SampleMALA, SampleKinetic} {
		float := mode == SampleStochastic || mode == SampleValue // oracles A and B run in float64 only
		pl, err := REM{Sampler: mode, FloatSampler: float}.Plan(privacy.Budget{Epsilon: 1, Delta: 1e-6}, p)
		if err != nil {
			t.Fatal(err)
		}
		rp := pl.(*remPlan)
		wantDelta := 2 * rp.g / 200
		if rp.delta != wantDelta {
			t.Errorf("%s: Δ = %g, want 2G/n = %g", mode, rp.delta, wantDelta)
		}
		if got := rp.delta * math.Sqrt(rp.k/rp.mu); math.Abs(got-rp.muGDP) > 1e-12*rp.muGDP {
			t.Errorf("%s: Δ√(k/μ) = %g, calibrated μ_GDP = %g", mode, got, rp.muGDP)
		}
		if d := pl.Guarantee().Delta(1); d > 1e-6 {
			t.Errorf("%s: the guarantee gives δ(1) = %g", mode, d)
		}
		if b := 3/rp.k + rp.mu*rp.theta; math.Abs(b-pl.Utility().Bound) > 1e-12*b {
			t.Errorf("%s: utility bound %g, want d/k + μΘ = %g", mode, pl.Utility().Bound, b)
		}
	}
	// Add/remove halves the sensitivity.
	pl, _ := REM{}.Plan(privacy.Budget{Epsilon: 1, Delta: 1e-6, Neighbouring: privacy.AddRemove}, p)
	if rp := pl.(*remPlan); rp.delta != rp.g/200 {
		t.Errorf("add/remove: Δ = %g, want G/n", rp.delta)
	}
}

func TestREMRuns(t *testing.T) {
	ds := toyData(100, 3, 2)
	p := toyProblem(ds)
	for _, mode := range []SamplerMode{SampleEnvelope, SampleMALA, SampleKinetic} {
		pl, err := REM{Sampler: mode, FastSteps: 500}.Plan(privacy.Budget{Epsilon: 2, Delta: 1e-5}, p)
		if err != nil {
			t.Fatal(err)
		}
		var last float64
		rel, err := pl.Run(context.Background(), ds, rng.Seeded(3), func(pr Progress) { last = pr.Fraction })
		if err != nil {
			t.Fatal(err)
		}
		if last != 1 || len(rel.Model.Weights) != 3 || rel.Diagnostics.TrainAccuracy == nil {
			t.Errorf("%s: %+v", mode, rel)
		}
		if rel.Report.Private {
			t.Errorf("%s: a seeded run claims privacy", mode)
		}
		certified := mode == SampleEnvelope
		if rel.Report.Sampler.Certified != certified || (certified && rel.Report.Sampler.TV <= 0) {
			t.Errorf("%s: sampler status %+v", mode, rel.Report.Sampler)
		}
		if !certified && !strings.Contains(rel.Report.Statement, "not certified") {
			t.Errorf("%s: statement %q", mode, rel.Report.Statement)
		}
	}
}

// TestREMFastSteps: the fast modes' default step counts are 5·√κ for kinetic Langevin and
// 20·κ·√d for MALA and projected Langevin (κ = 1 + β/μ, the potential's condition number), in
// REM and in REM-ℓp (there κ = 1 + β/(μσ₂)); an unknown mode is refused at planning by both,
// naming the modes, and "auto" is REM-ℓp's default too.
func TestREMFastSteps(t *testing.T) {
	ds := toyData(200, 3, 1)
	p := toyProblem(ds)
	box := p
	box.Domain, box.Radius = cube(t, 3, 2), 2*math.Sqrt(3)
	b := privacy.Budget{Epsilon: 1, Delta: 1e-6}
	for _, mode := range []SamplerMode{SampleMALA, SampleLangevin, SampleKinetic} {
		pl, err := REM{Sampler: mode}.Plan(b, p)
		if err != nil {
			t.Fatal(err)
		}
		rp := pl.(*remPlan)
		kappa := 1 + rp.beta/rp.mu
		want := math.Ceil(20 * kappa * math.Sqrt(3))
		if mode == SampleKinetic {
			want = math.Ceil(5 * math.Sqrt(kappa))
		}
		if float64(rp.fastSteps) != want || pl.Parameters()["sampler_steps"] != want {
			t.Errorf("rem %s: %d steps (κ = %g), want %g", mode, rp.fastSteps, kappa, want)
		}
		lpl, err := REMLp{Norm: 1.5, Sampler: mode}.Plan(b, box)
		if err != nil {
			t.Fatal(err)
		}
		lp := lpl.(*remLpPlan)
		kappa = 1 + lp.smooth/(lp.mu*lp.sigma2)
		want = math.Ceil(20 * kappa * math.Sqrt(3))
		if mode == SampleKinetic {
			want = math.Ceil(5 * math.Sqrt(kappa))
		}
		if float64(lp.fast.Steps) != want {
			t.Errorf("rem-lp %s: %d steps (κ = %g), want %g", mode, lp.fast.Steps, kappa, want)
		}
	}
	for _, m := range []Mechanism{REM{Sampler: "hmc"}, REMLp{Sampler: "hmc"}} {
		if _, err := m.Plan(b, box); err == nil || !strings.Contains(err.Error(), "kinetic-langevin") {
			t.Errorf("%s with an unknown mode: error %v", m.Name(), err)
		}
	}
	if _, err := (REMLp{Norm: 1.5, Sampler: SampleAuto}).Plan(b, box); err != nil {
		t.Errorf("rem-lp auto: %v", err)
	}
}

func TestREMRejects(t *testing.T) {
	ds := toyData(50, 2, 4)
	p := toyProblem(ds)
	if _, err := (REM{}).Plan(privacy.Budget{Epsilon: 1, Delta: 0}, p); err == nil {
		t.Error("pure DP accepted")
	}
	tilted := p
	tilted.Loss.Tilt = 1
	if _, err := (REM{}).Plan(privacy.Budget{Epsilon: 1, Delta: 1e-6}, tilted); err == nil {
		t.Error("a tilted loss accepted")
	}
	ball, _ := geom.NewBall(2, 1, 1, nil)
	onBall := p
	onBall.Domain = ball
	if _, err := (REM{}).Plan(privacy.Budget{Epsilon: 1, Delta: 1e-6}, onBall); err == nil || !strings.Contains(err.Error(), "ℓ1 ball") {
		t.Errorf("certified sampling on an ℓ1 ball: error %v", err)
	}
	if _, err := (REM{Sampler: SampleMALA}).Plan(privacy.Budget{Epsilon: 1, Delta: 1e-6}, onBall); err != nil {
		t.Errorf("MALA on an ℓ1 ball: %v", err)
	}
	pl, _ := REM{}.Plan(privacy.Budget{Epsilon: 1, Delta: 1e-6}, p)
	other := toyData(51, 2, 5)
	if _, err := pl.Run(context.Background(), other, rng.Seeded(1), nil); err == nil {
		t.Error("a dataset of another size accepted")
	}
}

// TestREMAutoChoosesTheCheapestOracle: with the float64 sampler, the default plans every
// certified oracle and keeps the cheapest; for the smooth logistic loss that is the envelope
// oracle near the proximal point. (Without FloatSampler the default is the safe oracle C.)
func TestREMAutoChoosesTheCheapestOracle(t *testing.T) {
	ds := toyData(500, 4, 6)
	p := toyProblem(ds)
	pl, err := REM{FloatSampler: true}.Plan(privacy.Budget{Epsilon: 1, Delta: 1e-6}, p)
	if err != nil {
		t.Fatal(err)
	}
	rp := pl.(*remPlan)
	if rp.mech.Sampler != SampleEnvelope {
		t.Errorf("auto chose %s for the logistic loss", rp.mech.Sampler)
	}
	for _, mode := range []SamplerMode{SampleStochastic, SampleValue} {
		other, err := REM{Sampler: mode, FloatSampler: true}.Plan(privacy.Budget{Epsilon: 1, Delta: 1e-6}, p)
		if err != nil {
			t.Fatal(err)
		}
		if other.Cost().Seconds(cost.Reference) < pl.Cost().Seconds(cost.Reference) {
			t.Errorf("%s is cheaper than the automatic choice", mode)
		}
	}
}

// TestREMExampleRank: the sampler is told the true rank of the per-example losses, which its
// bounds rely on: 1 for linear models, K for the multinomial loss, d for the robust loss.
func TestREMExampleRank(t *testing.T) {
	ds := toyData(100, 3, 7)
	for _, tc := range []struct {
		spec LossSpec
		dim  int
		want int
	}{
		{LossSpec{Name: "logistic"}, 3, 1},
		{LossSpec{Name: "multinomial", Classes: 4}, 12, 4},
		{LossSpec{Name: "logistic", RobustRadius: 0.1, RobustNorm: 2}, 3, 3},
	} {
		p := toyProblem(ds)
		p.Loss = tc.spec
		p.Domain = geom.Whole{D: tc.dim}
		pl, err := REM{Sampler: SampleStochastic, FloatSampler: true}.Plan(privacy.Budget{Epsilon: 1, Delta: 1e-6}, p)
		if err != nil {
			t.Fatal(err)
		}
		if got := pl.(*remPlan).samplerConstants().ExampleRank; got != tc.want {
			t.Errorf("%+v: rank %d, want %d", tc.spec, got, tc.want)
		}
	}
}

// TestREMTargetSubgradient: the gradient-only path of the sampler's target writes the bits of
// its value-and-gradient path (the envelope oracle's proximal steps use one, its acceptance
// test the other).
func TestREMTargetSubgradient(t *testing.T) {
	ds := toyData(200, 4, 9)
	p := toyProblem(ds)
	l, err := p.NewLoss(ds)
	if err != nil {
		t.Fatal(err)
	}
	tg := &remTarget{loss: l, k: 37.5, rows: p.N, domain: p.Domain}
	r := rng.Seeded(3)
	for range 5 {
		x := make([]float64, 4)
		r.NormalVec(x)
		want, got := make([]float64, 4), make([]float64, 4)
		tg.Grad(want, x)
		tg.Subgradient(got, x)
		if !slices.Equal(got, want) {
			t.Fatalf("Subgradient %v, Grad %v", got, want)
		}
	}
}

// remOnBallPin is the digest of TestREMOnABall's release (natively and in wasm).
const remOnBallPin = 0xfb5f0e3fef5cf9a4

// TestREMOnABall runs the certified REM (its default, oracle C) on an ℓ2 ball small enough to
// bind (the unconstrained fit is far larger): the release is in the ball and certified, and
// pinned bit for bit (the test runs natively and under js/wasm). Oracles A and B need millions
// of steps here (the sampler's tests run them on balls).
func TestREMOnABall(t *testing.T) {
	ds := toyData(200, 4, 9)
	p := toyProblem(ds)
	ball, err := geom.NewBall(p.params(), 2, 0.3, nil)
	if err != nil {
		t.Fatal(err)
	}
	p.Domain, p.Radius = ball, 0.3
	pl, err := REM{}.Plan(privacy.Budget{Epsilon: 2, Delta: 1e-6}, p)
	if err != nil {
		t.Fatal(err)
	}
	rel, err := pl.Run(context.Background(), ds, rng.Seeded(11), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !ball.Contains(rel.Model.Weights) || !rel.Report.Sampler.Certified || !(rel.Report.Sampler.TV > 0) {
		t.Errorf("weights %v, sampler %+v", rel.Model.Weights, rel.Report.Sampler)
	}
	dg := stattest.NewDigest()
	dg.Add(rel.Model.Weights...)
	dg.Add(rel.Report.Achieved.Delta)
	if dg.Sum() != remOnBallPin {
		t.Errorf("digest %#x, pinned %#x", dg.Sum(), uint64(remOnBallPin))
	}
}

// TestREMFloatingPointSafe: REM with the logistic loss on the whole space plans the
// floating-point-safe sampler at every ε of adult-lr's benchmark (its floating-point term a
// small share of the sampler's budget), and so do the smoothed hinge, Huber, hinge,
// multinomial and robust (ℓ2) losses, and on a box (the squared loss too); the report says so
// and does not carry the exact-arithmetic caveat, and on ℓ2 balls, small ones too; a robust
// loss in ℓ1.5 and the oracles A and B are refused unless FloatSampler is set, and the float64
// sampler's report carries the caveat.
func TestREMFloatingPointSafe(t *testing.T) {
	train, _ := adultData(t)
	ap := adultConfig{radius: 10}.problem(t, train)
	for _, eps := range []float64{0.1, 1, 8} {
		pl, err := REM{}.Plan(privacy.Budget{Epsilon: eps, Delta: 1e-6}, ap)
		if err != nil {
			t.Fatal(err)
		}
		rp := pl.(*remPlan)
		ps := pl.Parameters()
		if !rp.safe || !(ps["sampler_tv_float"] > 0 && ps["sampler_tv_float"] <= rp.tvBudget/8) || ps["sampler_grid"] != 0x1p-14 {
			t.Errorf("ε = %g: safe %v, parameters %v", eps, rp.safe, ps)
		}
	}
	ds := toyData(300, 3, 4)
	p := toyProblem(ds)
	pl, err := REM{}.Plan(privacy.Budget{Epsilon: 1, Delta: 1e-6}, p)
	if err != nil {
		t.Fatal(err)
	}
	rel, err := pl.Run(context.Background(), ds, rng.New(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rel.Report.Statement, "grid of spacing") || strings.Contains(rel.Report.Statement, "exact arithmetic") || !rel.Report.Private {
		t.Errorf("statement %q", rel.Report.Statement)
	}
	for _, l := range []LossSpec{{Name: LossSmoothHinge, Param: 0.5}, {Name: LossHuber, Param: 1}, {Name: LossHinge}} {
		q := p
		q.Loss = l
		pl, err := REM{}.Plan(privacy.Budget{Epsilon: 1, Delta: 1e-6}, q)
		if err != nil {
			t.Fatal(err)
		}
		if !pl.(*remPlan).safe {
			t.Errorf("%s: not planned floating-point safe", l.Name)
		}
	}
	if fpl, err := (REM{FloatSampler: true}).Plan(privacy.Budget{Epsilon: 1, Delta: 1e-6}, p); err != nil || fpl.(*remPlan).safe {
		t.Errorf("FloatSampler: %v, planned floating-point safe", err)
	}
	// The multinomial loss: planned safe, and its run releases on the grid.
	multi := multiData(300, 3, 3, 6)
	mp := Problem{Loss: LossSpec{Name: LossMultinomial, Classes: 3}, Dim: 3, N: 300, Bounds: loss.Bounds{X: 1, XNorm: 2},
		Domain: geom.Whole{D: 9}, Radius: 3}
	mpl, err := REM{}.Plan(privacy.Budget{Epsilon: 1, Delta: 1e-6}, mp)
	if err != nil {
		t.Fatal(err)
	}
	if !mpl.(*remPlan).safe {
		t.Fatal("multinomial: not planned floating-point safe")
	}
	mrel, err := mpl.Run(context.Background(), multi, rng.Seeded(8), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := mrel.Diagnostics.Details["sampler_fallbacks"]; !ok || !strings.Contains(mrel.Report.Statement, "grid of spacing") {
		t.Errorf("multinomial: statement %q, diagnostics %v", mrel.Report.Statement, mrel.Diagnostics)
	}
	// The hinge loss: planned safe, and its run (on few rows: its steps grow like n) releases
	// on the grid.
	hds := toyData(60, 3, 4)
	hp := toyProblem(hds)
	hp.Loss = LossSpec{Name: LossHinge}
	hpl, err := REM{}.Plan(privacy.Budget{Epsilon: 0.5, Delta: 1e-6}, hp)
	if err != nil {
		t.Fatal(err)
	}
	hrel, err := hpl.Run(context.Background(), hds, rng.Seeded(9), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(hrel.Report.Statement, "grid of spacing") {
		t.Errorf("hinge: statement %q", hrel.Report.Statement)
	}
	// A box: planned safe, and its run releases on the grid.
	bp := p
	bp.Domain, bp.Radius = cube(t, 3, 0.5), 0.5*math.Sqrt(3)
	bpl, err := REM{}.Plan(privacy.Budget{Epsilon: 1, Delta: 1e-6}, bp)
	if err != nil {
		t.Fatal(err)
	}
	brel, err := bpl.Run(context.Background(), ds, rng.Seeded(10), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bpl.(*remPlan).safe || !strings.Contains(brel.Report.Statement, "grid of spacing") {
		t.Errorf("box: safe %v, statement %q", bpl.(*remPlan).safe, brel.Report.Statement)
	}
	bp.Loss = LossSpec{Name: LossSquared} // Lipschitz on a box only
	if spl, err := (REM{}).Plan(privacy.Budget{Epsilon: 1, Delta: 1e-6}, bp); err != nil || !spl.(*remPlan).safe {
		t.Errorf("the squared loss on a box: %v, not planned floating-point safe", err)
	}
	// The robust loss (perturbations in ℓ2): planned safe, and its run (on few rows, like the
	// hinge's) releases on the grid.
	rp := hp
	rp.Loss = LossSpec{Name: LossLogistic, RobustRadius: 0.1, RobustNorm: 2}
	rpl, err := REM{}.Plan(privacy.Budget{Epsilon: 0.2, Delta: 1e-6}, rp)
	if err != nil {
		t.Fatal(err)
	}
	rrel, err := rpl.Run(context.Background(), hds, rng.Seeded(11), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !rpl.(*remPlan).safe || !strings.Contains(rrel.Report.Statement, "grid of spacing") {
		t.Errorf("robust: safe %v, statement %q", rpl.(*remPlan).safe, rrel.Report.Statement)
	}
	// ℓ2 balls, one far above 3σ√d of the unconstrained plan and one below it (there σ is
	// capped): planned safe, their releases on the grid and in the ball.
	for _, radius := range []float64{5, 0.05} {
		ball, err := geom.NewBall(3, 2, radius, nil)
		if err != nil {
			t.Fatal(err)
		}
		pl, err := REM{}.Plan(privacy.Budget{Epsilon: 1, Delta: 1e-6}, Problem{Loss: p.Loss, Dim: 3, N: 300, Bounds: p.Bounds, Domain: ball, Radius: radius})
		if err != nil {
			t.Fatal(err)
		}
		rel, err := pl.Run(context.Background(), ds, rng.Seeded(5), nil)
		if err != nil {
			t.Fatal(err)
		}
		if !pl.(*remPlan).safe || !strings.Contains(rel.Report.Statement, "grid of spacing") || !ball.Contains(rel.Model.Weights) {
			t.Errorf("ball of radius %g: safe %v, weights %v, statement %q", radius, pl.(*remPlan).safe, rel.Model.Weights, rel.Report.Statement)
		}
	}
	// What the safe sampler cannot run is refused unless FloatSampler asks for the float64
	// sampler, whose report then says that the guarantee holds in exact arithmetic.
	for name, tc := range map[string]struct {
		mech REM
		p    Problem
	}{
		"robust in ℓ1.5": {REM{}, Problem{Loss: LossSpec{Name: LossLogistic, RobustRadius: 0.1, RobustNorm: 1.5}, Dim: 3, N: 300, Bounds: p.Bounds, Domain: p.Domain, Radius: p.Radius}},
		"oracle A":       {REM{Sampler: SampleValue}, p},
		"oracle B":       {REM{Sampler: SampleStochastic}, p},
	} {
		budget := privacy.Budget{Epsilon: 1, Delta: 1e-6}
		if _, err := tc.mech.Plan(budget, tc.p); err == nil || !strings.Contains(err.Error(), "FloatSampler=true") {
			t.Errorf("%s: %v, want a refusal that names FloatSampler", name, err)
		}
		tc.mech.FloatSampler = true
		pl, err := tc.mech.Plan(budget, tc.p)
		if err != nil {
			t.Fatalf("%s with FloatSampler: %v", name, err)
		}
		if pl.(*remPlan).safe {
			t.Errorf("%s: planned floating-point safe", name)
		}
	}
	// The float64 sampler's report (oracle C, cheap here; A and B need millions of steps).
	fpl, err := REM{FloatSampler: true}.Plan(privacy.Budget{Epsilon: 1, Delta: 1e-6}, p)
	if err != nil {
		t.Fatal(err)
	}
	frel, err := fpl.Run(context.Background(), ds, rng.Seeded(5), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(frel.Report.Statement, "exact arithmetic") || strings.Contains(frel.Report.Statement, "grid of spacing") {
		t.Errorf("FloatSampler: statement %q", frel.Report.Statement)
	}
}
