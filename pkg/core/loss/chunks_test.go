package loss

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestPassesIgnoreWorkers checks that the full passes give the same bits with 1, 2, 3 and 4
// workers on rows that make several chunks (the last one partial) — dense, one-hot (held
// sparse) and multinomial — and that they are the means of the per-example terms up to
// rounding. A pass that summed each worker's chunks first, or added the chunks as they finish,
// would change bits with the number of workers.
func TestPassesIgnoreWorkers(t *testing.T) {
	defer SetWorkers(SetWorkers(0))
	rng := rand.New(rand.NewPCG(61, 62))
	n := 3*chunkRows + 123
	dense := mustLinear(t, Logistic{}, randData(rng, n, 7, 2, 1, signLabel(rng)), Bounds{X: 1, XNorm: 2})
	oneHot, err := NewLinear(Squared{}, oneHotData(rng, n, 40, 0.1), Bounds{X: 1, XNorm: 2, Y: 1})
	if err != nil {
		t.Fatal(err)
	}
	if oneHot.sparse == nil {
		t.Fatal("the one-hot rows are not held sparse")
	}
	multi, err := NewMultinomial(randData(rng, n, 5, 2, 1, func() float64 { return float64(rng.IntN(3)) }), 3, Bounds{X: 1, XNorm: 2})
	if err != nil {
		t.Fatal(err)
	}
	gradOnly := func(pass func(g, w []float64)) func(g, w []float64) float64 {
		return func(g, w []float64) float64 { pass(g, w); return math.NaN() }
	}
	for _, tc := range []struct {
		name string
		l    Loss
		pass func(g, w []float64) float64 // NaN when it computes no value
	}{
		{"dense/Mean", dense, dense.Mean},
		{"dense/MeanGrad", dense, gradOnly(dense.MeanGrad)},
		{"dense/value", dense, func(g, w []float64) float64 { return dense.Mean(nil, w) }},
		{"one-hot/Mean", oneHot, oneHot.Mean},
		{"one-hot/MeanGrad", oneHot, gradOnly(oneHot.MeanGrad)},
		{"multinomial/Mean", multi, multi.Mean},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := randVec(rng, tc.l.Dim(), 0.5)
			wantGrad := make([]float64, tc.l.Dim())
			wantValue := perExampleMean(tc.l, wantGrad, w)
			if tc.name == "dense/value" {
				clear(wantGrad) // the pass computes no gradient
			}
			SetWorkers(1)
			first := make([]float64, tc.l.Dim())
			firstValue := tc.pass(first, w)
			for j, g := range first {
				if !closeTo(g, wantGrad[j], 1e-12) {
					t.Fatalf("gradient[%d] = %v, the per-example mean is %v", j, g, wantGrad[j])
				}
			}
			if !math.IsNaN(firstValue) && !closeTo(firstValue, wantValue, 1e-12) {
				t.Fatalf("value %v, the per-example mean is %v", firstValue, wantValue)
			}
			for _, workers := range []int{2, 3, 4} {
				SetWorkers(workers)
				g := make([]float64, tc.l.Dim())
				v := tc.pass(g, w)
				if math.Float64bits(v) != math.Float64bits(firstValue) {
					t.Errorf("%d workers: value %v, with one %v", workers, v, firstValue)
				}
				for j := range g {
					if math.Float64bits(g[j]) != math.Float64bits(first[j]) {
						t.Fatalf("%d workers: gradient[%d] = %v, with one %v", workers, j, g[j], first[j])
					}
				}
			}
		})
	}
}

// perExampleMean returns the mean of l's per-example values and writes the mean of its
// per-example gradients into grad, summed in row order.
func perExampleMean(l Loss, grad, w []float64) float64 {
	one := make([]float64, len(grad))
	sum := 0.0
	for i := range l.Len() {
		sum += l.Grad(one, w, i)
		for j, v := range one {
			grad[j] += v
		}
	}
	for j := range grad {
		grad[j] /= float64(l.Len())
	}
	return sum / float64(l.Len())
}
