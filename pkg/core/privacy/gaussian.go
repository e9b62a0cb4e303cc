package privacy

import "math"

// NormalCDF returns Φ(x), the standard normal distribution function, computed as
// erfc(−x/√2)/2 so that the lower tail keeps full relative accuracy.
func NormalCDF(x float64) float64 {
	return 0.5 * math.Erfc(-x/math.Sqrt2)
}

// GaussianDelta returns the tight privacy curve of μ-Gaussian differential privacy
// (Dong, Roth and Su 2019, Corollary 2.13):
//
//	δ(ε) = Φ(−ε/μ + μ/2) − e^ε·Φ(−ε/μ − μ/2).
//
// This is the textbook formula; it loses relative accuracy when δ is tiny (large ε).
func GaussianDelta(mu, eps float64) float64 {
	return NormalCDF(-eps/mu+mu/2) - math.Exp(eps)*NormalCDF(-eps/mu-mu/2)
}
