package loss

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/privopt/privopt/pkg/core/data"
)

// benchLinear returns the logistic loss on n random rows of dimension d = 92 (the adult-lr
// shape) with ‖x‖₂ ≤ 1.
func benchLinear(b *testing.B, n int) *Linear {
	rng := rand.New(rand.NewPCG(41, 42))
	l, err := NewLinear(Logistic{}, randData(rng, n, 92, 2, 1, signLabel(rng)), Bounds{X: 1, XNorm: 2})
	if err != nil {
		b.Fatal(err)
	}
	return l
}

// BenchmarkLinearValue measures per-example values, the query of the samplers; the metric
// Mvalues/s is the throughput the performance target (≥ 10 M/s natively, ≥ 5 M/s in wasm)
// refers to.
func BenchmarkLinearValue(b *testing.B) {
	l := benchLinear(b, 4096)
	w := randVec(rand.New(rand.NewPCG(43, 44)), 92, 0.3)
	s := 0.0
	b.ResetTimer()
	for k := 0; k < b.N; k++ {
		s += l.Value(w, k&4095)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds()/1e6, "Mvalues/s")
	sink = s
}

// BenchmarkLinearGrad measures per-example value and gradient.
func BenchmarkLinearGrad(b *testing.B) {
	l := benchLinear(b, 4096)
	w := randVec(rand.New(rand.NewPCG(43, 44)), 92, 0.3)
	g := make([]float64, 92)
	s := 0.0
	b.ResetTimer()
	for k := 0; k < b.N; k++ {
		s += l.Grad(g, w, k&4095)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds()/1e6, "Mgrads/s")
	sink = s
}

// BenchmarkMeanGrad measures one full-batch gradient of the logistic loss at the adult-lr size
// (n = 32561, d = 92), with the value (Mean) and without it (MeanGrad, what samplers and noisy
// gradient descent use), on dense rows and on one-hot rows of adult-lr's sparsity (15 % of the
// entries non-zero, held sparse), and the same one-hot rows through the dense loops.
func BenchmarkMeanGrad(b *testing.B) {
	dense := benchLinear(b, 32561)
	oneHot, err := NewLinear(Logistic{}, oneHotData(rand.New(rand.NewPCG(47, 48)), 32561, 92, 0.15), Bounds{X: 1, XNorm: 2})
	if err != nil {
		b.Fatal(err)
	}
	oneHotDense := *oneHot
	oneHotDense.sparse = nil
	w := randVec(rand.New(rand.NewPCG(45, 46)), 92, 0.3)
	g := make([]float64, 92)
	type run struct {
		name string
		run  func()
	}
	var runs []run
	for _, data := range []struct {
		name string
		l    *Linear
	}{{"dense", dense}, {"one-hot", oneHot}, {"one-hot-as-dense", &oneHotDense}} {
		l := data.l
		runs = append(runs, run{data.name + "/with-value", func() { l.Mean(g, w) }}, run{data.name + "/gradient-only", func() { l.MeanGrad(g, w) }})
	}
	for _, tc := range runs {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				tc.run()
			}
			b.ReportMetric(float64(b.N)*32561/b.Elapsed().Seconds()/1e6, "Mgrads/s")
		})
	}
}

// BenchmarkQueryWidth measures what a per-example query costs against the entries it reads,
// in ns/query over full passes at n = 4096: value passes (Mean without a gradient), gradient
// passes (MeanGrad) and value-and-gradient passes (Mean), on dense rows at d = 16 and 92 and on
// one-hot rows at d = 92 with 12 non-zero entries each on average (adult-lr's shape), held sparse. The
// reference rates of pkg/sampler (a query's fixed part and a non-zero's cost against a dense
// entry) come from it.
func BenchmarkQueryWidth(b *testing.B) {
	rng := rand.New(rand.NewPCG(49, 50))
	cases := []struct {
		name string
		ds   *data.Dataset
	}{
		{"dense-16", randData(rng, 4096, 16, 2, 1, signLabel(rng))},
		{"dense-92", randData(rng, 4096, 92, 2, 1, signLabel(rng))},
		{"one-hot-92", oneHotData(rng, 4096, 92, 12.0/92)},
	}
	for _, c := range cases {
		l, err := NewLinear(Logistic{}, c.ds, Bounds{X: 1, XNorm: 2})
		if err != nil {
			b.Fatal(err)
		}
		w, g := randVec(rng, c.ds.D, 0.3), make([]float64, c.ds.D)
		for _, pass := range []struct {
			name string
			run  func()
		}{
			{"value", func() { sink = l.Mean(nil, w) }},
			{"gradient", func() { l.MeanGrad(g, w) }},
			{"value-and-gradient", func() { sink = l.Mean(g, w) }},
		} {
			b.Run(c.name+"/"+pass.name, func(b *testing.B) {
				for b.Loop() {
					pass.run()
				}
				b.ReportMetric(b.Elapsed().Seconds()/float64(b.N)/float64(c.ds.N)*1e9, "ns/query")
			})
		}
	}
}

// BenchmarkObjectiveFuncGrad measures one full-batch value and gradient of the ridge-
// regularized logistic objective at the adult-lr size (n = 32561, d = 92).
func BenchmarkObjectiveFuncGrad(b *testing.B) {
	l := benchLinear(b, 32561)
	o, err := NewObjective(l, 0, nil, 0)
	if err != nil {
		b.Fatal(err)
	}
	w := randVec(rand.New(rand.NewPCG(43, 44)), 92, 0.3)
	g := make([]float64, 92)
	b.ReportAllocs()
	b.ResetTimer()
	for k := 0; k < b.N; k++ {
		sink = o.FuncGrad(g, w)
	}
}

var sink float64

// BenchmarkSparseKernels measures the kernels of one gradient pass over one-hot rows of
// adult-lr's shape (n = 32561, d = 92, 15 % non-zero): the dot products and the axpys by
// blocks of rowBlock rows, as run (kernel; under WebAssembly the assembly of kernels_wasm.s)
// and as the Go loops of kernels.go (go; the code Go's compiler emits). Natively both are the
// same; under WebAssembly their ratio is what the assembly gains.
func BenchmarkSparseKernels(b *testing.B) {
	l, err := NewLinear(Logistic{}, oneHotData(rand.New(rand.NewPCG(47, 48)), 32561, 92, 0.15), Bounds{X: 1, XNorm: 2})
	if err != nil {
		b.Fatal(err)
	}
	s := l.sparse
	w := randVec(rand.New(rand.NewPCG(43, 44)), 92, 0.3)
	g := make([]float64, 92)
	for _, k := range []struct {
		name  string
		dots  func(z []float64, start []int, col []int32, val, w []float64, hotCol []int32, hot []float64, hots int)
		axpys func(y, c []float64, start []int, col []int32, val []float64, hotCol []int32, hot []float64, hots int)
	}{{"kernel", sparseDots, sparseAxpys}, {"go", sparseDotsGo, sparseAxpysGo}} {
		b.Run(k.name, func(b *testing.B) {
			var z [rowBlock]float64
			for b.Loop() {
				for lo := 0; lo < l.n; lo += rowBlock {
					m := min(rowBlock, l.n-lo)
					b := sparseBlock(s, lo, m, 92, w)
					k.dots(z[:m], b.start, b.col, b.val, w, b.hotCol, b.hot, b.hots)
					for r := range z[:m] {
						z[r] *= 1e-3
					}
					k.axpys(g, z[:m], b.start, b.col, b.val, b.hotCol, b.hot, b.hots)
				}
			}
		})
	}
}

// BenchmarkWorkers measures one gradient pass (MeanGrad) over 1,000,000 rows with 1, 2 and 4
// workers (SetWorkers): dense rows of 20 entries, and one-hot rows of adult-lr's shape (d =
// 92, 15 % non-zero, held sparse). The ratio of the 1-worker and 2-worker times is what a
// second core gains; the bits are the same (TestPassesIgnoreWorkers).
func BenchmarkWorkers(b *testing.B) {
	defer SetWorkers(SetWorkers(0))
	const n = 1_000_000
	rng := rand.New(rand.NewPCG(51, 52))
	dense, err := NewLinear(Logistic{}, randData(rng, n, 20, 2, 1, signLabel(rng)), Bounds{X: 1, XNorm: 2})
	if err != nil {
		b.Fatal(err)
	}
	oneHot, err := NewLinear(Logistic{}, oneHotData(rng, n, 92, 0.15), Bounds{X: 1, XNorm: 2})
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		l    *Linear
	}{{"dense-20", dense}, {"one-hot-92", oneHot}} {
		w, g := randVec(rng, tc.l.Dim(), 0.3), make([]float64, tc.l.Dim())
		for _, workers := range []int{1, 2, 4} {
			b.Run(fmt.Sprintf("%s/workers=%d", tc.name, workers), func(b *testing.B) {
				SetWorkers(workers)
				for b.Loop() {
					tc.l.MeanGrad(g, w)
				}
				b.ReportMetric(float64(b.N)*n/b.Elapsed().Seconds()/1e6, "Mgrads/s")
			})
		}
	}
}

// encodedScaleRows returns n rows of the scale benchmark's shape encoded by data.Encode: 10
// numeric columns in [0, 1] and 10 categorical columns of 8 levels, and a binary label (D = 91
// with the bias), which Encode holds sparse, 10 of a row's 21 entries one-hot.
func encodedScaleRows(b *testing.B, n int) *data.Dataset {
	var schema, text strings.Builder
	schema.WriteString(`{"privopt_schema": 1, "norm": {"p": 2, "radius": 1, "bias": 0.7071067811865476, "fit": "scale"}, "columns": [`)
	for j := range 10 {
		fmt.Fprintf(&schema, `{"name": "x%d", "kind": "numeric", "min": 0, "max": 1},`, j)
		fmt.Fprintf(&schema, `{"name": "c%d", "kind": "categorical", "categories": ["a","b","c","d","e","f","g","h"]},`, j)
		fmt.Fprintf(&text, "x%d,c%d,", j, j)
	}
	schema.WriteString(`{"name": "y", "kind": "binary-label", "positive": ["1"], "negative": ["0"]}]}`)
	text.WriteString("y\n")
	rng := rand.New(rand.NewPCG(71, 72))
	for range n {
		for range 10 {
			fmt.Fprintf(&text, "%.3f,%c,", rng.Float64(), 'a'+rng.IntN(8))
		}
		fmt.Fprintf(&text, "%d\n", rng.IntN(2))
	}
	s, err := data.LoadSchema(strings.NewReader(schema.String()))
	if err != nil {
		b.Fatal(err)
	}
	ds, _, err := data.Encode(strings.NewReader(text.String()), s)
	if err != nil || ds.Sparse == nil {
		b.Fatalf("%v (held sparse: %v)", err, err == nil && ds.Sparse != nil)
	}
	return ds
}

// BenchmarkEncodedPass measures a gradient pass (MeanGrad), a pass of values (Mean) and one of
// the mapped rows' squares (Squares, as noisy-gd maps the numeric features) on one worker over
// 200,000 rows that Encode holds sparse (encodedScaleRows).
func BenchmarkEncodedPass(b *testing.B) {
	defer SetWorkers(SetWorkers(1))
	ds := encodedScaleRows(b, 200_000)
	l, err := NewLinear(Logistic{}, ds, Bounds{X: 1, XNorm: 2})
	if err != nil {
		b.Fatal(err)
	}
	w := randVec(rand.New(rand.NewPCG(73, 74)), ds.D, 0.3)
	g := make([]float64, ds.D)
	b.Run("grad", func(b *testing.B) {
		for b.Loop() {
			l.MeanGrad(g, w)
		}
	})
	b.Run("value", func(b *testing.B) {
		for b.Loop() {
			sink = l.Mean(nil, w)
		}
	})
	a, c := make([]float64, ds.D), make([]float64, ds.D)
	for j := range a {
		a[j] = 1
	}
	for k := range 10 { // the numeric features: each column's, then its category's 8
		a[9*k], c[9*k] = 2, 0.1
	}
	b.Run("squares", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := Squares(l, a, c, 2); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkEncodedCheck times building a loss over the rows of BenchmarkEncodedPass: the check
// of every row (structure, norm, bias, label), which a run makes once before its passes.
func BenchmarkEncodedCheck(b *testing.B) {
	ds := encodedScaleRows(b, 200_000)
	for b.Loop() {
		if _, err := NewLinear(Logistic{}, ds, Bounds{X: 1, XNorm: 2}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDensePass measures a gradient pass (MeanGrad) on one worker over 200,000 rows of 20
// numeric columns in [0, 1] and a bias, which Encode holds dense: their values as float64, and
// as float32 (data.Options.Float32), which the kernels read widened.
func BenchmarkDensePass(b *testing.B) {
	defer SetWorkers(SetWorkers(1))
	var schema, text strings.Builder
	schema.WriteString(`{"privopt_schema": 1, "norm": {"p": 2, "radius": 1, "bias": 0.7071067811865476, "fit": "scale"}, "columns": [`)
	for j := range 20 {
		fmt.Fprintf(&schema, `{"name": "x%d", "kind": "numeric", "min": 0, "max": 1},`, j)
		fmt.Fprintf(&text, "x%d,", j)
	}
	schema.WriteString(`{"name": "y", "kind": "binary-label", "positive": ["1"], "negative": ["0"]}]}`)
	text.WriteString("y\n")
	rng := rand.New(rand.NewPCG(75, 76))
	for range 200_000 {
		for range 20 {
			fmt.Fprintf(&text, "%.4f,", rng.Float64())
		}
		fmt.Fprintf(&text, "%d\n", rng.IntN(2))
	}
	s, err := data.LoadSchema(strings.NewReader(schema.String()))
	if err != nil {
		b.Fatal(err)
	}
	for _, f32 := range []bool{false, true} {
		ds, _, err := data.EncodeWith(strings.NewReader(text.String()), s, data.Options{Float32: f32})
		if err != nil || !ds.Sparse.Dense {
			b.Fatalf("%v (held dense: %v)", err, err == nil && ds.Sparse.Dense)
		}
		l, err := NewLinear(Logistic{}, ds, Bounds{X: 1, XNorm: 2})
		if err != nil {
			b.Fatal(err)
		}
		w := randVec(rand.New(rand.NewPCG(77, 78)), ds.D, 0.3)
		g := make([]float64, ds.D)
		b.Run(map[bool]string{false: "float64", true: "float32"}[f32], func(b *testing.B) {
			for b.Loop() {
				l.MeanGrad(g, w)
			}
		})
	}
}
