package geom

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestSchattenNorm(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	// A diagonal matrix: the singular values are the absolute diagonal entries.
	diag := []float64{3, 0, 0, 0, -4, 0}
	x, y := randVec(rng, 3, 1), randVec(rng, 4, 1)
	outer := make([]float64, 12)
	for i := range x {
		for j := range y {
			outer[i*4+j] = x[i] * y[j]
		}
	}
	tests := []struct {
		name       string
		a          []float64
		rows, cols int
		p, want    float64
	}{
		{"diag-S1", diag, 2, 3, 1, 7},
		{"diag-S2", diag, 2, 3, 2, 5},
		{"diag-Sinf", diag, 2, 3, inf, 4},
		{"diag-S3", diag, 2, 3, 3, math.Cbrt(91)},
		{"2x2", []float64{1, 1, 0, 1}, 2, 2, inf, (1 + math.Sqrt(5)) / 2}, // golden ratio
		{"2x2-trace", []float64{1, 1, 0, 1}, 2, 2, 1, math.Sqrt(5)},
		{"rank-one-S1", outer, 3, 4, 1, Norm(x, 2) * Norm(y, 2)},
		{"rank-one-S1.5", outer, 3, 4, 1.5, Norm(x, 2) * Norm(y, 2)},
		{"rank-one-Sinf", outer, 3, 4, inf, Norm(x, 2) * Norm(y, 2)},
	}
	for _, tc := range tests {
		got, err := SchattenNorm(tc.a, tc.rows, tc.cols, tc.p)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !closeTo(got, tc.want, 1e-14) {
			t.Errorf("%s: ‖A‖_{S_%v} = %v, want %v", tc.name, tc.p, got, tc.want)
		}
	}
	// The Frobenius norm is the entrywise ℓ2 norm; transposition changes nothing.
	a := randVec(rng, 15, 1)
	at := make([]float64, 15)
	for i := 0; i < 3; i++ {
		for j := 0; j < 5; j++ {
			at[j*3+i] = a[i*5+j]
		}
	}
	for _, p := range []float64{1, 2, 3, inf} {
		n1, err1 := SchattenNorm(a, 3, 5, p)
		n2, err2 := SchattenNorm(at, 5, 3, p)
		if err1 != nil || err2 != nil || !closeTo(n1, n2, 1e-14) {
			t.Errorf("p=%v: ‖A‖ = %v, ‖Aᵀ‖ = %v (%v, %v)", p, n1, n2, err1, err2)
		}
	}
	if f, _ := SchattenNorm(a, 3, 5, 2); !closeTo(f, Norm(a, 2), 1e-14) {
		t.Errorf("Schatten-2 %v ≠ Frobenius %v", f, Norm(a, 2))
	}
	for _, bad := range []struct {
		a          []float64
		rows, cols int
		p          float64
	}{
		{[]float64{1, 2, 3}, 2, 2, 2},
		{[]float64{1, math.NaN(), 3, 4}, 2, 2, 2},
		{[]float64{1, 2, 3, 4}, 2, 2, 0.5},
	} {
		if _, err := SchattenNorm(bad.a, bad.rows, bad.cols, bad.p); err == nil {
			t.Errorf("SchattenNorm(%v, %d, %d, %v) returned no error", bad.a, bad.rows, bad.cols, bad.p)
		}
	}
}

// TestSchattenRange checks Θ of the Schatten regularizers against maximizers built by hand:
// a rank-one matrix when q ≥ p, the scaled partial identity when q < p, and −R·A0/‖A0‖ for
// an off-centre regularizer with q = p; random points of the ball never exceed Θ.
func TestSchattenRange(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	const rows, cols, k = 3, 4, 3
	rankOne := make([]float64, rows*cols)
	rankOne[0] = 2
	partialID := make([]float64, rows*cols)
	for i := 0; i < k; i++ {
		partialID[i*cols+i] = 2 * math.Pow(k, -1.0/3)
	}
	a0 := randVec(rng, rows*cols, 0.1)
	tests := []struct {
		name string
		q, p float64
		a0   []float64
		arg  []float64
	}{
		{"q1.5-S1", 1.5, 1, nil, rankOne},
		{"q2-S2", 2, 2, nil, rankOne},
		{"q1.5-S3", 1.5, 3, nil, partialID},
		{"q1.5-S1.5-offcentre", 1.5, 1.5, a0, nil},
	}
	for _, tc := range tests {
		r, err := NewScaledSchattenRegularizer(tc.q, 0.8, rows, cols, tc.a0)
		if err != nil {
			t.Fatal(err)
		}
		ball, err := NewSchattenBall(rows, cols, tc.p, 2)
		if err != nil {
			t.Fatal(err)
		}
		theta, err := r.Range(ball)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		arg := tc.arg
		if arg == nil {
			n, _ := SchattenNorm(tc.a0, rows, cols, tc.q)
			arg = make([]float64, rows*cols)
			for i := range arg {
				arg[i] = -2 * tc.a0[i] / n
			}
		}
		if v := r.Value(arg); !closeTo(v, theta, 1e-12) {
			t.Errorf("%s: Θ = %v, r at the maximizer = %v", tc.name, theta, v)
		}
		for j := 0; j < 200; j++ {
			x := randVec(rng, rows*cols, 2)
			ball.Project(x, x)
			if v := r.Value(x); v > theta*(1+1e-12) {
				t.Fatalf("%s: r = %v > Θ = %v", tc.name, v, theta)
			}
		}
	}
	r, err := NewSchattenRegularizer(1.5, rows, cols, a0)
	if err != nil {
		t.Fatal(err)
	}
	ball, _ := NewSchattenBall(rows, cols, 3, 2)
	if _, err := r.Range(ball); err == nil {
		t.Error("Range returned no error for an off-centre S_1.5 regularizer on an S_3 ball")
	}
	if _, err := r.Range(Whole{D: rows * cols}); err == nil {
		t.Error("Range returned no error on the whole space")
	}
}
