package privacy

import (
	"math"
	"strconv"
	"strings"
)

// The package writes its numbers with strconv rather than fmt: fmt (with reflect and os)
// would add about 200 kB (gzip) to the light curve widget (wasm/widget), which links this
// package and nothing that needs fmt.

// num writes v as fmt's %g does: the shortest text that reads back exactly.
func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// sig writes v with n significant digits, as fmt's %.ng does.
func sig(v float64, n int) string { return strconv.FormatFloat(v, 'g', n, 64) }

// FormatUp writes v with n significant digits, as fmt's %.ng does but rounded up instead of to
// nearest: for a privacy parameter (ε, δ, μ, ρ, a sampler's error), whose printed value must
// not state more privacy than the exact one. A v that is not finite and positive is written as
// %.ng writes it.
func FormatUp(v float64, n int) string {
	s := strconv.FormatFloat(v, 'e', n-1, 64)
	if r, _ := strconv.ParseFloat(s, 64); r >= v || !(v > 0) || math.IsInf(v, 1) {
		return sig(v, n)
	}
	mant, exp, _ := strings.Cut(s, "e")
	m, _ := strconv.Atoi(strings.Replace(mant, ".", "", 1))
	e, _ := strconv.Atoi(exp)
	up, _ := strconv.ParseFloat(strconv.Itoa(m+1)+"e"+strconv.Itoa(e-(n-1)), 64)
	return sig(up, n)
}

// target writes an (ε, δ) target as "(ε = 1, δ = 1e-05)".
func target(eps, delta float64) string { return "(ε = " + num(eps) + ", δ = " + num(delta) + ")" }

// describe writes a guarantee as fmt's %v does: its String, or <nil>.
func describe(c Curve) string {
	if c == nil {
		return "<nil>"
	}
	return c.String()
}
