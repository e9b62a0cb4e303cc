package detmath

// expRun writes Exp(x[i]) into dst[i] (len(dst) ≥ len(x)) for the arguments from the first on
// while they are in [−700, 700], where Exp takes its main path with the exact scaling 2^m
// (−1022 < m < 1023), and returns how many it wrote: Exp's operations in Exp's order, in
// WebAssembly assembly (expinto_wasm.s).
//
//go:noescape
func expRun(dst, x []float64) int
