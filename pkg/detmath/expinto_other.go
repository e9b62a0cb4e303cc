//go:build !wasm

package detmath

// expRun writes Exp(x[i]) into dst[i] for every i < len(x) and returns len(x) (under
// WebAssembly it stops at the first argument outside [−700, 700]).
func expRun(dst, x []float64) int {
	for i, v := range x {
		dst[i] = Exp(v)
	}
	return len(x)
}

// log1pRun writes Log1p(y[i]) into dst[i] for every i < len(y) and returns len(y) (under
// WebAssembly it stops at the first argument outside (−1/128, 10³⁰⁰]).
func log1pRun(dst, y []float64) int {
	for i, v := range y {
		dst[i] = Log1p(v)
	}
	return len(y)
}
