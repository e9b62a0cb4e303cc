package geom

// sumSquares is sumSquaresGo (kernels.go) in WebAssembly assembly (kernels_wasm.s).
//
//go:noescape
func sumSquares(x []float64) float64
