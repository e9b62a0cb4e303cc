//go:build !wasm

package loss

// sparseDots is sparseDotsGo (kernels.go).
func sparseDots(z []float64, start []int, col []int32, val, w []float64, hotCol []int32, hot []float64, hots int) {
	sparseDotsGo(z, start, col, val, w, hotCol, hot, hots)
}

// sparseAxpys is sparseAxpysGo (kernels.go).
func sparseAxpys(y, c []float64, start []int, col []int32, val []float64, hotCol []int32, hot []float64, hots int) {
	sparseAxpysGo(y, c, start, col, val, hotCol, hot, hots)
}

// nonZeros is nonZerosGo (kernels.go).
func nonZeros(x []float64) int { return nonZerosGo(x) }

// compressRow is compressRowGo (kernels.go) after a check of its preconditions.
func compressRow(col []int32, val, row []float64) int {
	checkRoom(col, val, row)
	return compressRowGo(col, val, row)
}

// dot is dotGo (kernels.go).
func dot(a, b []float64) float64 { return dotGo(a, b) }

// axpy is axpyGo (kernels.go).
func axpy(y []float64, c float64, x []float64) { axpyGo(y, c, x) }

// dots is dotsGo (kernels.go).
func dots(z, x, w []float64) { dotsGo(z, x, w) }

// dots32 is dotsGo (kernels.go) on float32 rows.
func dots32(z []float64, x []float32, w []float64) { dotsGo(z, x, w) }

// axpys is axpysGo (kernels.go).
func axpys(y, c, x []float64) { axpysGo(y, c, x) }

// axpys32 is axpysGo (kernels.go) on float32 rows.
func axpys32(y, c []float64, x []float32) { axpysGo(y, c, x) }
