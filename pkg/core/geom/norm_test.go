package geom

import (
	"math"
	"math/rand/v2"
	"testing"
)

var inf = math.Inf(1)

// randVec returns a vector of d standard normal entries times scale.
func randVec(rng *rand.Rand, d int, scale float64) []float64 {
	x := make([]float64, d)
	for i := range x {
		x[i] = scale * rng.NormFloat64()
	}
	return x
}

// close reports whether a and b agree to relative tolerance tol (absolute near 0).
func closeTo(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

func TestNorm(t *testing.T) {
	tests := []struct {
		x    []float64
		p    float64
		want float64
	}{
		{[]float64{3, -4}, 1, 7},
		{[]float64{3, -4}, 2, 5},
		{[]float64{3, -4}, inf, 4},
		{[]float64{3, -4}, 3, math.Cbrt(91)},
		{[]float64{1, 1, 1, 1}, 4, math.Sqrt2},
		{[]float64{1e300, -1e300}, 2, math.Sqrt2 * 1e300},
		{[]float64{1e-300, 1e-300}, 2, math.Sqrt2 * 1e-300},
		{[]float64{1e300, 1e300}, 3, math.Cbrt(2) * 1e300},
		{[]float64{1e-200, 0, -1e-200}, 1.5, math.Pow(2, 1/1.5) * 1e-200},
		{[]float64{0, 0}, 2, 0},
		{[]float64{0, 0}, 1.7, 0},
		{nil, 2, 0},
		{[]float64{1, inf}, 2, inf},
		{[]float64{1, -inf}, 3, inf},
		{[]float64{1, math.NaN()}, 2, math.NaN()},
		{[]float64{math.NaN(), 1}, inf, math.NaN()},
		{[]float64{1, math.NaN()}, 1, math.NaN()},
		{[]float64{1, 2}, 0.5, math.NaN()},
		{[]float64{1, 2}, math.NaN(), math.NaN()},
	}
	for _, tc := range tests {
		got := Norm(tc.x, tc.p)
		if math.IsNaN(tc.want) {
			if !math.IsNaN(got) {
				t.Errorf("Norm(%v, %v) = %v, want NaN", tc.x, tc.p, got)
			}
			continue
		}
		if !(got == tc.want || closeTo(got, tc.want, 1e-15)) {
			t.Errorf("Norm(%v, %v) = %v, want %v", tc.x, tc.p, got, tc.want)
		}
	}
}

func TestDual(t *testing.T) {
	tests := []struct{ p, want float64 }{
		{1, inf}, {inf, 1}, {2, 2}, {1.5, 3}, {3, 1.5}, {4, 4.0 / 3},
	}
	for _, tc := range tests {
		if got := Dual(tc.p); !closeTo(got, tc.want, 1e-15) && got != tc.want {
			t.Errorf("Dual(%v) = %v, want %v", tc.p, got, tc.want)
		}
	}
	for _, p := range []float64{0.5, -1, math.NaN()} {
		if got := Dual(p); !math.IsNaN(got) {
			t.Errorf("Dual(%v) = %v, want NaN", p, got)
		}
	}
}

// TestNormBound checks that the conversion is never exceeded on random vectors and is
// attained by the extremal vector (a basis vector or the all-ones vector).
func TestNormBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	exps := []float64{1, 1.5, 2, 3, inf}
	const d = 7
	for _, from := range exps {
		for _, to := range exps {
			for k := 0; k < 200; k++ {
				x := randVec(rng, d, 1)
				if k%3 == 0 {
					x[rng.IntN(d)] *= 50 // spiky vectors
				}
				if got, bound := Norm(x, to), NormBound(Norm(x, from), from, to, d); got > bound*(1+1e-14) {
					t.Fatalf("from %v to %v: ‖x‖_to = %v > bound %v", from, to, got, bound)
				}
			}
			ext := make([]float64, d)
			if to >= from {
				ext[0] = 1
			} else {
				for i := range ext {
					ext[i] = 1
				}
			}
			r := Norm(ext, from)
			if got, want := NormBound(r, from, to, d), Norm(ext, to); !closeTo(got, want, 1e-14) {
				t.Errorf("from %v to %v: bound %v not attained (extremal vector has %v)", from, to, got, want)
			}
		}
	}
	for _, bad := range [][4]float64{{1, 0.5, 2, 3}, {1, 2, 0, 3}, {-1, 2, 2, 3}, {1, 2, 1, 0}, {math.NaN(), 2, 1, 3}} {
		if got := NormBound(bad[0], bad[1], bad[2], int(bad[3])); !math.IsNaN(got) {
			t.Errorf("NormBound%v = %v, want NaN", bad, got)
		}
	}
}

// TestNormGrad checks ⟨g, x⟩ = ‖x‖_p, ‖g‖_{p*} ≤ 1, and, where the norm is differentiable,
// agreement with central finite differences.
func TestNormGrad(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, p := range []float64{1, 1.3, 2, 3, inf} {
		for k := 0; k < 50; k++ {
			x := randVec(rng, 6, 2)
			g := make([]float64, len(x))
			n := NormGrad(g, x, p)
			if !closeTo(n, Norm(x, p), 1e-15) {
				t.Fatalf("p=%v: returned norm %v, want %v", p, n, Norm(x, p))
			}
			if ip := dot(g, x); !closeTo(ip, n, 1e-13) {
				t.Fatalf("p=%v: ⟨g, x⟩ = %v, want ‖x‖ = %v", p, ip, n)
			}
			if dn := Norm(g, Dual(p)); dn > 1+1e-13 {
				t.Fatalf("p=%v: ‖g‖_{p*} = %v > 1", p, dn)
			}
			// Random Gaussian x has distinct |x_i| and no zeros: ‖·‖_p is differentiable there.
			for i := range x {
				h := 1e-6
				xp, xm := append([]float64(nil), x...), append([]float64(nil), x...)
				xp[i] += h
				xm[i] -= h
				fd := (Norm(xp, p) - Norm(xm, p)) / (2 * h)
				if math.Abs(fd-g[i]) > 1e-6 {
					t.Fatalf("p=%v: ∂_%d = %v, finite difference %v", p, i, g[i], fd)
				}
			}
		}
	}
	g := []float64{5, 5}
	if NormGrad(g, []float64{0, 0}, 1.5); g[0] != 0 || g[1] != 0 {
		t.Errorf("NormGrad at 0 = %v, want 0", g)
	}
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// TestSumSquaresMatchesGo: the sum of squares Norm uses for p = 2 (under WebAssembly, the
// assembly of kernels_wasm.s) has the bits of the Go loop, on vectors of every length up to 40
// with entries over many magnitudes, signed zeros, a NaN and an infinity; natively the two are
// the same code.
func TestSumSquaresMatchesGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 72))
	for n := range 41 {
		x := make([]float64, n)
		for i := range x {
			x[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(41)-20))
		}
		cases := [][]float64{x}
		if n > 2 {
			y := append([]float64(nil), x...)
			y[0], y[1], y[n-1] = math.Copysign(0, -1), 1e200, math.Inf(-1)
			z := append([]float64(nil), x...)
			z[n/2] = math.NaN()
			cases = append(cases, y, z)
		}
		for _, v := range cases {
			if a, b := sumSquares(v), sumSquaresGo(v); math.Float64bits(a) != math.Float64bits(b) && !(math.IsNaN(a) && math.IsNaN(b)) {
				t.Fatalf("n = %d: %v, want %v", n, a, b)
			}
		}
	}
}
