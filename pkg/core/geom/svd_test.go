package geom

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestSVD checks the Jacobi SVD on tall, wide, square, rank-deficient and one-row matrices:
// U·diag(σ)·Vᵀ reproduces A, U and V have orthonormal columns, σ decreases, and σ agrees with
// gonum's LAPACK-based mat.SVD to 1e-13 relative to σ₁.
func TestSVD(t *testing.T) {
	r := rand.New(rand.NewPCG(71, 72))
	shapes := [][2]int{{3, 5}, {5, 3}, {4, 4}, {1, 6}, {6, 1}, {3, 92}, {1, 1}}
	for _, sh := range shapes {
		for _, rankOne := range []bool{false, true} {
			rows, cols := sh[0], sh[1]
			a := make([]float64, rows*cols)
			for i := range a {
				a[i] = r.NormFloat64()
			}
			if rankOne { // a = x·yᵀ with x and y random
				x, y := a[:rows:rows], make([]float64, cols)
				for j := range y {
					y[j] = r.NormFloat64()
				}
				x = append([]float64(nil), x...)
				for i := range rows {
					for j := range cols {
						a[i*cols+j] = x[i] * y[j]
					}
				}
			}
			f, err := svd(a, rows, cols, true)
			if err != nil {
				t.Fatal(err)
			}
			k := min(rows, cols)
			if len(f.sigma) != k || len(f.u) != rows*k || len(f.v) != cols*k {
				t.Fatalf("%v: shapes σ %d, U %d, V %d", sh, len(f.sigma), len(f.u), len(f.v))
			}
			back := make([]float64, rows*cols)
			f.reconstruct(back)
			scale := f.sigma[0]
			for i := range a {
				if math.Abs(back[i]-a[i]) > 1e-13*scale {
					t.Fatalf("%v rank-one %v: U·Σ·Vᵀ differs from A by %g at %d", sh, rankOne, back[i]-a[i], i)
				}
			}
			for l := 1; l < k; l++ {
				if f.sigma[l] > f.sigma[l-1] {
					t.Fatalf("%v: σ not decreasing: %v", sh, f.sigma)
				}
			}
			checkOrthonormal(t, f.u, rows, k, f.sigma)
			checkOrthonormal(t, f.v, cols, k, f.sigma)
			var g mat.SVD
			if !g.Factorize(mat.NewDense(rows, cols, a), mat.SVDNone) {
				t.Fatal("gonum's SVD failed")
			}
			for l, s := range g.Values(nil) {
				if math.Abs(s-f.sigma[l]) > 1e-13*scale {
					t.Errorf("%v: σ %v, gonum %v", sh, f.sigma, g.Values(nil))
				}
			}
		}
	}
}

// checkOrthonormal checks that the columns of the n×k matrix m with a non-zero singular value
// are orthonormal to 1e-12.
func checkOrthonormal(t *testing.T, m []float64, n, k int, sigma []float64) {
	t.Helper()
	for p := range k {
		for q := range k {
			if sigma[p] <= 1e-12*sigma[0] || sigma[q] <= 1e-12*sigma[0] {
				continue
			}
			s := 0.0
			for i := range n {
				s += m[i*k+p] * m[i*k+q]
			}
			want := 0.0
			if p == q {
				want = 1
			}
			if math.Abs(s-want) > 1e-12 {
				t.Fatalf("columns %d and %d: inner product %g", p, q, s)
			}
		}
	}
}
