package loss

// sparseDots is sparseDotsGo (kernels.go) in WebAssembly assembly (kernels_wasm.s).
//
//go:noescape
func sparseDots(z []float64, start []int, col []int32, val, w []float64, hotCol []int32, hot []float64, hots int)

// sparseAxpys is sparseAxpysGo (kernels.go) in WebAssembly assembly (kernels_wasm.s).
//
//go:noescape
func sparseAxpys(y, c []float64, start []int, col []int32, val []float64, hotCol []int32, hot []float64, hots int)

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

// dot is dotGo (kernels.go), in WebAssembly assembly (dotAsm). It panics if len(b) < len(a).
func dot(a, b []float64) float64 { return dotAsm(a, b[:len(a)]) }

// dotAsm is dotGo for len(a) = len(b), in kernels_wasm.s.
//
//go:noescape
func dotAsm(a, b []float64) float64

// axpy is axpyGo (kernels.go), in WebAssembly assembly (axpyAsm). It panics if len(y) < len(x).
func axpy(y []float64, c float64, x []float64) { axpyAsm(y[:len(x)], c, x) }

// axpyAsm is axpyGo for len(y) = len(x), in kernels_wasm.s.
//
//go:noescape
func axpyAsm(y []float64, c float64, x []float64)

// dots is dotsGo (kernels.go), in WebAssembly assembly (dotsAsm). It panics if len(x) <
// len(z)·len(w).
func dots(z, x, w []float64) { dotsAsm(z, x[:len(z)*len(w)], w) }

// dotsAsm is dotsGo for len(x) ≥ len(z)·len(w), in kernels_wasm.s.
//
//go:noescape
func dotsAsm(z, x, w []float64)

// dots32 is dotsGo (kernels.go) on float32 rows, in WebAssembly assembly (dots32Asm). It
// panics if len(x) < len(z)·len(w).
func dots32(z []float64, x []float32, w []float64) { dots32Asm(z, x[:len(z)*len(w)], w) }

// dots32Asm is dotsGo on float32 rows for len(x) ≥ len(z)·len(w), in kernels_wasm.s.
//
//go:noescape
func dots32Asm(z []float64, x []float32, w []float64)

// axpys is axpysGo (kernels.go), in WebAssembly assembly (axpysAsm). It panics if len(x) <
// len(c)·len(y).
func axpys(y, c, x []float64) { axpysAsm(y, c, x[:len(c)*len(y)]) }

// axpysAsm is axpysGo for len(x) ≥ len(c)·len(y), in kernels_wasm.s.
//
//go:noescape
func axpysAsm(y, c, x []float64)

// axpys32 is axpysGo (kernels.go) on float32 rows, in WebAssembly assembly (axpys32Asm). It
// panics if len(x) < len(c)·len(y).
func axpys32(y, c []float64, x []float32) { axpys32Asm(y, c, x[:len(c)*len(y)]) }

// axpys32Asm is axpysGo on float32 rows for len(x) ≥ len(c)·len(y), in kernels_wasm.s.
//
//go:noescape
func axpys32Asm(y, c []float64, x []float32)
