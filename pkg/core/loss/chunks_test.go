package loss

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/privopt/privopt/pkg/core/data"
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

// remoteRunner is a Runner that computes the passes of local with remote, the same loss built
// over a copy of local's rows (as another worker holding them would), its chunks split into
// parts ranges that are computed concurrently, started in reverse order.
type remoteRunner struct {
	local, remote Loss
	parts, used   int
}

func (r *remoteRunner) Sums(p *Pass, scalars, vectors []float64) bool {
	if !Same(p.Loss, r.local) {
		return false
	}
	r.used++
	q := *p
	q.Loss = r.remote
	n, w := p.Chunks(), p.Width()
	var wg sync.WaitGroup
	for k := r.parts - 1; k >= 0; k-- {
		first, last := k*n/r.parts, (k+1)*n/r.parts
		wg.Go(func() { q.Sums(first, last, scalars[first:last], vectors[first*w:last*w]) })
	}
	wg.Wait()
	return true
}

// copyRows returns a dataset with a copy of ds's dense rows and labels.
func copyRows(ds *data.Dataset) *data.Dataset {
	c := *ds
	c.X, c.Y = slices.Clone(ds.X), slices.Clone(ds.Y)
	return &c
}

// chunkRef returns the pass's sums added in chunk order, each chunk's computed by a loss over
// that chunk's rows alone (built by build over a dataset of them, with Bounds.Rows 2⁴⁰ so that
// its Mean is the chunk's sum times 2⁻⁴⁰, exactly), as (value, vector): an independent account
// of the order that the passes promise.
func chunkRef(ds *data.Dataset, pass func(l Loss, g []float64) float64, build func(*data.Dataset) Loss, dim int) (float64, []float64) {
	sum, vec, part := 0.0, make([]float64, dim), make([]float64, dim)
	for lo := 0; lo < ds.N; lo += chunkRows {
		hi := min(lo+chunkRows, ds.N)
		c := *ds
		c.N, c.X, c.Y = hi-lo, ds.X[lo*ds.D:hi*ds.D], ds.Y[lo:hi]
		sum += pass(build(&c), part) * (1 << 40)
		for j, v := range part {
			vec[j] += v * (1 << 40)
		}
	}
	return sum, vec
}

// TestPassesFarmedOut checks that a pass whose chunks a Runner computes elsewhere, over a copy
// of the rows and in any number of parts, has the bits of the pass computed here, and that
// both are the chunks' sums added in chunk order (which catches a pass or a Runner that puts
// the chunks in another order); that the Runner is asked only for passes of its own loss (Same);
// and that a Runner that declines leaves the pass to compute here.
func TestPassesFarmedOut(t *testing.T) {
	defer SetRunner(nil)
	rng := rand.New(rand.NewPCG(63, 64))
	n := 5*chunkRows + 77
	b := Bounds{X: 1, XNorm: 2, Y: 1, Rows: n + 5}
	huge := Bounds{X: 1, XNorm: 2, Y: 1, Rows: 1 << 40} // its means are the sums times 2⁻⁴⁰, exactly
	type lossCase struct {
		name  string
		ds    *data.Dataset
		build func(ds *data.Dataset, b Bounds) Loss
	}
	linear := func(s Scalar) func(*data.Dataset, Bounds) Loss {
		return func(ds *data.Dataset, b Bounds) Loss { return mustLinear(t, s, ds, b) }
	}
	multinomial := func(ds *data.Dataset, b Bounds) Loss {
		m, err := NewMultinomial(ds, 3, b)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	for _, lc := range []lossCase{
		{"dense", randData(rng, n, 9, 2, 1, signLabel(rng)), linear(Logistic{})},
		{"one-hot", oneHotData(rng, n, 40, 0.1), linear(Huber{Delta: 0.5})},
		{"multinomial", randData(rng, n, 5, 2, 1, func() float64 { return float64(rng.IntN(3)) }), multinomial},
	} {
		local := lc.build(lc.ds, b)
		if !Same(local, lc.build(lc.ds, b)) || Same(local, lc.build(copyRows(lc.ds), b)) || Same(local, lc.build(lc.ds, huge)) {
			t.Fatalf("%s: Same is not true exactly for a loss built alike over the same rows", lc.name)
		}
		w := randVec(rng, local.Dim(), 0.5)
		passes := map[string]func(l Loss, g []float64) float64{
			"Mean":  func(l Loss, g []float64) float64 { return l.Mean(g, w) },
			"value": func(l Loss, g []float64) float64 { clear(g); return l.Mean(nil, w) },
		}
		if _, ok := local.(*Linear); ok {
			passes["MeanGrad"] = func(l Loss, g []float64) float64 { l.(*Linear).MeanGrad(g, w); return 0 }
			passes["MeanClippedGrad"] = func(l Loss, g []float64) float64 { l.(*Linear).MeanClippedGrad(g, w, 0.3); return 0 }
		}
		for name, pass := range passes {
			wantSum, wantVec := chunkRef(lc.ds, pass, func(ds *data.Dataset) Loss { return lc.build(ds, huge) }, local.Dim())
			div := float64(b.Rows)
			want := func(what string, v float64, g []float64) {
				t.Helper()
				if math.Float64bits(v) != math.Float64bits(wantSum/div) {
					t.Fatalf("%s/%s %s: value %v, the chunks' in order %v", lc.name, name, what, v, wantSum/div)
				}
				for j := range g {
					if math.Float64bits(g[j]) != math.Float64bits(wantVec[j]*(1/div)) {
						t.Fatalf("%s/%s %s: vector[%d] = %v, the chunks' in order %v", lc.name, name, what, j, g[j], wantVec[j]*(1/div))
					}
				}
			}
			g := make([]float64, local.Dim())
			SetRunner(nil)
			want("here", pass(local, g), g)
			for _, parts := range []int{1, 2, 3, 6} {
				r := &remoteRunner{local: local, remote: lc.build(copyRows(lc.ds), b), parts: parts}
				SetRunner(r)
				want("farmed out", pass(local, g), g)
				if r.used != 1 {
					t.Fatalf("%s/%s: the runner computed %d passes, not 1", lc.name, name, r.used)
				}
				other := lc.build(lc.ds, huge)
				pass(other, g)
				if r.used != 1 {
					t.Fatalf("%s/%s: the runner was asked for a pass of another loss", lc.name, name)
				}
			}
		}
	}
	l := mustLinear(t, Logistic{}, randData(rng, n, 3, 2, 1, signLabel(rng)), b)
	w := []float64{0.1, 0.2, 0.3}
	SetRunner(nil)
	v := l.Mean(nil, w)
	SetRunner(declining{})
	if d := l.Mean(nil, w); math.Float64bits(d) != math.Float64bits(v) {
		t.Fatalf("with a declining runner, Mean = %v, without %v", d, v)
	}
}

// declining is a Runner that computes no pass.
type declining struct{}

func (declining) Sums(*Pass, []float64, []float64) bool { return false }

// TestSquares checks the pass of the mapped rows' squares (OpSquares) on rows that make several
// chunks — dense, one-hot (held sparse), multinomial and robust — against an independent
// account: each chunk's mapped squares summed in row order, the chunks added in chunk order, bit
// for bit, and the rows whose mapped norm exceeds the bound counted one by one; the same bits
// with 1 and 4 workers and farmed out in 3 parts; and a map of the wrong length refused.
func TestSquares(t *testing.T) {
	defer SetWorkers(SetWorkers(0))
	defer SetRunner(nil)
	rng := rand.New(rand.NewPCG(65, 66))
	n := 3*chunkRows + 123
	b := Bounds{X: 1, XNorm: 2, Y: 1}
	for _, tc := range []struct {
		name  string
		ds    *data.Dataset
		build func(*data.Dataset) Loss
	}{
		{"dense", randData(rng, n, 7, 2, 1, signLabel(rng)), func(ds *data.Dataset) Loss { return mustLinear(t, Logistic{}, ds, b) }},
		{"one-hot", oneHotData(rng, n, 40, 0.1), func(ds *data.Dataset) Loss { return mustLinear(t, Squared{}, ds, b) }},
		{"multinomial", randData(rng, n, 5, 2, 1, func() float64 { return float64(rng.IntN(3)) }), func(ds *data.Dataset) Loss {
			m, err := NewMultinomial(ds, 3, b)
			if err != nil {
				t.Fatal(err)
			}
			return m
		}},
		{"robust", randData(rng, n, 6, 2, 1, signLabel(rng)), func(ds *data.Dataset) Loss {
			r, err := NewRobust(Hinge{}, 0.1, 2, ds, b)
			if err != nil {
				t.Fatal(err)
			}
			return r
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, d := tc.build(tc.ds), tc.ds.D
			a, c := make([]float64, d), make([]float64, d)
			for j := range d {
				a[j] = float64(1 + j%2)
				c[j] = float64(j%2) * 0.3
			}
			want, part := make([]float64, d), make([]float64, d)
			norms := make([]float64, n)
			x := make([]float64, d)
			for lo := 0; lo < n; lo += chunkRows {
				clear(part)
				for i := lo; i < min(lo+chunkRows, n); i++ {
					for j, v := range tc.ds.Row(i, x) {
						m := a[j]*v - c[j]
						part[j] += m * m
						norms[i] += m * m
					}
					norms[i] = math.Sqrt(norms[i])
				}
				for j, v := range part {
					want[j] += v
				}
			}
			bound := slices.Sorted(slices.Values(norms))[n/2] * (1 + 1e-9) // the median, and rows tied with it
			wantOver := 0
			for _, v := range norms {
				if v > bound {
					wantOver++
				}
			}
			if wantOver == 0 || wantOver == n {
				t.Fatalf("%d of %d rows over the bound: the test needs some on each side", wantOver, n)
			}
			check := func(what string) {
				t.Helper()
				sums, over, err := Squares(l, a, c, bound)
				if err != nil {
					t.Fatal(err)
				}
				if over != wantOver {
					t.Errorf("%s: %d rows over the bound, want %d", what, over, wantOver)
				}
				for j := range want {
					if math.Float64bits(sums[j]) != math.Float64bits(want[j]) {
						t.Fatalf("%s: sum %d = %v, the chunks' in order %v", what, j, sums[j], want[j])
					}
				}
			}
			for _, workers := range []int{1, 4} {
				SetWorkers(workers)
				check(fmt.Sprintf("%d workers", workers))
			}
			if _, farmable := l.(rowSummer); farmable {
				r := &remoteRunner{local: l, remote: tc.build(copyRows(tc.ds)), parts: 3}
				SetRunner(r)
				check("farmed out")
				SetRunner(nil)
				if r.used != 1 {
					t.Errorf("the runner computed %d passes, not 1", r.used)
				}
			}
			if _, _, err := Squares(l, a[:d-1], c[:d-1], bound); err == nil {
				t.Error("a map of D − 1 features accepted")
			}
			if err := (&Pass{Loss: l, Op: OpSquares, W: a}).Check(0, 1); err == nil {
				t.Error("a pass of OpSquares with W D long accepted")
			}
		})
	}
}
