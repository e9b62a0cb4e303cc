package devsuite

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/privopt/privopt/internal/bench"
	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/geom"
	"github.com/privopt/privopt/pkg/core/loss"
	"github.com/privopt/privopt/pkg/core/mech"
	"github.com/privopt/privopt/pkg/solve"
)

// devsuiteBaselines returns a task's baselines on the validation rows, both fitted on the fit
// rows train without privacy: the trivial one (the majority class, or the mean label) and the
// non-private linear model on standardised features (TaskResult's Trivial and
// NonPrivate). They are the suite README's scikit-learn baselines, LogisticRegression(C = 1)
// (in mean form, ridge λ = 1/n) and LinearRegression, up to the penalised intercept of
// fitRidgeLogistic.
func devsuiteBaselines(t Task, train, valid *data.Dataset) (trivial, nonPrivate Measures, err error) {
	z := standardised(train, train, valid)
	ztr, zva := z[0], z[1]
	lambda := 1 / float64(train.N)
	switch t.Label {
	case data.LabelNumeric:
		mean, _ := bench.MeanSD(train.Y)
		constant := constantOf(mean, valid.N)
		trivial = Measures{MeasureRMSE: rmse(constant, valid.Y), MeasureR2: rSquared(constant, valid.Y, mean)}
		w, err := fitLeastSquares(ztr)
		if err != nil {
			return nil, nil, err
		}
		return trivial, measures(t, mech.LossSpec{}, nil, zva, w, mean), nil
	case data.LabelBinary:
		w, err := fitRidgeLogistic(ztr, lambda)
		if err != nil {
			return nil, nil, err
		}
		l, err := loss.NewLinear(loss.Logistic{}, zva, unbounded)
		if err != nil {
			return nil, nil, err
		}
		nonPrivate = measures(t, mech.LossSpec{Name: mech.LossLogistic}, l, zva, w, 0)
	case data.LabelClass:
		k := len(train.Label.Classes)
		w, err := fitRidgeMultinomial(ztr, k, lambda)
		if err != nil {
			return nil, nil, err
		}
		l, err := loss.NewMultinomial(zva, k, unbounded)
		if err != nil {
			return nil, nil, err
		}
		nonPrivate = measures(t, mech.LossSpec{Name: mech.LossMultinomial, Classes: k}, l, zva, w, 0)
	default:
		return nil, nil, fmt.Errorf("unknown label kind %q", t.Label)
	}
	return majority(t, train, valid), nonPrivate, nil
}

// majority returns the validation accuracy of the fit rows' most frequent label (the smallest
// label among equally frequent ones) and, when the task asks for top hits, the number a random
// order of the validation rows finds on average.
func majority(t Task, train, valid *data.Dataset) Measures {
	counts := map[float64]int{}
	for _, y := range train.Y {
		counts[y]++
	}
	best, bestCount := math.Inf(1), -1
	for y, c := range counts {
		if c > bestCount || (c == bestCount && y < best) {
			best, bestCount = y, c
		}
	}
	right, positives := 0, 0
	for _, y := range valid.Y {
		if y == best {
			right++
		}
		if y > 0 {
			positives++
		}
	}
	m := Measures{MeasureAccuracy: float64(right) / float64(valid.N)}
	if t.TopShare > 0 {
		m[MeasureTopHits] = float64(topRows(valid.N, t.TopShare)*positives) / float64(valid.N)
	}
	return m
}

// constantOf returns n copies of v.
func constantOf(v float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// standardised returns the rows of each of dss with their features centred and scaled by the
// mean and standard deviation (divisor n) of ref's, the features constant on ref (a bias
// coordinate, a category it lacks) left out, and a last feature 1, the intercept: scikit-learn's
// StandardScaler fitted on ref, with the intercept as a column. The labels are shared with dss.
func standardised(ref *data.Dataset, dss ...*data.Dataset) []*data.Dataset {
	var keep []int
	var mean, sd []float64
	sums, squares := make([]float64, ref.D), make([]float64, ref.D)
	x := make([]float64, ref.D)
	for i := range ref.N {
		x = ref.Row(i, x)
		for j, v := range x {
			sums[j] += v
		}
	}
	for j := range sums {
		sums[j] /= float64(ref.N)
	}
	for i := range ref.N {
		x = ref.Row(i, x)
		for j, v := range x {
			v -= sums[j]
			squares[j] += v * v
		}
	}
	for j, m := range sums {
		if s := math.Sqrt(squares[j] / float64(ref.N)); s > 0 {
			keep, mean, sd = append(keep, j), append(mean, m), append(sd, s)
		}
	}
	out := make([]*data.Dataset, len(dss))
	for k, ds := range dss {
		d := len(keep) + 1
		z := &data.Dataset{N: ds.N, D: d, X: make([]float64, ds.N*d), Y: ds.Y, Label: ds.Label}
		row := make([]float64, ds.D)
		for i := range ds.N {
			row = ds.Row(i, row)
			zrow := z.X[i*d : (i+1)*d]
			for c, j := range keep {
				zrow[c] = (row[j] - mean[c]) / sd[c]
			}
			zrow[d-1] = 1
		}
		out[k] = z
	}
	return out
}

// unbounded are the bounds of the baselines' losses: none (the rows are only checked to be
// finite), as for a reference fit, not a release.
var unbounded = loss.Bounds{X: math.Inf(1), XNorm: 2, Y: math.Inf(1)}

// fitLeastSquares returns the least-norm minimiser of Σᵢ (⟨w, xᵢ⟩ − yᵢ)² over ds, by the SVD
// with the singular values below 10⁻¹⁰ of the largest taken as 0 (the standardised one-hot
// columns of a categorical feature are collinear). With ds's last feature the intercept, this
// is scikit-learn's LinearRegression.
func fitLeastSquares(ds *data.Dataset) ([]float64, error) {
	var svd mat.SVD
	if !svd.Factorize(mat.NewDense(ds.N, ds.D, ds.X), mat.SVDThin) {
		return nil, fmt.Errorf("least squares: the SVD of the %d×%d features failed", ds.N, ds.D)
	}
	w := mat.NewVecDense(ds.D, nil)
	svd.SolveVecTo(w, mat.NewVecDense(ds.N, ds.Y), svd.Rank(1e-10))
	return w.RawVector().Data, nil
}

// fitRidgeLogistic returns the minimiser of (1/n)Σᵢ log(1 + exp(−yᵢ⟨w, xᵢ⟩)) + (λ/2)‖w‖²₂
// over ds (labels ±1), certified to solve.FitLogisticTarget. With λ = 1/n and ds's last
// feature the intercept, this is scikit-learn's LogisticRegression(C = 1) except that the
// intercept is penalised too, which keeps the objective strongly convex and moves the intercept
// by O(λ).
func fitRidgeLogistic(ds *data.Dataset, lambda float64) ([]float64, error) {
	res, err := solve.FitLogistic(ds, lambda)
	if err != nil {
		return nil, err
	}
	return res.X, nil
}

// fitRidgeMultinomial returns the minimiser of the mean multinomial log-loss over ds (labels
// 0..k−1; the k·d weights class after class, as loss.Multinomial holds them) plus (λ/2)‖w‖²₂,
// by the repository's L-BFGS certified to solve.FitLogisticTarget: the multinomial
// LogisticRegression(C = 1) of scikit-learn for λ = 1/n, the intercepts penalised too as in
// fitRidgeLogistic.
func fitRidgeMultinomial(ds *data.Dataset, k int, lambda float64) ([]float64, error) {
	l, err := loss.NewMultinomial(ds, k, unbounded)
	if err != nil {
		return nil, err
	}
	ridge, err := geom.NewScaledLpRegularizer(2, 1, l.Dim(), nil)
	if err != nil {
		return nil, err
	}
	obj, err := loss.NewObjective(l, 0, ridge, lambda)
	if err != nil {
		return nil, err
	}
	p := solve.Problem{Func: obj.Func, Grad: obj.Grad, FuncGrad: obj.FuncGrad}
	res, err := solve.LBFGS(p, make([]float64, l.Dim()), solve.Settings{Target: solve.FitLogisticTarget, StrongConvexity: lambda, MaxIter: 10000})
	if err != nil {
		return nil, err
	}
	return res.X, nil
}
