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

// regularizerOf returns, from Gopi, Lee, Liu, Shen and Tian's definitions (independently of geom), the exponent q
// and scale S of r = (S/2)‖w‖_q² for the norm ℓp in dimension d.
func regularizerOf(p float64, d int) (q, s float64) {
	switch {
	case p == 1:
		q = 1 + 1/math.Log(float64(d))
		return q, math.Pow(float64(d), 2*(1-1/q)) / (q - 1)
	case p <= 2:
		return p, 1 / (p - 1)
	}
	return 2, 1
}

// TestREMLpCalibration checks the plan for several norms: Δ_p = 2G_p/n with G_p the loss's
// Lipschitz constant in ℓp; the planned μ_GDP identity Δ_p√(k/(μσ_p)) = μ_GDP, calibrated on
// the exact curve below the target; the folded guarantee meets the budget; Θ is the smaller
// of the regularizer's ranges over the box and over the comparison ball, computed here from
// the definitions; the utility bound is d/k + μΘ = 2(Δ_p/μ_GDP)√(dΘ/σ_p).
func TestREMLpCalibration(t *testing.T) {
	ds := toyData(300, 3, 2)
	for _, tc := range []struct {
		norm, b, radius float64
		mode            SamplerMode
	}{
		{1, 1, 10, SampleStochastic},
		{1, 1, 0.5, SampleMALA},
		{1.5, 2, 10, SampleEnvelope},
		{2, 2, 10, SampleValue},
		{3, 2, 1, SampleMALA},
		{math.Inf(1), 1, 10, SampleStochastic},
	} {
		p := boxProblem(t, ds, tc.b)
		p.Radius = tc.radius
		budget := privacy.Budget{Epsilon: 1, Delta: 1e-6}
		float := tc.mode == SampleStochastic || tc.mode == SampleValue // oracles A and B run in float64 only
		plan, err := REMLp{Norm: tc.norm, Sampler: tc.mode, FloatSampler: float}.Plan(budget, p)
		if err != nil {
			t.Fatalf("p = %g: %v", tc.norm, err)
		}
		pl := plan.(*remLpPlan)
		cp, _ := p.Constants(tc.norm)
		if want := 2 * cp.Lipschitz / 300; pl.delta != want {
			t.Errorf("p = %g: Δ = %g, want 2G_p/n = %g", tc.norm, pl.delta, want)
		}
		if pl.sigmaP != 1 && math.Abs(pl.sigmaP-1) > 1e-12 {
			t.Errorf("p = %g: σ_p = %g, want 1 (Gopi, Lee, Liu, Shen and Tian's regularizers)", tc.norm, pl.sigmaP)
		}
		if got := pl.delta * math.Sqrt(pl.k/(pl.mu*pl.sigmaP)); math.Abs(got-pl.muGDP) > 1e-12*pl.muGDP {
			t.Errorf("p = %g: Δ√(k/(μσ)) = %g, calibrated μ_GDP = %g", tc.norm, got, pl.muGDP)
		}
		deltaMech := 1e-6
		if pl.certified {
			deltaMech = 1e-6 - (1+math.E)*0.1*1e-6/(1+math.E)
		}
		if want, _ := privacy.CalibrateGDP(1, deltaMech); math.Abs(pl.muGDP-want) > 1e-9*want {
			t.Errorf("p = %g: μ_GDP = %g, want %g", tc.norm, pl.muGDP, want)
		}
		if d := plan.Guarantee().Delta(1); d > 1e-6 {
			t.Errorf("p = %g: δ(1) = %g > 1e-6", tc.norm, d)
		}
		q, s := regularizerOf(tc.norm, 3)
		onBox := s / 2 * math.Pow(tc.b*math.Pow(3, 1/q), 2)
		onBall := s / 2 * math.Pow(tc.radius*math.Pow(3, math.Max(0, 1/q-0.5)), 2)
		if want := math.Min(onBox, onBall); math.Abs(pl.theta-want) > 1e-12*want {
			t.Errorf("p = %g: Θ = %g, want min(%g on the box, %g on the ball)", tc.norm, pl.theta, onBox, onBall)
		}
		b1, b2 := 3/pl.k+pl.mu*pl.theta, 2*pl.delta/pl.muGDP*math.Sqrt(3*pl.theta/pl.sigmaP)
		if math.Abs(plan.Utility().Bound-b1) > 1e-12*b1 || math.Abs(b1-b2) > 1e-12*b1 {
			t.Errorf("p = %g: utility %g, want d/k + μΘ = %g = %g", tc.norm, plan.Utility().Bound, b1, b2)
		}
	}
}

// TestREMLpMatchesREM: at p = 2 on the whole space REM in ℓp is the ℓ2 REM: the same k and μ.
func TestREMLpMatchesREM(t *testing.T) {
	ds := toyData(200, 3, 1)
	p := toyProblem(ds)
	b := privacy.Budget{Epsilon: 1, Delta: 1e-6}
	a, err := REMLp{Norm: 2}.Plan(b, p)
	if err != nil {
		t.Fatal(err)
	}
	r, err := REM{}.Plan(b, p)
	if err != nil {
		t.Fatal(err)
	}
	pa, pr := a.(*remLpPlan), r.(*remPlan)
	ma, mr := pa.samplerConstants().StrongConvexity, pr.samplerConstants().StrongConvexity
	if math.Abs(pa.k-pr.k) > 1e-12*pr.k || math.Abs(pa.mu-pr.mu) > 1e-12*pr.mu || math.Abs(ma-mr) > 1e-12*mr {
		t.Errorf("rem-lp at p = 2: k = %g, μ = %g; rem: k = %g, μ = %g", pa.k, pa.mu, pr.k, pr.mu)
	}
}

// TestRemainderLipschitz checks the bound on ‖∇h‖₂, h = r − (σ₂/2)‖w‖², on boxes (symmetric
// and not, vectors and a Schatten matrix): never exceeded at random points and vertices, and
// reached within 5% (exactly at the vertices of the cubes); and that h is convex (midpoint inequality), as the sampler needs.
func TestRemainderLipschitz(t *testing.T) {
	vec := func(p float64, d int) geom.Regularizer {
		r, err := geom.NewLpRegularizer(p, d, nil)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	mat, err := geom.NewSchattenRegularizer(1.5, 3, 4, nil)
	if err != nil {
		t.Fatal(err)
	}
	mat1, err := geom.NewSchattenRegularizer(1, 3, 4, nil)
	if err != nil {
		t.Fatal(err)
	}
	asym, _ := geom.NewBox([]float64{-1, 0, -3, 0.5}, []float64{2, 1, 1, 4})
	for _, tc := range []struct {
		name string
		reg  geom.Regularizer
		box  *geom.Box
		k    int
	}{
		{"l1.5 cube", vec(1.5, 4), cube(t, 4, 2), 0},
		{"l1 cube", vec(1, 5), cube(t, 5, 1), 0},
		{"l1.2 asymmetric", vec(1.2, 4), asym, 0},
		{"schatten1.5", mat, cube(t, 12, 1), 3},
		{"schatten1", mat1, cube(t, 12, 0.5), 3},
	} {
		sigma2 := tc.reg.Modulus(2)
		bound, err := remainderLipschitz(tc.reg, tc.box, tc.k)
		if err != nil {
			t.Fatal(err)
		}
		d := tc.reg.Dim()
		grad := make([]float64, d)
		gradH := func(x []float64) float64 {
			tc.reg.Grad(grad, x)
			for i := range grad {
				grad[i] -= sigma2 * x[i]
			}
			return geom.Norm(grad, 2)
		}
		h := func(x []float64) float64 { return tc.reg.Value(x) - sigma2/2*geom.Norm(x, 2)*geom.Norm(x, 2) }
		r := rng.Seeded(9)
		lo, hi := tc.box.Lo(), tc.box.Hi()
		x, y, mid := make([]float64, d), make([]float64, d), make([]float64, d)
		worst := 0.0
		for trial := range 4000 {
			for i := range x {
				u, v := r.Float64(), r.Float64()
				if trial%4 == 0 { // vertices and faces
					u, v = math.Round(u), math.Round(v)
				}
				x[i], y[i] = lo[i]+(hi[i]-lo[i])*u, lo[i]+(hi[i]-lo[i])*v
				mid[i] = (x[i] + y[i]) / 2
			}
			worst = math.Max(worst, gradH(x))
			if hm := h(mid); hm > (h(x)+h(y))/2+1e-9*(1+math.Abs(hm)) {
				t.Fatalf("%s: h is not convex: h(mid) = %g > %g", tc.name, hm, (h(x)+h(y))/2)
			}
		}
		if worst > bound {
			t.Errorf("%s: ‖∇h‖₂ reaches %g > the bound %g", tc.name, worst, bound)
		}
		if worst < 0.95*bound {
			t.Errorf("%s: the bound %g is not reached within 5%%: the largest ‖∇h‖₂ found is %g", tc.name, bound, worst)
		}
	}
}

// TestREMLpPrivacy2D computes, by quadrature on a fine 2-D grid, the privacy curve between
// the exact distributions of REM in ℓ1.5 on adversarial replace-one neighbours (the planned
// k, μ and regularizer) and checks δ(ε) ≤ δ_GDP(ε) at the planned μ_GDP (Gopi, Lee, Liu, Shen and Tian, Theorem 2,
// with Δ = 2G_p/n): Σ max(0, q − e^ε·p) over the cells, for several ε.
func TestREMLpPrivacy2D(t *testing.T) {
	const n = 10
	// G in ℓ1.5 is ‖x‖₃ ≤ ‖x‖₂ = 1; the differing rows are ±x* with x* ∝ (1, 1)/√2 (‖x*‖₃ < 1),
	// and the other rows are spread.
	rows := [][]float64{{0.3, -0.2}, {-0.5, 0.1}, {0.2, 0.6}, {-0.1, -0.7}, {0.8, 0}, {0, 0.4}, {-0.6, -0.3}, {0.4, 0.4}, {-0.2, 0.5}, {math.Sqrt(0.5), math.Sqrt(0.5)}}
	labels := []float64{1, -1, 1, -1, 1, 1, -1, 1, -1, 1}
	d1 := rowsData(2, rows, labels)
	labels2 := append([]float64(nil), labels...)
	labels2[n-1] = -1
	d2 := rowsData(2, rows, labels2)
	p := boxProblem(t, d1, 4)
	p.Radius = 2
	plan, err := REMLp{Norm: 1.5, Sampler: SampleMALA}.Plan(privacy.Budget{Epsilon: 1, Delta: 1e-2}, p)
	if err != nil {
		t.Fatal(err)
	}
	pl := plan.(*remLpPlan)
	const m = 500
	axis := grid1(-4, 4, m)
	var logp [2][]float64
	for k, ds := range []*data.Dataset{d1, d2} {
		l, _ := p.NewLoss(ds)
		lp := make([]float64, 0, (m+1)*(m+1))
		top := math.Inf(-1)
		for _, u := range axis {
			for _, v := range axis {
				w := []float64{u, v}
				e := -pl.k * (l.Mean(nil, w) + pl.mu*pl.reg.Value(w))
				lp = append(lp, e)
				top = math.Max(top, e)
			}
		}
		z := 0.0
		for _, e := range lp {
			z += math.Exp(e - top)
		}
		for i := range lp {
			lp[i] -= top + math.Log(z)
		}
		logp[k] = lp
	}
	for _, eps := range []float64{0, 0.25, 0.5, 1, 2} {
		delta := 0.0
		for i := range logp[0] {
			delta += math.Max(0, math.Exp(logp[1][i])-math.Exp(eps+logp[0][i]))
		}
		// Discretisation error of the cell sums: below 1e-3 at this spacing.
		if bound := pl.base.Delta(eps); delta > bound+1e-3 {
			t.Errorf("ε = %g: δ between the neighbours = %g > δ_GDP = %g at μ = %g", eps, delta, bound, pl.muGDP)
		}
	}
}

// TestREMLpRuns runs REM in ℓp end to end on small problems, certified and fast, for vector
// and Schatten (multinomial) models: the report's sampler status, the statement, the
// model's size, no clipped oracle call, and, over 20 certified runs, the mean excess risk
// against the utility bound (the exact distribution's; the certified sampler is within its
// planned TV, below 1e-6, of it). The bound is loose on such a small problem.
func TestREMLpRuns(t *testing.T) {
	const n = 20
	ds := toyData(n, 3, 3)
	p := boxProblem(t, ds, 1)
	l, _ := p.NewLoss(ds)
	best := math.Inf(1)
	axis := grid1(-1, 1, 60)
	for _, u := range axis {
		for _, v := range axis {
			for _, w := range axis {
				best = math.Min(best, l.Mean(nil, []float64{u, v, w}))
			}
		}
	}
	multi := multiData(n, 3, 3, 4)
	mp := Problem{Loss: LossSpec{Name: "multinomial", Classes: 3}, Dim: 3, N: n, Bounds: loss.Bounds{X: 1, XNorm: 2}, Domain: cube(t, 9, 1), Radius: 3}
	for _, tc := range []struct {
		name string
		mech REMLp
		p    Problem
		ds   *data.Dataset
		runs int
	}{
		{"l1 default", REMLp{Norm: 1}, p, ds, 20},
		{"l2 stochastic", REMLp{Norm: 2, Sampler: SampleStochastic, FloatSampler: true}, p, ds, 1},
		{"l1.5 mala", REMLp{Norm: 1.5, Sampler: SampleMALA, FastSteps: 2000}, p, ds, 2},
		{"schatten1 langevin", REMLp{Norm: 1, Sampler: SampleLangevin, FastSteps: 500}, mp, multi, 1},
		{"l1 kinetic langevin", REMLp{Norm: 1, Sampler: SampleKinetic}, p, ds, 2},
		{"schatten1.5 envelope", REMLp{Norm: 1.5, Sampler: SampleEnvelope, FloatSampler: true}, mp, multi, 1},
	} {
		plan, err := tc.mech.Plan(privacy.Budget{Epsilon: 2, Delta: 1e-5}, tc.p)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		r := rng.Seeded(8)
		mean := 0.0
		for range tc.runs {
			rel, err := plan.Run(context.Background(), tc.ds, r, nil)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			_, certified := tc.mech.Sampler.oracle()
			certified = certified || tc.mech.Sampler == ""
			if rel.Report.Sampler.Certified != certified || rel.Report.Private || len(rel.Model.Weights) != tc.p.params() {
				t.Fatalf("%s: report %+v, %d weights", tc.name, rel.Report, len(rel.Model.Weights))
			}
			if !certified && !strings.Contains(rel.Report.Statement, "not certified") {
				t.Errorf("%s: statement %q", tc.name, rel.Report.Statement)
			}
			if certified && rel.Diagnostics.Details["sampler_clipped"] != 0 {
				t.Errorf("%s: the oracle clipped %g times", tc.name, rel.Diagnostics.Details["sampler_clipped"])
			}
			mean += rel.Diagnostics.TrainLoss / float64(tc.runs)
		}
		if tc.runs == 20 && mean-best > plan.Utility().Bound {
			t.Errorf("%s: mean excess risk %g > bound %g", tc.name, mean-best, plan.Utility().Bound)
		}
	}
}

// multiData is a K-class dataset with rows in the unit ball, labelled by the largest of the
// first K coordinates (d ≥ K).
func multiData(n, d, k int, seed uint64) *data.Dataset {
	r := rng.Seeded(seed)
	rows, labels := make([][]float64, n), make([]float64, n)
	for i := range rows {
		rows[i] = make([]float64, d)
		if err := r.UnitBall(rows[i]); err != nil {
			panic(err)
		}
		for c := 1; c < min(k, d); c++ {
			if rows[i][c] > rows[i][int(labels[i])] {
				labels[i] = float64(c)
			}
		}
	}
	ds := rowsData(d, rows, labels)
	ds.Label.Classes = []string{"a", "b", "c", "d"}[:k]
	return ds
}

// TestREMLpRejects: pure DP, p < 2 off a box, p < 1, and the ℓ1 regularizer in dimension 2.
func TestREMLpRejects(t *testing.T) {
	ds := toyData(50, 2, 4)
	whole := toyProblem(ds)
	for _, tc := range []struct {
		name string
		m    REMLp
		p    Problem
		b    privacy.Budget
	}{
		{"pure", REMLp{Norm: 2}, whole, privacy.Budget{Epsilon: 1}},
		{"l1.5 on the whole space", REMLp{Norm: 1.5}, whole, privacy.Budget{Epsilon: 1, Delta: 1e-6}},
		{"p < 1", REMLp{Norm: 0.5}, boxProblem(t, ds, 1), privacy.Budget{Epsilon: 1, Delta: 1e-6}},
		{"l1 in dimension 2", REMLp{Norm: 1}, boxProblem(t, ds, 1), privacy.Budget{Epsilon: 1, Delta: 1e-6}},
	} {
		if _, err := tc.m.Plan(tc.b, tc.p); err == nil {
			t.Errorf("%s accepted", tc.name)
		}
	}
}
