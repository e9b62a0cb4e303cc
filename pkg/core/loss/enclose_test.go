package loss

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/privopt/privopt/pkg/interval"
)

// TestLinearRoundingBounds: for the logistic loss over rows held dense and sparse, with
// parameters of norm up to 10⁴ and a declared public N above n, the computed mean and mean
// gradient are within MeanError and GradError of the exact ones (enclosed at 256 bits), and
// MeanInterval encloses the exact mean tightly; a MeanError 10⁶ times smaller fails.
func TestLinearRoundingBounds(t *testing.T) {
	const prec = 256
	r := rand.New(rand.NewPCG(7, 8))
	sign := func() float64 { return float64(2*r.IntN(2) - 1) }
	for _, sparse := range []bool{false, true} {
		ds := randData(r, 3000, 12, 2, 1, sign)
		if sparse {
			ds = heldSparse(ds, false)
		}
		l, err := NewLinear(Logistic{}, ds, Bounds{X: 1, XNorm: 2, Y: 1, Rows: 3200})
		if err != nil {
			t.Fatal(err)
		}
		if !l.Enclosable() {
			t.Fatal("the logistic loss is not enclosable")
		}
		for trial := range 5 {
			w := randVec(r, 12, math.Pow(10, float64(trial-2)))
			g := make([]float64, 12)
			v := l.Mean(g, w)
			exact := l.MeanInterval(prec, w)
			if w := exact.Width(); w.Cmp(big.NewFloat(1e-60)) > 0 {
				t.Errorf("the enclosure is %v wide", w)
			}
			diff, _ := new(big.Float).Sub(exact.Lo, big.NewFloat(v)).Float64()
			if bound := l.MeanError(w, v); math.Abs(diff) > bound {
				t.Errorf("sparse %v, trial %d: the mean is off by %g, beyond its bound %g", sparse, trial, diff, bound)
			}
			gx := exactGradient(l, w, prec)
			var off float64
			for j := range g {
				off += (g[j] - gx[j]) * (g[j] - gx[j])
			}
			if bound := l.GradError(w); math.Sqrt(off) > bound {
				t.Errorf("sparse %v, trial %d: the gradient is off by %g, beyond its bound %g", sparse, trial, math.Sqrt(off), bound)
			}
		}
	}
}

// exactGradient returns (1/N)Σ −yᵢσ(−yᵢzᵢ)·xᵢ of the logistic loss at w, to about 2⁻²⁰⁰.
func exactGradient(l *Linear, w []float64, prec uint) []float64 {
	sum := make([]interval.I, l.d)
	for j := range sum {
		sum[j] = interval.Point(0, prec)
	}
	row := make([]float64, l.d)
	for i := range l.n {
		x := denseRow(l.x, l.sparse, i, l.d, row)
		z := interval.Point(0, prec)
		for j, v := range x {
			z = interval.Add(z, interval.MulFloat(interval.Point(w[j], prec), v, prec), prec)
		}
		// d/dz log(1 + e^{−yz}) = −y/(1 + e^{yz}).
		den := interval.Add(interval.Point(1, prec), interval.Exp(interval.MulFloat(z, l.y[i], prec), prec), prec)
		c := interval.MulFloat(interval.Quo(interval.Point(1, prec), den, prec), -l.y[i], prec)
		for j, v := range x {
			sum[j] = interval.Add(sum[j], interval.MulFloat(c, v, prec), prec)
		}
	}
	out := make([]float64, l.d)
	for j := range out {
		m := interval.Quo(sum[j], interval.Point(l.b.divisor(l.n), prec), prec)
		out[j], _ = m.Lo.Float64()
	}
	return out
}
