package loss

import (
	"errors"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/geom"
)

// The full passes over the rows (Mean, MeanClippedGrad) sum each chunk of chunkRows consecutive
// rows on its own, from zero, then add the chunks' sums in chunk order. The chunks are fixed by
// the number of rows alone, so a pass's bits never depend on how many goroutines computed the
// chunks (SetWorkers): a seeded release is the same with 1, 2 or 8 workers, natively and in
// WebAssembly, where a pass runs on one thread. With at most chunkRows rows there is one chunk
// and a pass adds the rows in order, as a single loop would.
//
// Rounding: a sum of n terms added in any order (any binary tree) is within γ_depth·Σ|terms| of
// the exact sum, with depth ≤ chunkRows + n/chunkRows ≤ n for the chunked order, so the bounds
// stated for recursive summation (γ_n, meanGradientRounding in package mech) hold.

// chunkRows is the number of rows of a chunk: a block of rows held sparse (data.BlockRows), so
// that a chunk's rows lie in one block; a multiple of rowBlock; and large enough that the
// chunks' sums (one vector of the parameters' length per chunk) cost little beside the rows.
const chunkRows = data.BlockRows

// A compile-time check that chunkRows is a multiple of rowBlock.
var _ = [1]struct{}{}[chunkRows%rowBlock]

// workers is the number of goroutines a pass uses at most; 0 means runtime.GOMAXPROCS(0).
var workers atomic.Int64

// SetWorkers sets how many goroutines a full pass over the rows uses at most, and returns the
// previous setting; n ≤ 0 restores the default, runtime.GOMAXPROCS(0) (one under
// WebAssembly). The results' bits do not depend on it. It is safe to call at any time: a pass
// reads the setting once, when it starts.
func SetWorkers(n int) (previous int) {
	return int(workers.Swap(int64(max(n, 0))))
}

// Workers returns the number of goroutines a full pass uses at most.
func Workers() int {
	if n := workers.Load(); n > 0 {
		return int(n)
	}
	return runtime.GOMAXPROCS(0)
}

// partsPool holds the chunks' sums between passes.
var partsPool sync.Pool

// chunked reports whether n rows make more than one chunk. A pass over one chunk calls its row
// loop directly, on the caller's goroutine, and allocates nothing; sumChunks handles the rest.
func chunked(n int) bool { return n > chunkRows }

// sumChunks writes into dst (p.Width() long) the sum, in chunk order, of the chunks' vectors of
// p, and returns the sum, in chunk order, of their scalars. The chunks' sums come from the
// Runner set, when it computes p, and from p.Sums otherwise.
func sumChunks(dst []float64, p *Pass) float64 {
	chunks := p.Chunks()
	w := len(dst)
	size := chunks * (w + 1)
	buf, _ := partsPool.Get().(*[]float64)
	if buf == nil || cap(*buf) < size {
		b := make([]float64, size)
		buf = &b
	}
	parts := (*buf)[:size]
	scalars, vectors := parts[:chunks], parts[chunks:]
	if r := runner.Load(); r == nil || !(*r).Sums(p, scalars, vectors) {
		p.Sums(0, chunks, scalars, vectors)
	}
	clear(dst)
	sum := 0.0
	for c := range chunks {
		for i, v := range vectors[c*w : (c+1)*w] {
			dst[i] += v
		}
		sum += scalars[c]
	}
	partsPool.Put(buf)
	return sum
}

// rowSummer is a loss whose full passes sum per-row terms: *Linear and *Multinomial.
type rowSummer interface {
	Loss
	// addRowTerms returns Σ ℓ_i(w) over the rows lo to hi − 1 and, unless grad is nil, adds
	// their gradients into it.
	addRowTerms(grad, w []float64, lo, hi int) float64
}

// meanOver is the Mean of l, over its n rows with bounds b: the sum of the rows' terms, in
// one loop for one chunk and in chunks otherwise (sumChunks), divided by b's divisor; the
// gradient's too, into grad, unless it is nil.
func meanOver(l rowSummer, n int, b Bounds, grad, w []float64) float64 {
	var sum float64
	if !chunked(n) {
		clear(grad)
		sum = l.addRowTerms(grad, w, 0, n)
	} else {
		op := OpMean
		if grad == nil {
			op = OpValue
		}
		sum = sumChunks(grad, &Pass{Loss: l, Op: op, W: w})
	}
	div := b.divisor(n)
	if grad != nil {
		scale(grad, 1/div)
	}
	return sum / div
}

// Op is what a full pass sums over the rows.
type Op uint8

const (
	// OpMean sums the losses and their gradients (Mean with a gradient).
	OpMean Op = iota
	// OpValue sums the losses only (Mean without a gradient).
	OpValue
	// OpClippedGrad sums the gradients of a *Linear loss with the derivatives clipped to
	// [−Clip, Clip] (MeanClippedGrad; MeanGrad with Clip = +Inf).
	OpClippedGrad
	// OpSquares maps each row x (written out dense, D long) to x′ with x′_j = a_j·x_j − c_j,
	// W = [a, c] (2·D long), sums the squares x′_j² (its vector, D long) and counts the rows
	// whose ‖x′‖, in the loss's feature norm, is not at most Clip (its scalar): noisy-gd's
	// second moments and its check of the mapped rows in one pass (package mech).
	OpSquares
)

// Pass is a full pass over the rows of a *Linear or *Multinomial loss (of a *Robust one too,
// for OpSquares), described as data so that another worker holding the same loss over the same
// rows can compute chunks of it: which sums (Op), at which parameters W (Dim() long; for
// OpSquares the map), with which clip. Its chunks are fixed by Loss.Len() alone; chunk c holds
// the rows c·BlockRows to min((c+1)·BlockRows, Len()) − 1.
type Pass struct {
	Loss Loss
	Op   Op
	Clip float64
	W    []float64
}

// Chunks returns the number of chunks of p's rows.
func (p *Pass) Chunks() int { return (p.Loss.Len() + chunkRows - 1) / chunkRows }

// Width returns the length of a chunk's vector: the loss's Dim(), 0 for OpValue, and the
// rows' width D for OpSquares.
func (p *Pass) Width() int {
	switch p.Op {
	case OpValue:
		return 0
	case OpSquares:
		r, _ := rowsOf(p.Loss)
		return r.d
	}
	return p.Loss.Dim()
}

// errPass is Check's error.
var errPass = errors.New("loss: not a pass of this loss")

// Check returns an error unless p.Sums(first, last, …) computes chunks of p: p is a pass of a
// *Linear loss with OpMean, OpValue or OpClippedGrad (a clip above 0), of a *Multinomial one
// with OpMean or OpValue, W is Dim() long, or p is a pass of OpSquares over the rows of any of
// them or of a *Robust loss with W 2·D long; and 0 ≤ first ≤ last ≤ p.Chunks(). A worker
// checks a pass it receives.
func (p *Pass) Check(first, last int) error {
	_, lin := p.Loss.(*Linear)
	_, multi := p.Loss.(*Multinomial)
	ok := (lin || multi) && len(p.W) == p.Loss.Dim() && (p.Op < OpClippedGrad || p.Op == OpClippedGrad && lin && p.Clip > 0)
	if p.Op == OpSquares {
		rows, held := rowsOf(p.Loss)
		ok = held && len(p.W) == 2*rows.d
	}
	if !ok || first < 0 || first > last || last > p.Chunks() {
		return errPass
	}
	return nil
}

// Sums writes into scalars[c−first] and vectors[(c−first)·p.Width():(c−first+1)·p.Width()]
// the sums of the rows of chunk c of p, each from zero, for c from first to last − 1, on up to
// Workers() goroutines; the scalar of OpClippedGrad is 0. A chunk's sums have the same bits
// wherever they are computed: the passes add them in chunk order.
func (p *Pass) Sums(first, last int, scalars, vectors []float64) {
	w, n := p.Width(), p.Loss.Len()
	clear(vectors[:(last-first)*w])
	forEachChunk(last-first, func(k int) {
		c := first + k
		scalars[k] = p.add(c*chunkRows, min((c+1)*chunkRows, n), vectors[k*w:(k+1)*w])
	})
}

// add adds the terms of p's rows lo to hi − 1 into part (zero when called) and returns their
// scalar sum.
func (p *Pass) add(lo, hi int, part []float64) float64 {
	switch p.Op {
	case OpClippedGrad:
		p.Loss.(*Linear).addClippedGrads(part, p.W, p.Clip, lo, hi)
		return 0
	case OpSquares:
		return p.addSquares(lo, hi, part)
	}
	return p.Loss.(rowSummer).addRowTerms(part, p.W, lo, hi)
}

// addSquares adds the squares of the rows lo to hi − 1 mapped by W (OpSquares), in row order,
// into part and returns the number of mapped rows whose norm is not at most Clip.
func (p *Pass) addSquares(lo, hi int, part []float64) float64 {
	r, _ := rowsOf(p.Loss)
	a, c := p.W[:r.d], p.W[r.d:2*r.d]
	buf, x := make([]float64, r.d), make([]float64, r.d)
	over := 0.0
	for i := lo; i < hi; i++ {
		for j, v := range denseRow(r.x, r.sparse, i, r.d, buf) {
			x[j] = a[j]*v - c[j]
		}
		if !(geom.Norm(x, r.norm) <= p.Clip) {
			over++
		}
		for j, v := range x {
			part[j] += v * v
		}
	}
	return over
}

// Squares returns the sums over the rows of l (a *Linear, *Multinomial or *Robust loss), each
// mapped to x′ with x′_j = a_j·x_j − c_j (a and c D long), of the squares x′_j², and the number
// of rows whose mapped norm, in the loss's feature norm, is not at most bound: a full pass
// (OpSquares), so computed in chunks on Workers() goroutines, or by the Runner set, with the
// same bits.
func Squares(l Loss, a, c []float64, bound float64) (sums []float64, over int, err error) {
	p := &Pass{Loss: l, Op: OpSquares, Clip: bound, W: append(slices.Clip(a), c...)}
	if err := p.Check(0, p.Chunks()); err != nil || len(a) != len(c) {
		return nil, 0, errPass
	}
	sums = make([]float64, p.Width())
	return sums, int(sumChunks(sums, p)), nil
}

// heldRows are a loss's rows: held dense in x (when it holds them), or sparse; d wide, with
// the declared feature norm's exponent.
type heldRows struct {
	x      denseRows
	sparse *data.Sparse
	d      int
	norm   float64
}

// rowsOf returns the rows of l, and whether l reads its rows from a dataset (a *Linear,
// *Multinomial or *Robust loss). (Not inlined: that takes 1.5 kB off the page's WebAssembly.)
//
//go:noinline
func rowsOf(l Loss) (heldRows, bool) {
	switch l := l.(type) {
	case *Linear:
		return heldRows{l.x, l.sparse, l.d, l.b.XNorm}, true
	case *Multinomial:
		return heldRows{l.x, l.sparse, l.d, l.b.XNorm}, true
	case *Robust:
		return heldRows{l.x, l.sparse, l.d, l.b.XNorm}, true
	}
	return heldRows{}, false
}

// A Runner computes the chunks' sums of full passes elsewhere: in the page, in other Web
// Workers that hold the same rows (package wasm/engine).
type Runner interface {
	// Sums writes into scalars[c] and vectors[c·p.Width():(c+1)·p.Width()] the sums of chunk
	// c of p for every chunk, with the bits p.Sums gives them, and returns true; or it returns
	// false, when it does not compute p, and the pass then calls p.Sums. It is called on the
	// pass's goroutine and must not keep p, scalars or vectors after it returns.
	Sums(p *Pass, scalars, vectors []float64) bool
}

// runner is the Runner set, or nil.
var runner atomic.Pointer[Runner]

// SetRunner makes r compute the chunks of the full passes that it accepts, from the next pass
// on, and returns the Runner set before (nil for none); nil restores computing every chunk
// here. One Runner serves the whole process: the page's engine sets one per run.
func SetRunner(r Runner) (previous Runner) {
	var old *Runner
	if r == nil {
		old = runner.Swap(nil)
	} else {
		old = runner.Swap(&r)
	}
	if old == nil {
		return nil
	}
	return *old
}

// Same reports whether a and b are the same loss over the same rows: both *Linear or both
// *Multinomial, with equal scalar loss, classes, bounds and shape, built over one dataset (the
// same arrays of rows and labels). A pass of a is then a pass of b, and another worker that
// builds b over the same rows computes a's passes with the same bits.
func Same(a, b Loss) bool {
	switch a := a.(type) {
	case *Linear:
		b, ok := b.(*Linear)
		return ok && a.s == b.s && a.b == b.b && a.d == b.d && sameRows(&a.x, a.y, a.sparse, &b.x, b.y, b.sparse)
	case *Multinomial:
		b, ok := b.(*Multinomial)
		return ok && a.k == b.k && a.b == b.b && a.d == b.d && sameRows(&a.x, a.y, a.sparse, &b.x, b.y, b.sparse)
	}
	return false
}

// sameRows reports whether two losses read the same rows: the same dense rows, or when they
// hold none the same sparse ones, and the same labels (one a row, so the same number of rows).
func sameRows(x *denseRows, y []float64, s *data.Sparse, x2 *denseRows, y2 []float64, s2 *data.Sparse) bool {
	same := func(a, b []float64) bool { return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0]) }
	return same(x.x, x2.x) && x.blocks == x2.blocks && same(y, y2) && (x.held() || s == s2)
}
