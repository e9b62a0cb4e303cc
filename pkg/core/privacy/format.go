package privacy

import "strconv"

// The package writes its numbers with strconv rather than fmt: fmt (with reflect and os)
// would add about 200 kB (gzip) to the light curve widget (wasm/widget), which links this
// package and nothing that needs fmt.

// num writes v as fmt's %g does: the shortest text that reads back exactly.
func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// sig writes v with n significant digits, as fmt's %.ng does.
func sig(v float64, n int) string { return strconv.FormatFloat(v, 'g', n, 64) }

// target writes an (ε, δ) target as "(ε = 1, δ = 1e-05)".
func target(eps, delta float64) string { return "(ε = " + num(eps) + ", δ = " + num(delta) + ")" }

// describe writes a guarantee as fmt's %v does: its String, or <nil>.
func describe(c Curve) string {
	if c == nil {
		return "<nil>"
	}
	return c.String()
}
