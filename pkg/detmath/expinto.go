package detmath

// ExpInto writes Exp(x[i]) into dst[i] for every i < len(x), Exp's bits; dst must be at least
// as long as x and may be x itself. Under WebAssembly the arguments in [−700, 700] are
// evaluated in assembly (expinto_wasm.s), one structured loop at about native speed instead
// of a call to Exp per entry (the loops Go's compiler emits for WebAssembly dispatch on every
// branch); the others (near overflow or underflow, infinities, NaNs) by Exp.
func ExpInto(dst, x []float64) { intoByRuns(dst, x, expRun, Exp) }

// Log1pInto writes Log1p(y[i]) into dst[i] for every i < len(y), Log1p's bits; dst must be at
// least as long as y and may be y itself. Under WebAssembly the arguments in (−1/128, 10³⁰⁰]
// are evaluated in assembly (expinto_wasm.s), the others by Log1p.
func Log1pInto(dst, y []float64) { intoByRuns(dst, y, log1pRun, Log1p) }

// intoByRuns writes f(x[i]) into dst[i] for every i < len(x): run evaluates f from the first
// argument on while it can (returning how many it wrote), and f itself takes the argument run
// stopped at.
func intoByRuns(dst, x []float64, run func(dst, x []float64) int, f func(float64) float64) {
	dst = dst[:len(x)]
	for i := 0; i < len(x); {
		i += run(dst[i:], x[i:])
		if i < len(x) {
			dst[i] = f(x[i])
			i++
		}
	}
}
