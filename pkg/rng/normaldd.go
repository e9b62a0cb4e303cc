package rng

import (
	"math"
	"math/big"

	"github.com/privopt/privopt/pkg/interval"
)

// Normal variates in double-double precision, coupled with exact ones (Marsaglia's polar
// method, evaluated with interval arithmetic).
//
// The exact method: V = (V₁, V₂) uniform on [−1, 1)², rejected unless S = V₁² + V₂² < 1; then
// Z_k = V_k·√(−2·ln S/S), k = 1, 2, are independent N(0, 1) variates.
//
// The computation: each V_k is drawn with 192 random bits, which fix a cell of width 2⁻¹⁹¹
// holding the exact V_k (uniform in it); S and Z_k are enclosed over the whole cell with
// interval arithmetic at 256 bits (pkg/interval). When the cell lies outside the disk, the exact
// method rejects too, and both draw again; when it lies inside and S ≥ 2⁻¹⁵⁰ on it, both
// accept, and the exact Z_k lies in the enclosure, whose midpoint is returned as hi + lo (the
// double-double nearest to it). The coupling fails only when the cell meets the circle or
// S < 2⁻¹⁵⁰ on it (probability below 2⁻¹⁴⁸ per attempt, 2⁻¹⁴⁰ per call with its expected 4/π
// attempts); the draw then starts again, which changes the law by at most that.
//
// Width: on S ≥ 2⁻¹⁵⁰ the map V ↦ Z has gradient at most √(−2 ln S/S)·(1 + 1/|ln S|) < 2⁸³,
// so an enclosure over a cell of diameter 2⁻¹⁹⁰·⁵ is narrower than 2⁻¹⁰⁷ plus the 256-bit
// rounding; the draw checks it against 2⁻¹⁰¹·(1 + |Z|) (failing, and drawing again, were it
// ever wider). With the double-double's own rounding (2⁻¹⁰⁶·|Z|), every returned variate is
// within NormalDDError of its exact one.

const (
	normalDDBits = 192 // random bits of each coordinate of V
	normalDDPrec = 200 // precision of the enclosures
)

// NormalDDFailure bounds the probability that one NormalPairDD call's variates are not within
// NormalDDError of the exact variates coupled with them.
const NormalDDFailure = 0x1p-140

// NormalDDError returns 2⁻⁹⁹·(1 + |z|), a bound on |hi + lo − Z| for a variate hi + lo of
// NormalPairDD and its coupled exact N(0, 1) variate Z (z may be hi).
func NormalDDError(z float64) float64 { return 0x1p-99 * (1 + math.Abs(z)) }

var (
	normalDDCellWidth = new(big.Float).SetMantExp(big.NewFloat(1), 1-normalDDBits)
	normalDDMinS      = new(big.Float).SetMantExp(big.NewFloat(1), -150)
	normalDDOne       = big.NewFloat(1)
)

// NormalPairDD returns two independent standard normal variates, each as an unevaluated sum
// hi + lo of two float64 values, within NormalDDError of exact N(0, 1) variates coupled with
// them, except with probability NormalDDFailure. It is deterministic for a seeded stream and
// costs about 1.3 attempts of six Uint64 draws and a 256-bit logarithm; Normal is far faster
// where no precision beyond float64 is needed.
func (r *Rand) NormalPairDD() (aHi, aLo, bHi, bLo float64) {
	const prec = normalDDPrec
	for {
		v1, v2 := r.normalDDCell(), r.normalDDCell()
		s := interval.Add(interval.Mul(v1, v1, prec), interval.Mul(v2, v2, prec), prec)
		if s.Lo.Cmp(normalDDOne) >= 0 {
			continue // outside the disk: the exact method rejects too
		}
		if s.Hi.Cmp(normalDDOne) >= 0 || s.Lo.Cmp(normalDDMinS) < 0 {
			continue // the coupling's failure event
		}
		// √(−2·ln S/S), positive since S < 1.
		f := interval.Sqrt(interval.Quo(interval.Neg(interval.MulFloat(interval.Log(s, prec), 2, prec)), s, prec), prec)
		z1, ok1 := normalDDMid(interval.Mul(v1, f, prec))
		z2, ok2 := normalDDMid(interval.Mul(v2, f, prec))
		if ok1 && ok2 {
			return z1[0], z1[1], z2[0], z2[1]
		}
	}
}

// normalDDCell returns the cell [2M·2⁻¹⁹² − 1, 2(M + 1)·2⁻¹⁹² − 1] of V = 2U − 1 for the
// 192-bit integer M of three draws.
func (r *Rand) normalDDCell() interval.I {
	m := new(big.Float).SetPrec(normalDDPrec).SetUint64(r.src.Uint64())
	for range normalDDBits/64 - 1 {
		m.SetMantExp(m, 64)
		m.Add(m, new(big.Float).SetPrec(normalDDPrec).SetUint64(r.src.Uint64()))
	}
	m.SetMantExp(m, 1-normalDDBits) // 2M·2⁻¹⁹², exact
	lo := new(big.Float).SetPrec(normalDDPrec).Sub(m, normalDDOne)
	hi := new(big.Float).SetPrec(normalDDPrec).Add(lo, normalDDCellWidth)
	return interval.I{Lo: lo, Hi: hi}
}

// normalDDMid returns the double-double nearest the midpoint of z, and false when z is wider
// than 2⁻¹⁰¹·(1 + |midpoint|).
func normalDDMid(z interval.I) ([2]float64, bool) {
	mid := new(big.Float).SetPrec(normalDDPrec+1).Add(z.Lo, z.Hi)
	mid.SetMantExp(mid, -1)
	hi, _ := mid.Float64()
	rest := new(big.Float).SetPrec(normalDDPrec+1).Sub(mid, new(big.Float).SetFloat64(hi))
	lo, _ := rest.Float64()
	width, _ := new(big.Float).Sub(z.Hi, z.Lo).Float64()
	return [2]float64{hi, lo}, width <= 0x1p-101*(1+math.Abs(hi))
}
