// sumSquaresGo (kernels.go) in Go's WebAssembly assembly, the same operations in the same order.
// R0–R15 are i64 locals and F16–F31 f64 locals.

#include "textflag.h"

// ADD adds the constant n to the i64 register r.
#define ADD(r, n) Get r; I64Const $n; I64Add; Set r

// func sumSquares(x []float64) float64
//
// R0 &x[i], R1 entries left, F16 the sum, F17 x[i].
TEXT ·sumSquares(SB), NOSPLIT, $0-32
	MOVD x_base+0(FP), R0
	MOVD x_len+8(FP), R1
	F64Const $(0.0)
	Set F16

	Block
	Loop
		Get R1
		I64Eqz
		BrIf $1

		// s += x[i] * x[i]
		Get F16
		Get R0
		I32WrapI64
		F64Load $0
		Tee F17
		Get F17
		F64Mul
		F64Add
		Set F16

		ADD(R0, 8)
		ADD(R1, -1)
		Br $0
	End
	End

	Get SP
	Get F16
	F64Store ret+24(FP)
	RET
