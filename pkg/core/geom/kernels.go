package geom

// sumSquaresGo returns Σ x_i² added in index order into one accumulator that starts at +0.
// Under WebAssembly sumSquares is this loop in Go's WebAssembly assembly (kernels_wasm.s), the
// same bits at about native speed (the loops Go's compiler emits for WebAssembly dispatch on
// every branch); TestSumSquaresMatchesGo compares the two there. Natively sumSquares is this
// function.
func sumSquaresGo(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v * v
	}
	return s
}
