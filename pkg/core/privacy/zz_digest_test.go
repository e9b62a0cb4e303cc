package privacy

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"testing"
)

func TestTmpDigest(t *testing.T) {
	h := fnv.New64a()
	put := func(x float64) {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(x))
		h.Write(b[:])
	}
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
	for _, e := range []float64{0.1, 1, 3} {
		m, _ := CalibrateGDP(e, 1e-6)
		put(m)
		put(math.Exp(e * 1.1))
		put(math.Log(e * 7.3))
	}
	t.Logf("digest %x", h.Sum64())
}
