package sampler

import (
	"math"

	"github.com/privopt/privopt/pkg/detmath"
	"github.com/privopt/privopt/pkg/rng"
)

// truncCap bounds the proposals of one truncated-normal draw. Every branch of stdTruncNormal
// accepts with probability at least truncMinAcceptance for every interval (checked in the
// tests against the exact acceptance), so a draw reaches the cap with probability at most
// (1 − truncMinAcceptance)^truncCap < 1e-96; the sampler counts that in its error.
const (
	truncCap           = 1000
	truncMinAcceptance = 0.2
)

// truncFailure bounds the probability that one truncated-normal draw reaches its cap.
var truncFailure = detmath.Pow(1-truncMinAcceptance, truncCap)

// truncNormal draws from N(mu, s²) restricted to [lo, hi] (lo < hi; either may be infinite)
// and reports whether it reached its cap (then it returns the nearest end of the interval to mu).
func truncNormal(r *rng.Rand, mu, s, lo, hi float64) (float64, bool) {
	if math.IsInf(lo, -1) && math.IsInf(hi, 1) {
		return mu + s*r.Normal(), false
	}
	z, ok := stdTruncNormal(r, (lo-mu)/s, (hi-mu)/s)
	x := mu + s*z
	if !ok {
		x = math.Min(math.Max(mu, lo), hi)
	}
	return math.Min(math.Max(x, lo), hi), !ok // rounding may step just outside
}

// stdTruncNormal draws from N(0, 1) restricted to [a, b], a < b, by one of three exact
// rejection methods, and reports success (false when the cap was reached):
//   - the interval contains 0 and is longer than 1, so it holds at least Φ(1) − Φ(0) = 0.34
//     of the mass: propose N(0, 1);
//   - it contains 0 and is at most 1 long: propose uniformly, accept with φ(z)/φ(0) ≥ e^{−1/2};
//   - it lies in one tail (by symmetry, a ≥ 0): uniformly when (b − a)(b + a) ≤ 2, accepting
//     with exp((a² − z²)/2); otherwise Robert's (1995) exponential proposal a + Exp(λ) with
//     λ = (a + √(a² + 4))/2, accepting with exp(−(z − λ)²/2) and rejecting z > b.
func stdTruncNormal(r *rng.Rand, a, b float64) (float64, bool) {
	if b <= 0 {
		z, ok := stdTruncNormal(r, -b, -a)
		return -z, ok
	}
	if a < 0 {
		if b-a > 1 {
			for range truncCap {
				if z := r.Normal(); z >= a && z <= b {
					return z, true
				}
			}
			return 0, false
		}
		for range truncCap {
			z := a + (b-a)*r.Float64()
			if r.Float64() <= detmath.ExpNegHalfSquare(z) {
				return z, true
			}
		}
		return 0, false
	}
	if (b-a)*(b+a) <= 2 {
		for range truncCap {
			z := a + (b-a)*r.Float64()
			if r.Float64() <= detmath.Exp((a-z)*(a+z)/2) {
				return z, true
			}
		}
		return 0, false
	}
	lambda := (a + math.Sqrt(a*a+4)) / 2
	for range truncCap {
		z := a + r.Exp()/lambda
		if z <= b && r.Float64() <= detmath.ExpNegHalfSquare(z-lambda) {
			return z, true
		}
	}
	return 0, false
}
