package loss

import (
	"math"
	"math/big"

	"github.com/privopt/privopt/pkg/core/geom"
	"github.com/privopt/privopt/pkg/detmath"
	"github.com/privopt/privopt/pkg/interval"
)

// The multinomial loss's rounding bounds (Enclosing), in the model of enclose.go. For a row x
// (‖x‖₂ ≤ A) with exact scores z_c = ⟨W_c, x⟩ and computed ones ẑ_c (each within
// γ_D·A·‖W‖₂ of z_c), the loss ℓ(z) = lse(z) − z_y has ∂ℓ/∂z = p − e_y with ‖p − e_y‖₁ ≤ 2, and
// softmax's Jacobian diag(p) − ppᵀ has ℓ∞→ℓ1 norm at most 2, so the scores' rounding moves
// the value and p by at most 2γ_D·A‖W‖ (in ℓ1 for p). At the computed scores:
//   - the sum ŝ of the K terms Exp(fl(ẑ_c − ẑ_max)) is within a relative ρ_s = 1.01·(tol + γ_K)
//     + K·u/2 of s = Σ e^{ẑ_c − ẑ_max} ≥ 1: a term e^t computed at t(1 + δ) is off by
//     e^t·|t|·u·1.001 ≤ u/e·1.001 (e^{−|t|}|t| ≤ 1/e; for |t| > 2⁴³ both are 0 to 2⁻¹⁰⁷⁴), Exp
//     adds a relative tol, the sum γ_K;
//   - so the computed lse is within Δl = 1.02·(ρ_s + tol·(log K + 1) + u·(|ẑ_max| + log K + 1))
//     of lse(ẑ) (log's argument, log's own tol, the final addition), and the value adds u·|v̂|;
//   - p̂_c = Exp(fl(ẑ_c − l̂)) is p_c(ẑ)·e^{t·δ − Δl}·(1 + tol) with Σ_c p_c|t_c| ≤ K/e + Δl, so
//     ‖p̂ − p(ẑ)‖₁ ≤ 1.02·(K·u/e + Δl + tol), and subtracting 1 for the label adds u;
//   - the row's gradient (p̂ − e_y) ⊗ x is then within κ·A of the exact one, κ the sum of those
//     coefficient errors, and the n axpys and their sum add γ_{n+3}·Σᵢ‖p̂ᵢ − e_{yᵢ}‖₂·A ≤
//     γ_{n+3}·n·(√2 + κ)·A; the division by N a relative u of a gradient of norm ≤ √2·A.
// The values are non-negative (lse ≥ ẑ_max ≥ ẑ_y, and rounding is monotone), so the sum of
// their rounding is γ_{n+3}·N·|v|, as for the linear losses.

// lseError returns Δl for K classes and scores of magnitude at most zmax.
func lseError(k int, zmax float64) float64 {
	const u = 0x1p-53
	kf, logK := float64(k), detmath.Log(float64(k))*(1+0x1p-40)
	rho := 1.01*(scalarTolerance+gamma(k)) + kf*u/2
	return 1.02 * (rho + scalarTolerance*(logK+1) + u*(zmax+logK+1))
}

// MultinomialGradRounding returns floor and perNorm such that the mean gradient the
// multinomial loss over K classes computes at W is within floor + perNorm·‖W‖₂ of the exact
// one, for rows of D features, ℓ2 norm at most A = lip/√2 (lip the loss's Lipschitz constant)
// and at most rows rows (see above).
func MultinomialGradRounding(lip float64, k, d, rows int) (floor, perNorm float64) {
	const u = 0x1p-53
	a := lip / math.Sqrt2 * (1 + 0x1p-50)
	gd, gn := gamma(d), gamma(rows+3)
	kappa0 := 1.02*(float64(k)*u/math.E+lseError(k, 0)+scalarTolerance) + u
	kappa1 := 2*gd*a + 1.02*1.02*u*a*(1+2*gd) // per unit of ‖W‖, through the scores and lse
	floor = a * (kappa0*(1+gn) + gn*math.Sqrt2 + u*math.Sqrt2) * (1 + 0x1p-30)
	perNorm = a * kappa1 * (1 + gn) * (1 + 0x1p-30)
	return floor, perNorm
}

// rowNorm2 bounds the rows' ℓ2 norms.
func (m *Multinomial) rowNorm2() float64 {
	return geom.NormBound(m.b.xBound(), m.b.XNorm, 2, m.d)
}

// Enclosable reports true: the multinomial loss always has its bounds and interval form.
func (m *Multinomial) Enclosable() bool { return true }

// EnclosedMean is Mean (the multinomial loss is smooth).
func (m *Multinomial) EnclosedMean(grad, w []float64) float64 { return m.Mean(grad, w) }

// MeanError returns a bound on |v − (1/N)Σᵢ ℓᵢ(W)| for the value v that Mean returned at W.
func (m *Multinomial) MeanError(w []float64, v float64) float64 {
	const u = 0x1p-53
	a, nw := m.rowNorm2(), norm2(w)
	gd := gamma(m.d)
	scores := gd * a * nw
	perRow := 2*scores + lseError(m.k, a*nw*(1+2*gd))
	rows := float64(m.n) / m.b.divisor(m.n)
	err := rows*perRow*(1+2*gamma(m.n+3)) + gamma(m.n+3)*math.Abs(v)*(1+u)
	return err * (1 + 0x1p-30)
}

// GradError returns a bound on ‖g − (1/N)Σᵢ∇ℓᵢ(W)‖₂ for the gradient g that Mean (or
// EnclosedMean) wrote at W:
// MultinomialGradRounding's bound at ‖W‖₂.
func (m *Multinomial) GradError(w []float64) float64 {
	floor, perNorm := MultinomialGradRounding(math.Sqrt2*m.rowNorm2()*(1+0x1p-50), m.k, m.d, m.n)
	return floor + perNorm*norm2(w)
}

// MeanEnclosure encloses (1/N)Σᵢ ℓᵢ(p₁ + … + p_k), the parts summed exactly, at precision prec,
// as the ends of an interval.I: each row's loss as log Σ_c exp(z_c − z_y).
func (m *Multinomial) MeanEnclosure(prec uint, parts ...[]float64) (lo, hi *big.Int, exp int) {
	return m.meanInterval(prec, parts...).Ends()
}

// meanInterval is MeanEnclosure's interval.
func (m *Multinomial) meanInterval(prec uint, parts ...[]float64) interval.I {
	w := interval.SumParts(prec, m.k*m.d, parts)
	buf := make([]float64, m.d)
	z := make([]interval.I, m.k)
	sum := interval.Point(0, prec)
	for i := range m.n {
		x := denseRow(m.x, m.sparse, i, m.d, buf)
		for c := range z {
			z[c] = dotInterval(w[c*m.d:(c+1)*m.d], x, prec)
		}
		y := int(m.y[i])
		s := interval.Point(0, prec)
		for c := range z {
			s = interval.Add(s, interval.Exp(interval.Sub(z[c], z[y], prec), prec), prec)
		}
		sum = interval.Add(sum, interval.Log(s, prec), prec)
	}
	return divide(sum, m.b.divisor(m.n), prec)
}
