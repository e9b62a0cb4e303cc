package loss

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/privopt/privopt/pkg/interval"
)

// TestLinearRoundingBounds: for the logistic and smoothed hinge losses and the Huber loss over
// rows held dense and sparse, with parameters of norm up to 10² and a declared public N above
// n, the computed mean and mean gradient are within MeanError and GradError of the exact ones
// (enclosed at 256 bits), and MeanInterval encloses the exact mean tightly; a MeanError 10⁶
// times smaller fails.
func TestLinearRoundingBounds(t *testing.T) {
	const prec = 256
	r := rand.New(rand.NewPCG(7, 8))
	sign := func() float64 { return float64(2*r.IntN(2) - 1) }
	target := func() float64 { return 2*r.Float64() - 1 }
	for _, c := range []struct {
		s      Scalar
		sparse bool
	}{{Logistic{}, false}, {Logistic{}, true}, {SmoothHinge{H: 0.5}, true}, {Huber{Delta: 0.7}, false}} {
		label := sign
		if _, ok := c.s.(Huber); ok {
			label = target
		}
		n := 3000
		if testing.Short() {
			n = 800
		}
		ds := randData(r, n, 12, 2, 1, label)
		sparse := c.sparse
		if sparse {
			ds = heldSparse(ds, false)
		}
		l, err := NewLinear(c.s, ds, Bounds{X: 1, XNorm: 2, Y: 1, Rows: 3200})
		if err != nil {
			t.Fatal(err)
		}
		if !l.Enclosable() {
			t.Fatalf("%T is not enclosable", c.s)
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
				t.Errorf("%T, sparse %v, trial %d: the mean is off by %g, beyond its bound %g", c.s, sparse, trial, diff, bound)
			}
			gx := exactGradient(l, w, prec)
			var off float64
			for j := range g {
				off += (g[j] - gx[j]) * (g[j] - gx[j])
			}
			if bound := l.GradError(w); math.Sqrt(off) > bound {
				t.Errorf("%T, sparse %v, trial %d: the gradient is off by %g, beyond its bound %g", c.s, sparse, trial, math.Sqrt(off), bound)
			}
		}
	}
}

// exactGradient returns (1/N)Σ s′(zᵢ, yᵢ)·xᵢ at w, to about 2⁻²⁰⁰: the logistic derivative
// −y/(1 + e^{yz}) enclosed, the others' piecewise-linear derivatives in 256-bit arithmetic.
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
		var c interval.I
		y := l.y[i]
		switch s := l.s.(type) {
		case Logistic:
			den := interval.Add(interval.Point(1, prec), interval.Exp(interval.MulFloat(z, y, prec), prec), prec)
			c = interval.MulFloat(interval.Quo(interval.Point(1, prec), den, prec), -y, prec)
		case SmoothHinge: // y·φ′(y·z), φ′(m) = max(−1, min(0, −(1 − m)/H))
			u := new(big.Float).SetPrec(prec).Sub(big.NewFloat(1), new(big.Float).Mul(z.Lo, big.NewFloat(y)))
			d := new(big.Float).SetPrec(prec).Quo(u, big.NewFloat(s.H))
			d.Neg(d)
			if d.Cmp(big.NewFloat(-1)) < 0 {
				d.SetFloat64(-1)
			}
			if d.Sign() > 0 {
				d.SetFloat64(0)
			}
			d.Mul(d, big.NewFloat(y))
			c = interval.FromBig(d, prec)
		case Huber: // clamp(z − y, −Δ, Δ)
			d := new(big.Float).SetPrec(prec).Sub(z.Lo, big.NewFloat(y))
			if d.Cmp(big.NewFloat(s.Delta)) > 0 {
				d.SetFloat64(s.Delta)
			}
			if d.Cmp(big.NewFloat(-s.Delta)) < 0 {
				d.SetFloat64(-s.Delta)
			}
			c = interval.FromBig(d, prec)
		}
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
