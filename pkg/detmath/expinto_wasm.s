// expRun (expinto_wasm.go) in Go's WebAssembly assembly: Exp's main path (detmath.go) with the
// same operations in the same order, for arguments in [−700, 700]. The constants are the
// shortest decimals of Exp's float64 constants (1.0/6 and so on), which parse back to the
// same bits. R0–R15 are i64 locals and F16–F31 f64 locals.

#include "textflag.h"

// func expRun(dst, x []float64) int
//
// R0 &dst[i], R1 &x[i], R2 entries left, R3 entries done, R4 k, R5 &exp2Table[0],
// R6 &exp2Table[k&63], F16 x, F17 kf, F18 r, F19 p, F20 2^{j/64}'s high part.
TEXT ·expRun(SB), NOSPLIT, $0-56
	MOVD dst_base+0(FP), R0
	MOVD x_base+24(FP), R1
	MOVD x_len+32(FP), R2
	MOVD $·exp2Table(SB), R5
	I64Const $0
	Set R3

	Block
	Loop
		Get R2
		I64Eqz
		BrIf $1

		// Stop unless −700 ≤ x ≤ 700 (a NaN stops too).
		Get R1
		I32WrapI64
		F64Load $0
		Tee F16
		F64Const $(-700.0)
		F64Ge
		Get F16
		F64Const $(700.0)
		F64Le
		I32And
		I32Eqz
		BrIf $1

		// kf = floor(x·invLn2by64 + 0.5)
		Get F16
		F64Const $(92.33248261689366)
		F64Mul
		F64Const $(0.5)
		F64Add
		F64Floor
		Set F17

		// r = (x − kf·ln2by64Hi) − kf·ln2by64Lo
		Get F16
		Get F17
		F64Const $(0.010830424696223417)
		F64Mul
		F64Sub
		Get F17
		F64Const $(2.572804622327669e-14)
		F64Mul
		F64Sub
		Set F18

		// p = r·(1 + r·(1/2 + r·(1/6 + r·(1/24 + r·(1/120 + r·(1/720))))))
		Get F18
		F64Const $(1.0)
		Get F18
		F64Const $(0.5)
		Get F18
		F64Const $(0.16666666666666666)
		Get F18
		F64Const $(0.041666666666666664)
		Get F18
		F64Const $(0.008333333333333333)
		Get F18
		F64Const $(0.001388888888888889)
		F64Mul
		F64Add
		F64Mul
		F64Add
		F64Mul
		F64Add
		F64Mul
		F64Add
		F64Mul
		F64Add
		F64Mul
		Set F19

		// k = int(kf); R6 = &exp2Table[k&63]
		Get F17
		I64TruncF64S
		Set R4
		Get R5
		Get R4
		I64Const $63
		I64And
		I64Const $4
		I64Shl
		I64Add
		Set R6

		// dst[i] = (t0 + (t0·p + t1)) · 2^(k>>6)
		Get R0
		I32WrapI64
		Get R6
		I32WrapI64
		F64Load $0
		Tee F20
		Get F20
		Get F19
		F64Mul
		Get R6
		I32WrapI64
		F64Load $8
		F64Add
		F64Add
		Get R4
		I64Const $6
		I64ShrS
		I64Const $1023
		I64Add
		I64Const $52
		I64Shl
		F64ReinterpretI64
		F64Mul
		F64Store $0

		Get R0
		I64Const $8
		I64Add
		Set R0
		Get R1
		I64Const $8
		I64Add
		Set R1
		Get R2
		I64Const $1
		I64Sub
		Set R2
		Get R3
		I64Const $1
		I64Add
		Set R3
		Br $0
	End
	End

	Get SP
	Get R3
	I64Store ret+48(FP)
	RET
