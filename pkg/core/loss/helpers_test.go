package loss

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/geom"
)

var inf = math.Inf(1)

// randVec returns d standard normal entries times s.
func randVec(rng *rand.Rand, d int, s float64) []float64 {
	x := make([]float64, d)
	for i := range x {
		x[i] = s * rng.NormFloat64()
	}
	return x
}

// randData returns n random rows in R^d with ‖x‖_{xNorm} ≤ xb (a quarter of them exactly on
// the bound) and labels drawn by label.
func randData(rng *rand.Rand, n, d int, xNorm, xb float64, label func() float64) *data.Dataset {
	ds := &data.Dataset{N: n, D: d, X: make([]float64, 0, n*d), Y: make([]float64, n)}
	for i := 0; i < n; i++ {
		x := randVec(rng, d, 1)
		target := xb
		if i%4 != 0 {
			target *= rng.Float64()
		}
		s := target / geom.Norm(x, xNorm)
		for j := range x {
			x[j] *= s
		}
		ds.X = append(ds.X, x...)
		ds.Y[i] = label()
	}
	return ds
}

func signLabel(rng *rand.Rand) func() float64 {
	return func() float64 {
		if rng.IntN(2) == 0 {
			return -1
		}
		return 1
	}
}

func closeTo(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// fdCheck compares grad with central differences of f at w.
func fdCheck(t *testing.T, name string, f func([]float64) float64, grad, w []float64) {
	t.Helper()
	for j := range w {
		h := 1e-6 * math.Max(1, math.Abs(w[j]))
		wp, wm := append([]float64(nil), w...), append([]float64(nil), w...)
		wp[j] += h
		wm[j] -= h
		fd := (f(wp) - f(wm)) / (2 * h)
		if math.Abs(fd-grad[j]) > 2e-6*math.Max(1, math.Abs(grad[j])) {
			t.Fatalf("%s: ∂_%d = %v, finite difference %v", name, j, grad[j], fd)
		}
	}
}

func mustBall(t *testing.T, d int, p, r float64) *geom.Ball {
	t.Helper()
	b, err := geom.NewBall(d, p, r, nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustLinear(t *testing.T, s Scalar, ds *data.Dataset, b Bounds) *Linear {
	t.Helper()
	l, err := NewLinear(s, ds, b)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func sub(a, b []float64) []float64 {
	d := make([]float64, len(a))
	for i := range d {
		d[i] = a[i] - b[i]
	}
	return d
}
