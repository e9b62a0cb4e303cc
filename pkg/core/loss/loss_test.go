package loss

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/geom"
)

// lossCase is a loss with the domain and norm its constants are checked in.
type lossCase struct {
	name     string
	loss     Loss
	dom      geom.Domain
	p        float64
	schatten [2]int // rows, cols when the norm is a Schatten norm of the K×D matrix
}

// norm returns the norm of the case (ℓp or Schatten-p) of v, or its dual when dual is true.
func (c lossCase) norm(t *testing.T, v []float64, dual bool) float64 {
	p := c.p
	if dual {
		p = geom.Dual(p)
	}
	if c.schatten[0] > 0 {
		n, err := geom.SchattenNorm(v, c.schatten[0], c.schatten[1], p)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	return geom.Norm(v, p)
}

// lossCases returns every loss on random data with declared bounds, in several norms.
func lossCases(t *testing.T) []lossCase {
	rng := rand.New(rand.NewPCG(21, 22))
	const n, d = 40, 5
	cls := randData(rng, n, d, 2, 1.5, signLabel(rng))
	clsL1 := randData(rng, n, d, 1, 2, signLabel(rng))
	reg := randData(rng, n, d, 2, 1.5, func() float64 { return 3 * (2*rng.Float64() - 1) })
	multi := randData(rng, n, d, 2, 1.5, func() float64 { return float64(rng.IntN(3)) })
	b2 := Bounds{X: 1.5, XNorm: 2, Y: 3}
	var cases []lossCase
	for _, p := range []float64{1, 1.5, 2, inf} {
		for _, dom := range []geom.Domain{geom.Whole{D: d}, mustBall(t, d, 2, 1.2)} {
			name := "whole"
			if _, ok := dom.(*geom.Ball); ok {
				name = "ball"
			}
			for _, s := range []Scalar{Logistic{}, Hinge{}, SmoothHinge{H: 0.5}} {
				cases = append(cases, lossCase{name: fmt.Sprintf("%T-%s-p%v", s, name, p), loss: mustLinear(t, s, cls, b2), dom: dom, p: p})
			}
			cases = append(cases, lossCase{name: fmt.Sprintf("logistic-l1data-%s-p%v", name, p),
				loss: mustLinear(t, Logistic{}, clsL1, Bounds{X: 2, XNorm: 1}), dom: dom, p: p})
			for _, q := range []float64{1, 2, inf} {
				for _, phi := range []Margin{Logistic{}, SmoothHinge{H: 0.3}} {
					r, err := NewRobust(phi, 0.4, q, cls, b2)
					if err != nil {
						t.Fatal(err)
					}
					cases = append(cases, lossCase{name: fmt.Sprintf("robust-%T-q%v-%s-p%v", phi, q, name, p), loss: r, dom: dom, p: p})
				}
			}
		}
		ball := mustBall(t, d, 2, 1.2)
		cases = append(cases,
			lossCase{name: fmt.Sprintf("squared-ball-p%v", p), loss: mustLinear(t, Squared{}, reg, b2), dom: ball, p: p},
			lossCase{name: fmt.Sprintf("huber-ball-p%v", p), loss: mustLinear(t, Huber{Delta: 0.7}, reg, b2), dom: ball, p: p},
			lossCase{name: fmt.Sprintf("huber-whole-p%v", p), loss: mustLinear(t, Huber{Delta: 0.7}, reg, Bounds{X: 1.5, XNorm: 2, Y: inf}), dom: geom.Whole{D: d}, p: p},
		)
		m, err := NewMultinomial(multi, 3, b2)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, lossCase{name: fmt.Sprintf("multinomial-S%v", p), loss: m, dom: geom.Whole{D: 3 * d}, p: p, schatten: [2]int{3, d}})
	}
	return cases
}

// TestGradients checks per-example Grad against finite differences of Value, that Grad and
// Mean return the value, and that Mean is the average of the per-example values and
// gradients.
func TestGradients(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	for _, c := range lossCases(t) {
		if c.p != 2 { // the norm does not matter here
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			l := c.loss
			d := l.Dim()
			for k := 0; k < 5; k++ {
				w := randVec(rng, d, 0.8)
				g := make([]float64, d)
				sumV, sumG := 0.0, make([]float64, d)
				for i := 0; i < l.Len(); i++ {
					v := l.Grad(g, w, i)
					if want := l.Value(w, i); !closeTo(v, want, 1e-14) {
						t.Fatalf("Grad returned %v, Value %v", v, want)
					}
					if i < 5 {
						fdCheck(t, c.name, func(w []float64) float64 { return l.Value(w, i) }, g, w)
					}
					sumV += v
					axpy(sumG, 1, g)
				}
				mg := make([]float64, d)
				mv := l.Mean(mg, w)
				if want := sumV / float64(l.Len()); !closeTo(mv, want, 1e-13) || !closeTo(l.Mean(nil, w), want, 1e-13) {
					t.Fatalf("Mean = %v, average of values %v", mv, want)
				}
				for j := range mg {
					if !closeTo(mg[j], sumG[j]/float64(l.Len()), 1e-12) {
						t.Fatalf("mean gradient %v, average of gradients %v", mg, sumG)
					}
				}
			}
		})
	}
}

// TestMeanGradBits: MeanGrad writes the same bits as Mean's gradient, for every loss (those
// with a cheaper derivative-only path and those without), at points where margins are large
// in both signs (where the logistic loss's two branches differ).
func TestMeanGradBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	for _, c := range lossCases(t) {
		if c.p != 2 {
			continue
		}
		d := c.loss.Dim()
		for _, scale := range []float64{0.1, 3, 40} {
			w := randVec(rng, d, scale)
			want, got := make([]float64, d), make([]float64, d)
			c.loss.Mean(want, w)
			MeanGrad(c.loss, got, w)
			for j := range want {
				if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
					t.Fatalf("%s at scale %g: MeanGrad %v, Mean %v", c.name, scale, got, want)
				}
			}
		}
	}
}

// TestMeanBlocks: Mean and MeanGrad evaluate the losses by blocks of rowBlock rows; with one
// row, one block, exact blocks and a partial last block, on dense and sparse rows, for the
// logistic loss (its own loop) and a loss without one, they give the bits of the row-by-row
// sums of Value and Deriv (the mean value without and with the gradient, and the gradient).
func TestMeanBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 30))
	same := func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }
	for _, n := range []int{1, rowBlock - 1, 2 * rowBlock, 2*rowBlock + 3} {
		for _, ds := range []*data.Dataset{randData(rng, n, 5, 2, 1.5, signLabel(rng)), oneHotData(rng, n, 12, 0.2)} {
			for _, s := range []Scalar{Logistic{}, SmoothHinge{H: 0.5}} {
				l := mustLinear(t, s, ds, Bounds{X: 1.5, XNorm: 2})
				w := randVec(rng, ds.D, 4)
				want := make([]float64, ds.D)
				var wantValue float64
				for i := range n {
					row := ds.Row(i, nil)
					z := l.rowDot(i, w)
					v, dz := s.Deriv(z, ds.Y[i])
					if !same(v, s.Value(z, ds.Y[i])) {
						t.Fatalf("%T: Value and Deriv's value differ", s)
					}
					wantValue += v
					if dz != 0 {
						axpy(want, dz, row)
					}
				}
				scale(want, 1/float64(n))
				wantValue /= float64(n)
				name := fmt.Sprintf("%T, n = %d, sparse %v", s, n, l.sparse != nil)
				got, gotGrad := make([]float64, ds.D), make([]float64, ds.D)
				if v := l.Mean(nil, w); !same(v, wantValue) {
					t.Errorf("%s: Mean(nil) = %v, want %v", name, v, wantValue)
				}
				if v := l.Mean(got, w); !same(v, wantValue) {
					t.Errorf("%s: Mean = %v, want %v", name, v, wantValue)
				}
				l.MeanGrad(gotGrad, w)
				for j := range want {
					if !same(got[j], want[j]) || !same(gotGrad[j], want[j]) {
						t.Fatalf("%s: Mean's gradient %v, MeanGrad %v, want %v", name, got, gotGrad, want)
					}
				}
			}
		}
	}
}

// TestConstantsNeverExceeded checks, on random pairs of points of the domain and every
// example, the stated constants in the stated norm: |ℓ_i(w) − ℓ_i(w')| ≤ G‖w − w'‖ and
// ‖∇ℓ_i(w) − ∇ℓ_i(w')‖_* ≤ β‖w − w'‖; and that every gradient has dual norm at most G.
func TestConstantsNeverExceeded(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	for _, c := range lossCases(t) {
		t.Run(c.name, func(t *testing.T) {
			k, err := c.loss.Constants(c.dom, c.p)
			if err != nil {
				t.Fatal(err)
			}
			if k.Norm != c.p || !(k.Lipschitz > 0) || k.StrongConvexity != 0 {
				t.Fatalf("constants %+v", k)
			}
			d := c.loss.Dim()
			g1, g2 := make([]float64, d), make([]float64, d)
			for trial := 0; trial < 60; trial++ {
				w1 := randVec(rng, d, []float64{0.3, 1, 4}[trial%3])
				w2 := append([]float64(nil), w1...)
				if trial%2 == 0 {
					w2 = randVec(rng, d, 1)
				} else {
					for j := range w2 {
						w2[j] += 1e-3 * rng.NormFloat64()
					}
				}
				c.dom.Project(w1, w1)
				c.dom.Project(w2, w2)
				dw := c.norm(t, sub(w1, w2), false)
				for i := 0; i < c.loss.Len(); i++ {
					v1 := c.loss.Grad(g1, w1, i)
					v2 := c.loss.Grad(g2, w2, i)
					if gn := c.norm(t, g1, true); gn > k.Lipschitz*(1+1e-12) {
						t.Fatalf("‖∇ℓ_%d‖_* = %v > G = %v", i, gn, k.Lipschitz)
					}
					if diff := math.Abs(v1 - v2); diff > k.Lipschitz*dw*(1+1e-9)+1e-12 {
						t.Fatalf("|ℓ(w) − ℓ(w')| = %v > G‖w − w'‖ = %v", diff, k.Lipschitz*dw)
					}
					if !math.IsInf(k.Smoothness, 1) {
						if gd := c.norm(t, sub(g1, g2), true); gd > k.Smoothness*dw*(1+1e-9)+1e-12 {
							t.Fatalf("‖∇ℓ(w) − ∇ℓ(w')‖_* = %v > β‖w − w'‖ = %v", gd, k.Smoothness*dw)
						}
					}
				}
			}
		})
	}
}

// TestConstantsTight builds, for each loss, the worst case of its constants by hand and
// checks that the difference quotient there reaches at least 95 % of the stated constant,
// so the constants are not loose for no reason.
func TestConstantsTight(t *testing.T) {
	const R, D, B = 2.0, 1.0, 0.5
	const d = 3
	one := func(x []float64, y float64) *data.Dataset {
		return &data.Dataset{N: 1, D: len(x), X: x, Y: []float64{y}}
	}
	e1 := func(s float64) []float64 { v := make([]float64, d); v[0] = s; return v }
	ones := func(s float64) []float64 {
		v := make([]float64, d)
		for i := range v {
			v[i] = s
		}
		return v
	}
	b := Bounds{X: R, XNorm: 2, Y: B}
	whole := geom.Whole{D: d}
	ball := mustBall(t, d, 2, D)
	// A multinomial case: x = R·e1, label 0, class 1 dominating; direction V the normalized
	// rank-one gradient, so every Schatten norm of V is 1.
	multi := func(t *testing.T) (Loss, []float64, []float64) {
		m, err := NewMultinomial(one(e1(R), 0), 2, b)
		if err != nil {
			t.Fatal(err)
		}
		w := make([]float64, 2*d)
		w[d] = 20 // row 1 (class 1), coordinate 0
		v := make([]float64, 2*d)
		v[0], v[d] = -1/math.Sqrt2, 1/math.Sqrt2
		return m, w, v
	}
	tests := []struct {
		name   string
		build  func(t *testing.T) (l Loss, w, dir []float64)
		dom    geom.Domain
		p      float64
		smooth bool // check the smoothness constant instead of the Lipschitz constant
		schat  bool
	}{
		{"logistic-whole-l2", func(t *testing.T) (Loss, []float64, []float64) {
			return mustLinear(t, Logistic{}, one(e1(R), 1), b), e1(-10), e1(1)
		}, whole, 2, false, false},
		{"logistic-ball-l2", func(t *testing.T) (Loss, []float64, []float64) {
			return mustLinear(t, Logistic{}, one(e1(R), 1), b), e1(-D), e1(1)
		}, ball, 2, false, false},
		{"logistic-whole-linf", func(t *testing.T) (Loss, []float64, []float64) {
			return mustLinear(t, Logistic{}, one(ones(R/math.Sqrt(d)), 1), b), ones(-10), ones(1)
		}, whole, inf, false, false},
		{"logistic-whole-l1", func(t *testing.T) (Loss, []float64, []float64) {
			return mustLinear(t, Logistic{}, one(e1(R), 1), b), e1(-10), e1(1)
		}, whole, 1, false, false},
		{"logistic-smooth-l2", func(t *testing.T) (Loss, []float64, []float64) {
			return mustLinear(t, Logistic{}, one(e1(R), 1), b), e1(0), e1(1)
		}, whole, 2, true, false},
		{"hinge-l2", func(t *testing.T) (Loss, []float64, []float64) {
			return mustLinear(t, Hinge{}, one(e1(R), 1), b), e1(0), e1(1)
		}, whole, 2, false, false},
		{"smoothhinge-smooth-l2", func(t *testing.T) (Loss, []float64, []float64) {
			return mustLinear(t, SmoothHinge{H: 0.5}, one(e1(R), 1), b), e1(0.75 / R), e1(1)
		}, whole, 2, true, false},
		{"squared-ball-l2", func(t *testing.T) (Loss, []float64, []float64) {
			return mustLinear(t, Squared{}, one(e1(R), -B), b), e1(D), e1(1)
		}, ball, 2, false, false},
		{"squared-smooth-l2", func(t *testing.T) (Loss, []float64, []float64) {
			return mustLinear(t, Squared{}, one(e1(R), -B), b), e1(0), e1(1)
		}, ball, 2, true, false},
		{"huber-ball-l2", func(t *testing.T) (Loss, []float64, []float64) {
			return mustLinear(t, Huber{Delta: 0.3}, one(e1(R), -B), b), e1(D), e1(1)
		}, ball, 2, false, false},
		{"robust-whole-l2", func(t *testing.T) (Loss, []float64, []float64) {
			r, err := NewRobust(Logistic{}, 0.4, 2, one(e1(R), 1), b)
			if err != nil {
				t.Fatal(err)
			}
			return r, e1(-10), e1(1)
		}, whole, 2, false, false},
		{"multinomial-S2", multi, geom.Whole{D: 2 * d}, 2, false, true},
		{"multinomial-Sinf", multi, geom.Whole{D: 2 * d}, inf, false, true},
		{"multinomial-S1", multi, geom.Whole{D: 2 * d}, 1, false, true},
		{"multinomial-smooth-S2", func(t *testing.T) (Loss, []float64, []float64) {
			m, err := NewMultinomial(one(e1(R), 0), 2, b)
			if err != nil {
				t.Fatal(err)
			}
			v := make([]float64, 2*d)
			v[0], v[d] = 1/math.Sqrt2, -1/math.Sqrt2
			return m, make([]float64, 2*d), v
		}, geom.Whole{D: 2 * d}, 2, true, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, w, dir := tc.build(t)
			k, err := l.Constants(tc.dom, tc.p)
			if err != nil {
				t.Fatal(err)
			}
			c := lossCase{p: tc.p}
			if tc.schat {
				c.schatten = [2]int{2, d}
			}
			h := 1e-6
			w2 := append([]float64(nil), w...)
			axpy(w2, -h, dir) // step inward (the ball cases start on the boundary)
			dw := c.norm(t, sub(w, w2), false)
			var q, bound float64
			if tc.smooth {
				g1, g2 := make([]float64, len(w)), make([]float64, len(w))
				l.Grad(g1, w, 0)
				l.Grad(g2, w2, 0)
				q, bound = c.norm(t, sub(g1, g2), true)/dw, k.Smoothness
			} else {
				q, bound = math.Abs(l.Value(w, 0)-l.Value(w2, 0))/dw, k.Lipschitz
			}
			if q > bound*(1+1e-6) || q < 0.95*bound {
				t.Errorf("difference quotient %v, stated constant %v (ratio %.4f)", q, bound, q/bound)
			}
		})
	}
}

// TestRobustClosedForm checks the closed form of the robust loss against the explicit worst
// perturbation v* = −ρ·y·g (g = NormGrad(w) in ℓ_{q*}, so ‖g‖_q ≤ 1) and random
// perturbations in the ℓq ball, which never do worse than the closed form, and checks
// midpoint convexity on random pairs.
func TestRobustClosedForm(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 28))
	const n, d, rho = 10, 4, 0.3
	ds := randData(rng, n, d, 2, 1, signLabel(rng))
	for _, q := range []float64{1, 1.5, 2, inf} {
		r, err := NewRobust(Logistic{}, rho, q, ds, Bounds{X: 1, XNorm: 2})
		if err != nil {
			t.Fatal(err)
		}
		for k := 0; k < 20; k++ {
			w := randVec(rng, d, 1)
			g := make([]float64, d)
			geom.NormGrad(g, w, geom.Dual(q))
			for i := 0; i < n; i++ {
				x, y := ds.Row(i, nil), ds.Y[i]
				xv := make([]float64, d)
				for j := range xv {
					xv[j] = x[j] - rho*y*g[j]
				}
				if geom.Norm(sub(xv, x), q) > rho*(1+1e-12) {
					t.Fatalf("q=%v: worst perturbation outside the ball", q)
				}
				want := Logistic{}.Value(dot(xv, w), y)
				if got := r.Value(w, i); !closeTo(got, want, 1e-13) {
					t.Fatalf("q=%v: closed form %v, worst perturbation gives %v", q, got, want)
				}
				w2 := randVec(rng, d, 1)
				mid := make([]float64, d)
				for j := range mid {
					mid[j] = (w[j] + w2[j]) / 2
				}
				if r.Value(mid, i) > (r.Value(w, i)+r.Value(w2, i))/2+1e-13 {
					t.Fatalf("q=%v: not convex: ℓ(midpoint) > mean of the ends", q)
				}
				for s := 0; s < 20; s++ {
					v := randVec(rng, d, 1)
					c := rho * rng.Float64() / geom.Norm(v, q)
					for j := range v {
						v[j] = x[j] + c*v[j]
					}
					if lv := (Logistic{}).Value(dot(v, w), y); lv > want*(1+1e-13) {
						t.Fatalf("q=%v: a perturbation in the ball gives %v > %v", q, lv, want)
					}
				}
			}
		}
	}
}

func TestErrors(t *testing.T) {
	good := func() *data.Dataset {
		return &data.Dataset{N: 2, D: 2, X: []float64{0.6, 0.8, 0, 1}, Y: []float64{1, -1}}
	}
	b := Bounds{X: 1, XNorm: 2, Y: 1}
	tests := []struct {
		name string
		err  func() error
		want string
	}{
		{"nil-dataset", func() error { _, err := NewLinear(Logistic{}, nil, b); return err }, "no dataset"},
		{"nil-scalar", func() error { _, err := NewLinear(nil, good(), b); return err }, "no scalar"},
		{"short-X", func() error { ds := good(); ds.X = ds.X[:3]; _, err := NewLinear(Logistic{}, ds, b); return err }, "feature values"},
		{"short-Y", func() error { ds := good(); ds.Y = ds.Y[:1]; _, err := NewLinear(Logistic{}, ds, b); return err }, "labels"},
		{"nan", func() error { ds := good(); ds.X[3] = math.NaN(); _, err := NewLinear(Logistic{}, ds, b); return err }, "row 1, feature 1"},
		{"inf-l1", func() error {
			ds := good()
			ds.X[0] = math.Inf(-1)
			_, err := NewLinear(Logistic{}, ds, Bounds{X: 1, XNorm: 1})
			return err
		}, "row 0, feature 0: value -Inf is not finite"},
		{"nan-linf", func() error {
			ds := good()
			ds.X[3] = math.NaN()
			_, err := NewLinear(Logistic{}, ds, Bounds{X: 1, XNorm: inf})
			return err
		}, "row 1, feature 1"},
		{"nan-after-inf", func() error {
			ds := good()
			ds.X[2], ds.X[3] = math.Inf(1), math.NaN()
			_, err := NewLinear(Logistic{}, ds, b)
			return err
		}, "row 1, feature 0"},
		{"huge", func() error { ds := good(); ds.X[0] = 1e300; _, err := NewLinear(Logistic{}, ds, b); return err }, "row 0: ‖x‖_2 = 1e+300"},
		{"bias-mismatch", func() error {
			ds := good()
			ds.X = []float64{0.6, 0.5, 0.3, 0.5}
			ds.X[1] = 0.49
			_, err := NewLinear(Logistic{}, ds, Bounds{X: 1, XNorm: 2, Bias: 0.5})
			return err
		}, "row 0: the last coordinate is 0.49, not the declared bias 0.5"},
		{"bias-over-bound", func() error { _, err := NewLinear(Logistic{}, good(), Bounds{X: 1, XNorm: 2, Bias: 1.5}); return err }, "bias 1.5"},
		{"over-bound", func() error { ds := good(); ds.X[3] = 1.01; _, err := NewLinear(Logistic{}, ds, b); return err }, "row 1: ‖x‖_2"},
		{"label-0", func() error { ds := good(); ds.Y[1] = 0; _, err := NewLinear(Logistic{}, ds, b); return err }, "row 1: label 0"},
		{"target-over-bound", func() error { ds := good(); ds.Y[0] = 1.5; _, err := NewLinear(Squared{}, ds, b); return err }, "row 0: target"},
		{"target-nan", func() error {
			ds := good()
			ds.Y[0] = math.NaN()
			_, err := NewLinear(Huber{Delta: 1}, ds, b)
			return err
		}, "not finite"},
		{"smoothhinge-width", func() error { _, err := NewLinear(SmoothHinge{}, good(), b); return err }, "width"},
		{"huber-width", func() error { _, err := NewLinear(Huber{Delta: inf}, good(), b); return err }, "width"},
		{"bad-bounds", func() error { _, err := NewLinear(Logistic{}, good(), Bounds{X: 1, XNorm: 0.5}); return err }, "exponent"},
		{"multinomial-label", func() error {
			ds := good()
			ds.Y = []float64{0, 1.5}
			_, err := NewMultinomial(ds, 3, b)
			return err
		}, "row 1: label 1.5"},
		{"multinomial-label-k", func() error {
			ds := good()
			ds.Y = []float64{0, 3}
			_, err := NewMultinomial(ds, 3, b)
			return err
		}, "class index"},
		{"multinomial-k", func() error { _, err := NewMultinomial(good(), 1, b); return err }, "classes"},
		{"robust-rho", func() error { _, err := NewRobust(Logistic{}, -1, 2, good(), b); return err }, "radius"},
		{"squared-unbounded", func() error {
			_, err := mustLinear(t, Squared{}, good(), b).Constants(geom.Whole{D: 2}, 2)
			return err
		}, "not Lipschitz"},
		{"squared-no-label-bound", func() error {
			_, err := mustLinear(t, Squared{}, good(), Bounds{X: 1, XNorm: 2, Y: inf}).Constants(mustBall(t, 2, 2, 1), 2)
			return err
		}, "not Lipschitz"},
		{"infinite-feature-bound", func() error {
			_, err := mustLinear(t, Logistic{}, good(), Bounds{X: inf, XNorm: 2}).Constants(geom.Whole{D: 2}, 2)
			return err
		}, "infinite"},
		{"domain-dimension", func() error {
			_, err := mustLinear(t, Logistic{}, good(), b).Constants(geom.Whole{D: 3}, 2)
			return err
		}, "dimension"},
		{"norm-exponent", func() error {
			_, err := mustLinear(t, Logistic{}, good(), b).Constants(geom.Whole{D: 2}, 0)
			return err
		}, "exponent"},
		{"objective-tilt", func() error { _, err := NewObjective(mustLinear(t, Logistic{}, good(), b), -1, nil, 0); return err }, "tilt"},
		{"objective-weight-without-reg", func() error { _, err := NewObjective(mustLinear(t, Logistic{}, good(), b), 0, nil, 1); return err }, "without"},
		{"objective-reg-dimension", func() error {
			r, _ := geom.NewLpRegularizer(2, 3, nil)
			_, err := NewObjective(mustLinear(t, Logistic{}, good(), b), 0, r, 1)
			return err
		}, "dimension"},
	}
	for _, tc := range tests {
		err := tc.err()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

// TestSlack checks that a row whose computed norm exceeds the bound by rounding (1e-12
// relative) is accepted, that one exceeding it by 1e-8 is rejected, and that the constants
// cover the accepted row.
func TestSlack(t *testing.T) {
	b := Bounds{X: 1, XNorm: 2}
	ds := &data.Dataset{N: 1, D: 1, X: []float64{1 + 1e-12}, Y: []float64{1}}
	l, err := NewLinear(Logistic{}, ds, b)
	if err != nil {
		t.Fatalf("row at 1 + 1e-12 rejected: %v", err)
	}
	k, err := l.Constants(geom.Whole{D: 1}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if k.Lipschitz < ds.X[0] {
		t.Errorf("G = %v below the accepted row's norm %v", k.Lipschitz, ds.X[0])
	}
	ds.X[0] = 1 + 1e-8
	if _, err := NewLinear(Logistic{}, ds, b); err == nil {
		t.Error("row at 1 + 1e-8 accepted")
	}
}

// TestNoAllocations checks that the per-example and full-batch methods do not allocate.
func TestNoAllocations(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 30))
	const n, d = 20, 6
	b := Bounds{X: 1, XNorm: 2}
	cls := randData(rng, n, d, 2, 1, signLabel(rng))
	lin := mustLinear(t, Logistic{}, cls, b)
	rob, err := NewRobust(Logistic{}, 0.1, 2, cls, b)
	if err != nil {
		t.Fatal(err)
	}
	mul, err := NewMultinomial(randData(rng, n, d, 2, 1, func() float64 { return float64(rng.IntN(3)) }), 3, b)
	if err != nil {
		t.Fatal(err)
	}
	seed, _ := geom.NewLpRegularizer(1.5, d, randVec(rng, d, 0.1))
	for _, l := range []Loss{lin, rob, mul} {
		w, g := randVec(rng, l.Dim(), 1), make([]float64, l.Dim())
		objs := []*Objective{mustObjective(t, l, 0, nil, 0), mustObjective(t, l, 2, nil, 0)}
		if l.Dim() == d {
			objs = append(objs, mustObjective(t, l, 1, seed, 0.5))
		}
		calls := []func(){
			func() { sink = l.Value(w, 3) },
			func() { sink = l.Grad(g, w, 3) },
			func() { sink = l.Mean(g, w) },
			func() { sink = l.Mean(nil, w) },
		}
		for _, o := range objs {
			calls = append(calls, func() { sink = o.FuncGrad(g, w) }, func() { sink = o.Func(w) })
		}
		for i, f := range calls {
			if a := testing.AllocsPerRun(10, f); a != 0 {
				t.Errorf("%T call %d: %v allocations", l, i, a)
			}
		}
	}
}

// TestScalarValues checks each scalar loss and its derivative at hand-computed points,
// including extreme margins (no overflow, full relative accuracy of e^{−m}).
func TestScalarValues(t *testing.T) {
	tests := []struct {
		name     string
		s        Scalar
		z, y     float64
		val, der float64
	}{
		{"logistic-0", Logistic{}, 0, 1, math.Ln2, -0.5},
		{"logistic-neg-label", Logistic{}, 2, -1, math.Log1p(math.Exp(2)), 1 / (1 + math.Exp(-2))},
		{"logistic-large-margin", Logistic{}, 40, 1, math.Exp(-40), -math.Exp(-40)},
		{"logistic-huge-loss", Logistic{}, -800, 1, 800, -1},
		{"hinge-active", Hinge{}, 0.25, 1, 0.75, -1},
		{"hinge-inactive", Hinge{}, 2, 1, 0, 0},
		{"hinge-neg-label", Hinge{}, 0.5, -1, 1.5, 1},
		{"smoothhinge-quadratic", SmoothHinge{H: 0.5}, 0.75, 1, 0.0625, -0.5},
		{"smoothhinge-linear", SmoothHinge{H: 0.5}, -1, 1, 1.75, -1},
		{"smoothhinge-zero", SmoothHinge{H: 0.5}, 1.5, 1, 0, 0},
		{"squared", Squared{}, 3, 1, 2, 2},
		{"huber-quadratic", Huber{Delta: 1}, 0.5, 0, 0.125, 0.5},
		{"huber-linear", Huber{Delta: 1}, -3, 0, 2.5, -1},
	}
	for _, tc := range tests {
		v, d := tc.s.Deriv(tc.z, tc.y)
		if !closeTo(v, tc.val, 1e-15) || !closeTo(tc.s.Value(tc.z, tc.y), tc.val, 1e-15) || !closeTo(d, tc.der, 1e-15) {
			t.Errorf("%s: value %v (Value %v), derivative %v; want %v, %v", tc.name, v, tc.s.Value(tc.z, tc.y), d, tc.val, tc.der)
		}
		if tc.val != 0 && tc.val < 1e-10 && math.Abs(v-tc.val) > 4e-16*tc.val {
			t.Errorf("%s: value %v not accurate relative to %v", tc.name, v, tc.val)
		}
	}
}

// TestMultinomialTwoClasses checks that with K = 2 and W = [0; w] the multinomial loss is
// the logistic loss of w with label 2y − 1.
func TestMultinomialTwoClasses(t *testing.T) {
	rng := rand.New(rand.NewPCG(39, 40))
	const n, d = 20, 4
	ds := randData(rng, n, d, 2, 1, func() float64 { return float64(rng.IntN(2)) })
	m, err := NewMultinomial(ds, 2, Bounds{X: 1, XNorm: 2})
	if err != nil {
		t.Fatal(err)
	}
	w := randVec(rng, d, 2)
	wm := append(make([]float64, d), w...)
	for i := 0; i < n; i++ {
		want := Logistic{}.Value(dot(ds.Row(i, nil), w), 2*ds.Y[i]-1)
		if got := m.Value(wm, i); !closeTo(got, want, 1e-14) {
			t.Fatalf("row %d: multinomial %v, logistic %v", i, got, want)
		}
	}
}

// TestMeanClippedGrad: the clipped mean gradient of a linear model is (1/n)Σ clamp(s', −a, a)·xᵢ
// recomputed row by row, for every scalar loss, on dense and one-hot (sparse) rows; with
// a = +Inf it is MeanGrad, bit for bit; replacing one row moves it by 2a·‖x‖/n where two
// opposite rows both reach the clip; and it is the gradient of a convex
// function: ⟨g(w) − g(w′), w − w′⟩ ≥ 0 on random pairs.
func TestMeanClippedGrad(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 28))
	scalars := []Scalar{Logistic{}, SmoothHinge{H: 0.5}, Squared{}, Huber{Delta: 0.3}}
	for _, s := range scalars {
		label := signLabel(rng)
		if _, margin := s.(Margin); !margin {
			label = func() float64 { return 2 * rng.Float64() }
		}
		for _, ds := range []*data.Dataset{randData(rng, 60, 5, 2, 1, label), oneHotData(rng, 60, 12, 0.2)} {
			if _, margin := s.(Margin); !margin {
				for i := range ds.Y {
					ds.Y[i] = label()
				}
			}
			l, err := NewLinear(s, ds, Bounds{X: 1, XNorm: 2, Y: 2})
			if err != nil {
				t.Fatal(err)
			}
			d := ds.D
			for _, a := range []float64{0.05, 0.3, math.Inf(1)} {
				w := randVec(rng, d, 3)
				got := make([]float64, d)
				l.MeanClippedGrad(got, w, a)
				want := make([]float64, d)
				for i := range ds.N {
					row := ds.Row(i, nil)
					_, dz := s.Deriv(dot(row, w), ds.Y[i])
					axpy(want, min(max(dz, -a), a)/float64(ds.N), row)
				}
				for j := range want {
					if !closeTo(got[j], want[j], 1e-12) {
						t.Fatalf("%T, a = %g: clipped mean gradient %v, want %v", s, a, got, want)
					}
				}
				if math.IsInf(a, 1) {
					plain := make([]float64, d)
					l.MeanGrad(plain, w)
					for j := range plain {
						if math.Float64bits(plain[j]) != math.Float64bits(got[j]) {
							t.Fatalf("%T: a = +Inf gives %v, MeanGrad %v", s, got, plain)
						}
					}
					continue
				}
				w2 := randVec(rng, d, 3)
				g2 := make([]float64, d)
				l.MeanClippedGrad(g2, w2, a)
				inner := 0.0
				for j := range w {
					inner += (got[j] - g2[j]) * (w[j] - w2[j])
				}
				if inner < -1e-12 {
					t.Errorf("%T, a = %g: ⟨g(w) − g(w′), w − w′⟩ = %g < 0", s, a, inner)
				}
			}
		}
	}
	// Sensitivity: a row x replaced by −x, with w ⟂ x, where both derivatives are ∓1/2 > a.
	x := []float64{0.6, 0.8}
	base := &data.Dataset{N: 4, D: 2, X: []float64{0.1, 0, 0, 0.1, 0.2, 0.2, x[0], x[1]}, Y: []float64{1, -1, 1, 1}}
	next := &data.Dataset{N: 4, D: 2, X: append(append([]float64(nil), base.X[:6]...), -x[0], -x[1]), Y: base.Y}
	const a = 0.4
	w := []float64{-40, 30}
	g := [2][]float64{make([]float64, 2), make([]float64, 2)}
	for k, ds := range []*data.Dataset{base, next} {
		l, err := NewLinear(Logistic{}, ds, Bounds{X: 1, XNorm: 2, Y: 1})
		if err != nil {
			t.Fatal(err)
		}
		l.MeanClippedGrad(g[k], w, a)
	}
	if dist := math.Hypot(g[0][0]-g[1][0], g[0][1]-g[1][1]); dist > 2*a/4 || dist < 2*a/4*(1-1e-12) {
		t.Errorf("replacing one row moved the clipped mean gradient by %g, the bound is 2a/n = %g", dist, 2*a/4)
	}
}

// TestBiasScaledShare: over rows whose last coordinate is the declared bias b and whose norm
// reaches the bound (the worst case), ‖(x_1, …, x_D/t)‖₂ never exceeds BiasScaledShare(t)·X̄
// and comes within 1e-12 of it; the share is 1 where nothing is declared or saved.
func TestBiasScaledShare(t *testing.T) {
	rng := rand.New(rand.NewPCG(91, 92))
	for _, c := range []struct{ x, bias, t float64 }{{1, math.Sqrt2 / 2, 4}, {1, 0.1, 2}, {3, 2.9, 8}, {1, 1, 4}} {
		b := Bounds{X: c.x, XNorm: 2, Bias: c.bias}
		share := b.BiasScaledShare(c.t)
		xb := b.xBound()
		worst := 0.0
		for range 1000 {
			row := randVec(rng, 6, 1)
			row[5] = 0
			rest := math.Sqrt(math.Max(xb*xb-c.bias*c.bias, 0))
			scaleTo(row, rest/math.Sqrt(dot(row, row)), row)
			row[5] = c.bias / c.t
			worst = math.Max(worst, math.Sqrt(dot(row, row)))
		}
		if worst > share*xb || worst < share*xb*(1-1e-12) {
			t.Errorf("X = %v, b = %v, t = %v: worst scaled norm %v, bound %v", c.x, c.bias, c.t, worst, share*xb)
		}
	}
	for _, b := range []Bounds{{X: 1, XNorm: 2}, {X: 1, XNorm: 1, Bias: 0.5}} {
		if s := b.BiasScaledShare(4); s != 1 {
			t.Errorf("%+v: share %v, want 1", b, s)
		}
	}
	if s := (Bounds{X: 1, XNorm: 2, Bias: 0.5}).BiasScaledShare(1); s != 1 {
		t.Errorf("t = 1: share %v, want 1", s)
	}
}

// TestDeclaredRows: with a declared public number of rows N, every loss's Mean and MeanGrad
// (and Linear's clipped gradient) are the sums over the rows divided by N, the bits of the
// undeclared mean times n/N up to one rounding; more rows than N are refused, a negative N too.
func TestDeclaredRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	const n, d, rows = 37, 4, 50
	ds := randData(rng, n, d, 2, 1, signLabel(rng))
	classes := randData(rng, n, d, 2, 1, func() float64 { return float64(rng.IntN(3)) })
	b := Bounds{X: 1, XNorm: 2, Y: 1}
	declared := b
	declared.Rows = rows
	build := map[string]func(Bounds) (Loss, error){
		"logistic":    func(b Bounds) (Loss, error) { return NewLinear(Logistic{}, ds, b) },
		"multinomial": func(b Bounds) (Loss, error) { return NewMultinomial(classes, 3, b) },
		"robust":      func(b Bounds) (Loss, error) { return NewRobust(Logistic{}, 0.1, 2, ds, b) },
	}
	for name, mk := range build {
		plain, err := mk(b)
		if err != nil {
			t.Fatal(err)
		}
		fixed, err := mk(declared)
		if err != nil {
			t.Fatal(err)
		}
		w := randVec(rng, plain.Dim(), 0.7)
		g0, g1, g2 := make([]float64, len(w)), make([]float64, len(w)), make([]float64, len(w))
		v0, v1 := plain.Mean(g0, w), fixed.Mean(g1, w)
		MeanGrad(fixed, g2, w)
		if !closeTo(v1, v0*n/rows, 1e-15) {
			t.Errorf("%s: Mean %v, want %v·%d/%d", name, v1, v0, n, rows)
		}
		for j := range g0 {
			if !closeTo(g1[j], g0[j]*n/rows, 1e-14) || g1[j] != g2[j] {
				t.Errorf("%s: gradient %v (MeanGrad %v), want %v·%d/%d", name, g1[j], g2[j], g0[j], n, rows)
			}
		}
		if fixed.Len() != n {
			t.Errorf("%s: Len %d, want the %d rows", name, fixed.Len(), n)
		}
	}
	lin := mustLinear(t, Logistic{}, ds, declared)
	plain := mustLinear(t, Logistic{}, ds, b)
	w := randVec(rng, d, 2)
	c0, c1 := make([]float64, d), make([]float64, d)
	plain.MeanClippedGrad(c0, w, 0.1)
	lin.MeanClippedGrad(c1, w, 0.1)
	for j := range c0 {
		if !closeTo(c1[j], c0[j]*n/rows, 1e-14) {
			t.Errorf("clipped gradient %v, want %v·%d/%d", c1[j], c0[j], n, rows)
		}
	}
	few := declared
	few.Rows = n - 1
	if _, err := NewLinear(Logistic{}, ds, few); err == nil || !strings.Contains(err.Error(), "more than the declared public number of rows N = 36") {
		t.Errorf("37 rows accepted with N = 36: %v", err)
	}
	few.Rows = -1
	if _, err := NewLinear(Logistic{}, ds, few); err == nil || !strings.Contains(err.Error(), "negative") {
		t.Errorf("N = −1 accepted: %v", err)
	}
	exact := declared
	exact.Rows = n
	same := mustLinear(t, Logistic{}, ds, exact)
	if same.Mean(nil, w) != plain.Mean(nil, w) {
		t.Error("N = n does not give the undeclared mean's bits")
	}
}
