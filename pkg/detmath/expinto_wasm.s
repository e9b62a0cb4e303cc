// expRun (expinto_wasm.go) in Go's WebAssembly assembly: Exp's main path (detmath.go) with the
// same operations in the same order, for arguments in [−700, 700]. The constants are the
// shortest decimals of Exp's float64 constants (1.0/6 and so on), which parse back to the
// same bits. R0–R15 are i64 locals and F16–F31 f64 locals.

#include "textflag.h"

// ADD adds the constant n to the i64 register r.
#define ADD(r, n) Get r; I64Const $n; I64Add; Set r

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

		ADD(R0, 8)
		ADD(R1, 8)
		ADD(R2, -1)
		ADD(R3, 1)
		Br $0
	End
	End

	Get SP
	Get R3
	I64Store ret+48(FP)
	RET

// func log1pRun(dst, y []float64) int
//
// R0 &dst[i], R1 &y[i], R2 entries left, R3 entries done, R4 the exponent e, R5 &logTable[0],
// R6 &logTable[j], R7 1 on Log's main path, 0 for log1pSmall(y); F16 y, F17 u = 1 + y, F18 the
// mantissa m, F19 log1pSmall's argument, F20 its result q's polynomial, F21 float64(e).
TEXT ·log1pRun(SB), NOSPLIT, $0-56
	MOVD dst_base+0(FP), R0
	MOVD y_base+24(FP), R1
	MOVD y_len+32(FP), R2
	MOVD $·logTable(SB), R5
	I64Const $0
	Set R3

	Block
	Loop
		Get R2
		I64Eqz
		BrIf $1

		Get R1
		I32WrapI64
		F64Load $0
		Tee F16
		F64Const $(-0.0078125)
		F64Gt
		Get F16
		F64Const $(0.0078125)
		F64Lt
		I32And
		If
			// |y| < 1/128: log1pSmall(y)
			Get F16
			Set F19
			I64Const $0
			Set R7
		Else
			// Stop unless 1/128 ≤ y ≤ 1e300 (a NaN stops too).
			Get F16
			F64Const $(0.0078125)
			F64Ge
			Get F16
			F64Const $(1e300)
			F64Le
			I32And
			I32Eqz
			BrIf $2

			// u = 1 + y; e = exponent − 1022; m = mantissa in [1/2, 1)
			F64Const $(1.0)
			Get F16
			F64Add
			Tee F17
			I64ReinterpretF64
			Tee R4
			I64Const $0xfffffffffffff
			I64And
			I64Const $0x3fe0000000000000
			I64Or
			F64ReinterpretI64
			Set F18
			Get R4
			I64Const $52
			I64ShrU
			I64Const $1022
			I64Sub
			Set R4

			// if m < √2/2 { m *= 2; e-- }
			Get F18
			F64Const $(0.7071067811865476)
			F64Lt
			If
				Get F18
				F64Const $(2.0)
				F64Mul
				Set F18
				ADD(R4, -1)
			End

			// c = &logTable[int((m − 0.5)·128)]; r = (m − c0)·c1
			Get F18
			F64Const $(0.5)
			F64Sub
			F64Const $(128.0)
			F64Mul
			I64TruncF64S
			I64Const $5
			I64Shl
			Get R5
			I64Add
			Set R6
			Get F18
			Get R6
			I32WrapI64
			F64Load $0
			F64Sub
			Get R6
			I32WrapI64
			F64Load $8
			F64Mul
			Set F19
			Get R4
			F64ConvertI64S
			Set F21
			I64Const $1
			Set R7
		End

		// P = t + t·t·q(t), q the polynomial of log1pSmall
		Get F19
		Get F19
		Get F19
		F64Mul
		F64Const $(-0.5)
		Get F19
		F64Const $(0.3333333333333333)
		Get F19
		F64Const $(-0.25)
		Get F19
		F64Const $(0.2)
		Get F19
		F64Const $(-0.16666666666666666)
		Get F19
		F64Const $(0.14285714285714285)
		Get F19
		F64Const $(-0.125)
		Get F19
		F64Const $(0.1111111111111111)
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
		F64Add
		F64Mul
		F64Add
		F64Mul
		F64Add
		Set F20

		Get R0
		I32WrapI64
		Get R7
		I64Eqz
		If $4 // an f64 result (block type 0x80 − 4 = 0x7C)
			Get F20
		Else
			// ((fe·ln2Hi + c2) + (P + (fe·ln2Lo + c3))) · (y / (u − 1))
			Get F21
			F64Const $(0.6931471803691238)
			F64Mul
			Get R6
			I32WrapI64
			F64Load $16
			F64Add
			Get F20
			Get F21
			F64Const $(1.9082149292705877e-10)
			F64Mul
			Get R6
			I32WrapI64
			F64Load $24
			F64Add
			F64Add
			F64Add
			Get F16
			Get F17
			F64Const $(1.0)
			F64Sub
			F64Div
			F64Mul
		End
		F64Store $0

		ADD(R0, 8)
		ADD(R1, 8)
		ADD(R2, -1)
		ADD(R3, 1)
		Br $0
	End
	End

	Get SP
	Get R3
	I64Store ret+48(FP)
	RET
