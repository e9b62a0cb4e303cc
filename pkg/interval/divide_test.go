package interval

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestQuoSqrt: Quo and Sqrt enclose the 400-bit quotients and roots at the ends of random
// intervals and of points, and a root of a point is a few ulps wide at 128 bits.
func TestQuoSqrt(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const prec = 128
	for range 2000 {
		x := math.Ldexp(r.Float64()-0.3, r.IntN(40)-20)
		h := math.Abs(x) * r.Float64() * 1e-3
		y := math.Ldexp(0.1+r.Float64(), r.IntN(40)-20)
		a := I{big.NewFloat(x), big.NewFloat(x + h)}
		b := I{big.NewFloat(y), big.NewFloat(y * (1 + 1e-3))}
		q := Quo(a, b, prec)
		for _, c := range [][2]float64{{x, y}, {x + h, y}, {x, y * (1 + 1e-3)}, {x + h, y * (1 + 1e-3)}} {
			exact := new(big.Float).SetPrec(400).Quo(big.NewFloat(c[0]), big.NewFloat(c[1]))
			if q.Lo.Cmp(exact) > 0 || q.Hi.Cmp(exact) < 0 {
				t.Fatalf("Quo(%v, %v) = [%v, %v] misses %v", a, b, q.Lo, q.Hi, exact)
			}
		}
		if x >= 0 {
			s := Sqrt(a, prec)
			exact := new(big.Float).SetPrec(400).Sqrt(new(big.Float).SetPrec(400).SetFloat64(x))
			if s.Lo.Cmp(exact) > 0 {
				t.Fatalf("Sqrt(%v).Lo = %v exceeds √%g", a, s.Lo, x)
			}
			if hi := new(big.Float).SetPrec(400).Sqrt(new(big.Float).SetPrec(400).SetFloat64(x + h)); s.Hi.Cmp(hi) < 0 {
				t.Fatalf("Sqrt(%v).Hi = %v is below √%g", a, s.Hi, x+h)
			}
			p := Sqrt(Point(x, prec), prec)
			if x > 0 {
				rel, _ := new(big.Float).Quo(p.Width(), exact).Float64()
				if rel > 0x1p-108 {
					t.Fatalf("Sqrt of a point is %g wide (relative)", rel)
				}
			}
		}
		pt := Quo(Point(x, prec), Point(y, prec), prec)
		exact := new(big.Float).SetPrec(400).Quo(big.NewFloat(x), big.NewFloat(y))
		if pt.Lo.Cmp(exact) > 0 || pt.Hi.Cmp(exact) < 0 {
			t.Fatalf("Quo(%g, %g) = [%v, %v] misses %v", x, y, pt.Lo, pt.Hi, exact)
		}
	}
}
