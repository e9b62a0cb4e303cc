// The kernels of kernels.go in Go's WebAssembly assembly: the same operations in the same
// order as sparseDotsGo and sparseAxpysGo, as plain structured loops. Registers R0–R15 are
// i64 locals and F16–F31 f64 locals; addresses are i64 values wrapped to i32 for each access.

#include "textflag.h"

// ADD adds the constant n to the i64 register r.
#define ADD(r, n) Get r; I64Const $n; I64Add; Set r

// COLUMN replaces the address of an int32 column j and the address a below it with a + 8·j,
// the address of entry j of the float64 vector at a.
#define COLUMN I32WrapI64; I64Load32S $0; I64Const $3; I64Shl; I64Add

// The kernels of whole rows (dotsAsm, axpysAsm and their float32 forms) repeat dotAsm's and
// axpyAsm's loop on each of the rows of a block, one after the other in x, the values of a
// float32 row read as the float64 each is (F64PromoteF32): the bits of dotGo and axpyGo on
// each row. Both forms are one macro (DOTS, AXPYS) given how to read entry k of x from R0 and
// the bytes of an entry (8 or 4), and of eight.
//
// X64(k) pushes entry k of a float64 row at R0, X32(k) entry k of a float32 row, widened; W(k)
// entry k of the float64 vector at R1.
#define X64(k) Get R0; I32WrapI64; F64Load $(8*(k))
#define X32(k) Get R0; I32WrapI64; F32Load $(4*(k)); F64PromoteF32
#define W(k) Get R1; I32WrapI64; F64Load $(8*(k))
// PAIR(X, s, i) adds x_i·w_i + x_{i+4}·w_{i+4} to the accumulator s.
#define PAIR(X, s, i) Get s; X(i); W(i); F64Mul; X(i+4); W(i+4); F64Mul; F64Add; F64Add; Set s

// DOTS is dotsAsm's body: for each k < len(z), z[k] = dotGo(x[k·d:(k+1)·d], w), d = len(w),
// for len(x) ≥ len(z)·d, entries of size bytes read by X. R0 &x (the rows one after the
// other), R1 &w[i], R2 entries left in the row, R3 &z[k], R4 rows left, R5 d, R6 &w[0], F16–F19
// the accumulators s0–s3.
#define DOTS(X, size) \
	MOVD z_base+0(FP), R3; \
	MOVD z_len+8(FP), R4; \
	MOVD x_base+24(FP), R0; \
	MOVD w_base+48(FP), R6; \
	MOVD w_len+56(FP), R5; \
	Block; Loop; \
		Get R4; I64Eqz; BrIf $1; \
		Get R6; Set R1; Get R5; Set R2; \
		F64Const $(0.0); Set F16; F64Const $(0.0); Set F17; F64Const $(0.0); Set F18; F64Const $(0.0); Set F19; \
		Block; Loop; \
			Get R2; I64Const $8; I64LtU; BrIf $1; \
			PAIR(X, F16, 0); PAIR(X, F17, 1); PAIR(X, F18, 2); PAIR(X, F19, 3); \
			ADD(R0, (8*size)); ADD(R1, 64); ADD(R2, -8); \
			Br $0; \
		End; End; \
		Block; Loop; \
			Get R2; I64Eqz; BrIf $1; \
			Get F16; X(0); W(0); F64Mul; F64Add; Set F16; \
			ADD(R0, size); ADD(R1, 8); ADD(R2, -1); \
			Br $0; \
		End; End; \
		Get R3; I32WrapI64; \
		Get F16; Get F17; F64Add; Get F18; Get F19; F64Add; F64Add; \
		F64Store $0; \
		ADD(R3, 8); ADD(R4, -1); \
		Br $0; \
	End; End; \
	RET

// AXPYS is axpysAsm's body: for each k < len(c) with c[k] ≠ 0, in k order, y_i += c[k]·x[k·d + i]
// for i < d = len(y), for len(x) ≥ len(c)·d, entries of size bytes read by X. R0 &x[k·d + i],
// R1 &y[i], R2 entries left in the row, R3 &c[k], R4 rows left, R5 d, R6 &y[0], F16 c[k]. A row
// whose coefficient is zero is skipped: R0 moves on by d·size bytes.
#define AXPYS(X, size) \
	MOVD y_base+0(FP), R6; \
	MOVD y_len+8(FP), R5; \
	MOVD c_base+24(FP), R3; \
	MOVD c_len+32(FP), R4; \
	MOVD x_base+48(FP), R0; \
	Block; Loop; \
		Get R4; I64Eqz; BrIf $1; \
		Get R3; I32WrapI64; F64Load $0; Tee F16; F64Const $(0.0); F64Eq; \
		If; \
			Get R0; Get R5; I64Const $size; I64Mul; I64Add; Set R0; \
		Else; \
			Get R6; Set R1; Get R5; Set R2; \
			Block; Loop; \
				Get R2; I64Eqz; BrIf $1; \
				Get R1; I32WrapI64; W(0); Get F16; X(0); F64Mul; F64Add; F64Store $0; \
				ADD(R0, size); ADD(R1, 8); ADD(R2, -1); \
				Br $0; \
			End; End; \
		End; \
		ADD(R3, 8); ADD(R4, -1); \
		Br $0; \
	End; End; \
	RET

// func sparseDots(z []float64, start []int, col []int32, val, w []float64, hotCol []int32, hot []float64, hots int)
//
// R0 &z[r], R1 rows left, R2 &start[r], R3 &col[0], R4 &val[0], R5 &w[0],
// R6 k, R7 start[r+1], R8 &hot[r], R9 &hotCol[r·hots], R10 hots, R11 the one-hot entries left,
// F16 the row's sum, F17 the sum of w over its one-hot columns.
TEXT ·sparseDots(SB), NOSPLIT, $0-176
	MOVD z_base+0(FP), R0
	MOVD z_len+8(FP), R1
	MOVD start_base+24(FP), R2
	MOVD col_base+48(FP), R3
	MOVD val_base+72(FP), R4
	MOVD w_base+96(FP), R5
	MOVD hotCol_base+120(FP), R9
	MOVD hot_base+144(FP), R8
	MOVD hots+168(FP), R10

	// k = start[0]; each row's entries begin where the previous row's end.
	Get R2
	I32WrapI64
	I64Load $0
	Set R6

	Block
	Loop
		Get R1
		I64Eqz
		BrIf $1

		// R7 = start[r+1]
		Get R2
		I64Const $8
		I64Add
		Tee R2
		I32WrapI64
		I64Load $0
		Set R7

		F64Const $(0.0)
		Set F16
		Block
		Loop
			Get R6
			Get R7
			I64GeU
			BrIf $1

			// s += val[k] * w[col[k]]
			Get F16
			Get R4
			Get R6
			I64Const $3
			I64Shl
			I64Add
			I32WrapI64
			F64Load $0
			Get R5
			Get R3
			Get R6
			I64Const $2
			I64Shl
			I64Add
			COLUMN
			I32WrapI64
			F64Load $0
			F64Mul
			F64Add
			Set F16

			ADD(R6, 1)
			Br $0
		End
		End

		// s += hot[r] * Σ w[hotCol[r·hots + t]], when hots > 0
		Get R10
		I64Eqz
		I32Eqz
		If
			F64Const $(0.0)
			Set F17
			Get R10
			Set R11
			Block
			Loop
				Get R11
				I64Eqz
				BrIf $1

				Get F17
				Get R5
				Get R9
				COLUMN
				I32WrapI64
				F64Load $0
				F64Add
				Set F17

				ADD(R9, 4)
				ADD(R11, -1)
				Br $0
			End
			End

			Get F16
			Get R8
			I32WrapI64
			F64Load $0
			Get F17
			F64Mul
			F64Add
			Set F16
		End

		// z[r] = s
		Get R0
		I32WrapI64
		Get F16
		F64Store $0

		ADD(R0, 8)
		ADD(R8, 8)
		ADD(R1, -1)
		Br $0
	End
	End
	RET

// func sparseAxpys(y, c []float64, start []int, col []int32, val []float64, hotCol []int32, hot []float64, hots int)
//
// R0 &y[0], R1 &c[r], R2 rows left, R3 &start[r], R4 &col[0], R5 &val[0],
// R6 k, R7 start[r+1], R8 &y[col[k]], R9 &hotCol[r·hots], R10 hots, R11 the one-hot entries
// left, R12 &hot[r], R13 &hotCol[(r+1)·hots], F16 c[r], F17 c[r]·hot[r].
TEXT ·sparseAxpys(SB), NOSPLIT, $0-176
	MOVD y_base+0(FP), R0
	MOVD c_base+24(FP), R1
	MOVD c_len+32(FP), R2
	MOVD start_base+48(FP), R3
	MOVD col_base+72(FP), R4
	MOVD val_base+96(FP), R5
	MOVD hotCol_base+120(FP), R9
	MOVD hot_base+144(FP), R12
	MOVD hots+168(FP), R10

	Block
	Loop
		Get R2
		I64Eqz
		BrIf $1

		Get R1
		I32WrapI64
		F64Load $0
		Tee F16
		F64Const $(0.0)
		F64Ne
		If
			// k = start[r], R7 = start[r+1]
			Get R3
			I32WrapI64
			I64Load $0
			Set R6
			Get R3
			I32WrapI64
			I64Load $8
			Set R7

			Block
			Loop
				Get R6
				Get R7
				I64GeU
				BrIf $1

				// y[col[k]] += c[r] * val[k]
				Get R0
				Get R4
				Get R6
				I64Const $2
				I64Shl
				I64Add
				COLUMN
				Tee R8
				I32WrapI64
				Get R8
				I32WrapI64
				F64Load $0
				Get F16
				Get R5
				Get R6
				I64Const $3
				I64Shl
				I64Add
				I32WrapI64
				F64Load $0
				F64Mul
				F64Add
				F64Store $0

				ADD(R6, 1)
				Br $0
			End
			End

			// y[j] += c[r]·hot[r] for the row's one-hot columns j, when hots > 0
			Get R10
			I64Eqz
			I32Eqz
			If
				Get F16
				Get R12
				I32WrapI64
				F64Load $0
				F64Mul
				Set F17
				Get R9
				Set R13
				Get R10
				Set R11
				Block
				Loop
					Get R11
					I64Eqz
					BrIf $1

					Get R0
					Get R13
					COLUMN
					Tee R8
					I32WrapI64
					Get R8
					I32WrapI64
					F64Load $0
					Get F17
					F64Add
					F64Store $0

					ADD(R13, 4)
					ADD(R11, -1)
					Br $0
				End
				End
			End
		End

		// R9 += 4·hots
		Get R9
		Get R10
		I64Const $2
		I64Shl
		I64Add
		Set R9
		ADD(R1, 8)
		ADD(R3, 8)
		ADD(R12, 8)
		ADD(R2, -1)
		Br $0
	End
	End
	RET

// func nonZeros(x []float64) int
//
// R0 &x[i], R1 entries left, R2 the count.
TEXT ·nonZeros(SB), NOSPLIT, $0-32
	MOVD x_base+0(FP), R0
	MOVD x_len+8(FP), R1
	I64Const $0
	Set R2

	Block
	Loop
		Get R1
		I64Eqz
		BrIf $1

		// count += x[i] != 0
		Get R2
		Get R0
		I32WrapI64
		F64Load $0
		F64Const $(0.0)
		F64Ne
		I64ExtendI32U
		I64Add
		Set R2

		ADD(R0, 8)
		ADD(R1, -1)
		Br $0
	End
	End

	Get SP
	Get R2
	I64Store ret+24(FP)
	RET

// func compressRowAsm(col []int32, val, row []float64) int
//
// R0 &col[k], R1 &val[k], R2 &row[0], R3 len(row), R4 j, R5 k, F16 row[j].
TEXT ·compressRowAsm(SB), NOSPLIT, $0-80
	MOVD col_base+0(FP), R0
	MOVD val_base+24(FP), R1
	MOVD row_base+48(FP), R2
	MOVD row_len+56(FP), R3
	I64Const $0
	Set R4
	I64Const $0
	Set R5

	Block
	Loop
		Get R4
		Get R3
		I64GeU
		BrIf $1

		Get R2
		Get R4
		I64Const $3
		I64Shl
		I64Add
		I32WrapI64
		F64Load $0
		Tee F16
		F64Const $(0.0)
		F64Ne
		If
			// col[k] = j, val[k] = row[j], k++
			Get R0
			I32WrapI64
			Get R4
			I64Store32 $0
			Get R1
			I32WrapI64
			Get F16
			F64Store $0
			ADD(R0, 4)
			ADD(R1, 8)
			ADD(R5, 1)
		End

		ADD(R4, 1)
		Br $0
	End
	End

	Get SP
	Get R5
	I64Store ret+72(FP)
	RET

// func dotAsm(a, b []float64) float64
//
// R0 &a[i], R1 &b[i], R2 entries left, F16–F19 the accumulators s0–s3.
TEXT ·dotAsm(SB), NOSPLIT, $0-56
	MOVD a_base+0(FP), R0
	MOVD a_len+8(FP), R2
	MOVD b_base+24(FP), R1
	F64Const $(0.0)
	Set F16
	F64Const $(0.0)
	Set F17
	F64Const $(0.0)
	Set F18
	F64Const $(0.0)
	Set F19

	// Blocks of eight: s0 += a0·b0 + a4·b4, s1 += a1·b1 + a5·b5, and so on.
	Block
	Loop
		Get R2
		I64Const $8
		I64LtU
		BrIf $1

		Get F16
		Get R0
		I32WrapI64
		F64Load $0
		Get R1
		I32WrapI64
		F64Load $0
		F64Mul
		Get R0
		I32WrapI64
		F64Load $32
		Get R1
		I32WrapI64
		F64Load $32
		F64Mul
		F64Add
		F64Add
		Set F16
		Get F17
		Get R0
		I32WrapI64
		F64Load $8
		Get R1
		I32WrapI64
		F64Load $8
		F64Mul
		Get R0
		I32WrapI64
		F64Load $40
		Get R1
		I32WrapI64
		F64Load $40
		F64Mul
		F64Add
		F64Add
		Set F17
		Get F18
		Get R0
		I32WrapI64
		F64Load $16
		Get R1
		I32WrapI64
		F64Load $16
		F64Mul
		Get R0
		I32WrapI64
		F64Load $48
		Get R1
		I32WrapI64
		F64Load $48
		F64Mul
		F64Add
		F64Add
		Set F18
		Get F19
		Get R0
		I32WrapI64
		F64Load $24
		Get R1
		I32WrapI64
		F64Load $24
		F64Mul
		Get R0
		I32WrapI64
		F64Load $56
		Get R1
		I32WrapI64
		F64Load $56
		F64Mul
		F64Add
		F64Add
		Set F19

		ADD(R0, 64)
		ADD(R1, 64)
		ADD(R2, -8)
		Br $0
	End
	End

	// The tail into s0.
	Block
	Loop
		Get R2
		I64Eqz
		BrIf $1

		Get F16
		Get R0
		I32WrapI64
		F64Load $0
		Get R1
		I32WrapI64
		F64Load $0
		F64Mul
		F64Add
		Set F16

		ADD(R0, 8)
		ADD(R1, 8)
		ADD(R2, -1)
		Br $0
	End
	End

	// (s0 + s1) + (s2 + s3)
	Get SP
	Get F16
	Get F17
	F64Add
	Get F18
	Get F19
	F64Add
	F64Add
	F64Store ret+48(FP)
	RET

// func axpyAsm(y []float64, c float64, x []float64)
//
// R0 &y[i], R1 &x[i], R2 entries left, F16 c. Each y_i gets one addition, so the order of the
// entries does not change the bits.
TEXT ·axpyAsm(SB), NOSPLIT, $0-56
	MOVD y_base+0(FP), R0
	MOVD x_base+32(FP), R1
	MOVD x_len+40(FP), R2
	Get SP
	F64Load c+24(FP)
	Set F16

	Block
	Loop
		Get R2
		I64Eqz
		BrIf $1

		// y_i += c·x_i
		Get R0
		I32WrapI64
		Get R0
		I32WrapI64
		F64Load $0
		Get F16
		Get R1
		I32WrapI64
		F64Load $0
		F64Mul
		F64Add
		F64Store $0

		ADD(R0, 8)
		ADD(R1, 8)
		ADD(R2, -1)
		Br $0
	End
	End
	RET

// func dotsAsm(z, x, w []float64)
TEXT ·dotsAsm(SB), NOSPLIT, $0-72
	DOTS(X64, 8)

// func dots32Asm(z []float64, x []float32, w []float64)
TEXT ·dots32Asm(SB), NOSPLIT, $0-72
	DOTS(X32, 4)

// func axpysAsm(y, c, x []float64)
TEXT ·axpysAsm(SB), NOSPLIT, $0-72
	AXPYS(X64, 8)

// func axpys32Asm(y, c []float64, x []float32)
TEXT ·axpys32Asm(SB), NOSPLIT, $0-72
	AXPYS(X32, 4)
