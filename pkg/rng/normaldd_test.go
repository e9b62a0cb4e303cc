package rng

import (
	"math"
	"math/big"
	"testing"

	"github.com/privopt/privopt/internal/stattest"
	"github.com/privopt/privopt/pkg/detmath"
	"github.com/privopt/privopt/pkg/interval"
)

// TestNormalPairDD: the variates follow N(0, 1) (KS on both members and on their sum over
// √2, which is N(0, 1) only if they are independent normals; fixed seed, each test's
// false-failure rate below 1e-4), and each lo is a double-double's low part.
func TestNormalPairDD(t *testing.T) {
	r := Seeded(51)
	n := 6000
	if testing.Short() {
		n = 2000
	}
	a, b, s := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range n {
		ah, al, bh, bl := r.NormalPairDD()
		if math.Abs(al) > 0x1p-52*math.Abs(ah) || math.Abs(bl) > 0x1p-52*math.Abs(bh) {
			t.Fatalf("not double-doubles: %v + %v, %v + %v", ah, al, bh, bl)
		}
		a[i], b[i], s[i] = ah, bh, (ah+bh)/math.Sqrt2
	}
	for name, x := range map[string][]float64{"first": a, "second": b, "sum/√2": s} {
		stattest.KS(t, "NormalPairDD "+name, x, detmath.NormalCDF)
	}
}

// TestNormalPairDDCoupling: replaying the same bits, the exact variates V_k·√(−2 ln S/S) at
// the corners and the centre of the cell (computed at 400 bits) are within NormalDDError of
// the returned double-doubles; a draw that returned the cell's corner instead of its centre,
// or a bound 2⁻⁴⁰ times smaller, would fail.
func TestNormalPairDDCoupling(t *testing.T) {
	const prec = 400
	for seed := range uint64(300) {
		got := make([]float64, 4)
		got[0], got[1], got[2], got[3] = Seeded(seed).NormalPairDD()
		// Replay: draw cells until one lies inside the disk, as NormalPairDD does.
		rep := Seeded(seed)
		var v1, v2 interval.I
		for {
			v1, v2 = rep.normalDDCell(), rep.normalDDCell()
			s := interval.Add(interval.Mul(v1, v1, prec), interval.Mul(v2, v2, prec), prec)
			if s.Hi.Cmp(normalDDOne) < 0 && s.Lo.Cmp(normalDDMinS) >= 0 {
				break
			}
		}
		for _, f := range []float64{0, 0.5, 1} {
			p1, p2 := cellPoint(v1, f), cellPoint(v2, 1-f)
			s := new(big.Float).SetPrec(prec).Mul(p1, p1)
			s.Add(s, new(big.Float).SetPrec(prec).Mul(p2, p2))
			si := interval.FromBig(s, prec)
			fac := interval.Sqrt(interval.Quo(interval.Neg(interval.MulFloat(interval.Log(si, prec), 2, prec)), si, prec), prec)
			for k, p := range []*big.Float{p1, p2} {
				z := interval.Mul(interval.FromBig(p, prec), fac, prec)
				dd := new(big.Float).SetPrec(prec).SetFloat64(got[2*k])
				dd.Add(dd, new(big.Float).SetFloat64(got[2*k+1]))
				bound := new(big.Float).SetFloat64(NormalDDError(got[2*k]))
				lo := new(big.Float).SetPrec(prec).Sub(dd, bound)
				hi := new(big.Float).SetPrec(prec).Add(dd, bound)
				if z.Lo.Cmp(lo) < 0 || z.Hi.Cmp(hi) > 0 {
					t.Fatalf("seed %d, variate %d: the exact value at %g of the cell is off by more than %g", seed, k, f, NormalDDError(got[2*k]))
				}
			}
		}
	}
}

// cellPoint returns the point a fraction f of the way across the cell c (exactly, f ∈ {0, ½, 1}).
func cellPoint(c interval.I, f float64) *big.Float {
	w := new(big.Float).SetPrec(400).Sub(c.Hi, c.Lo)
	w.Mul(w, big.NewFloat(f))
	return w.Add(w, c.Lo)
}
