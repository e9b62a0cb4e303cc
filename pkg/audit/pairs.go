package audit

import (
	"math"

	"github.com/privopt/privopt/pkg/core/data"
)

// Worst-case neighbouring datasets. An audit only sees the privacy a mechanism leaks on the
// datasets it is given; these pairs make the mechanisms of pkg/core/mech tight, so that a
// mechanism claiming less noise than it needs is caught.

// onePair returns two datasets of n one-dimensional rows with ‖x‖ ≤ 1: the rows of x and y
// from row, and the first row's feature flipped to the opposite extreme (+1 and −1).
func onePair(n int, row func(i int) (x, y float64)) (d0, d1 *data.Dataset) {
	mk := func(first float64) *data.Dataset {
		ds := &data.Dataset{N: n, D: 1, X: make([]float64, n), Y: make([]float64, n), Features: []string{"x"}, P: 2, Radius: 1}
		for i := range n {
			ds.X[i], ds.Y[i] = row(i)
		}
		ds.X[0] = first
		return ds
	}
	return mk(1), mk(-1)
}

// HingePair returns neighbouring datasets on which the hinge loss max(0, 1 − y·w·x) is linear
// wherever |w| < 1: features alternating ±1 with label +1, the first feature flipped. The mean
// loss's gradient then moves by exactly 2G/n (G = 1), and the regularized exponential
// mechanism's two distributions are Gaussians shifted by exactly its μ_GDP (while its samples
// stay in |w| < 1).
func HingePair(n int) (d0, d1 *data.Dataset) {
	return onePair(n, func(i int) (float64, float64) { return float64(1 - 2*(i%2)), 1 })
}

// HuberPair returns neighbouring datasets on which the Huber loss with threshold t < 1 is
// linear wherever |w| < 1 − t: feature 1 with labels alternating ±1, the first feature flipped.
// The mean gradient then moves by exactly 2G/n (G = t) and the ridge-regularised minimizer by
// exactly 2G/(λn): output perturbation and noisy gradient descent are tight on it.
func HuberPair(n int) (d0, d1 *data.Dataset) {
	return onePair(n, func(i int) (float64, float64) { return 1, float64(1 - 2*(i%2)) })
}

// BiasPair returns neighbouring datasets of two-dimensional rows (f, b) with a bias
// coordinate b = 1/√2 and f = ±1/√2 (‖x‖₂ = 1), labels alternating ±1, the first row's feature
// flipped: the smooth hinge of width t (like the Huber loss of threshold t) is linear wherever
// |⟨w, x⟩| < 1 − t, and there the (clipped) mean gradient moves by 2G·(1/√2)/n in the feature
// only. A mechanism that shapes its noise to
// the declared bias (noisy-gd divides the bias by 4, so its sensitivity bounds ‖(f, b/4)‖ =
// 0.729) is then within 3 % of tight on the feature, whose noise the shaping reduces.
func BiasPair(n int) (d0, d1 *data.Dataset) {
	mk := func(first float64) *data.Dataset {
		ds := &data.Dataset{N: n, D: 2, X: make([]float64, 0, 2*n), Y: make([]float64, n), Features: []string{"x", "(bias)"},
			P: 2, Radius: 1, Bias: math.Sqrt2 / 2}
		for i := range n {
			f := math.Sqrt2 / 2
			if i == 0 {
				f = first
			}
			ds.X = append(ds.X, f, ds.Bias)
			ds.Y[i] = float64(1 - 2*(i%2))
		}
		return ds
	}
	return mk(math.Sqrt2 / 2), mk(-math.Sqrt2 / 2)
}

// AddRemove turns a replace-one pair into an add/remove pair of different sizes: the first
// dataset of pair(n) without its first row (n − 1 rows) and with it (n rows). The mechanisms,
// planned for the public number of rows N = n, divide their sums by N, so the added row moves
// the mean gradient by G/N: on HingePair and HuberPair, exactly (their rows are where the loss
// is linear), which makes the add/remove sensitivity tight.
func AddRemove(pair func(n int) (d0, d1 *data.Dataset)) func(n int) (d0, d1 *data.Dataset) {
	return func(n int) (d0, d1 *data.Dataset) {
		full, _ := pair(n)
		rest := *full
		rest.N = n - 1
		rest.X = append([]float64(nil), full.X[full.D:]...)
		rest.Y = append([]float64(nil), full.Y[1:]...)
		return &rest, full
	}
}
