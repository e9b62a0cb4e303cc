//go:build !wasm

package geom

// sumSquares is sumSquaresGo (kernels.go).
func sumSquares(x []float64) float64 { return sumSquaresGo(x) }
