package privacy

import (
	"math"
	"testing"
)

// TestParallel: the worst of two guarantees takes the worse at every point, its ε(δ) is the
// smallest ε whose δ(ε) is at most δ, its tradeoff function lies below both parts', and
// composition distributes over it.
func TestParallel(t *testing.T) {
	g := GDP{Mu: 1}
	r, err := ZCDP(0.3)
	if err != nil {
		t.Fatal(err)
	}
	worst := Parallel{g, r}
	crossed := false
	for _, eps := range []float64{0, 0.1, 0.5, 1, 2, 3, 5} {
		dg, dr := g.Delta(eps), r.Delta(eps)
		crossed = crossed || dg > dr
		if got, want := worst.Delta(eps), math.Max(dg, dr); got != want {
			t.Errorf("δ(%g) = %g, want %g", eps, got, want)
		}
	}
	if !crossed || g.Delta(0.1) > r.Delta(0.1) {
		t.Fatal("the test's curves must cross, so that each is the worse somewhere")
	}
	for _, delta := range []float64{1e-3, 1e-6, 1e-9} {
		e, err := worst.Epsilon(delta)
		if err != nil {
			t.Fatal(err)
		}
		if d := worst.Delta(e); d > delta*(1+1e-9) {
			t.Errorf("δ(ε(%g) = %g) = %g", delta, e, d)
		}
		if d := worst.Delta(e * (1 - 1e-6)); d <= delta {
			t.Errorf("ε(%g) = %g is not the smallest: δ just below it is %g", delta, e, d)
		}
	}
	for _, alpha := range []float64{0, 0.01, 0.1, 0.5, 1} {
		if got := worst.Tradeoff(alpha); got > math.Min(g.Tradeoff(alpha), r.Tradeoff(alpha))+1e-12 {
			t.Errorf("T(%g) = %g, above a part's", alpha, got)
		}
	}
	composed, err := Compose(GDP{Mu: 0.5}, worst)
	if err != nil {
		t.Fatal(err)
	}
	first, _ := Compose(g, GDP{Mu: 0.5})
	second, _ := Compose(r, GDP{Mu: 0.5})
	for _, eps := range []float64{0, 0.5, 1, 3} {
		if got, want := composed.Delta(eps), math.Max(first.Delta(eps), second.Delta(eps)); got != want {
			t.Errorf("composed δ(%g) = %g, want %g", eps, got, want)
		}
	}
}

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
