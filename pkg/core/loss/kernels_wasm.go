package loss

// sparseDots is sparseDotsGo (kernels.go) in WebAssembly assembly (kernels_wasm.s).
//
//go:noescape
func sparseDots(z []float64, start []int, col []int32, val, w []float64)

// sparseAxpys is sparseAxpysGo (kernels.go) in WebAssembly assembly (kernels_wasm.s).
//
//go:noescape
func sparseAxpys(y, c []float64, start []int, col []int32, val []float64)

// nonZeros is nonZerosGo (kernels.go) in WebAssembly assembly (kernels_wasm.s).
//
//go:noescape
func nonZeros(x []float64) int

// compressRow is compressRowGo (kernels.go), in WebAssembly assembly (compressRowAsm), after a
// check of its preconditions.
func compressRow(col []int32, val, row []float64) int {
	checkRoom(col, val, row)
	return compressRowAsm(col, val, row)
}

// compressRowAsm is compressRowGo without the checks, in kernels_wasm.s.
//
//go:noescape
func compressRowAsm(col []int32, val, row []float64) int
