package mech

import (
	"context"
	"github.com/privopt/privopt/pkg/core/privacy"
	"math"
	"strings"
	"testing"

	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/geom"
	"github.com/privopt/privopt/pkg/core/loss"
	"github.com/privopt/privopt/pkg/rng"
)

// regressionData returns n rows of d = 10 coordinates: three numeric features z ∈ [−1, 1]
// and the one-hot encoding of a categorical column with six levels of unequal frequency
// (40 % to 2 %), each divided by √8 (four columns), and the bias 1/√2, so ‖x‖₂ ≤ 1; the
// labels in [−1, 1] depend on two of the numeric features and on the level. The one-hot
// features of rare levels have small second moments, so noisy-gd's preconditioner is far from
// the identity.
func regressionData(n int, seed uint64) *data.Dataset {
	const d = 10
	r := rng.Seeded(seed)
	share := []float64{0.4, 0.3, 0.15, 0.1, 0.03, 0.02}
	effect := []float64{-0.5, 0.2, 0.5, -0.8, 0.9, -0.9}
	ds := &data.Dataset{N: n, D: d, X: make([]float64, 0, n*d), Y: make([]float64, n), P: 2, Radius: 1, Bias: math.Sqrt2 / 2,
		Categorical: []int{3, 4, 5, 6, 7, 8}, Label: data.Label{Kind: data.LabelNumeric, Min: -1, Max: 1}}
	for i := range n {
		z := []float64{2*r.Float64() - 1, 2*r.Float64() - 1, 2*r.Float64() - 1}
		level, u := 0, r.Float64()
		for ; level < len(share)-1 && u >= share[level]; level++ {
			u -= share[level]
		}
		row := make([]float64, d)
		for j, v := range z {
			row[j] = v / math.Sqrt(8)
		}
		row[3+level] = 1 / math.Sqrt(8)
		row[d-1] = ds.Bias
		ds.X = append(ds.X, row...)
		ds.Y[i] = math.Max(-1, math.Min(1, 0.6*z[0]-0.4*z[1]+effect[level]+0.1*r.Normal()))
	}
	for j := range d {
		ds.Features = append(ds.Features, "x"+string(rune('a'+j)))
	}
	return ds
}

// ballLeastSquares returns the minimiser of F(w) = (1/2n)·Σᵢ (⟨w, xᵢ⟩ − yᵢ)² over the ℓ2 ball
// of radius r, and its unconstrained norm, from the optimality conditions rather than by
// descent: with A = XᵀX/n and c = Xᵀy/n (A positive definite), the minimiser is A⁻¹c when its
// norm is at most r, and otherwise w(μ) = (A + μI)⁻¹c with ‖w(μ)‖ = r, μ > 0, whose norm
// decreases in μ and is at most ‖c‖/μ: bisection on [0, ‖c‖/r] to the last bit.
func ballLeastSquares(ds *data.Dataset, r float64) (w []float64, free float64) {
	d, n := ds.D, float64(ds.N)
	a := make([]float64, d*d)
	c := make([]float64, d)
	for i := range ds.N {
		x := ds.Row(i, nil)
		for j := range d {
			c[j] += x[j] * ds.Y[i] / n
			for k := range d {
				a[j*d+k] += x[j] * x[k] / n
			}
		}
	}
	solve := func(mu float64) []float64 { // (A + μI)⁻¹c by Gaussian elimination (A + μI is positive definite)
		m := append([]float64(nil), a...)
		x := append([]float64(nil), c...)
		for j := range d {
			m[j*d+j] += mu
		}
		for j := range d {
			for i := j + 1; i < d; i++ {
				f := m[i*d+j] / m[j*d+j]
				for k := j; k < d; k++ {
					m[i*d+k] -= f * m[j*d+k]
				}
				x[i] -= f * x[j]
			}
		}
		for j := d - 1; j >= 0; j-- {
			for k := j + 1; k < d; k++ {
				x[j] -= m[j*d+k] * x[k]
			}
			x[j] /= m[j*d+j]
		}
		return x
	}
	w = solve(0)
	if free = geom.Norm(w, 2); free <= r {
		return w, free
	}
	lo, hi := 0.0, geom.Norm(c, 2)/r
	for hi-lo > 0x1p-52*hi {
		mid := lo + (hi-lo)/2
		if geom.Norm(solve(mid), 2) > r {
			lo = mid
		} else {
			hi = mid
		}
	}
	return solve(hi), free
}

// meanSquared is F(w) = (1/2n)·Σᵢ (⟨w, xᵢ⟩ − yᵢ)².
func meanSquared(ds *data.Dataset, w []float64) float64 {
	f := 0.0
	for i := range ds.N {
		e := -ds.Y[i]
		for j, x := range ds.Row(i, nil) {
			e += w[j] * x
		}
		f += e * e / 2
	}
	return f / float64(ds.N)
}

// TestNoisyGDBallOptimum: on a least-squares problem whose unconstrained optimum lies outside
// the ball (norm 2.6 times the radius) and with one-hot features of rare categories (so the
// preconditioner is far from the identity), noisy-gd with its defaults at ε = 10⁶, where the
// noise is negligible, releases a model whose mean loss is within 10⁻⁵ of the minimum over
// the ball (computed from its optimality conditions, ballLeastSquares), below 10⁻⁴ of the
// gap between predicting 0 and that minimum; the derivative's clipping is checked to be
// inactive at the optimum, and the categorical ridge at this ε is below 10⁻⁵. Projecting the
// preconditioned steps in the Euclidean metric instead converges elsewhere (the loss is then
// 0.011 above the minimum).
func TestNoisyGDBallOptimum(t *testing.T) {
	ds := regressionData(400, 1)
	const radius = 1.5
	ball, err := geom.NewBall(ds.D, 2, radius, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The declared label bound 7 (the labels are in [−1, 1]) puts the clipping at 1.4, above
	// every residual at the optimum.
	p := Problem{Loss: LossSpec{Name: "squared"}, Dim: ds.D, N: ds.N, Bounds: loss.Bounds{X: 1, XNorm: 2, Y: 7, Bias: ds.Bias},
		Domain: ball, Radius: radius, Categorical: ds.Categorical}
	best, free := ballLeastSquares(ds, radius)
	if free < 2*radius {
		t.Fatalf("the unconstrained optimum has norm %g: the ball of radius %g hardly constrains it", free, radius)
	}
	pl, err := NoisyGD{}.Plan(privacy.Budget{Epsilon: 1e6, Delta: 1e-6}, p)
	if err != nil {
		t.Fatal(err)
	}
	gp := pl.(*noisyGDPlan)
	if gp.pre == nil || !(gp.ridge < 1e-5) {
		t.Fatalf("preconditioner %v, ridge λ = %g at ε = 10⁶", gp.pre != nil, gp.ridge)
	}
	for i := range ds.N {
		e := -ds.Y[i]
		for j, x := range ds.Row(i, nil) {
			e += best[j] * x
		}
		if math.Abs(e) >= gp.clipAt {
			t.Fatalf("row %d: residual %g at the optimum is clipped at %g", i, e, gp.clipAt)
		}
	}
	rel, err := pl.Run(context.Background(), ds, rng.Seeded(3), nil)
	if err != nil {
		t.Fatal(err)
	}
	w := rel.Model.Weights
	fStar, fZero, got := meanSquared(ds, best), meanSquared(ds, make([]float64, ds.D)), meanSquared(ds, w)
	if !ball.Contains(w) || !(got-fStar <= 1e-5) {
		t.Errorf("mean loss %.6g (‖w‖ = %.6g), the minimum over the ball %.6g (from %.6g at 0), T = %d", got, geom.Norm(w, 2), fStar, fZero, gp.steps)
	}
}

// TestNoisyGDRegressionRules recomputes the rules of a regression loss (NoisyGD's
// "Regression"): the derivative is clipped at min(0.2·Y, 0.7·S₀), S₀ its bound at the
// prediction 0 (0.2·Y for the squared loss; for the Huber loss S₀ = min(δ_H, Y), also on the
// whole space, so 0.7·δ_H for a threshold δ_H below 0.29·Y), the
// sensitivity uses that clipped bound, and the step scale is c = Y/(2X₂), reported as
// step_scale. Labels and radius scaled together by 50 (a change of the label's units) give the
// same number of steps, and the noise scaled by 50 (to 10⁻⁵, the grids differ); with c = 4 for
// every loss, as for the margin losses (whose rules are unchanged), the larger units would take
// fewer steps.
// A StepScale set by hand is kept.
func TestNoisyGDRegressionRules(t *testing.T) {
	ds := regressionData(400, 2)
	b := privacy.Budget{Epsilon: 1, Delta: 1e-6}
	plan := func(m NoisyGD, name string, param, y, radius float64) (*noisyGDPlan, Problem) {
		t.Helper()
		p := Problem{Loss: LossSpec{Name: name, Param: param}, Dim: ds.D, N: ds.N, Bounds: loss.Bounds{X: 1, XNorm: 2, Y: y, Bias: ds.Bias},
			Domain: geom.Whole{D: ds.D}, Radius: radius, Categorical: ds.Categorical}
		if name == "squared" {
			ball, err := geom.NewBall(ds.D, 2, radius, nil)
			if err != nil {
				t.Fatal(err)
			}
			p.Domain = ball
		}
		pl, err := m.Plan(b, p)
		if err != nil {
			t.Fatalf("%s, Y = %g: %v", name, y, err)
		}
		return pl.(*noisyGDPlan), p
	}
	var base *noisyGDPlan
	for _, scale := range []float64{1, 50} {
		gp, _ := plan(NoisyGD{NoBiasShaping: true}, "squared", 0, scale, 10*scale)
		if gp.clipAt != 0.2*scale || math.Abs(gp.g/(0.2*scale)-1) > 1e-8 || gp.g < 0.2*scale {
			t.Errorf("Y = %g: clipped at %g with G = %g, want 0.2·Y = %g for both", scale, gp.clipAt, gp.g, 0.2*scale)
		}
		if got := gp.Parameters()["step_scale"]; got != scale/2 {
			t.Errorf("Y = %g: step scale %g, want Y/2", scale, got)
		}
		if base == nil {
			base = gp
			continue
		}
		if gp.steps != base.steps || math.Abs(gp.sigma/(scale*base.sigma)-1) > 1e-5 {
			t.Errorf("Y = %g: T = %d and σ = %g, against %d and %g at Y = 1", scale, gp.steps, gp.sigma, base.steps, base.sigma)
		}
		if fixed, _ := plan(NoisyGD{NoBiasShaping: true, StepScale: 4}, "squared", 0, scale, 10*scale); fixed.steps >= gp.steps {
			t.Errorf("c = 4: %d steps at Y = %g, %d at Y = 1", fixed.steps, scale, base.steps)
		}
	}
	if set, _ := plan(NoisyGD{StepScale: 3}, "squared", 0, 1, 10); set.mech.StepScale != 3 {
		t.Errorf("StepScale 3 planned as %g", set.mech.StepScale)
	}
	for _, tc := range []struct {
		delta, y, clipAt float64
	}{{1, 2, 0.4}, {1, 0.5, 0.1}, {0.1, 2, 0.07}} {
		gp, _ := plan(NoisyGD{NoBiasShaping: true}, "huber", tc.delta, tc.y, 10)
		if math.Abs(gp.clipAt-tc.clipAt) > 1e-15 || gp.Parameters()["step_scale"] != tc.y/2 {
			t.Errorf("Huber δ = %g, Y = %g: clipped at %g, step scale %g; want %g and Y/2", tc.delta, tc.y, gp.clipAt, gp.Parameters()["step_scale"], tc.clipAt)
		}
	}
	logistic, err := NoisyGD{}.Plan(b, toyProblem(toyData(400, 4, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if gp := logistic.(*noisyGDPlan); gp.clipAt != 0.7 || gp.mech.StepScale != 4 {
		t.Errorf("logistic loss: clipped at %g, step scale %g; want 0.7 and 4", gp.clipAt, gp.mech.StepScale)
	}
}

// TestNotLipschitzRefusal: the squared loss on the whole space, or in a ball without a label
// bound, is refused by every mechanism with the one message of notLipschitz, which says what to
// declare; a mechanism that needs a bounded domain for another reason says so first.
func TestNotLipschitzRefusal(t *testing.T) {
	ball, err := geom.NewBall(3, 2, 10, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []Problem{
		{Loss: LossSpec{Name: "squared"}, Dim: 3, N: 100, Bounds: loss.Bounds{X: 1, XNorm: 2, Y: 1}, Domain: geom.Whole{D: 3}, Radius: 10},
		{Loss: LossSpec{Name: "squared"}, Dim: 3, N: 100, Bounds: loss.Bounds{X: 1, XNorm: 2, Y: math.Inf(1)}, Domain: ball, Radius: 10},
	} {
		want := notLipschitz(p).Error()
		if !strings.Contains(want, "--domain ball") || !strings.Contains(want, "declared range") {
			t.Fatalf("the message does not say what to declare: %q", want)
		}
		for _, name := range Names() {
			m, err := ByName(name)
			if err != nil {
				t.Fatal(err)
			}
			_, err = m.Plan(privacy.Budget{Epsilon: 1, Delta: 1e-6}, p)
			if err == nil || (err.Error() != want && !strings.Contains(err.Error(), "bounded domain")) {
				t.Errorf("%s on %T: %v, want %q", name, p.Domain, err, want)
			}
		}
	}
}

// pinnedBallRegression is the digest of a seeded noisy-gd release of a least-squares fit in a
// ball, preconditioned, whose steps are projected in the preconditioner's metric, with
// isotropic noise (a regression loss is not bias-shaped; see
// TestBallRegressionReleaseIdenticalEverywhere).
const pinnedBallRegression = 0x101784f0e71d7f4f

// TestBallRegressionReleaseIdenticalEverywhere pins noisy-gd's path for a regression in a ball
// natively and under js/wasm at ε = 8, where the preconditioned steps leave the ball (the
// average of the iterates is near its boundary) and the projection in its metric
// (geom.ScaledProjection's Newton iteration) must give these bits everywhere.
func TestBallRegressionReleaseIdenticalEverywhere(t *testing.T) {
	ds := regressionData(300, 4)
	const radius = 1.5
	ball, err := geom.NewBall(ds.D, 2, radius, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := Problem{Loss: LossSpec{Name: "squared"}, Dim: ds.D, N: ds.N, Bounds: loss.Bounds{X: 1, XNorm: 2, Y: 1, Bias: ds.Bias},
		Domain: ball, Radius: radius, Categorical: ds.Categorical}
	pl, err := NoisyGD{}.Plan(privacy.Budget{Epsilon: 8, Delta: 1e-6}, p)
	if err != nil {
		t.Fatal(err)
	}
	if pl.(*noisyGDPlan).pre == nil {
		t.Fatal("no preconditioner at ε = 8")
	}
	rel, err := pl.Run(context.Background(), ds, rng.Seeded(11), nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := geom.Norm(rel.Model.Weights, 2); !(n > 0.9*radius) {
		t.Fatalf("the release has norm %g: the ball does not constrain the steps", n)
	}
	if got := releaseDigest(t, pl, ds, 11); got != pinnedBallRegression {
		t.Errorf("digest %#x, pinned %#x", got, uint64(pinnedBallRegression))
	}
}
