package loss

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/privopt/privopt/pkg/core/data"
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

// sumChunks writes into dst the sum, in chunk order, of the chunks' vectors over n rows, and
// returns the sum, in chunk order, of their scalars: add(lo, hi, part) adds the terms of rows lo
// to hi − 1 into part (len(dst) long and zero when called) and returns their scalar sum; it may
// be called concurrently for different chunks.
func sumChunks(dst []float64, n int, add func(lo, hi int, part []float64) float64) float64 {
	chunks := (n + chunkRows - 1) / chunkRows
	w := len(dst)
	size := chunks * (w + 1)
	buf, _ := partsPool.Get().(*[]float64)
	if buf == nil || cap(*buf) < size {
		b := make([]float64, size)
		buf = &b
	}
	parts := (*buf)[:size]
	clear(parts)
	scalars, vectors := parts[:chunks], parts[chunks:]
	forEachChunk(chunks, func(c int) {
		scalars[c] = add(c*chunkRows, min((c+1)*chunkRows, n), vectors[c*w:(c+1)*w])
	})
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
