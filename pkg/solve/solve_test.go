package solve

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/geom"
	"github.com/privopt/privopt/pkg/core/loss"
)

// quadratic is F(w) = ½Σ a_i(w_i − c_i)², λ = min a_i, β = max a_i, minimizer c.
type quadratic struct{ a, c []float64 }

func (q quadratic) problem() Problem {
	return Problem{
		Func: func(w []float64) float64 {
			s := 0.0
			for i := range w {
				s += q.a[i] * (w[i] - q.c[i]) * (w[i] - q.c[i]) / 2
			}
			return s
		},
		Grad: func(g, w []float64) {
			for i := range w {
				g[i] = q.a[i] * (w[i] - q.c[i])
			}
		},
	}
}

func randQuadratic(rng *rand.Rand, d int, lam, beta float64) quadratic {
	q := quadratic{a: make([]float64, d), c: make([]float64, d)}
	for i := range q.a {
		q.a[i] = lam + (beta-lam)*rng.Float64()
		q.c[i] = 2 * rng.NormFloat64()
	}
	q.a[0], q.a[d-1] = lam, beta
	return q
}

func dist(a, b []float64) float64 {
	s := make([]float64, len(a))
	for i := range s {
		s[i] = a[i] - b[i]
	}
	return geom.Norm(s, 2)
}

// logisticData draws n rows of dimension d on the unit sphere and labels ±1 from a logistic
// model.
func logisticData(rng *rand.Rand, n, d int) *data.Dataset {
	ds := &data.Dataset{N: n, D: d, X: make([]float64, n*d), Y: make([]float64, n)}
	truth := make([]float64, d)
	for j := range truth {
		truth[j] = 2 * rng.NormFloat64()
	}
	for i := 0; i < n; i++ {
		row := ds.X[i*d : (i+1)*d]
		for j := range row {
			row[j] = rng.NormFloat64()
		}
		nr := geom.Norm(row, 2)
		z := 0.0
		for j := range row {
			row[j] /= nr
			z += row[j] * truth[j]
		}
		ds.Y[i] = 1
		if rng.Float64() > 1/(1+math.Exp(-z)) {
			ds.Y[i] = -1
		}
	}
	return ds
}

// logisticProblem returns the ridge-regularized logistic objective on random data, with its
// constants in ℓ2 (λ and β on the whole space).
func logisticProblem(t *testing.T, rng *rand.Rand, n, d int, lambda float64) (Problem, *loss.Objective, loss.Constants) {
	t.Helper()
	return objectiveOf(t, logisticData(rng, n, d), lambda)
}

// objectiveOf returns the ridge-regularized logistic objective on ds and its ℓ2 constants.
func objectiveOf(t testing.TB, ds *data.Dataset, lambda float64) (Problem, *loss.Objective, loss.Constants) {
	t.Helper()
	d := ds.D
	l, err := loss.NewLinear(loss.Logistic{}, ds, loss.Bounds{X: 1, XNorm: 2})
	if err != nil {
		t.Fatal(err)
	}
	ridge, err := geom.NewScaledLpRegularizer(2, 1, d, nil)
	if err != nil {
		t.Fatal(err)
	}
	o, err := loss.NewObjective(l, 0, ridge, lambda)
	if err != nil {
		t.Fatal(err)
	}
	k, err := o.Constants(geom.Whole{D: d}, 2)
	if err != nil {
		t.Fatal(err)
	}
	return Problem{Func: o.Func, Grad: o.Grad, FuncGrad: o.FuncGrad}, o, k
}

// TestUnconstrainedCertificates checks, for LBFGS and AcceleratedProjected on the whole
// space, that the true distance to the minimizer is below the achieved certificate, which is
// below the target: on quadratics (minimizer known exactly) and on ridge logistic regression
// (minimizer from an L-BFGS run certified to 10⁻¹¹, whose error is added to the tolerance).
func TestUnconstrainedCertificates(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	for _, target := range []float64{1e-1, 1e-3, 1e-6, 1e-9} {
		for k := 0; k < 5; k++ {
			q := randQuadratic(rng, 6, 0.05, 3)
			x0 := make([]float64, 6)
			for _, solver := range []string{"lbfgs", "apg"} {
				s := Settings{Target: target, StrongConvexity: 0.05, Smoothness: 3, MaxIter: 5000}
				var res *Result
				var err error
				if solver == "lbfgs" {
					res, err = LBFGS(q.problem(), x0, s)
				} else {
					res, err = AcceleratedProjected(q.problem(), geom.Whole{D: 6}, x0, s)
				}
				if err != nil {
					t.Fatalf("%s, target %g: %v", solver, target, err)
				}
				if dd := dist(res.X, q.c); dd > res.Achieved || res.Achieved > target || res.Target != target {
					t.Fatalf("%s, target %g: true distance %g, certificate %g", solver, target, dd, res.Achieved)
				}
			}
		}
	}
	for _, lambda := range []float64{1e-1, 1e-3} {
		p, _, k := logisticProblem(t, rng, 300, 8, lambda)
		x0 := make([]float64, 8)
		ref, err := LBFGS(p, x0, Settings{Target: 1e-11, StrongConvexity: lambda, MaxIter: 10000})
		if err != nil {
			t.Fatalf("reference: %v", err)
		}
		for _, target := range []float64{1e-2, 1e-5, 1e-8} {
			s := Settings{Target: target, StrongConvexity: k.StrongConvexity, Smoothness: k.Smoothness, MaxIter: 100000}
			for _, solver := range []string{"lbfgs", "apg"} {
				var res *Result
				if solver == "lbfgs" {
					res, err = LBFGS(p, x0, s)
				} else {
					res, err = AcceleratedProjected(p, geom.Whole{D: 8}, x0, s)
				}
				if err != nil {
					t.Fatalf("%s λ=%g target %g: %v", solver, lambda, target, err)
				}
				if dd := dist(res.X, ref.X); dd > res.Achieved+1e-11 || res.Achieved > target {
					t.Fatalf("%s λ=%g target %g: distance to the reference %g > certificate %g", solver, lambda, target, dd, res.Achieved)
				}
			}
		}
	}
}

// TestConstrainedCertificates checks AcceleratedProjected on constrained problems whose
// minimizer is known independently: a box-constrained separable quadratic (minimizer: c
// clamped), an anisotropic quadratic on an ℓ2 ball (minimizer w_i = a_i c_i/(a_i + ν) with ν
// found by bisection on ‖w‖ = R), and ridge logistic regression on a small ℓ2 ball (reference:
// 20 000 steps of projected gradient, whose error is at most (1 − 1/κ)^20000·diameter).
func TestConstrainedCertificates(t *testing.T) {
	rng := rand.New(rand.NewPCG(53, 54))
	const d = 6
	box, err := geom.NewBox([]float64{-1, -1, -1, 0, 0, 0}, []float64{1, 1, 1, 0.5, 0.5, 0.5})
	if err != nil {
		t.Fatal(err)
	}
	ball, err := geom.NewBall(d, 2, 0.8, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; k < 10; k++ {
		q := randQuadratic(rng, d, 0.1, 2)
		want := make([]float64, d)
		box.Project(want, q.c)
		wantBall := ballMinimizer(q, 0.8)
		for _, target := range []float64{1e-2, 1e-5, 1e-9} {
			s := Settings{Target: target, StrongConvexity: 0.1, Smoothness: 2, MaxIter: 10000}
			for _, c := range []struct {
				dom  geom.Domain
				want []float64
			}{{box, want}, {ball, wantBall}} {
				res, err := AcceleratedProjected(q.problem(), c.dom, make([]float64, d), s)
				if err != nil {
					t.Fatal(err)
				}
				if dd := dist(res.X, c.want); dd > res.Achieved*(1+1e-12) || res.Achieved > target || !c.dom.Contains(res.X) {
					t.Fatalf("%T, target %g: distance %g > certificate %g", c.dom, target, dd, res.Achieved)
				}
			}
		}
	}
	p, _, kc := logisticProblem(t, rng, 200, d, 0.05)
	small, _ := geom.NewBall(d, 2, 0.3, nil)
	ref := make([]float64, d)
	g := make([]float64, d)
	for it := 0; it < 20000; it++ {
		p.Grad(g, ref)
		for i := range ref {
			ref[i] -= g[i] / kc.Smoothness
		}
		small.Project(ref, ref)
	}
	refErr := math.Pow(1-kc.StrongConvexity/kc.Smoothness, 20000) * 0.6
	for _, target := range []float64{1e-3, 1e-7} {
		res, err := AcceleratedProjected(p, small, make([]float64, d), Settings{Target: target, StrongConvexity: kc.StrongConvexity, Smoothness: kc.Smoothness, MaxIter: 10000})
		if err != nil {
			t.Fatal(err)
		}
		if dd := dist(res.X, ref); dd > res.Achieved+refErr+1e-12 {
			t.Fatalf("logistic on a ball, target %g: distance %g > certificate %g", target, dd, res.Achieved)
		}
	}
}

// ballMinimizer returns argmin ½Σ a_i(w_i − c_i)² over ‖w‖₂ ≤ R: c if inside, otherwise
// w_i = a_i c_i/(a_i + ν) with ν > 0 such that ‖w‖ = R (bisection to full precision).
func ballMinimizer(q quadratic, r float64) []float64 {
	w := func(nu float64) []float64 {
		out := make([]float64, len(q.c))
		for i := range out {
			out[i] = q.a[i] * q.c[i] / (q.a[i] + nu)
		}
		return out
	}
	if geom.Norm(q.c, 2) <= r {
		return slices.Clone(q.c)
	}
	lo, hi := 0.0, 1.0
	for geom.Norm(w(hi), 2) > r {
		hi *= 2
	}
	for it := 0; it < 200; it++ {
		mid := (lo + hi) / 2
		if geom.Norm(w(mid), 2) > r {
			lo = mid
		} else {
			hi = mid
		}
	}
	return w(hi)
}

// TestGradientMappingTight checks that the certificate (κ − 1)‖w − w⁺‖ of AcceleratedProjected
// is attained: on F(w) = ½(λw₁² + βw₂²) from w = (a, 0), one step gives w⁺ = ((1 − 1/κ)a, 0),
// whose distance to 0 equals the certificate; Lowy and Razaviyayn's constant 1/(1 − √(1 − 1/κ)) would
// overstate it by about 2.
func TestGradientMappingTight(t *testing.T) {
	const lam, beta, a = 0.5, 4.0, 3.0
	q := quadratic{a: []float64{lam, beta}, c: []float64{0, 0}}
	kappa := beta / lam
	want := (1 - 1/kappa) * a
	res, err := AcceleratedProjected(q.problem(), geom.Whole{D: 2}, []float64{a, 0}, Settings{Target: want * (1 + 1e-12), StrongConvexity: lam, Smoothness: beta, MaxIter: 1})
	if err != nil {
		t.Fatal(err)
	}
	if dd := dist(res.X, q.c); !(dd <= res.Achieved && res.Achieved <= dd*(1+1e-14)) {
		t.Errorf("true distance %v, certificate %v: not attained", dd, res.Achieved)
	}
	if notes := (a / kappa) / (1 - math.Sqrt(1-1/kappa)); notes < 1.8*res.Achieved {
		t.Errorf("Lowy and Razaviyayn's bound %v is not about twice the tight %v", notes, res.Achieved)
	}
}

// TestProjectedSubgradient checks the a-priori certificate on a non-smooth problem with a
// known minimizer: F(w) = (λ/2)‖w‖² + α‖w − c‖₁ on an ℓ2 ball of radius D, whose minimizer is
// w_i = sign(c_i)·min(|c_i|, α/λ) (coordinate-wise soft clipping; inside the ball here), with
// subgradients bounded by L = λD + α√d on the ball.
func TestProjectedSubgradient(t *testing.T) {
	const d, lam, alpha, D = 3, 1.0, 0.4, 3.0
	c := []float64{1.5, -0.2, 0.3}
	want := make([]float64, d)
	for i := range c {
		want[i] = math.Copysign(math.Min(math.Abs(c[i]), alpha/lam), c[i])
	}
	p := Problem{
		Func: func(w []float64) float64 {
			s := 0.0
			for i := range w {
				s += lam/2*w[i]*w[i] + alpha*math.Abs(w[i]-c[i])
			}
			return s
		},
		Grad: func(g, w []float64) {
			for i := range w {
				g[i] = lam*w[i] + alpha*sign(w[i]-c[i])
			}
		},
	}
	ball, err := geom.NewBall(d, 2, D, nil)
	if err != nil {
		t.Fatal(err)
	}
	L := lam*D + alpha*math.Sqrt(d)
	for _, target := range []float64{0.5, 0.1, 0.03} {
		s := Settings{Target: target, StrongConvexity: lam, Lipschitz: L, MaxIter: 1 << 20}
		res, err := ProjectedSubgradient(p, ball, []float64{2, 2, 2}, s)
		if err != nil {
			t.Fatal(err)
		}
		steps, _ := SubgradientSteps(L, lam, target)
		if res.Stats.Iterations != steps || res.Stats.GradEvaluations != steps {
			t.Errorf("target %g: %d iterations, %d gradients, want %d", target, res.Stats.Iterations, res.Stats.GradEvaluations, steps)
		}
		if dd := dist(res.X, want); dd > res.Achieved || res.Achieved > target {
			t.Errorf("target %g: distance %g > certificate %g", target, dd, res.Achieved)
		}
	}
}

func sign(v float64) float64 {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}

func TestSubgradientSteps(t *testing.T) {
	tests := []struct {
		l, lam, target float64
		want           int
	}{
		{1, 1, 2, 1},         // 4/4 = 1 → T = max(1, 0)
		{1, 1, 1, 3},         // 2/√(T+1) ≤ 1 ⇔ T ≥ 3
		{1, 1, 0.1, 399},     // 400 − 1
		{2, 0.5, 0.25, 1023}, // 4·4/(0.25·0.0625) = 1024
		{0, 1, 1, 1},
	}
	for _, tc := range tests {
		got, err := SubgradientSteps(tc.l, tc.lam, tc.target)
		if err != nil || got != tc.want {
			t.Errorf("SubgradientSteps(%v, %v, %v) = %d, %v; want %d", tc.l, tc.lam, tc.target, got, err, tc.want)
		}
		if subgradientBound(tc.l, tc.lam, got) > tc.target || (got > 1 && subgradientBound(tc.l, tc.lam, got-1) <= tc.target) {
			t.Errorf("SubgradientSteps(%v, %v, %v) = %d is not the smallest sufficient T", tc.l, tc.lam, tc.target, got)
		}
	}
	for _, bad := range [][3]float64{{-1, 1, 1}, {1, 0, 1}, {1, 1, 0}, {1, 1e-6, 1e-6}, {math.NaN(), 1, 1}} {
		if _, err := SubgradientSteps(bad[0], bad[1], bad[2]); err == nil {
			t.Errorf("SubgradientSteps%v returned no error", bad)
		}
	}
}

// TestErrors checks the error paths: a cap too small for the target (wrapping
// ErrNotCertified, for every solver; the subgradient method refuses before evaluating
// anything), a NaN objective, a wrong Lipschitz constant, and invalid settings.
func TestErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(55, 56))
	q := randQuadratic(rng, 5, 0.01, 10)
	x0 := make([]float64, 5)
	whole := geom.Whole{D: 5}
	tight := Settings{Target: 1e-10, StrongConvexity: 0.01, Smoothness: 10, Lipschitz: 100, MaxIter: 3}
	evals := 0
	counting := q.problem()
	grad := counting.Grad
	counting.Grad = func(g, w []float64) { evals++; grad(g, w) }
	if _, err := LBFGS(q.problem(), x0, tight); !errors.Is(err, ErrNotCertified) {
		t.Errorf("LBFGS with a small cap: %v", err)
	}
	if _, err := AcceleratedProjected(q.problem(), whole, x0, tight); !errors.Is(err, ErrNotCertified) {
		t.Errorf("AcceleratedProjected with a small cap: %v", err)
	}
	if _, err := ProjectedSubgradient(counting, whole, x0, tight); !errors.Is(err, ErrNotCertified) || evals != 0 {
		t.Errorf("ProjectedSubgradient with a small cap: %v after %d evaluations", err, evals)
	}
	nan := Problem{Func: func([]float64) float64 { return math.NaN() }, Grad: func(g, w []float64) {
		for i := range g {
			g[i] = math.NaN()
		}
	}}
	ok := Settings{Target: 1e-3, StrongConvexity: 1, Smoothness: 1, Lipschitz: 1, MaxIter: 100}
	if _, err := LBFGS(nan, x0, ok); err == nil {
		t.Error("LBFGS accepted a NaN objective")
	}
	if _, err := AcceleratedProjected(nan, whole, x0, ok); err == nil {
		t.Error("AcceleratedProjected accepted a NaN gradient")
	}
	if _, err := ProjectedSubgradient(nan, whole, x0, ok); err == nil {
		t.Error("ProjectedSubgradient accepted a NaN gradient")
	}
	ball, _ := geom.NewBall(5, 2, 100, nil)
	if _, err := ProjectedSubgradient(q.problem(), ball, []float64{50, 50, 50, 50, 50}, Settings{Target: 1, StrongConvexity: 0.01, Lipschitz: 0.1, MaxIter: 1 << 20}); err == nil {
		t.Error("ProjectedSubgradient accepted subgradients above the declared Lipschitz constant")
	}
	bad := []struct {
		name string
		p    Problem
		x0   []float64
		s    Settings
		dom  geom.Domain
	}{
		{"no-grad", Problem{Func: q.problem().Func}, x0, ok, whole},
		{"no-value", Problem{Grad: q.problem().Grad}, x0, ok, whole},
		{"empty-x0", q.problem(), nil, ok, whole},
		{"nan-x0", q.problem(), []float64{0, 0, math.NaN(), 0, 0}, ok, whole},
		{"target-0", q.problem(), x0, Settings{StrongConvexity: 1, Smoothness: 1, Lipschitz: 1, MaxIter: 1}, whole},
		{"lambda-0", q.problem(), x0, Settings{Target: 1, Smoothness: 1, Lipschitz: 1, MaxIter: 1}, whole},
		{"cap-0", q.problem(), x0, Settings{Target: 1, StrongConvexity: 1, Smoothness: 1, Lipschitz: 1}, whole},
		{"domain-dimension", q.problem(), x0, ok, geom.Whole{D: 4}},
		{"no-domain", q.problem(), x0, ok, nil},
	}
	for _, tc := range bad {
		if _, err := AcceleratedProjected(tc.p, tc.dom, tc.x0, tc.s); err == nil {
			t.Errorf("%s: AcceleratedProjected returned no error", tc.name)
		}
		if _, err := ProjectedSubgradient(tc.p, tc.dom, tc.x0, tc.s); err == nil {
			t.Errorf("%s: ProjectedSubgradient returned no error", tc.name)
		}
		if tc.dom != nil && tc.dom.Dim() == 5 {
			if _, err := LBFGS(tc.p, tc.x0, tc.s); err == nil {
				t.Errorf("%s: LBFGS returned no error", tc.name)
			}
		}
	}
	if _, err := AcceleratedProjected(q.problem(), whole, x0, Settings{Target: 1, StrongConvexity: 2, Smoothness: 1, MaxIter: 1}); err == nil {
		t.Error("AcceleratedProjected accepted β < λ")
	}
}

// TestDeterministic checks that two runs give bit-identical results.
func TestDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(57, 58))
	p, _, k := logisticProblem(t, rng, 100, 5, 0.01)
	s := Settings{Target: 1e-6, StrongConvexity: k.StrongConvexity, Smoothness: k.Smoothness, MaxIter: 10000}
	for _, solver := range []func() (*Result, error){
		func() (*Result, error) { return LBFGS(p, make([]float64, 5), s) },
		func() (*Result, error) { return AcceleratedProjected(p, geom.Whole{D: 5}, make([]float64, 5), s) },
	} {
		r1, err1 := solver()
		r2, err2 := solver()
		if err1 != nil || err2 != nil || !slices.Equal(r1.X, r2.X) || r1.Stats != r2.Stats {
			t.Errorf("runs differ: %v %v, %v %v", r1, err1, r2, err2)
		}
	}
}

// TestFitLogistic checks the one-call fit: the gradient of the objective at the result,
// recomputed independently, certifies the documented target, and the fit classifies data
// drawn from a logistic model better than chance.
func TestFitLogistic(t *testing.T) {
	ds := logisticData(rand.New(rand.NewPCG(59, 60)), 2000, 6)
	_, obj, _ := objectiveOf(t, ds, 1e-3)
	res, err := FitLogistic(ds, 1e-3)
	if err != nil {
		t.Fatal(err)
	}
	g := make([]float64, 6)
	obj.Grad(g, res.X)
	if r := geom.Norm(g, 2) / 1e-3; r > FitLogisticTarget {
		t.Errorf("certificate at the result %g > %g", r, FitLogisticTarget)
	}
	correct := 0
	for i := 0; i < ds.N; i++ {
		z := 0.0
		for j, v := range ds.Row(i, nil) {
			z += v * res.X[j]
		}
		if z*ds.Y[i] > 0 {
			correct++
		}
	}
	if acc := float64(correct) / float64(ds.N); acc < 0.6 {
		t.Errorf("training accuracy %.3f", acc)
	}
	if _, err := FitLogistic(ds, 0); err == nil {
		t.Error("FitLogistic accepted λ = 0")
	}
	ds.Y[0] = 0
	if _, err := FitLogistic(ds, 1); err == nil {
		t.Error("FitLogistic accepted label 0")
	}
}

// BenchmarkLBFGSAdultShape measures a certified fit (r₀ = 10⁻⁶, λ = 10⁻³) of ridge logistic
// regression at the adult-lr size, n = 32561 rows of dimension 92 with ‖x‖₂ = 1.
func BenchmarkLBFGSAdultShape(b *testing.B) {
	ds := logisticData(rand.New(rand.NewPCG(61, 62)), 32561, 92)
	p, _, k := objectiveOf(b, ds, 1e-3)
	s := Settings{Target: 1e-6, StrongConvexity: k.StrongConvexity, Smoothness: k.Smoothness, MaxIter: 10000}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := LBFGS(p, make([]float64, 92), s)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(res.Stats.GradEvaluations), "gradients")
	}
}

// TestSolversStopOnCancel: with a done context every solver stops at once with its error and
// no result (Ctrl-C during output perturbation's solve must not be swallowed).
func TestSolversStopOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	calls := 0
	p := Problem{Func: func(x []float64) float64 { calls++; return x[0] * x[0] }, Grad: func(g, x []float64) { calls++; g[0] = 2 * x[0] }}
	s := Settings{Target: 1e-300, StrongConvexity: 1, Smoothness: 2, Lipschitz: 10, MaxIter: 1000, Context: ctx}
	ball, err := geom.NewBall(1, 2, 5, nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, run := range map[string]func() (*Result, error){
		"lbfgs":       func() (*Result, error) { return LBFGS(p, []float64{3}, s) },
		"accelerated": func() (*Result, error) { return AcceleratedProjected(p, ball, []float64{3}, s) },
		"subgradient": func() (*Result, error) {
			s := s
			s.Target, s.MaxIter = 1, 1<<30
			return ProjectedSubgradient(p, ball, []float64{3}, s)
		},
	} {
		calls = 0
		res, err := run()
		if res != nil || !errors.Is(err, context.Canceled) || calls > 2 {
			t.Errorf("%s: %v, %v after %d evaluations", name, res, err, calls)
		}
	}
}
