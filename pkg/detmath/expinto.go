package detmath

// ExpInto writes Exp(x[i]) into dst[i] for every i < len(x), Exp's bits; dst must be at least
// as long as x and may be x itself. Under WebAssembly the arguments in [−700, 700] are
// evaluated in assembly (expinto_wasm.s), one structured loop at about native speed instead
// of a call to Exp per entry (the loops Go's compiler emits for WebAssembly dispatch on every
// branch); the others (near overflow or underflow, infinities, NaNs) by Exp.
func ExpInto(dst, x []float64) {
	dst = dst[:len(x)]
	for i := 0; i < len(x); {
		i += expRun(dst[i:], x[i:])
		if i < len(x) {
			dst[i] = Exp(x[i])
			i++
		}
	}
}
