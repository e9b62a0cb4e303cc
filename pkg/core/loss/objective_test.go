package loss

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/geom"
)

func mustObjective(t *testing.T, l Loss, tilt float64, r geom.Regularizer, lambda float64) *Objective {
	t.Helper()
	o, err := NewObjective(l, tilt, r, lambda)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// TestObjectiveGrad checks ∇F against finite differences of F for plain and tilted means,
// with and without regularizers, and that Func, Grad and FuncGrad agree.
func TestObjectiveGrad(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	const n, d = 30, 4
	cls := randData(rng, n, d, 2, 1, signLabel(rng))
	multi := randData(rng, n, d, 2, 1, func() float64 { return float64(rng.IntN(3)) })
	b := Bounds{X: 1, XNorm: 2}
	lin := mustLinear(t, Logistic{}, cls, b)
	mul, err := NewMultinomial(multi, 3, b)
	if err != nil {
		t.Fatal(err)
	}
	seed15, _ := geom.NewLpRegularizer(1.5, d, randVec(rng, d, 0.2))
	ridge, _ := geom.NewScaledLpRegularizer(2, 1, d, nil)
	schat, _ := geom.NewSchattenRegularizer(1.5, 3, d, nil)
	for _, tilt := range []float64{0, 0.5, 5} {
		tests := []struct {
			name   string
			l      Loss
			r      geom.Regularizer
			lambda float64
		}{
			{"logistic", lin, nil, 0},
			{"logistic-ridge", lin, ridge, 0.1},
			{"logistic-seed1.5", lin, seed15, 0.3},
			{"multinomial-schatten", mul, schat, 0.2},
		}
		for _, tc := range tests {
			o := mustObjective(t, tc.l, tilt, tc.r, tc.lambda)
			name := fmt.Sprintf("%s-t%v", tc.name, tilt)
			for k := 0; k < 5; k++ {
				w := randVec(rng, o.Dim(), 1)
				g := make([]float64, o.Dim())
				v := o.FuncGrad(g, w)
				if f := o.Func(w); !closeTo(v, f, 1e-14) {
					t.Fatalf("%s: FuncGrad value %v, Func %v", name, v, f)
				}
				g2 := make([]float64, o.Dim())
				o.Grad(g2, w)
				for j := range g {
					if g[j] != g2[j] {
						t.Fatalf("%s: Grad %v differs from FuncGrad %v", name, g2, g)
					}
				}
				fdCheck(t, name, o.Func, g, w)
			}
		}
	}
}

// TestTiltedLimits checks that the tilted risk tends to the mean as t → 0 and to the
// maximum as t → ∞ (at rate log(n)/t), and lies between them.
func TestTiltedLimits(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	const n, d = 25, 3
	l := mustLinear(t, Logistic{}, randData(rng, n, d, 2, 1, signLabel(rng)), Bounds{X: 1, XNorm: 2})
	w := randVec(rng, d, 2)
	mean := l.Mean(nil, w)
	max := math.Inf(-1)
	for i := 0; i < n; i++ {
		max = math.Max(max, l.Value(w, i))
	}
	for _, tilt := range []float64{1e-9, 0.1, 1, 10, 1e3, 1e6} {
		f := mustObjective(t, l, tilt, nil, 0).Func(w)
		if f < mean-1e-12 || f > max+1e-12 {
			t.Errorf("t=%v: F_t = %v outside [mean %v, max %v]", tilt, f, mean, max)
		}
		if tilt <= 1e-9 && !closeTo(f, mean, 1e-8) {
			t.Errorf("t=%v: F_t = %v, mean %v", tilt, f, mean)
		}
		if tilt >= 1e3 && f < max-math.Log(n)/tilt-1e-12 {
			t.Errorf("t=%v: F_t = %v below max − log(n)/t = %v", tilt, f, max-math.Log(n)/tilt)
		}
	}
}

// TestTiltedSmoothness checks β_t = β + t·G² on random pairs (never exceeded) and on the
// construction that nearly attains it: two logistic examples with equal losses (ν = ½ each)
// at a very negative margin (ℓ” ≈ 0, |ℓ'| ≈ 1), whose gradients differ along e2 by
// 2R·sin θ, so the Hessian along e2 is ≈ t·R²sin²θ against the bound R²/4 + tR².
func TestTiltedSmoothness(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 36))
	const R = 1.5
	b := Bounds{X: R, XNorm: 2}
	l := mustLinear(t, Logistic{}, randData(rng, 30, 4, 2, R, signLabel(rng)), b)
	for _, tilt := range []float64{0.5, 3, 20} {
		o := mustObjective(t, l, tilt, nil, 0)
		k, err := o.Constants(geom.Whole{D: 4}, 2)
		if err != nil {
			t.Fatal(err)
		}
		if want := R * R * (1 + 2*Slack) * (1 + 2*Slack) * (0.25 + tilt); !closeTo(k.Smoothness, want, 1e-15) {
			t.Fatalf("t=%v: β_t = %v, want (¼ + t)R² = %v", tilt, k.Smoothness, want)
		}
		g1, g2 := make([]float64, 4), make([]float64, 4)
		for trial := 0; trial < 200; trial++ {
			w1 := randVec(rng, 4, 2)
			w2 := append([]float64(nil), w1...)
			for j := range w2 {
				w2[j] += 0.01 * rng.NormFloat64()
			}
			o.Grad(g1, w1)
			o.Grad(g2, w2)
			if gd, dw := geom.Norm(sub(g1, g2), 2), geom.Norm(sub(w1, w2), 2); gd > k.Smoothness*dw*(1+1e-9) {
				t.Fatalf("t=%v: ‖∇F(w) − ∇F(w')‖ = %v > β_t‖w − w'‖ = %v", tilt, gd, k.Smoothness*dw)
			}
		}
	}
	theta := 80 * math.Pi / 180
	c, s := math.Cos(theta), math.Sin(theta)
	ds := &data.Dataset{N: 2, D: 2, X: []float64{R * c, R * s, R * c, -R * s}, Y: []float64{1, 1}}
	const tilt = 10
	o := mustObjective(t, mustLinear(t, Logistic{}, ds, b), tilt, nil, 0)
	k, err := o.Constants(geom.Whole{D: 2}, 2)
	if err != nil {
		t.Fatal(err)
	}
	w := []float64{-20 / (R * c), 0}
	h := 1e-5
	g1, g2 := make([]float64, 2), make([]float64, 2)
	o.Grad(g1, w)
	o.Grad(g2, []float64{w[0], h})
	q := geom.Norm(sub(g2, g1), 2) / h
	if q > k.Smoothness || q < 0.9*k.Smoothness {
		t.Errorf("difference quotient %v, β_t = %v (ratio %.3f)", q, k.Smoothness, q/k.Smoothness)
	}
}

// TestObjectiveConstants checks how the objective combines the loss's constants with the
// regularizer's: G unchanged, β + tG² + λβ_r, and μ = λσ_r.
func TestObjectiveConstants(t *testing.T) {
	rng := rand.New(rand.NewPCG(37, 38))
	const d = 4
	l := mustLinear(t, Logistic{}, randData(rng, 10, d, 2, 1, signLabel(rng)), Bounds{X: 1, XNorm: 2})
	ridge, _ := geom.NewScaledLpRegularizer(2, 1, d, nil)
	seed, _ := geom.NewLpRegularizer(1.5, d, nil)
	base, err := l.Constants(geom.Whole{D: d}, 2)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name             string
		tilt, lambda     float64
		r                geom.Regularizer
		wantBeta, wantMu float64
	}{
		{"plain", 0, 0, nil, base.Smoothness, 0},
		{"ridge", 0, 0.1, ridge, base.Smoothness + 0.1, 0.1},
		{"ridge-tilted", 2, 0.1, ridge, base.Smoothness + 2*base.Lipschitz*base.Lipschitz + 0.1, 0.1},
		{"seed1.5", 0, 0.1, seed, inf, 0.1 * seed.Modulus(2)},
	}
	for _, tc := range tests {
		k, err := mustObjective(t, l, tc.tilt, tc.r, tc.lambda).Constants(geom.Whole{D: d}, 2)
		if err != nil {
			t.Fatal(err)
		}
		if k.Lipschitz != base.Lipschitz || !(k.Smoothness == tc.wantBeta || closeTo(k.Smoothness, tc.wantBeta, 1e-15)) || !closeTo(k.StrongConvexity, tc.wantMu, 1e-15) {
			t.Errorf("%s: constants %+v, want G=%v β=%v μ=%v", tc.name, k, base.Lipschitz, tc.wantBeta, tc.wantMu)
		}
	}
}
