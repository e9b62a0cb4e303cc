// Package rng is where every random number privopt draws comes from.
//
// # Sources
//
// A Rand wraps a Source (one method, Uint64, as in math/rand/v2). New returns the Rand for
// private releases: ChaCha8 keyed from the operating system's CSPRNG (crypto.getRandomValues in
// the browser) and rekeyed from it every ReseedPeriod outputs. Seeded(seed) returns a
// reproducible Rand for tests and demos; Seeded() reports true for it, and a release made with
// it must carry NotPrivateLabel ("seeded: not private"). Split derives independent streams for
// parallel chains, deterministically for a seeded Rand. A Rand is not safe for concurrent use.
//
// # Distributions
//
// Continuous: Float64, Normal and Exp (256-layer ziggurats with committed tables), Laplace,
// Gamma (Marsaglia–Tsang for every shape > 0), Poisson (all means up to 2^52), and vectors
// filled in place without allocating: NormalVec, UnitSphere, UnitBall, LpBall
// (Barthe–Guédon–Mendelson–Naor) and L2Laplace (uniform direction × Gamma(d, b) radius). Each
// method's comment
// states its method and its exactness; invalid parameters give an error wrapping ErrInvalid,
// never a panic or a NaN.
//
// # Floating-point-safe release noise
//
// A float64 sample of continuous noise added to a value leaks the value through its low-order
// bits (Mironov 2012), so a value a mechanism releases should go through Grid.Release: the
// value is rounded to the grid 2^−k·Z, exact integer noise is added (DiscreteGaussian or
// DiscreteLaplace, sampled as in Canonne–Kamath–Steinke 2020 with exact rational arithmetic
// and no floating point in any sampling decision), and the result is an exact float64. The
// rounding inflates the sensitivity (Grid.L2Sensitivity: Δ + g·√d; Grid.L1Sensitivity:
// Δ + g·d), and Grid.Release states exactly which guarantee the release has and what the
// accountant must be given: ρ-zCDP for the discrete Gaussian (not the continuous Gaussian's
// μ-GDP), pure ε-DP for the discrete Laplace. The continuous samplers (including L2Laplace)
// are for sampling inside algorithms, not for released values.
//
// # Reproducibility
//
// A seeded stream is bit-identical natively (amd64) and under js/wasm: the ziggurat tables are
// committed as exact float64 literals, and exp and log are computed by portable functions
// instead of math.Exp and math.Log (which are assembly on amd64 and differ from the wasm
// versions in the last bit). TestGoldenStreams pins the first values of every sampler and runs
// on both platforms. The exception: platforms whose compiler fuses x*y+z into one instruction
// (arm64), where results may differ in the last bit.
package rng
