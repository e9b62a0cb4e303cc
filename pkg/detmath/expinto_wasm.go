package detmath

// expRun writes Exp(x[i]) into dst[i] (len(dst) ≥ len(x)) for the arguments from the first on
// while they are in [−700, 700], where Exp takes its main path with the exact scaling 2^m
// (−1022 < m < 1023), and returns how many it wrote: Exp's operations in Exp's order, in
// WebAssembly assembly (expinto_wasm.s).
//
//go:noescape
func expRun(dst, x []float64) int

// log1pRun writes Log1p(y[i]) into dst[i] (len(dst) ≥ len(y)) for the arguments from the first
// on while they are in (−1/128, 10³⁰⁰], where Log1p is log1pSmall(y) below 1/128 and otherwise
// Log(1 + y)·(y/((1 + y) − 1)) with Log on its main path (1 + y normal, not within 1/128 of 1),
// and returns how many it wrote: Log1p's operations in Log1p's order, in WebAssembly assembly
// (expinto_wasm.s).
//
//go:noescape
func log1pRun(dst, y []float64) int
