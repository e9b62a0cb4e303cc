package loss

import (
	"math"
	"math/big"

	"github.com/privopt/privopt/pkg/core/geom"
	"github.com/privopt/privopt/pkg/interval"
)

// The robust loss's rounding bounds (Enclosing), in the model of enclose.go, for the dual
// norms q* = 1, 2 and ∞ (perturbations in ℓ∞, ℓ2 and ℓ1) and a margin loss that Encloses. Mean
// computes m̂ᵢ = yᵢ·⟨xᵢ, w⟩ − ρ·‖w‖_{q*} with the norm once: the dot within γ_D·A·‖w‖₂, the
// norm within a relative γ_{D+4} (a sum of D magnitudes or squares, a square root, geom.Norm's
// rescaling; exact for ∞), the product and the difference within u of their results, so
// |m̂ᵢ − mᵢ| ≤ γ_{D+1}·A·‖w‖₂ + γ_{D+6}·ρ·‖w‖_{q*} = e_m. The value moves by the slope S times
// e_m, the margin loss adds its tolerance, and the sums γ_{n+2}, as for the linear losses.
// The subgradient (1/N)[Σ φ′(m̂ᵢ)yᵢxᵢ − ρ(Σ φ′(m̂ᵢ))·ĝ], ĝ the norm's subgradient, is within
//   - Σᵢ|φ′(m̂ᵢ) − φ′(mᵢ)|·(A + ρ·G₂)/N of the exact one's rows, |φ′(m̂) − φ′(m)| ≤ C·e_m + tol·S
//     for a smooth φ of curvature C (G₂ ≥ ‖g‖₂ for every subgradient g: ‖g‖_q ≤ 1); the
//     hinge's derivative is made exact by EnclosedMean, each correction adding 4u·(A + ρG₂)/N;
//   - ρ·S·‖ĝ − g‖₂ for the norm's subgradient: γ_{D+5} for q* = 2 (w/‖w‖ rounded), 0 for 1
//     and ∞ (signs, and the first largest coordinate, are exact);
//   - γ_{n+4}·S·(A + ρG₂) for the sums, the axpys and the final scaling (n ≤ N rows).

// robustRounding holds what the bounds need of a robust loss.
type robustRounding struct {
	phi        Margin
	a, rho, qd float64 // the rows' ℓ2 bound, ρ and q*
	d, n       int
}

// Enclosable reports whether the bounds and the interval form exist: the margin loss Encloses
// and q* is 1, 2 or ∞.
func (r *Robust) Enclosable() bool {
	return Encloses(r.phi) && (r.qd == 1 || r.qd == 2 || math.IsInf(r.qd, 1))
}

func (r *Robust) rounding() robustRounding {
	return robustRounding{phi: r.phi, a: geom.NormBound(r.b.xBound(), r.b.XNorm, 2, r.d), rho: r.rho, qd: r.qd, d: r.d, n: r.n}
}

// marginError returns e_m and the margins' bound |m| ≤ A‖w‖₂ + ρ‖w‖_{q*}, for ‖w‖₂ = nw2 and
// ‖w‖_{q*} = nwq.
func (k robustRounding) marginError(nw2, nwq float64) (em, zmax float64) {
	em = (gamma(k.d+1)*k.a*nw2 + gamma(k.d+6)*k.rho*nwq) * (1 + 0x1p-30)
	zmax = (k.a*nw2 + k.rho*nwq) * (1 + 0x1p-30)
	return em, zmax
}

// gradError returns the subgradient's bound (above) for ‖w‖₂ = nw2, ‖w‖_{q*} = nwq and the
// margin loss's slope s over the margins.
func (k robustRounding) gradError(nw2, nwq, s float64) float64 {
	em, _ := k.marginError(nw2, nwq)
	rowNorm := k.a + k.rho*geom.NormBound(1, geom.Dual(k.qd), 2, k.d)
	coef := 4 * 0x1p-53 // the hinge: exact derivatives, corrected
	if _, ok := k.phi.(Hinge); !ok {
		coef = k.phi.Curvature()*em + scalarTolerance*s
	}
	sub := 0.0
	if k.qd == 2 {
		sub = k.rho * s * gamma(k.d+5)
	}
	return (coef*rowNorm + sub + gamma(k.n+4)*s*rowNorm) * (1 + 0x1p-30)
}

// RobustGradRounding returns floor and perNorm such that the mean subgradient the robust loss
// computes (EnclosedMean) at w is within floor + perNorm·‖w‖₂ of an exact one, for the margin
// loss phi, ρ = rho, perturbations in ℓq (q ∈ {1, 2, ∞}), rows of ℓ2 norm at most a, d
// coordinates and at most rows rows: the bound above with the slope at its largest and
// ‖w‖_{q*} ≤ NormBound(‖w‖₂, 2, q*, d) (it is affine in the norms).
func RobustGradRounding(phi Margin, a, rho, q float64, d, rows int) (floor, perNorm float64) {
	k := robustRounding{phi: phi, a: a, rho: rho, qd: geom.Dual(q), d: d, n: rows}
	s := phi.Slope(math.Inf(1), 0)
	floor = k.gradError(0, 0, s) * (1 + 0x1p-40)
	if _, ok := phi.(Hinge); !ok {
		em, _ := k.marginError(1, geom.NormBound(1, 2, k.qd, d)*(1+0x1p-40))
		perNorm = phi.Curvature() * em * (k.a + rho*geom.NormBound(1, q, 2, d)) * (1 + 0x1p-30)
	}
	return floor, perNorm
}

// norms returns ‖w‖₂ and ‖w‖_{q*}, enlarged to cover their own rounding.
func (r *Robust) norms(w []float64) (nw2, nwq float64) {
	return norm2(w), geom.Norm(w, r.qd) * (1 + gamma(r.d+4))
}

// MeanError returns a bound on |v − (1/N)Σᵢ ℓᵢ(w)| for the value v that Mean returned at w.
func (r *Robust) MeanError(w []float64, v float64) float64 {
	k := r.rounding()
	em, zmax := k.marginError(r.norms(w))
	rows := float64(r.n) / r.b.divisor(r.n)
	err := rows*r.phi.Slope(zmax, 0)*em + (scalarTolerance+gamma(r.n+2))*math.Abs(v)*(1+scalarTolerance)
	return err * (1 + 0x1p-30)
}

// GradError returns a bound on the distance of the subgradient EnclosedMean wrote at w from a
// subgradient of the exact mean.
func (r *Robust) GradError(w []float64) float64 {
	k := r.rounding()
	nw2, nwq := r.norms(w)
	_, zmax := k.marginError(nw2, nwq)
	return k.gradError(nw2, nwq, r.phi.Slope(zmax, 0))
}

// EnclosedMean is Mean; for the hinge margin loss it then replaces the derivative of every row
// whose computed margin lies within e_m of the kink by the exact one (the margin's side of 1
// decided exactly), as Linear.EnclosedMean does.
func (r *Robust) EnclosedMean(grad, w []float64) float64 {
	v := r.Mean(grad, w)
	if _, ok := r.phi.(Hinge); !ok || grad == nil {
		return v
	}
	em, _ := r.rounding().marginError(r.norms(w))
	nw := geom.NormGrad(r.normGrd, w, r.qd) // Mean's bits
	div := r.b.divisor(r.n)
	for i := range r.n {
		row := denseRow(r.x, r.sparse, i, r.d, r.row)
		y := r.y[i]
		m := y*dot(row, w) - r.rho*nw
		if math.Abs(m-1) > em {
			continue
		}
		_, computed := r.phi.MarginDeriv(m)
		exact := 0.0
		if r.exactMarginBelowOne(row, w, y) {
			exact = -1
		}
		if exact != computed {
			c := (exact - computed) / div
			axpy(grad, c*y, row)
			axpy(grad, -c*r.rho, r.normGrd)
		}
	}
	return v
}

// exactMarginBelowOne reports whether y·⟨x, w⟩ − ρ‖w‖_{q*} < 1 exactly: the dot product and ρ
// are exact in big.Float, ‖w‖₁ and ‖w‖∞ too, and for ‖w‖₂ the comparison t < ρ‖w‖₂,
// t = y⟨x, w⟩ − 1, is decided on squares when t ≥ 0.
func (r *Robust) exactMarginBelowOne(x, w []float64, y float64) bool {
	const prec = 2*exactDotPrec + 200 // products of exact dot products stay exact
	t := exactDot(x, w, prec)
	p := new(big.Float).SetPrec(prec)
	t.Mul(t, big.NewFloat(y))
	t.Sub(t, big.NewFloat(1))
	rho := big.NewFloat(r.rho)
	switch {
	case r.qd == 2:
		if t.Sign() < 0 {
			return true
		}
		s := new(big.Float).SetPrec(prec)
		for _, v := range w {
			p.SetFloat64(v)
			s.Add(s, p.Mul(p, p))
		}
		s.Mul(s, rho)
		s.Mul(s, rho)
		return new(big.Float).SetPrec(prec).Mul(t, t).Cmp(s) < 0
	case r.qd == 1:
		s := new(big.Float).SetPrec(prec)
		for _, v := range w {
			s.Add(s, big.NewFloat(math.Abs(v)))
		}
		return t.Cmp(s.Mul(s, rho)) < 0
	}
	big0 := 0.0
	for _, v := range w {
		big0 = math.Max(big0, math.Abs(v))
	}
	return t.Cmp(new(big.Float).SetPrec(prec).Mul(rho, big.NewFloat(big0))) < 0
}

// MeanEnclosure encloses (1/N)Σᵢ ℓᵢ(p₁ + … + p_k), the parts summed exactly, at precision prec,
// as the ends of an interval.I: each row's loss as φ(y⟨x, w⟩ − ρ‖w‖_{q*}).
func (r *Robust) MeanEnclosure(prec uint, parts ...[]float64) (lo, hi *big.Int, exp int) {
	return r.meanInterval(prec, parts...).Ends()
}

// meanInterval is MeanEnclosure's interval.
func (r *Robust) meanInterval(prec uint, parts ...[]float64) interval.I {
	if !r.Enclosable() {
		panic("loss: MeanEnclosure of a robust loss that is not Enclosable")
	}
	w := interval.SumParts(prec, r.d, parts)
	norm := normInterval(w, r.qd, prec)
	sum := interval.Point(0, prec)
	for i := range r.n {
		z := dotInterval(w, denseRow(r.x, r.sparse, i, r.d, r.row), prec)
		m := interval.Sub(interval.MulFloat(z, r.y[i], prec), interval.MulFloat(norm, r.rho, prec), prec)
		sum = interval.Add(sum, valueInterval(r.phi, m, 1, prec), prec) // φ(m) = s(m, 1)
	}
	return divide(sum, r.b.divisor(r.n), prec)
}

// normInterval encloses ‖w‖_q for q = 1, 2 or ∞ over the box of intervals w.
func normInterval(w []interval.I, q float64, prec uint) interval.I {
	out := interval.Point(0, prec)
	for _, v := range w {
		a := interval.Abs(v)
		switch q {
		case 1:
			out = interval.Add(out, a, prec)
		case 2:
			out = interval.Add(out, interval.Mul(a, a, prec), prec)
		default: // ∞: the largest of the ends
			if a.Lo.Cmp(out.Lo) > 0 {
				out.Lo = a.Lo
			}
			if a.Hi.Cmp(out.Hi) > 0 {
				out.Hi = a.Hi
			}
		}
	}
	if q == 2 {
		return interval.Sqrt(out, prec)
	}
	return out
}
