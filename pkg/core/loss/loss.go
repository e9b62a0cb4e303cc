// Package loss holds the convex losses privopt fits, with per-example and full-batch values
// and gradients, and their constants (Lipschitz, smoothness, strong convexity) computed from
// declared public bounds only.
//
// Most losses are linear-model losses ℓ(⟨w, x⟩, y): a Scalar function of the prediction with
// its derivative, turned into a Loss over a data.Dataset by Linear. Multinomial (softmax
// regression on a K×d weight matrix) and Robust (adversarially robust linear classification)
// are the other Loss implementations; Objective adds tilting (tilted ERM) and a regularizer.
//
// The per-example methods (Value, Grad) are what the samplers query; they and the full-batch
// Mean do not allocate. Constants never read the data: they follow from Bounds (the declared
// bound on ‖x‖ and |y|) and the domain, and the constructors reject a dataset that violates
// the declared bounds, so the constants hold for every row.
package loss

import (
	"errors"
	"fmt"
	"math"

	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/geom"
)

// Loss is a family of convex per-example losses ℓ_i(w), i = 0..Len()−1, of a parameter
// w ∈ R^Dim(). Methods panic if len(w) or len(grad) is not Dim() or i is out of range
// (programming errors). Each implementation states whether it is safe for concurrent use.
type Loss interface {
	// Dim returns the dimension of the parameter w.
	Dim() int
	// Len returns the number of examples.
	Len() int
	// Value returns ℓ_i(w).
	Value(w []float64, i int) float64
	// Grad writes a gradient (a subgradient where ℓ_i is not differentiable) of ℓ_i at w into
	// grad and returns ℓ_i(w).
	Grad(grad, w []float64, i int) float64
	// Mean returns (1/N)Σ_i ℓ_i(w) and, if grad is not nil, writes (1/N)Σ_i ∇ℓ_i(w) into it,
	// where N is the declared public number of rows (Bounds.Rows) when there is one and the
	// number of examples otherwise.
	Mean(grad, w []float64) float64
	// Constants returns the constants of every ℓ_i on the domain in the norm of exponent p
	// (a Schatten exponent for matrix models), computed from the declared bounds and the
	// domain only.
	Constants(dom geom.Domain, p float64) (Constants, error)
}

// MeanGrad writes the mean gradient (1/N)Σ_i ∇ℓ_i(w) of l into grad (N as in Loss.Mean): the same bits as
// l.Mean(grad, w), computed without the mean value when l can (Linear does).
func MeanGrad(l Loss, grad, w []float64) {
	if g, ok := l.(interface{ MeanGrad(grad, w []float64) }); ok {
		g.MeanGrad(grad, w)
		return
	}
	l.Mean(grad, w)
}

// Constants are the constants of a convex function f on a domain C in the norm ‖·‖ of
// exponent Norm, with dual norm ‖·‖_*.
type Constants struct {
	// Norm is the exponent p of the norm the constants are stated in (ℓp, or Schatten-p for
	// a matrix model).
	Norm float64
	// Lipschitz G: |f(w) − f(w')| ≤ G‖w − w'‖ for w, w' ∈ C (equivalently every subgradient
	// on C has ‖g‖_* ≤ G).
	Lipschitz float64
	// Smoothness β: ‖∇f(w) − ∇f(w')‖_* ≤ β‖w − w'‖, or +Inf when f is not smooth.
	Smoothness float64
	// StrongConvexity μ: f(w') ≥ f(w) + ⟨g, w' − w⟩ + (μ/2)‖w' − w‖² (0 for the plain losses,
	// whose Hessians are rank-deficient).
	StrongConvexity float64
}

// Slack is the relative slack on a declared feature bound. A row is accepted when its
// computed norm is at most X·(1 + Slack), and every constant is computed with
// X·(1 + 2·Slack), which also covers the rounding error of the computed norm (below
// len(x)·2⁻⁵³ ≤ Slack for rows of up to 10⁶ entries). It absorbs the rounding of a data
// encoder that scales rows to norm exactly X, at a relative cost of 2·10⁻⁹ in the constants.
const Slack = 0x1p-30

// Bounds are the declared public bounds on the data: every row x satisfies ‖x‖_{XNorm} ≤ X
// and every label |y| ≤ Y. They, never the data, determine the constants.
type Bounds struct {
	// X bounds the feature norm. +Inf declares no bound: the loss can still be evaluated
	// (e.g. for a non-private reference fit) but Constants returns an error.
	X float64
	// XNorm is the exponent p ∈ [1, ∞] of the norm in which X is declared.
	XNorm float64
	// Y bounds |y| for regression losses (+Inf for none); classification losses ignore it.
	Y float64
	// Bias, when positive, declares that every row's last coordinate is exactly Bias (the
	// schema's bias coordinate, data.Dataset.Bias); the losses check it on every row. 0 declares
	// nothing.
	Bias float64 `json:",omitempty"`
	// Rows, when positive, declares a public number of rows N (the size the add/remove
	// neighbouring relation fixes in advance): the data may have at most N rows, and every
	// mean is the sum over the rows divided by N, never by the observed number of rows, so
	// that adding or removing a row changes one term of a sum with a fixed divisor. 0 declares
	// nothing: means divide by the number of rows.
	Rows int `json:",omitempty"`
}

// divisor returns what a mean over n rows divides by: Rows when declared, n otherwise.
func (b Bounds) divisor(n int) float64 {
	if b.Rows > 0 {
		return float64(b.Rows)
	}
	return float64(n)
}

// BiasScaledShare returns an upper bound on ‖(x_1, …, x_{D−1}, x_D/t)‖₂ / X̄ over the rows the
// bounds admit, for t ≥ 1 and an ℓ2 bound (XNorm = 2), where X̄ = X·(1 + 2·Slack) is the row
// bound of Constants: with x_D = Bias on every row, ‖x‖₂² − Bias² + Bias²/t² ≤ X̄² −
// Bias²(1 − 1/t²), so the share is √(1 − (Bias/X̄)²(1 − 1/t²)), rounded up. It is 1 (no
// saving) for Bias = 0, t = 1 or another norm.
func (b Bounds) BiasScaledShare(t float64) float64 {
	if !(b.Bias > 0) || !(t > 1) || b.XNorm != 2 {
		return 1
	}
	r := b.Bias / b.xBound() * (1 - 0x1p-50) // rounded down, so r² is too
	share := math.Sqrt(1-r*r*(1-1/(t*t))*(1-0x1p-50)) * (1 + 0x1p-50)
	return math.Min(share, 1)
}

// xBound returns the feature bound used in constants: X·(1 + 2·Slack).
func (b Bounds) xBound() float64 { return b.X * (1 + 2*Slack) }

// check validates the bounds themselves.
func (b Bounds) check() error {
	switch {
	case !(b.X >= 0):
		return fmt.Errorf("feature bound %v is not a non-negative number", b.X)
	case !(b.XNorm >= 1):
		return fmt.Errorf("feature norm exponent %v not in [1, ∞]", b.XNorm)
	case !(b.Y >= 0):
		return fmt.Errorf("label bound %v is not a non-negative number", b.Y)
	case !(b.Bias >= 0) || b.Bias > b.X:
		return fmt.Errorf("bias %v is not in [0, %v] (the feature bound)", b.Bias, b.X)
	case b.Rows < 0:
		return fmt.Errorf("declared number of rows %d is negative", b.Rows)
	}
	return nil
}

// checkData validates the shape of ds, that every entry is finite, that every row held (all
// but the blocks a part of the rows leaves out, data.Part) satisfies
// the feature bound, and that its label passes label.
func checkData(ds *data.Dataset, b Bounds, label func(y float64) error) error {
	if ds == nil {
		return errors.New("no dataset")
	}
	if err := b.check(); err != nil {
		return err
	}
	switch {
	case ds.N < 0 || ds.D < 1:
		return fmt.Errorf("dataset of %d rows and %d features", ds.N, ds.D)
	case ds.Sparse != nil && ds.X != nil:
		return errors.New("dataset holds its rows both dense and sparse")
	case ds.Sparse == nil && len(ds.X) != ds.N*ds.D:
		return fmt.Errorf("dataset has %d feature values, want N·D = %d", len(ds.X), ds.N*ds.D)
	case len(ds.Y) != ds.N:
		return fmt.Errorf("dataset has %d labels, want N = %d", len(ds.Y), ds.N)
	case b.Rows > 0 && ds.N > b.Rows:
		return fmt.Errorf("the data has %d rows, more than the declared public number of rows N = %d (rows are never dropped: declare a larger N)", ds.N, b.Rows)
	}
	if ds.Sparse != nil {
		if err := ds.Sparse.Check(ds.N, ds.D); err != nil {
			return err
		}
	}
	limit := b.X * (1 + Slack)
	var col []int32
	var row []float64
	for i := 0; i < ds.N; i++ {
		if !ds.Holds(i) {
			continue // a block that a part of the rows leaves out (data.Part)
		}
		// A row's stored entries: the norm of a sparse row's is the dense row's, bit for bit.
		col, row = ds.Entries(i, col, row)
		n := geom.Norm(row, b.XNorm)
		if math.IsNaN(n) || math.IsInf(n, 0) { // a non-finite entry, or finite ones whose norm overflows
			for k, v := range row {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					j := k
					if col != nil {
						j = int(col[k])
					}
					return fmt.Errorf("row %d, feature %d: value %v is not finite", i, j, v)
				}
			}
		}
		if last := lastEntry(col, row, ds.D); b.Bias > 0 && last != b.Bias {
			return fmt.Errorf("row %d: the last coordinate is %v, not the declared bias %v", i, last, b.Bias)
		}
		if n > limit {
			return fmt.Errorf("row %d: ‖x‖_%v = %v exceeds the declared bound %v", i, b.XNorm, n, b.X)
		}
		if err := label(ds.Y[i]); err != nil {
			return fmt.Errorf("row %d: %w", i, err)
		}
	}
	return nil
}

// lastEntry returns the last coordinate (of d) of a row whose stored entries are val, in the
// columns col (nil for a dense row).
func lastEntry(col []int32, val []float64, d int) float64 {
	if k := len(val) - 1; k >= 0 && (col == nil || int(col[k]) == d-1) {
		return val[k]
	}
	return 0
}

// denseRows reads a dataset's rows held dense, in place: the rows of X (a dataset built by
// hand), or the blocks of data.Sparse.Dense, of float64 or float32 values (data.Sparse.Float32:
// read as the float64 each is, with the float64 rows' operations, so with the bits those rows
// would give). The zero value holds no rows.
type denseRows struct {
	x      []float64
	blocks *data.Sparse
	d      int
}

// denseOf returns the rows of ds held dense, or the zero denseRows when ds holds them by their
// stored entries.
func denseOf(ds *data.Dataset) denseRows {
	switch {
	case ds.Sparse == nil:
		return denseRows{x: ds.X, d: ds.D}
	case ds.Sparse.Dense:
		return denseRows{blocks: ds.Sparse, d: ds.D}
	}
	return denseRows{}
}

// entriesOf returns the rows of ds held by their stored entries (ds.Sparse), or nil when ds
// holds them dense.
func entriesOf(ds *data.Dataset) *data.Sparse {
	if ds.Sparse != nil && !ds.Sparse.Dense {
		return ds.Sparse
	}
	return nil
}

// held reports whether r holds rows.
func (r denseRows) held() bool { return r.x != nil || r.blocks != nil }

// float32 reports whether r holds its rows as float32 (data.Sparse.Float32).
func (r *denseRows) float32() bool { return r.blocks != nil && r.blocks.Float32 }

// rows returns the rows lo to lo + n − 1, which lie in one block of data.BlockRows rows,
// row-major: a slice of the rows held, or for rows held as float32 their values written into
// buf (n·d long). (Not inlined: called once for a block of rows, and inlined it adds 0.5 kB to
// the page's WebAssembly.)
//
//go:noinline
func (r *denseRows) rows(lo, n int, buf []float64) []float64 {
	if r.blocks == nil {
		return r.x[lo*r.d : (lo+n)*r.d]
	}
	o := lo % data.BlockRows
	blk := &r.blocks.Blocks[lo/data.BlockRows]
	if r.blocks.Float32 {
		buf = buf[:n*r.d]
		for k, v := range blk.Val32[o*r.d : (o+n)*r.d] {
			buf[k] = float64(v)
		}
		return buf
	}
	return blk.Val[o*r.d : (o+n)*r.d]
}

// row returns row i of rows held as float64: rows(i, 1, nil) written out to be inlined, on the
// per-example queries' path (through rows, BenchmarkLinearValue takes 75 ns a query instead
// of 59).
func (r *denseRows) row(i int) []float64 {
	if r.blocks == nil {
		return r.x[i*r.d : (i+1)*r.d : (i+1)*r.d]
	}
	o := i % data.BlockRows
	x := r.blocks.Blocks[i/data.BlockRows].Val
	return x[o*r.d : (o+1)*r.d : (o+1)*r.d]
}

// values returns the values of the rows from row lo on in its block of data.BlockRows rows:
// x for rows held as float64, x32 for rows held as float32 (the other nil). (Not inlined: once
// for a block of rows, and inlined in its three callers it adds 1 kB to the page's WebAssembly.)
//
//go:noinline
func (r *denseRows) values(lo int) (x []float64, x32 []float32) {
	if r.blocks == nil {
		return r.x[lo*r.d:], nil
	}
	blk, o := &r.blocks.Blocks[lo/data.BlockRows], lo%data.BlockRows*r.d
	if blk.Val32 != nil {
		return nil, blk.Val32[o:]
	}
	return blk.Val[o:], nil
}

// dot returns ⟨x_i, w⟩.
func (r *denseRows) dot(i int, w []float64) float64 {
	if r.blocks != nil && r.blocks.Float32 {
		var z [1]float64
		_, x32 := r.values(i)
		dots32(z[:], x32, w)
		return z[0]
	}
	return dot(r.row(i), w)
}

// dots writes ⟨x_{lo+k}, w⟩ into z[k] for the rows lo to lo + len(z) − 1, which lie in one
// block of data.BlockRows rows (len(w) = d).
func (r *denseRows) dots(z, w []float64, lo int) {
	if x, x32 := r.values(lo); x32 != nil {
		dots32(z, x32, w)
	} else {
		dots(z, x, w)
	}
}

// axpys adds c[k]·x_{lo+k} to y for every k < len(c) whose c[k] is not zero, in k order, the
// rows lying in one block of data.BlockRows rows (len(y) = d).
func (r *denseRows) axpys(y, c []float64, lo int) {
	if x, x32 := r.values(lo); x32 != nil {
		axpys32(y, c, x32)
	} else {
		axpys(y, c, x)
	}
}

// denseRow returns row i of d entries: a slice of x when it holds the rows as float64, or else
// row i of x or s written out into buf (d long).
func denseRow(x denseRows, s *data.Sparse, i, d int, buf []float64) []float64 {
	switch {
	case x.float32():
		return x.rows(i, 1, buf)
	case x.held():
		return x.row(i)
	}
	s.Row(i, buf[:d])
	return buf[:d]
}

// checkDomain validates the domain and norm passed to Constants.
func checkDomain(dom geom.Domain, dim int, p float64) error {
	switch {
	case dom == nil:
		return errors.New("no domain")
	case dom.Dim() != dim:
		return fmt.Errorf("domain of dimension %d, parameter of dimension %d", dom.Dim(), dim)
	case !(p >= 1):
		return fmt.Errorf("norm exponent %v not in [1, ∞]", p)
	}
	return nil
}

// predictionRange returns sup |⟨w, x⟩| over w in dom and ‖x‖_{xNorm} ≤ xb, which is
// xb·sup_{w∈dom} ‖w‖_{xNorm*} (Hölder, attained for some x); 0·∞ is taken as 0.
func predictionRange(xb, xNorm float64, dom geom.Domain) float64 {
	r := dom.Radius(geom.Dual(xNorm))
	if xb == 0 || r == 0 {
		return 0
	}
	return xb * r
}

// scaleTo writes c·x into dst over the first len(x) entries. It panics if len(dst) < len(x).
func scaleTo(dst []float64, c float64, x []float64) {
	dst = dst[:len(x)]
	for i, v := range x {
		dst[i] = c * v
	}
}

// scale multiplies every entry of x by c.
func scale(x []float64, c float64) {
	for i := range x {
		x[i] *= c
	}
}

// checkLen panics when len(w) is not d.
func checkLen(w []float64, d int) {
	if len(w) != d {
		panic(fmt.Sprintf("loss: parameter of length %d, want %d", len(w), d))
	}
}
