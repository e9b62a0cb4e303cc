package mech

import (
	"context"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/geom"
	"github.com/privopt/privopt/pkg/core/privacy"
	"github.com/privopt/privopt/pkg/interval"
	"github.com/privopt/privopt/pkg/rng"
)

// TestLpRemainderRounding: lpRemainder's value and gradient are within lpRemainderErrors' bounds
// of their 256-bit enclosures, for random points with coordinates over many magnitudes and
// zeros, at the exponents of REM in ℓp (q = 1 + 1/ln d for p = 1, and 1.5), and the enclosure
// is narrow enough to exclude a value twice the bound away. The largest error/bound ratios are
// about 3e-6 (value) and 9e-7 (gradient): the bounds allow for detmath's tolerance of 2⁻⁴⁰, far
// above its tested error.
func TestLpRemainderRounding(t *testing.T) {
	const prec = 256
	r := rng.Seeded(77)
	worstV, worstG := 0.0, 0.0
	for trial := range 300 {
		d := 1 + trial%40
		q := 1.5
		if trial%2 == 0 && d >= 3 {
			q = 1 + 1/math.Log(float64(d))
		}
		s, gauss := 1/(q-1)*math.Exp(r.Normal()), 0.0
		gauss = s * (q - 1)
		w := make([]float64, d)
		for i := range w {
			if r.Float64() < 0.2 {
				continue
			}
			w[i] = r.Normal() * math.Exp(6*r.Normal())
		}
		grad := make([]float64, d)
		h, nq := lpRemainder(q, s, gauss, w, grad)
		vErr, slope := lpRemainderErrors(s, d, nq)
		// The exact value, with gauss = m/kmu for m = gauss, kmu = 1.
		exact := lpRemainderInterval(q, s, gauss, 1, prec, w)
		mid := new(big.Float).Add(exact.Lo, exact.Hi)
		mid.SetMantExp(mid, -1)
		mf, _ := mid.Float64()
		if e := math.Abs(h - mf); e > vErr {
			t.Fatalf("trial %d (d = %d, q = %g): value error %g > bound %g", trial, d, q, e, vErr)
		} else if vErr > 0 {
			worstV = math.Max(worstV, e/vErr)
		}
		// The exact gradient: S·N^{2−q}·sign(wᵢ)|wᵢ|^{q−1} − gauss·wᵢ, from N's enclosure.
		var sum interval.I = interval.Point(0, prec)
		for _, v := range w {
			if v != 0 {
				sum = interval.Add(sum, interval.Exp(interval.MulFloat(interval.Log(interval.Point(math.Abs(v), prec), prec), q, prec), prec), prec)
			}
		}
		var e2 float64
		for i, v := range w {
			g := -gauss * v
			if v != 0 {
				logN := interval.Quo(interval.Log(sum, prec), interval.Point(q, prec), prec)
				lg := interval.Add(interval.MulFloat(logN, 2-q, prec), interval.MulFloat(interval.Log(interval.Point(math.Abs(v), prec), prec), q-1, prec), prec)
				m := interval.MulFloat(interval.Exp(lg, prec), s, prec)
				mf, _ := m.Lo.Float64()
				g += math.Copysign(mf, v)
			}
			e2 += (grad[i] - g) * (grad[i] - g)
		}
		var n2 float64
		for _, v := range w {
			n2 += v * v
		}
		if bound := slope * math.Sqrt(n2); math.Sqrt(e2) > bound+1e-300 {
			t.Fatalf("trial %d (d = %d, q = %g): gradient error %g > bound %g", trial, d, q, math.Sqrt(e2), bound)
		} else if bound > 0 {
			worstG = math.Max(worstG, math.Sqrt(e2)/bound)
		}
		if vErr > 0 && exact.Cmp(big.NewFloat(h+2*vErr)) == 0 {
			t.Fatalf("trial %d: the enclosure holds a value off by twice the bound", trial)
		}
	}
	t.Logf("largest error/bound: value %.3g, gradient %.3g", worstV, worstG)
}

// TestREMLpFloatingPointSafe: REM in ℓp plans the floating-point-safe sampler for p = 1 on a
// box with the logistic loss (the remainder's interval form, q = 1 + 1/ln 3) and for p = 2 on
// the whole space (no remainder); the runs release on the grid, in the domain, without the
// exact-arithmetic caveat; Schatten-p below 2 is refused unless FloatSampler is set, whose
// report keeps the caveat. (Small n and ε keep the plans short: 66 and 26 steps.)
func TestREMLpFloatingPointSafe(t *testing.T) {
	ds := toyData(30, 3, 4)
	box := boxProblem(t, ds, 1)
	whole := toyProblem(ds)
	for _, tc := range []struct {
		name string
		mech REMLp
		p    Problem
	}{
		{"l1 on a box", REMLp{Norm: 1}, box},
		{"l2 on the whole space", REMLp{Norm: 2}, whole},
	} {
		plan, err := tc.mech.Plan(privacy.Budget{Epsilon: 0.5, Delta: 1e-6}, tc.p)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		pl := plan.(*remLpPlan)
		if !pl.safe || !(pl.plan.TVFloat > 0) {
			t.Fatalf("%s: not planned floating-point safe", tc.name)
		}
		checkLpTarget(t, tc.name, pl, ds)
		rel, err := plan.Run(context.Background(), ds, rng.Seeded(3), nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !strings.Contains(rel.Report.Statement, "grid of spacing") || strings.Contains(rel.Report.Statement, "exact arithmetic") ||
			!tc.p.Domain.Contains(rel.Model.Weights) || rel.Diagnostics.Details["sampler_undecided"] != 0 {
			t.Errorf("%s: weights %v, statement %q", tc.name, rel.Model.Weights, rel.Report.Statement)
		}
		// The safe plan's acceptance bound (the split one for p = 1: the smooth loss of rank 1
		// plus the remainder's Lipschitz term) holds: one-sided, 4 standard errors.
		acc, trials := rel.Diagnostics.Details["sampler_acceptance"], float64(pl.plan.Steps)
		if se := math.Sqrt(acc * (1 - acc) / trials); acc < pl.plan.MinAcceptance-4*se-1e-3 {
			t.Errorf("%s: acceptance %.4f, below the plan's bound %.4f", tc.name, acc, pl.plan.MinAcceptance)
		}
		t.Logf("%s: %d steps, acceptance %.4f (bound %.4f)", tc.name, pl.plan.Steps, acc, pl.plan.MinAcceptance)
	}
	if fp, err := (REMLp{Norm: 1, FloatSampler: true}).Plan(privacy.Budget{Epsilon: 0.5, Delta: 1e-6}, box); err != nil || fp.(*remLpPlan).safe {
		t.Errorf("FloatSampler: %v, planned floating-point safe", err)
	}
	multi := multiData(30, 3, 3, 4)
	mp := Problem{Loss: LossSpec{Name: "multinomial", Classes: 3}, Dim: 3, N: 30, Bounds: box.Bounds, Domain: cube(t, 9, 1), Radius: 3}
	if _, err := (REMLp{Norm: 1.5}).Plan(privacy.Budget{Epsilon: 2, Delta: 1e-6}, mp); err == nil || !strings.Contains(err.Error(), "FloatSampler=true") {
		t.Errorf("Schatten-1.5: %v, want a refusal that names FloatSampler", err)
	}
	plan, err := REMLp{Norm: 1.5, FloatSampler: true}.Plan(privacy.Budget{Epsilon: 2, Delta: 1e-6}, mp)
	if err != nil {
		t.Fatal(err)
	}
	if plan.(*remLpPlan).safe {
		t.Error("Schatten-1.5: planned floating-point safe")
	}
	rel, err := plan.Run(context.Background(), multi, rng.Seeded(3), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rel.Report.Statement, "exact arithmetic") {
		t.Errorf("Schatten-1.5: statement %q", rel.Report.Statement)
	}
	if _, ok := plan.(*remLpPlan).reg.(*geom.SchattenRegularizer); !ok {
		t.Errorf("Schatten-1.5: regularizer %T", plan.(*remLpPlan).reg)
	}
}

// checkLpTarget checks a safe plan's target at random points of the box [−1, 1]^d: its value
// plus the Gaussian part (m/2)‖x‖² is k·F_D + fl(kμ)·r (geom's regularizer, float64), and its
// 256-bit enclosure lies within ValueError of the value it computes.
func checkLpTarget(t *testing.T, name string, pl *remLpPlan, ds *data.Dataset) {
	t.Helper()
	l, err := LossOver(pl.budget, pl.problem, ds)
	if err != nil {
		t.Fatal(err)
	}
	tg := &remLpTarget{loss: l, k: pl.k, rows: pl.problem.N, kmu: pl.k * pl.mu, sigma2: pl.sigma2, constants: pl.samplerConstants(),
		domain: pl.problem.Domain, safe: true, g2: pl.g2}
	tg.gauss = tg.constants.StrongConvexity / tg.kmu
	if !pl.gaussian {
		tg.reg, tg.scratch = pl.reg, make([]float64, pl.dim)
	}
	r := rng.Seeded(9)
	x := make([]float64, pl.dim)
	for range 50 {
		var sq float64
		for i := range x {
			x[i] = 2*r.Float64() - 1
			sq += x[i] * x[i]
		}
		v := tg.Value(x)
		want := tg.k * l.Mean(nil, x) // f = k·F_D without a remainder
		if !pl.gaussian {
			want += tg.kmu*pl.reg.Value(x) - tg.constants.StrongConvexity/2*sq
		}
		if math.Abs(v-want) > 1e-9*(1+math.Abs(want)) {
			t.Fatalf("%s: f(x) + (m/2)‖x‖² is %g, want k·F + kμ·r = %g", name, v+tg.constants.StrongConvexity/2*sq, want+tg.constants.StrongConvexity/2*sq)
		}
		lo, hi, exp := tg.ValueEnclosure(256, x)
		enc := interval.FromEnds(lo, hi, exp, 256)
		e := tg.ValueError(x, v)
		if enc.Lo.Cmp(big.NewFloat(v-e)) < 0 || enc.Hi.Cmp(big.NewFloat(v+e)) > 0 {
			t.Fatalf("%s: the enclosure of f(x) is not within ValueError %g of %g", name, e, v)
		}
	}
}
