package privacy

import (
	"github.com/privopt/privopt/internal/stattest"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

var testMus = []float64{1e-4, 1e-3, 0.05, 0.3, 1, 2.5, 7, 30, 100}

func TestGDPDeltaMonotone(t *testing.T) {
	for _, mu := range testMus {
		g := GDP{Mu: mu}
		prev := g.Delta(-10)
		for eps := -10.0; eps <= 2000; eps += 0.0137 * math.Max(1, eps) {
			d := g.Delta(eps)
			if d > prev || d < 0 || d > 1 || math.IsNaN(d) {
				t.Fatalf("μ=%g: δ(%g) = %g after %g: not non-increasing in [0, 1]", mu, eps, d, prev)
			}
			prev = d
		}
	}
	for _, eps := range []float64{0, 0.5, 3, 40} {
		prev := 0.0
		for mu := 1e-4; mu <= 100; mu *= 1.01 {
			d := GDP{Mu: mu}.Delta(eps)
			if d < prev {
				t.Fatalf("ε=%g: δ decreases from %g to %g at μ=%g", eps, prev, d, mu)
			}
			prev = d
		}
	}
}

func TestGDPEpsilonRoundTrip(t *testing.T) {
	for _, mu := range testMus {
		g := GDP{Mu: mu}
		for _, eps := range []float64{0.001, 0.1, 1, 5, 30, 300, 1999} {
			d := g.Delta(eps)
			if !(d > 1e-300 && d < 1) {
				continue
			}
			back, err := g.Epsilon(d)
			if err != nil {
				t.Fatal(err)
			}
			// δ(ε) is flat where its slope is tiny; the round trip is then only as exact as δ
			// determines ε: compare the δ values instead when ε moves a lot.
			if stattest.RelErr(back, eps) > 1e-9 && stattest.RelErr(g.Delta(back), d) > 1e-12 {
				t.Errorf("μ=%g: ε(δ(%g)) = %g", mu, eps, back)
			}
			if g.Delta(back) > d {
				t.Errorf("μ=%g: ε(δ(%g)) = %g has δ = %g > %g", mu, eps, back, g.Delta(back), d)
			}
		}
	}
}

func TestGDPTradeoffShape(t *testing.T) {
	for _, mu := range testMus {
		g := GDP{Mu: mu}
		prevA, prevT, prevSlope := 0.0, 1.0, math.Inf(-1)
		for a := 1e-3; a < 1; a += 1e-3 {
			tv := g.Tradeoff(a)
			slope := (tv - prevT) / (a - prevA)
			if tv > prevT || tv < 0 {
				t.Fatalf("μ=%g: T(%g) = %g after %g: not non-increasing", mu, a, tv, prevT)
			}
			if slope < prevSlope-1e-6*math.Max(1, math.Abs(prevSlope)) && prevA > 0 {
				t.Fatalf("μ=%g: T is not convex at α=%g (slope %g after %g)", mu, a, slope, prevSlope)
			}
			if tv > 1-a+1e-15 {
				t.Fatalf("μ=%g: T(%g) = %g is above perfect privacy 1 − α", mu, a, tv)
			}
			// Symmetry: T(T(α)) = α.
			if back := g.Tradeoff(tv); math.Abs(back-a) > 1e-9 && tv > 1e-300 {
				t.Fatalf("μ=%g: T(T(%g)) = %g", mu, a, back)
			}
			prevA, prevT, prevSlope = a, tv, slope
		}
	}
}

// The profile and the tradeoff function of μ-GDP are dual; tradeoffFromProfile recovers T
// from δ(ε), never above it (it is a lower bound) and close to it.
func TestTradeoffFromProfileIsConservative(t *testing.T) {
	for _, mu := range []float64{0.2, 1, 3} {
		g := GDP{Mu: mu}
		for _, a := range []float64{1e-4, 0.01, 0.1, 0.3, 0.6, 0.9} {
			exact, dual := g.Tradeoff(a), tradeoffFromProfile(g, a)
			if dual > exact*(1+1e-9)+1e-15 {
				t.Errorf("μ=%g α=%g: dual %g above the exact %g", mu, a, dual, exact)
			}
			if exact-dual > 1e-3*exact+1e-9 {
				t.Errorf("μ=%g α=%g: dual %g far below the exact %g", mu, a, dual, exact)
			}
		}
	}
}

func TestCalibrationNeverAboveDelta(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		eps := math.Pow(10, -2+4*r.Float64())
		delta := math.Pow(10, -300*r.Float64())
		if delta >= 1 {
			continue
		}
		mu, err := CalibrateGDP(eps, delta)
		if err != nil {
			t.Fatalf("CalibrateGDP(%g, %g): %v", eps, delta, err)
		}
		if d := (GDP{Mu: mu}).Delta(eps); d > delta {
			t.Fatalf("CalibrateGDP(%g, %g) = %g gives δ = %g", eps, delta, mu, d)
		}
		// And it is the largest: a μ larger by 1e-9 relative breaks the budget, unless δ is
		// so flat in μ that doubles cannot tell.
		if up := mu * (1 + 1e-9); (GDP{Mu: up}).Delta(eps) <= delta && (GDP{Mu: up}).LogDelta(eps)-math.Log(delta) < -1e-12 {
			t.Fatalf("CalibrateGDP(%g, %g) = %g is not the largest μ", eps, delta, mu)
		}
		sigma, err := GaussianSigma(3, eps, delta)
		if err != nil {
			t.Fatal(err)
		}
		if d := (GDP{Mu: 3 / sigma}).Delta(eps); d > delta {
			t.Fatalf("GaussianSigma(3, %g, %g) = %g gives δ = %g", eps, delta, sigma, d)
		}
	}
}

func TestInvalidInputs(t *testing.T) {
	for _, mu := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		if _, err := NewGDP(mu); err == nil {
			t.Errorf("NewGDP(%g) accepted", mu)
		}
	}
	for _, d := range []float64{0, 1, -0.1, 1.5, math.NaN()} {
		if _, err := (GDP{Mu: 1}).Epsilon(d); err == nil {
			t.Errorf("Epsilon(%g) accepted", d)
		}
		if _, err := CalibrateGDP(1, d); err == nil {
			t.Errorf("CalibrateGDP(1, %g) accepted", d)
		}
	}
	for _, e := range []float64{-1, math.NaN(), math.Inf(1)} {
		if _, err := CalibrateGDP(e, 1e-5); err == nil {
			t.Errorf("CalibrateGDP(%g, 1e-5) accepted", e)
		}
		if _, err := NewPureDP(e); err == nil {
			t.Errorf("NewPureDP(%g) accepted", e)
		}
	}
	if _, err := GaussianSigma(0, 1, 1e-5); err == nil {
		t.Error("GaussianSigma with zero sensitivity accepted")
	}
}

// roundedUp reports whether got is a δ evaluated and rounded up as deltaUp does: at least the
// closed form want (computed to a few ulps), and within 3·relSlack of it.
func roundedUp(got, want float64) bool {
	return got >= want*(1-1e-15) && stattest.RelErr(got, want) <= 3*relSlack
}

func TestPureDP(t *testing.T) {
	p := PureDP{Eps: 1.5}
	for _, e := range []float64{-2, 0, 0.7, 1.49} {
		want := math.Exp(e) * math.Expm1(1.5-e) / (1 + math.Exp(1.5))
		if got := p.Delta(e); !roundedUp(got, want) {
			t.Errorf("δ(%g) = %g, want %g rounded up", e, got, want)
		}
	}
	if p.Delta(1.5) != 0 || p.Delta(9) != 0 {
		t.Error("pure DP has δ > 0 at ε′ ≥ ε")
	}
	for _, d := range []float64{1e-12, 1e-3, 0.2, 0.6} {
		e, err := p.Epsilon(d)
		if err != nil || p.Delta(e) > d || (e > 0 && p.Delta(e*(1-1e-9)) <= d) {
			t.Errorf("Epsilon(%g) = %g, %v (δ there %g)", d, e, err, p.Delta(e))
		}
	}
	// The tradeoff function of ε-DP is the dual of its profile.
	for _, a := range []float64{0, 0.05, 0.18, 0.5, 0.9, 1} {
		if got, dual := p.Tradeoff(a), tradeoffFromProfile(p, a); math.Abs(got-dual) > 1e-6 {
			t.Errorf("T(%g) = %g, dual of the profile %g", a, got, dual)
		}
	}
}

func TestApproxDP(t *testing.T) {
	a := ApproxDP{Eps: 1, Del: 1e-3}
	if a.Delta(1) != 1e-3 || a.Delta(5) != 1e-3 {
		t.Error("δ(ε′) must be δ for ε′ ≥ ε")
	}
	if got, want := a.Delta(0), 1e-3+(1-1e-3)*(math.E-1)/(1+math.E); !roundedUp(got, want) {
		t.Errorf("δ(0) = %g, want %g rounded up", got, want)
	}
	for _, alpha := range []float64{0, 0.01, 0.2, 0.5, 0.99} {
		if got, dual := a.Tradeoff(alpha), tradeoffFromProfile(a, alpha); math.Abs(got-dual) > 1e-6 {
			t.Errorf("T(%g) = %g, dual of the profile %g", alpha, got, dual)
		}
	}
	if _, err := a.Epsilon(1e-4); err == nil {
		t.Error("an (ε, 1e-3) guarantee reached δ = 1e-4")
	}
	if e, err := a.Epsilon(1e-3); err != nil || e != 1 {
		t.Errorf("Epsilon(δ) = %g, %v; want ε = 1", e, err)
	}
}

func TestRDPConversions(t *testing.T) {
	for _, mu := range []float64{0.1, 0.5, 1, 3} {
		g := GDP{Mu: mu}
		for _, delta := range []float64{1e-3, 1e-6, 1e-12, 1e-50} {
			exact, _ := g.Epsilon(delta)
			cks := GaussianRDP(mu)
			std := GaussianRDP(mu)
			std.Conversion = Standard
			eCKS, _ := cks.Epsilon(delta)
			eStd, _ := std.Epsilon(delta)
			// Closed form of the standard conversion for a linear curve: ρ + 2√(ρ log(1/δ)).
			rho := mu * mu / 2
			closed := rho + 2*math.Sqrt(rho*math.Log(1/delta))
			if stattest.RelErr(eStd, closed) > 1e-12 {
				t.Errorf("μ=%g δ=%g: standard conversion %g, closed form %g", mu, delta, eStd, closed)
			}
			if !(exact <= eCKS && eCKS <= eStd) {
				t.Errorf("μ=%g δ=%g: want exact %g ≤ CKS %g ≤ standard %g", mu, delta, exact, eCKS, eStd)
			}
			// The converted profile is an upper bound on the exact one.
			for _, e := range []float64{0.1, 1, 5} {
				if cks.Delta(e) < g.Delta(e)*(1-1e-12) {
					t.Errorf("μ=%g: converted δ(%g) = %g below the exact %g", mu, e, cks.Delta(e), g.Delta(e))
				}
			}
		}
	}
	// Langevin: the whole trajectory has the Rényi curve of μ-GDP with μ = βΔ√(t/2).
	l := LangevinRDP(2, 0.01, 50)
	if got, want := l.Eps(3), 3*math.Pow(2*0.01*math.Sqrt(25), 2)/2; stattest.RelErr(got, want) > 1e-14 {
		t.Errorf("Langevin RDP at α=3: %g, want %g", got, want)
	}
}

func TestPureRDPIsRandomizedResponse(t *testing.T) {
	for _, eps := range []float64{0.01, 0.5, 2, 10} {
		for _, a := range []float64{1.01, 1.5, 2, 8, 100} {
			// Mironov 2017, Proposition 10, in the sinh form.
			want := math.Log((math.Sinh(a*eps)-math.Sinh((a-1)*eps))/math.Sinh(eps)) / (a - 1)
			if got := pureRDP(eps, a); stattest.RelErr(got, want) > 1e-9 && !math.IsInf(want, 0) {
				t.Errorf("pure RDP ε=%g α=%g: %g, want %g", eps, a, got, want)
			}
			if got := pureRDP(eps, a); got > eps || got > a*eps*eps/2*(1+1e-12) {
				t.Errorf("pure RDP ε=%g α=%g: %g exceeds min(ε, αε²/2)", eps, a, got)
			}
		}
	}
}

func TestComposeGDP(t *testing.T) {
	c, err := ComposeGDP(0.3, 0.4)
	if err != nil || stattest.RelErr(c.Mu, 0.5) > 1e-15 || c.Mu < 0.5 {
		t.Errorf("ComposeGDP(0.3, 0.4) = %v, %v; want 0.5 (not below)", c, err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		a, b, d := r.Float64()*3, r.Float64()*3, r.Float64()*3
		ab, _ := ComposeGDP(a, b)
		left, _ := ComposeGDP(ab.Mu, d)
		bd, _ := ComposeGDP(b, d)
		right, _ := ComposeGDP(a, bd.Mu)
		if stattest.RelErr(left.Mu, right.Mu) > 2e-15 {
			t.Fatalf("composition is not associative: %g vs %g", left.Mu, right.Mu)
		}
	}
	via, err := Compose(GDP{Mu: 1}, GDP{Mu: 2})
	if g, ok := via.(GDP); err != nil || !ok || stattest.RelErr(g.Mu, math.Sqrt(5)) > 1e-15 {
		t.Errorf("Compose of two GDP: %v, %v", via, err)
	}
}

// TestPureComposition compares the optimal composition with the privacy-loss distribution of
// k-fold randomized response, enumerated term by term.
func TestPureComposition(t *testing.T) {
	for _, tc := range []struct {
		eps float64
		k   int
	}{{0.125, 1}, {0.125, 8}, {0.5, 7}, {1, 30}, {0.01, 500}} { // 0.125·k: losses exact in floating point
		pc := PureComposition{Eps: tc.eps, K: tc.k}
		p := math.Exp(tc.eps) / (1 + math.Exp(tc.eps))
		for _, e := range []float64{0, 0.1, 0.5, 1, 3} {
			want := 0.0
			for i := 0; i <= tc.k; i++ {
				loss := tc.eps * float64(tc.k-2*i)
				if loss <= e {
					continue
				}
				lb, _ := math.Lgamma(float64(tc.k + 1))
				l1, _ := math.Lgamma(float64(i + 1))
				l2, _ := math.Lgamma(float64(tc.k - i + 1))
				prob := math.Exp(lb - l1 - l2 + float64(tc.k-i)*math.Log(p) + float64(i)*math.Log1p(-p))
				want += prob * (1 - math.Exp(e-loss))
			}
			// Rounded up past its rounding: at k = 500, log C(k, i)'s bound costs 1e-11.
			if got := pc.Delta(e); got < want*(1-1e-13) || math.Abs(got-want) > 1e-10*math.Max(want, 1e-300) && math.Abs(got-want) > 1e-300 {
				t.Errorf("%d-fold %g-DP: δ(%g) = %.15g, want %.15g rounded up", tc.k, tc.eps, e, got, want)
			}
			// Never above the basic bound.
			if basic := (PureDP{Eps: tc.eps * float64(tc.k)}).Delta(e); pc.Delta(e) > basic*(1+1e-12) {
				t.Errorf("%d-fold %g-DP: δ(%g) = %g above basic composition %g", tc.k, tc.eps, e, pc.Delta(e), basic)
			}
		}
	}
	// The double 0.1 times 10 is above 1 (by 5.6e-17): ten 0.1-DP mechanisms are not 1-DP
	// (δ(1) = 8.8e-20 exactly), where 0.125 times 8 is exactly 1.
	if tenth := (PureComposition{Eps: 0.1, K: 10}); !(tenth.Total() > 1) || !(tenth.Delta(1) >= 8.8e-20) {
		t.Errorf("ten 0.1-DP: total ε %v, δ(1) = %g", tenth.Total(), tenth.Delta(1))
	}
	if eighth := (PureComposition{Eps: 0.125, K: 8}); eighth.Total() != 1 || eighth.Delta(1) != 0 {
		t.Errorf("eight 0.125-DP: total ε %v, δ(1) = %g", eighth.Total(), eighth.Delta(1))
	}
	c, _ := Compose(PureDP{Eps: 0.2}, PureDP{Eps: 0.2}, PureComposition{Eps: 0.2, K: 3})
	if pc, ok := c.(PureComposition); !ok || pc.K != 5 {
		t.Errorf("Compose of five 0.2-DP mechanisms gave %v", c)
	}
}

func TestMixedComposition(t *testing.T) {
	m, err := Compose(GDP{Mu: 0.5}, PureDP{Eps: 0.3}, ApproxDP{Eps: 0.1, Del: 1e-7})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := m.(Mixed); !ok {
		t.Fatalf("got %T", m)
	}
	// Each rule is an upper bound: the composition is never better than a part alone, and
	// never better than composing the exact GDP with the others' worst case.
	for _, e := range []float64{0.5, 1, 2, 4} {
		d := m.Delta(e)
		if d < (GDP{Mu: 0.5}).Delta(e) || d < 1e-7 {
			t.Errorf("mixed δ(%g) = %g is below a part's δ", e, d)
		}
	}
	// Heterogeneous pure parts: at Σε the composition is exactly private.
	h, _ := Compose(PureDP{Eps: 0.2}, PureDP{Eps: 0.5})
	if d := h.Delta(0.7 * (1 + 1e-12)); d != 0 {
		t.Errorf("0.2-DP ∘ 0.5-DP has δ(0.7) = %g, want 0", d)
	}
	if d, bound := h.Delta(0.3), (PureDP{Eps: 0.7}).Delta(0.3); d > bound {
		t.Errorf("0.2-DP ∘ 0.5-DP: δ(0.3) = %g above the basic bound %g", d, bound)
	}
	if _, err := Compose(); err == nil {
		t.Error("empty composition accepted")
	}
	// Composing a composition keeps every part: as many Gaussian parts as arguments do not
	// make it Gaussian (it dropped the pure part), directly or through Parallel.
	inner, _ := Compose(GDP{Mu: 1}, PureDP{Eps: 1})
	flat, _ := Compose(GDP{Mu: 1}, PureDP{Eps: 1}, GDP{Mu: 1})
	twice, _ := Compose(inner, GDP{Mu: 1})
	par, _ := Compose(Parallel{inner, GDP{Mu: 0.5}}, GDP{Mu: 1})
	for _, c := range []Curve{twice, par} {
		if got, want := c.Delta(2), flat.Delta(2); got < want {
			t.Errorf("%s: δ(2) = %g, below the flat composition's %g", c, got, want)
		}
	}
}

func TestSamplerError(t *testing.T) {
	g := GDP{Mu: 0.5}
	const tv = 1e-9
	w, err := FoldSamplerError(g, tv)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []float64{0, 0.5, 1, 3, 10, 25} {
		// Brute force: the running minimum of δ(ε′) + (1 + e^ε′)τ over a fine grid of ε′ ≤ ε.
		want := math.Inf(1)
		for i := 0; i <= 20000; i++ {
			ep := e * float64(i) / 20000
			want = math.Min(want, g.Delta(ep)+(1+math.Exp(ep))*tv)
		}
		got := w.Delta(e)
		if got > want*(1+1e-9) || got < want*(1-1e-4) {
			t.Errorf("folded δ(%g) = %g, brute force %g", e, got, want)
		}
		if got < g.Delta(e) {
			t.Errorf("folded δ(%g) = %g below the exact mechanism's %g", e, got, g.Delta(e))
		}
	}
	dm, tau, err := SplitDelta(1, 1e-6, 0.1)
	if err != nil || dm+(1+math.E)*tau > 1e-6 || stattest.RelErr(dm, 0.9e-6) > 1e-11 { // room for two relSlack
		t.Errorf("SplitDelta: %g, %g, %v", dm, tau, err)
	}
	// Where e^ε overflows, an error says so (it gave δ = NaN).
	for _, eps := range []float64{709, 710, 730, 1e6} {
		dm, tau, err := SplitDelta(eps, 1e-6, 0.1)
		if overflow := eps > 709.78; (err != nil) != overflow || err == nil && !(dm > 0 && tau > 0 && dm+(1+math.Exp(eps))*tau <= 1e-6) {
			t.Errorf("SplitDelta at ε = %g: %g, %g, %v", eps, dm, tau, err)
		}
	}
	// Composition adds the errors.
	c, _ := Compose(w, WithSamplerError{Base: GDP{Mu: 0.5}, TV: 2e-9})
	if ws, ok := c.(WithSamplerError); !ok || stattest.RelErr(ws.TV, 3e-9) > 1e-15 {
		t.Errorf("composed sampler errors: %v", c)
	}
	if _, err := FoldSamplerError(g, -1); err == nil {
		t.Error("negative TV accepted")
	}
}

// TestExtremeInputsNeverNaN: outside the range where accuracy is promised, results stay
// defined (no NaN, δ in [0, 1]) and errors are reported, never a NaN or a zero σ.
func TestExtremeInputsNeverNaN(t *testing.T) {
	mus := []float64{1e-300, 1e-100, 1e-6, 1, 1e6, 1e100, 1e300}
	epss := []float64{-1e300, -50, 0, 1, 50, 1e10, 1e300}
	for _, mu := range mus {
		g := GDP{Mu: mu}
		for _, e := range epss {
			if d := g.Delta(e); math.IsNaN(d) || d < 0 || d > 1 {
				t.Errorf("δ(μ=%g, ε=%g) = %g", mu, e, d)
			}
			if ld := g.LogDelta(e); math.IsNaN(ld) || ld > 0 {
				t.Errorf("log δ(μ=%g, ε=%g) = %g", mu, e, ld)
			}
		}
		for _, a := range []float64{0, 1e-300, 0.3, 1 - 1e-16, 1} {
			if v := g.Tradeoff(a); math.IsNaN(v) || v < 0 || v > 1 {
				t.Errorf("T(μ=%g, α=%g) = %g", mu, a, v)
			}
		}
		for _, d := range []float64{1e-300, 0.5, 1 - 1e-9} {
			if e, err := g.Epsilon(d); err == nil && (math.IsNaN(e) || e < 0) {
				t.Errorf("ε(μ=%g, δ=%g) = %g", mu, d, e)
			}
		}
	}
	for _, mus := range [][]float64{{1e-200}, {1e-200, 1e-200}, {1e200, 1e200}, {1e-300, 1e300}} {
		c, err := ComposeGDP(mus...)
		exact := 0.0
		top := 0.0
		for _, m := range mus {
			top = math.Max(top, m)
		}
		for _, m := range mus {
			exact += (m / top) * (m / top)
		}
		exact = top * math.Sqrt(exact)
		if err != nil || !(c.Mu >= exact) || stattest.RelErr(c.Mu, exact) > 1e-15 {
			t.Errorf("ComposeGDP(%v) = %v, %v; want %g, rounded up", mus, c, err, exact)
		}
	}
	if _, err := ComposeGDP(1.5e308, 1.5e308); err == nil {
		t.Error("an overflowing composition was accepted")
	}
	if s, err := GaussianSigma(1e-300, 1e300, 0.9999999); err == nil {
		t.Errorf("GaussianSigma underflowed to %g without an error", s)
	}
}

// TestTradeoffsMatchTradeoff: Tradeoffs gives every α the bits of Tradeoff(α), for
// guarantees whose tradeoff function is closed-form and for those computed from a profile,
// alone and inside Tightest and WithSamplerError (where it shares the profile's grid).
func TestTradeoffsMatchTradeoff(t *testing.T) {
	mixed, err := Compose(GDP{Mu: 0.5}, PureDP{Eps: 0.3}, ApproxDP{Eps: 0.1, Del: 1e-7})
	if err != nil {
		t.Fatal(err)
	}
	rdp, err := ZCDP(0.05)
	if err != nil {
		t.Fatal(err)
	}
	pure := PureComposition{Eps: 0.2, K: 7}
	alphas := []float64{-0.5, 0, 1e-9, 0.01, 0.05, 0.3, 0.5, 0.9, 1 - 1e-12, 1, 1.5}
	for _, c := range []Curve{GDP{Mu: 1}, ApproxDP{Eps: 1, Del: 1e-6}, mixed, rdp, pure,
		Tightest{mixed, GDP{Mu: 0.8}}, WithSamplerError{Base: mixed, TV: 1e-9},
		Tightest{WithSamplerError{Base: rdp, TV: 1e-10}, pure}, Parallel{rdp, GDP{Mu: 0.8}}} {
		got := Tradeoffs(c, alphas)
		for i, a := range alphas {
			if want := c.Tradeoff(a); math.Float64bits(got[i]) != math.Float64bits(want) {
				t.Errorf("%v at α = %g: Tradeoffs %v, Tradeoff %v", c, a, got[i], want)
			}
		}
	}
}

// TestEpsilonOfLargeBudgets: the ε of a composition near the largest budget the mechanisms
// take (mech's MaxEpsilon, 1e6) is found, and is at least its pure part's ε: the search for
// it stopped at 2¹⁹ before, so releases above ε ≈ 5e5 failed when their statement was written.
func TestEpsilonOfLargeBudgets(t *testing.T) {
	for _, eps := range []float64{4e5, 9e5, 1e6} {
		c, err := Compose(GDP{Mu: 1}, PureDP{Eps: eps})
		if err != nil {
			t.Fatal(err)
		}
		if e, err := c.Epsilon(1e-6); err != nil || !(e >= eps && e < eps+20) || !(c.Delta(e) <= 1e-6) {
			t.Errorf("pure %g composed with 1-GDP: ε(1e-6) = %v, %v", eps, e, err)
		}
	}
}

// TestWeakBudget: a budget warns of δ not far below 1/n and of ε above 10, and of nothing else.
func TestWeakBudget(t *testing.T) {
	for _, tc := range []struct {
		b    Budget
		n    int
		want []string
	}{
		{Budget{Epsilon: 1, Delta: 1e-6}, 1000, nil},
		{Budget{Epsilon: 1, Delta: 1e-3}, 1000, []string{"δ = 0.001 is not small next to 1/n = 1/1000"}},
		{Budget{Epsilon: 1, Delta: 1e-3}, 0, nil}, // n unknown
		{Budget{Epsilon: 50, Delta: 0}, 10, []string{"ε = 50 says little", "e^ε ≈ 5.185e+21"}},
	} {
		got := strings.Join(tc.b.Weak(tc.n), " | ")
		if (got == "") != (tc.want == nil) {
			t.Errorf("%+v, n = %d: %q", tc.b, tc.n, got)
		}
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%+v, n = %d: %q lacks %q", tc.b, tc.n, got, w)
			}
		}
	}
}
