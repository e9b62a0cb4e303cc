package data

import (
	"errors"
	"math"
)

// Symmetric returns the dataset whose numeric features, each in [0, c] for the FitScale factor
// c = ds.Scale, are mapped to 2x − c ∈ [−c, c]; one-hot features, the bias and the labels are
// unchanged. The map is the same for every row, so neighbouring datasets stay neighbours, and
// every row stays within the declared bound: a numeric feature's magnitude is at most c, as
// before, so ‖x‖_P is at most that of a row with every column at its largest (checked, with
// the rounding of 2x − c shrunk away as Encode shrinks it). With the bias b, a model w′ of the
// result is the model w of ds with w_j = 2w′_j on the numeric features and the bias weight
// w′_bias − (c/b)·Σ w′_j over them (SymmetricWeights). The features then spread twice as wide
// within the same bound.
//
// It is an error unless ds was fitted by FitScale (Scale > 0) with a bias coordinate. Rows
// held sparse stay sparse (a numeric feature at 0 becomes an entry −c), blocks that ds does not
// hold stay absent, and the result shares nothing but the labels with ds.
func Symmetric(ds *Dataset) (*Dataset, error) {
	if !(ds.Scale > 0) || !(ds.Bias > 0) {
		return nil, errors.New("data: symmetric features need rows scaled by the norm fit \"scale\" and a bias coordinate")
	}
	numeric := numericFeatures(ds)
	fit := newFitter(Norm{P: ds.P, Radius: ds.Radius, Bias: ds.Bias, Fit: FitScale}, 1)
	out := *ds
	row := make([]float64, ds.D)
	symmetric := func(x []float64) {
		for _, j := range numeric {
			x[j] = 2*x[j] - ds.Scale
		}
		fit.fit(x)
	}
	if ds.Sparse == nil {
		out.X = make([]float64, len(ds.X))
		for i := range ds.N {
			x := out.X[i*ds.D : (i+1)*ds.D]
			copy(x, ds.X[i*ds.D:(i+1)*ds.D])
			symmetric(x)
		}
		return &out, nil
	}
	width := 0
	for b := range ds.Sparse.Blocks {
		blk := &ds.Sparse.Blocks[b]
		for r := 0; r+1 < len(blk.Start); r++ {
			width = max(width, blk.Start[r+1]-blk.Start[r])
		}
	}
	width = min(width+len(numeric), ds.D)
	rows := newSparseBuilder(width)
	col, val := make([]int32, ds.D), make([]float64, ds.D)
	for i := range ds.N {
		if !ds.Holds(i) {
			rows.skip()
			continue
		}
		symmetric(ds.Row(i, row))
		k := 0
		for j, v := range row {
			if math.Float64bits(v) != 0 {
				col[k], val[k] = int32(j), v
				k++
			}
		}
		rows.add(col[:k], val[:k])
	}
	out.Sparse = rows.done()
	return &out, nil
}

// SymmetricWeights maps a linear model w′ of Symmetric(ds) (one block of D weights per class
// for a multinomial model, class-major) to the model of ds with the same scores on every row,
// in place: see Symmetric.
func SymmetricWeights(ds *Dataset, w []float64) {
	numeric := numericFeatures(ds)
	for k := 0; k+ds.D <= len(w); k += ds.D {
		block := w[k : k+ds.D]
		shift := 0.0
		for _, j := range numeric {
			shift += block[j]
			block[j] *= 2
		}
		block[ds.D-1] -= ds.Scale / ds.Bias * shift
	}
}

// numericFeatures lists, in increasing order, the features of ds that are neither one-hot
// (Categorical) nor the bias (the last, when Bias > 0).
func numericFeatures(ds *Dataset) []int {
	last := ds.D
	if ds.Bias > 0 {
		last--
	}
	var out []int
	c := 0
	for j := range last {
		for c < len(ds.Categorical) && ds.Categorical[c] < j {
			c++
		}
		if c < len(ds.Categorical) && ds.Categorical[c] == j {
			continue
		}
		out = append(out, j)
	}
	return out
}
