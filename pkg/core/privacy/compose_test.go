package privacy

import (
	"math"
	"testing"
)

// TestTightest: the tightest of two valid guarantees takes the better at every point, and is
// not composed further.
func TestTightest(t *testing.T) {
	g := GDP{Mu: 1}
	p := ApproxDP{Eps: 2, Del: 1e-9}
	tight := Tightest{g, p}
	for _, eps := range []float64{0, 0.5, 1.9, 2, 3} {
		if got, want := tight.Delta(eps), math.Min(g.Delta(eps), p.Delta(eps)); got != want {
			t.Errorf("δ(%g) = %g, want %g", eps, got, want)
		}
	}
	for _, alpha := range []float64{0, 0.05, 0.5, 1} {
		if got, want := tight.Tradeoff(alpha), math.Max(g.Tradeoff(alpha), p.Tradeoff(alpha)); got != want {
			t.Errorf("T(%g) = %g, want %g", alpha, got, want)
		}
	}
	eg, _ := g.Epsilon(1e-6)
	ep, _ := p.Epsilon(1e-6)
	if got, err := tight.Epsilon(1e-6); err != nil || got != math.Min(eg, ep) {
		t.Errorf("ε(1e-6) = %g (%v), want %g", got, err, math.Min(eg, ep))
	}
	if _, err := Compose(tight, g); err == nil {
		t.Error("a Tightest was composed")
	}
}
