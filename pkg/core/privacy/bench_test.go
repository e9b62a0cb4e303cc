package privacy

import "testing"

var sink float64

// BenchmarkCalibrateGDP measures one calibration (docs/benchmarks.md's target: ≤ 100 µs in wasm).
func BenchmarkCalibrateGDP(b *testing.B) {
	for b.Loop() {
		mu, _ := CalibrateGDP(1, 1e-6)
		sink += mu
	}
}

// BenchmarkGaussianSigma measures the analytic Gaussian mechanism's σ.
func BenchmarkGaussianSigma(b *testing.B) {
	for b.Loop() {
		s, _ := GaussianSigma(1, 0.5, 1e-10)
		sink += s
	}
}

// BenchmarkCurve200 measures a 200-point privacy curve δ(ε) (docs/benchmarks.md's target: ≤ 1 ms in wasm).
func BenchmarkCurve200(b *testing.B) {
	g := GDP{Mu: 0.7}
	for b.Loop() {
		for i := range 200 {
			sink += g.Delta(float64(i) * 0.05)
		}
	}
}

// BenchmarkTradeoff200 measures a 200-point tradeoff curve T(α).
func BenchmarkTradeoff200(b *testing.B) {
	g := GDP{Mu: 0.7}
	for b.Loop() {
		for i := range 200 {
			sink += g.Tradeoff(float64(i) / 199)
		}
	}
}

// BenchmarkEpsilon measures ε(δ) of μ-GDP.
func BenchmarkEpsilon(b *testing.B) {
	g := GDP{Mu: 0.7}
	for b.Loop() {
		e, _ := g.Epsilon(1e-9)
		sink += e
	}
}
