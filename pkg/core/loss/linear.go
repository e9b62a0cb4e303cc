package loss

import (
	"errors"
	"fmt"
	"math"

	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/geom"
)

// Linear is the linear-model loss ℓ_i(w) = s(⟨w, x_i⟩, y_i) over the rows of a dataset,
// w ∈ R^D. Its gradient is s'(⟨w, x_i⟩, y_i)·x_i. It keeps references to the dataset's rows and
// Y, which must not be modified afterwards. It holds no scratch space and is safe for
// concurrent use.
//
// Rows held sparse (data.Sparse, as Encode holds one-hot-heavy rows) it reads in place, with
// the sparse kernels (see sparse.go); rows held dense it reads in place too, and of each block of
// data.BlockRows of them of which at most a quarter of the entries are non-zero it also keeps
// the non-zero entries by row, and reads them so. Values and passes then skip the zeros, with
// other bits than the dense loops; Grad gives the dense loops' bits either way.
type Linear struct {
	s      Scalar
	x      denseRows // the rows held dense, when they are
	y      []float64
	sparse *data.Sparse // the rows read sparse: every block, or the blocks of dense rows so read (sparseOf), or nil
	n, d   int
	b      Bounds
}

// NewLinear returns the linear-model loss of s over ds with the declared bounds b. It returns
// an error (naming the row, numbered from 0) when s has invalid parameters, ds is malformed,
// an entry is not finite, a row exceeds the feature bound, or a label is not admissible for s.
func NewLinear(s Scalar, ds *data.Dataset, b Bounds) (*Linear, error) {
	if s == nil {
		return nil, fmt.Errorf("loss: linear: no scalar loss")
	}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("loss: linear: %w", err)
	}
	if err := checkData(ds, b, func(y float64) error { return s.CheckLabel(y, b.Y) }); err != nil {
		return nil, fmt.Errorf("loss: linear %T: %w", s, err)
	}
	return &Linear{s: s, x: denseOf(ds), y: ds.Y, n: ds.N, d: ds.D, b: b, sparse: sparseOf(ds)}, nil
}

// readSparse reports whether the loss reads row i, and the rows of its block, sparse. (Not
// inlined: once for a block of rowBlock rows, and inlined it adds 1 kB to the page's
// WebAssembly.)
//
//go:noinline
func (l *Linear) readSparse(i int) bool { return l.sparse != nil && l.sparse.Holds(i) }

// rowDot returns ⟨x_i, w⟩.
func (l *Linear) rowDot(i int, w []float64) float64 {
	if l.readSparse(i) {
		var z [1]float64
		sparseDotsAt(l.sparse, i, l.d, z[:], w)
		return z[0]
	}
	return l.x.dot(i, w)
}

// addRows adds c[r]·x_{lo+r} to y for every r < len(c) whose c[r] is not zero, in r order.
func (l *Linear) addRows(y, c []float64, lo int) {
	if l.readSparse(lo) {
		sparseAxpysAt(l.sparse, lo, l.d, y, c)
		return
	}
	l.x.axpys(y, c, lo)
}

// Dim returns D.
func (l *Linear) Dim() int { return l.d }

// Len returns N.
func (l *Linear) Len() int { return l.n }

// Value returns s(⟨w, x_i⟩, y_i): one unrolled dot product and one scalar evaluation.
func (l *Linear) Value(w []float64, i int) float64 {
	checkLen(w, l.d)
	return l.s.Value(l.rowDot(i, w), l.y[i])
}

// Grad writes s'(⟨w, x_i⟩, y_i)·x_i into grad (which must not overlap w) and returns ℓ_i(w),
// with the dense loops' bits: a row held sparse only is first written out into grad.
func (l *Linear) Grad(grad, w []float64, i int) float64 {
	checkLen(w, l.d)
	checkLen(grad, l.d)
	row := denseRow(l.x, l.sparse, i, l.d, grad)
	v, dz := l.s.Deriv(dot(row, w), l.y[i])
	scaleTo(grad, dz, row)
	return v
}

// Mean returns (1/N)Σ ℓ_i(w) (N as in Loss.Mean) and, if grad is not nil, writes the mean
// gradient into it: one pass over the rows by blocks of rowBlock, a dot product and (for the
// gradient) an axpy per row; more than one chunk of rows is summed on up to Workers()
// goroutines, or by the Runner set (sumChunks).
func (l *Linear) Mean(grad, w []float64) float64 {
	checkLen(w, l.d)
	if grad != nil {
		checkLen(grad, l.d)
	}
	return meanOver(l, l.n, l.b, grad, w)
}

// addRowTerms returns Σ ℓ_i(w) over the rows lo to hi − 1 and, unless grad is empty, adds their
// gradients into it.
func (l *Linear) addRowTerms(grad, w []float64, lo, hi int) float64 {
	var zb, vb, dzb [rowBlock]float64
	sum := 0.0
	for ; lo < hi; lo += rowBlock {
		z, v := zb[:min(rowBlock, hi-lo)], vb[:]
		l.predictions(z, w, lo)
		if len(grad) == 0 {
			scalarsInto(l.s, v, nil, z, l.y[lo:])
		} else {
			scalarsInto(l.s, v, dzb[:], z, l.y[lo:])
		}
		for _, vk := range v[:len(z)] {
			sum += vk
		}
		if len(grad) > 0 {
			l.addRows(grad, dzb[:len(z)], lo)
		}
	}
	return sum
}

// MeanGrad writes the mean gradient (1/N)Σ ∇ℓ_i(w) into grad, the same bits as Mean's,
// without the mean value: for a scalar loss whose derivative is cheaper alone (the logistic
// loss's value costs a logarithm its derivative does not) it skips the value.
func (l *Linear) MeanGrad(grad, w []float64) { l.MeanClippedGrad(grad, w, math.Inf(1)) }

// MeanClippedGrad writes (1/N)Σ clamp(s'(⟨w, x_i⟩, y_i), −a, a)·x_i into grad (a > 0; with
// a = +Inf, MeanGrad's bits). It is the mean gradient of the surrogate loss whose derivative in
// the prediction is s' clipped to [−a, a] (s Huberized at slope a): convex when s is (a clipped
// non-decreasing function is non-decreasing), as smooth as s, and every term has norm at most
// a·‖x_i‖, so the mean moves by at most 2a·max‖x‖/n when one example is replaced.
func (l *Linear) MeanClippedGrad(grad, w []float64, a float64) {
	checkLen(w, l.d)
	checkLen(grad, l.d)
	if !chunked(l.n) {
		clear(grad)
		l.addClippedGrads(grad, w, a, 0, l.n)
	} else {
		sumChunks(grad, &Pass{Loss: l, Op: OpClippedGrad, Clip: a, W: w})
	}
	scale(grad, 1/l.b.divisor(l.n))
}

// addClippedGrads adds clamp(s'(⟨w, x_i⟩, y_i), −a, a)·x_i into grad for the rows lo to hi − 1.
func (l *Linear) addClippedGrads(grad, w []float64, a float64, lo, hi int) {
	var zb, dzb [rowBlock]float64
	for ; lo < hi; lo += rowBlock {
		z := zb[:min(rowBlock, hi-lo)]
		l.predictions(z, w, lo)
		dz := dzb[:len(z)]
		scalarsInto(l.s, nil, dz, z, l.y[lo:])
		for k, c := range dz {
			// Comparisons, not min and max: those are runtime calls under WebAssembly (a twelfth
			// of a pass), and these give their bits for a > 0 (a NaN stays a NaN).
			if c > a {
				dz[k] = a
			} else if c < -a {
				dz[k] = -a
			}
		}
		l.addRows(grad, dz, lo)
	}
}

// SignAccuracy returns the fraction of the rows whose prediction's sign matches the label:
// ⟨w, x_i⟩ ≥ 0 and y_i > 0, or ⟨w, x_i⟩ < 0 and y_i ≤ 0 (the training accuracy of a binary
// classifier, through the row kernels).
func (l *Linear) SignAccuracy(w []float64) float64 {
	checkLen(w, l.d)
	var zb [rowBlock]float64
	right := 0
	for lo := 0; lo < l.n; lo += rowBlock {
		z := zb[:min(rowBlock, l.n-lo)]
		l.predictions(z, w, lo)
		for k, zk := range z {
			if (zk >= 0) == (l.y[lo+k] > 0) {
				right++
			}
		}
	}
	return float64(right) / float64(l.n)
}

// rowBlock is the number of rows whose losses Mean and MeanClippedGrad evaluate in one call
// (scalarsInto): in wasm a call per row costs a sixth of a sparse gradient pass.
const rowBlock = 64

// predictions writes ⟨x_{lo+k}, w⟩ into z[k] for the rows lo to lo + len(z) − 1, which lie in
// one block of rows (data.BlockRows).
func (l *Linear) predictions(z, w []float64, lo int) {
	if l.readSparse(lo) {
		sparseDotsAt(l.sparse, lo, l.d, z, w)
		return
	}
	l.x.dots(z, w, lo)
}

// Slope returns the bound S on |s'(⟨w, x⟩, y)| over dom and the declared bounds that Constants
// uses (its Lipschitz constant is S times the rows' dual-norm bound).
func (l *Linear) Slope(dom geom.Domain) float64 {
	return l.s.Slope(predictionRange(l.b.xBound(), l.b.XNorm, dom), l.b.Y)
}

// Constants returns, in ℓp on dom, from the bounds only (with the feature bound inflated by
// 2·Slack):
//   - Lipschitz G = s.Slope(Z, Y)·X_{p*}, where X_{p*} = NormBound(X, XNorm, p*, D) bounds
//     ‖x‖_{p*} (the gradient s'·x has dual norm |s'|·‖x‖_{p*}) and Z = X·sup_{w∈dom}‖w‖_{XNorm*}
//     bounds the prediction |⟨w, x⟩|. For the logistic loss on an unbounded domain this is
//     X_{p*}; the squared loss gives (Z + Y)·X_{p*}, the Huber loss min(Delta, Z + Y)·X_{p*};
//   - Smoothness β = s.Curvature()·X_{p*}² (the Hessian s”·xxᵀ has ⟨xxᵀv, v⟩ ≤ ‖x‖²_{p*}‖v‖²_p);
//   - StrongConvexity 0.
//
// It returns an error when the loss is not Lipschitz on dom (the squared loss on an
// unbounded domain or with Y = +Inf; the error wraps ErrNotLipschitz) or the feature bound is
// infinite.
func (l *Linear) Constants(dom geom.Domain, p float64) (Constants, error) {
	if err := checkDomain(dom, l.d, p); err != nil {
		return Constants{}, fmt.Errorf("loss: constants: %w", err)
	}
	xd := geom.NormBound(l.b.xBound(), l.b.XNorm, geom.Dual(p), l.d)
	return linearConstants(l.Slope(dom), l.s.Curvature(), xd, p, fmt.Sprintf("%T", l.s))
}

// ErrNotLipschitz is wrapped by the error of Constants when the loss has no Lipschitz constant
// on the domain (the squared loss on an unbounded domain or with no label bound).
var ErrNotLipschitz = errors.New("not Lipschitz on this domain")

// linearConstants assembles the constants of a loss whose gradient is (scalar slope)·(vector
// of dual norm at most xd).
func linearConstants(slope, curv, xd, p float64, name string) (Constants, error) {
	switch {
	case math.IsInf(xd, 1):
		return Constants{}, fmt.Errorf("loss: constants: the feature bound is infinite; declare a finite bound")
	case !(slope < math.Inf(1)):
		return Constants{}, fmt.Errorf("loss: constants: %s is %w (its gradient grows with the prediction and the label): declare a bounded domain and a label bound", name, ErrNotLipschitz)
	}
	beta := math.Inf(1)
	if !math.IsInf(curv, 1) {
		beta = curv * xd * xd
	}
	return Constants{Norm: p, Lipschitz: slope * xd, Smoothness: beta}, nil
}
