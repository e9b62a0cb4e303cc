package privacy

import (
	"github.com/privopt/privopt/internal/stattest"
	"testing"
)

// TestIdenticalEverywhere pins a digest of the accountant's results: the test runs natively and
// under js/wasm, and both must give these exact bits (the page and the command line must agree,
// and a seeded release must be bit-identical on both).
func TestIdenticalEverywhere(t *testing.T) {
	dg := stattest.NewDigest()
	put := func(v float64) { dg.Add(v) }
	for _, mu := range testMus {
		g := GDP{Mu: mu}
		for e := 0.0; e < 300; e += 0.77 {
			put(g.Delta(e))
			put(g.LogDelta(e))
		}
		for a := 0.001; a < 1; a += 0.013 {
			put(g.Tradeoff(a))
		}
		for _, d := range []float64{0.1, 1e-6, 1e-40} {
			e, _ := g.Epsilon(d)
			put(e)
		}
	}
	for _, e := range []float64{0.1, 1, 3, 30} {
		mu, _ := CalibrateGDP(e, 1e-6)
		sigma, _ := GaussianSigma(2, e, 1e-9)
		put(mu)
		put(sigma)
		put(PureComposition{Eps: e / 10, K: 20}.Delta(e))
		r, _ := GaussianRDP(0.5).Epsilon(1e-6)
		put(r)
	}
	if got := dg.Sum(); got != 0xdbf9a1bc806ac340 {
		t.Errorf("digest %#x, want the pinned value", got)
	}
}
