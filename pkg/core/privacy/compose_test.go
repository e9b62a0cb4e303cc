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

// TestParallelCopies: composing k copies of one two-part Parallel gives one curve per multiset
// of its parts, k + 1, each the composition of that multiset with the other parts; when every
// part has a Rényi bound, it gives instead k copies of that bound, which is at least as bad as
// the multisets' worst; and with a sampler's error inside, every value of the curve and of its
// tradeoff function is in [0, 1] (δ(+∞) was NaN).
func TestParallelCopies(t *testing.T) {
	r, err := ZCDP(0.2)
	if err != nil {
		t.Fatal(err)
	}
	w := WithSamplerError{Base: GDP{Mu: 0.7}, TV: 1e-12}
	if d := w.Delta(math.Inf(1)); !(d >= 0 && d <= 1) {
		t.Fatalf("δ(+∞) = %v", d)
	}
	extra := GDP{Mu: 0.3}
	multisets := func(a, b Curve) Parallel {
		var out Parallel
		for _, m := range [][]Curve{{a, a, a}, {a, a, b}, {a, b, b}, {b, b, b}} {
			c, err := Compose(append(m, extra)...)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, c)
		}
		return out
	}
	pure := PureDP{Eps: 0.3}
	par := Parallel{pure, w} // no Rényi bound for the pure part: the multisets
	composed, err := Compose(par, extra, par, par)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := composed.(Parallel)
	if want := multisets(pure, w); !ok || len(got) != len(want) {
		t.Fatalf("composed %v", composed)
	} else {
		for j := range want {
			for _, eps := range []float64{0.5, 2, 5} {
				if a, b := got[j].Delta(eps), want[j].Delta(eps); a != b {
					t.Errorf("part %d: δ(%g) = %g, want %g", j, eps, a, b)
				}
			}
		}
	}
	par = Parallel{r, w} // Rényi and GDP with a sampler's error: the Rényi bound
	bound, err := Compose(par, extra, par, par)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := bound.(Parallel); ok {
		t.Fatalf("three copies of %v composed by multisets", par)
	}
	exact := multisets(r, w)
	for _, eps := range []float64{0.5, 2, 5, 10} {
		if b, e := bound.Delta(eps), exact.Delta(eps); !(b >= e) || b > 1 {
			t.Errorf("δ(%g): the Rényi bound %g, the multisets' worst %g", eps, b, e)
		}
	}
	for _, c := range []Curve{composed, bound} {
		for _, a := range []float64{0, 0.3, 1} {
			if v := c.Tradeoff(a); !(v >= 0 && v <= 1) {
				t.Errorf("%v: T(%g) = %v", c, a, v)
			}
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
