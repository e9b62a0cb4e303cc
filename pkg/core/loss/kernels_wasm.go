package loss

// sparseDots is sparseDotsGo (kernels.go) in WebAssembly assembly (kernels_wasm.s).
//
//go:noescape
func sparseDots(z []float64, start []int, col []int32, val, w []float64)

// sparseAxpys is sparseAxpysGo (kernels.go) in WebAssembly assembly (kernels_wasm.s).
//
//go:noescape
func sparseAxpys(y, c []float64, start []int, col []int32, val []float64)
