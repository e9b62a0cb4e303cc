package loss

import (
	"math"
	"math/big"

	"github.com/privopt/privopt/pkg/core/geom"
	"github.com/privopt/privopt/pkg/interval"
)

// What the floating-point-safe sampler (pkg/sampler, safe.go) needs from a loss: bounds on
// the rounding of its computed means, valid for every dataset the bounds admit, and an
// enclosure of the exact mean at a point given as a sum of float vectors.
//
// The bounds follow the standard model |fl(a ∘ b) − a ∘ b| ≤ u·|a ∘ b|, u = 2⁻⁵³, in which any
// sum of k terms, in any order or grouping (the kernels unroll and chunk), is within
// γ_k·Σ|terms| of the exact sum, γ_k = k·u/(1 − k·u). For a mean (1/N)·Σᵢ s(zᵢ, yᵢ) with
// zᵢ = ⟨aᵢ, w⟩ over n ≤ N rows of ℓ2 norm at most A:
//   - the computed prediction ẑᵢ is within γ_D·Σⱼ|aᵢⱼwⱼ| ≤ γ_D·A·‖w‖ of zᵢ (Cauchy–Schwarz);
//   - the loss moves by at most S·|ẑᵢ − zᵢ|, S the loss's slope over |z| ≤ A‖w‖(1 + γ_D);
//   - the scalar loss's own evaluation is within scalarTolerance·|s| (relative) of its exact
//     value at ẑᵢ (detmath's functions are tested to about 2⁻⁵², the tolerance is 2⁻⁴⁰);
//   - the sum of the n values and the division by N add γ_{n+1}·Σ|values|.
// The losses are non-negative, so Σ|values| = N·v for the computed mean v (up to the bounds'
// own rounding, covered by a relative 2⁻³⁰). The gradient (1/N)Σ s′(ẑᵢ)·aᵢ is bounded the same
// way, with the curvature C of s in place of S (|s′(ẑ) − s′(z)| ≤ C·|ẑ − z|) and
// ‖Σᵢ cᵢaᵢ‖ ≤ Σᵢ|cᵢ|·A for the rounding of the n axpys and their sum.

// scalarTolerance bounds the relative error of a scalar loss's computed value and derivative.
const scalarTolerance = 0x1p-40

// gamma returns γ_k rounded up.
func gamma(k int) float64 {
	ku := float64(k) * 0x1p-53
	return ku / (1 - ku) * (1 + 0x1p-40)
}

// rowNorm2 bounds the rows' ℓ2 norms.
func (l *Linear) rowNorm2() float64 {
	return geom.NormBound(l.b.xBound(), l.b.XNorm, 2, l.d)
}

// norm2 returns ‖w‖₂ enlarged to cover its own rounding.
func norm2(w []float64) float64 {
	s := 0.0
	for _, v := range w {
		s += v * v
	}
	return math.Sqrt(s) * (1 + float64(len(w)+2)*0x1p-52)
}

// Enclosing is a loss whose computed means have rigorous rounding bounds and whose exact mean
// has an interval form, which is what the floating-point-safe sampler needs: *Linear (when
// its scalar loss Encloses), *Multinomial, and *Robust (when its margin loss Encloses and its
// perturbations are in ℓ1, ℓ2 or ℓ∞).
type Enclosing interface {
	Loss
	// Enclosable reports whether the bounds and the interval form exist for this loss.
	Enclosable() bool
	// MeanError bounds |v − (1/N)Σᵢ ℓᵢ(w)| for the value v that Mean returned at w.
	MeanError(w []float64, v float64) float64
	// EnclosedMean is Mean, with the gradient's terms made exact where rounding could have
	// moved a prediction across a kink of the loss (the hinge's; elsewhere it is Mean).
	EnclosedMean(grad, w []float64) float64
	// GradError bounds the distance ‖g − ∇‖₂ of the gradient g that EnclosedMean wrote at w
	// from a (sub)gradient ∇ of the exact mean (1/N)Σᵢ ℓᵢ at w.
	GradError(w []float64) float64
	// MeanEnclosure encloses the exact mean at p₁ + … + p_k (the parts summed exactly) at
	// precision prec, as the ends of an interval.I.
	MeanEnclosure(prec uint, parts ...[]float64) (lo, hi *big.Int, exp int)
}

var (
	_ Enclosing = (*Linear)(nil)
	_ Enclosing = (*Multinomial)(nil)
	_ Enclosing = (*Robust)(nil)
)

// Enclosable reports whether the loss can enclose its mean (MeanEnclosure) and bound its
// gradient's rounding: its scalar loss has an interval form (Encloses).
func (l *Linear) Enclosable() bool { return Encloses(l.s) }

// Encloses reports whether s has an interval form for MeanEnclosure and a bounded gradient
// rounding: the logistic, smoothed hinge, Huber and squared losses, which are smooth, and the
// hinge loss, whose kink EnclosedMean treats exactly. (A concrete check, not an interface
// method: an interval in an interface's method set would keep big.Float's formatting code in
// the WebAssembly binary.) Their computed values and derivatives are within a few 2⁻⁵³ of the
// exact ones at the rounded prediction, relatively (each branch is a handful of operations on
// 1 − m or z − y, each rounded relatively; where rounding moves a value across a branch's
// end, the branches agree there to first order — for the hinge's value too), far inside
// scalarTolerance.
func Encloses(s Scalar) bool {
	switch s.(type) {
	case Logistic, SmoothHinge, Huber, Squared, Hinge:
		return true
	}
	return false
}

// valueInterval encloses {s(z, y) : z ∈ zi} for a scalar loss that Encloses.
func valueInterval(s Scalar, zi interval.I, y float64, prec uint) interval.I {
	switch s := s.(type) {
	case Logistic:
		return interval.Log1pExp(interval.MulFloat(zi, -y, prec), prec)
	case Hinge:
		// max(0, 1 − m) is non-increasing in the margin m = y·z.
		u := interval.Sub(interval.Point(1, prec), interval.MulFloat(zi, y, prec), prec)
		zero := new(big.Float)
		if u.Lo.Sign() < 0 {
			u.Lo = zero
		}
		if u.Hi.Sign() < 0 {
			u.Hi = zero
		}
		return u
	case SmoothHinge:
		// φ is non-increasing in the margin m = y·z: the ends of the image are φ at the
		// margin's ends, each enclosed at that point.
		m := interval.MulFloat(zi, y, prec)
		lo := smoothHingeAt(s, m.Hi, prec).Lo
		hi := smoothHingeAt(s, m.Lo, prec).Hi
		return interval.I{Lo: lo, Hi: hi}
	case Squared:
		// (z − y)²/2 is convex with its minimum 0 at z = y, as the Huber loss below.
		r := interval.Sub(zi, interval.Point(y, prec), prec)
		return convexImage(r, func(x *big.Float) interval.I {
			xi := interval.FromBig(x, prec)
			return interval.MulFloat(interval.Mul(xi, xi, prec), 0.5, prec)
		})
	case Huber:
		r := interval.Sub(zi, interval.Point(y, prec), prec)
		return convexImage(r, func(x *big.Float) interval.I { return huberAt(s, x, prec) })
	}
	panic("loss: no interval form for this scalar loss")
}

// convexImage encloses {ψ(r) : r ∈ ri} for a convex ψ ≥ 0 with ψ(0) = 0, given enclosures of
// ψ at points (at): the image's top is at an end, its bottom at the end nearer 0, or 0 when
// the interval holds 0.
func convexImage(r interval.I, at func(*big.Float) interval.I) interval.I {
	a, b := at(r.Lo), at(r.Hi)
	top := a.Hi
	if b.Hi.Cmp(top) > 0 {
		top = b.Hi
	}
	switch {
	case r.Lo.Sign() >= 0:
		return interval.I{Lo: a.Lo, Hi: top}
	case r.Hi.Sign() <= 0:
		return interval.I{Lo: b.Lo, Hi: top}
	}
	return interval.I{Lo: new(big.Float), Hi: top}
}

// smoothHingeAt encloses φ(m) for the smoothed hinge at the exact point m.
func smoothHingeAt(s SmoothHinge, m *big.Float, prec uint) interval.I {
	u := interval.Sub(interval.Point(1, prec), interval.FromBig(m, prec), prec) // exact enough: an enclosure
	h := interval.Point(s.H, prec)
	quad := interval.Quo(interval.Mul(u, u, prec), interval.MulFloat(h, 2, prec), prec)
	lin := interval.Sub(u, interval.MulFloat(h, 0.5, prec), prec)
	zero := interval.Point(0, prec)
	// φ(u) is 0, u²/(2H) or u − H/2 according to u ≤ 0, 0 < u < H, u ≥ H; where u's enclosure
	// meets a branch's end, the hull of both branches there holds the value (φ is continuous).
	var out *interval.I
	hull := func(v interval.I) {
		if out == nil {
			out = &v
			return
		}
		if v.Lo.Cmp(out.Lo) < 0 {
			out.Lo = v.Lo
		}
		if v.Hi.Cmp(out.Hi) > 0 {
			out.Hi = v.Hi
		}
	}
	hb := new(big.Float).SetFloat64(s.H)
	if u.Lo.Sign() <= 0 {
		hull(zero)
	}
	if u.Hi.Sign() > 0 && u.Lo.Cmp(hb) < 0 {
		hull(quad)
	}
	if u.Hi.Cmp(hb) >= 0 {
		hull(lin)
	}
	return *out
}

// huberAt encloses the Huber loss at the exact point r.
func huberAt(s Huber, r *big.Float, prec uint) interval.I {
	ri := interval.FromBig(r, prec)
	d := s.Delta
	if new(big.Float).Abs(r).Cmp(new(big.Float).SetFloat64(d)) <= 0 {
		return interval.MulFloat(interval.Mul(ri, ri, prec), 0.5, prec)
	}
	abs := ri
	if r.Sign() < 0 {
		abs = interval.Neg(ri)
	}
	return interval.MulFloat(interval.Sub(abs, interval.Point(d/2, prec), prec), d, prec)
}

// MeanError returns a bound on |v − (1/N)Σᵢ ℓᵢ(w)| for the value v that Mean returned at w.
func (l *Linear) MeanError(w []float64, v float64) float64 {
	a, nw := l.rowNorm2(), norm2(w)
	gd := gamma(l.d)
	slope := l.s.Slope(a*nw*(1+2*gd), l.b.Y)
	rows := float64(l.n) / l.b.divisor(l.n)
	err := rows*slope*gd*a*nw + (scalarTolerance+gamma(l.n+2))*math.Abs(v)*(1+scalarTolerance)
	return err * (1 + 0x1p-30)
}

// GradError returns a bound on ‖g − ∇‖₂ for the gradient g that EnclosedMean (or, for a smooth
// scalar loss, Mean or MeanGrad) wrote at w and a (sub)gradient ∇ of the exact mean:
// GradRounding's bound at ‖w‖₂ for a smooth scalar loss, HingeGradRounding's for the hinge,
// +Inf otherwise.
func (l *Linear) GradError(w []float64) float64 {
	if _, ok := l.s.(Hinge); ok {
		return HingeGradRounding(l.rowNorm2(), l.d, l.n)
	}
	a, nw := l.rowNorm2(), norm2(w)
	slope := l.s.Slope(a*nw*(1+2*gamma(l.d)), l.b.Y)
	floor, perNorm := GradRounding(slope*a, l.s.Curvature()*a*a, l.d, l.n)
	return floor + perNorm*nw
}

// GradRounding returns floor and perNorm such that the mean gradient a linear loss computes at
// w is within floor + perNorm·‖w‖₂ of the exact one, for a loss with slope bound lip/A and
// curvature beta/A² (lip and beta its Lipschitz and smoothness constants in ℓ2 for rows of ℓ2
// norm at most A), d coordinates and at most rows rows: the predictions' rounding
// γ_d·A·‖w‖ moves each derivative by at most its curvature times that, each derivative is
// within scalarTolerance of its exact value at the rounded prediction, and the n axpys and
// their sum add γ_{n+3}·Σ|derivatives|·A (see above).
func GradRounding(lip, beta float64, d, rows int) (floor, perNorm float64) {
	if math.IsInf(beta, 1) {
		return math.Inf(1), math.Inf(1)
	}
	floor = (scalarTolerance + gamma(rows+3)) * (1 + scalarTolerance) * lip * (1 + 0x1p-30)
	perNorm = beta * gamma(d) * (1 + 0x1p-30)
	return floor, perNorm
}

// HingeGradRounding returns a bound on the distance of the mean gradient that EnclosedMean
// computes for the hinge loss (Lipschitz constant lip in ℓ2, d coordinates, at most rows rows)
// from a subgradient of the exact mean: every row's derivative is the exact one's (−y or 0), so
// only the sums round (GradRounding with no curvature), and each of at most rows corrections
// adds at most 4u·lip/N (a coefficient ±1/N rounded, an axpy).
func HingeGradRounding(lip float64, d, rows int) float64 {
	floor, _ := GradRounding(lip, 0, d, rows)
	return (floor + 4*0x1p-53*lip) * (1 + 0x1p-30)
}

// EnclosedMean is Mean; for the hinge loss it then replaces the derivative of every row whose
// computed margin lies within the predictions' rounding bound (γ_D·A·‖w‖₂) of the kink m = 1
// by the exact one — the margin's side of 1 decided exactly, 0 at m = 1 as Hinge.Deriv — so
// that every row's term is exact before the sums round.
func (l *Linear) EnclosedMean(grad, w []float64) float64 {
	v := l.Mean(grad, w)
	if _, ok := l.s.(Hinge); !ok || grad == nil {
		return v
	}
	tol := gamma(l.d) * l.rowNorm2() * norm2(w) * (1 + 0x1p-30)
	div := l.b.divisor(l.n)
	var zb [rowBlock]float64
	buf := make([]float64, l.d)
	for lo := 0; lo < l.n; lo += rowBlock {
		z := zb[:min(rowBlock, l.n-lo)]
		l.predictions(z, w, lo) // Mean's bits
		for k, zk := range z {
			i, y := lo+k, l.y[lo+k]
			if math.Abs(y*zk-1) > tol {
				continue
			}
			row := denseRow(l.x, l.sparse, i, l.d, buf)
			_, computed := Hinge{}.Deriv(zk, y)
			exact := 0.0
			if exactMarginBelowOne(row, w, y) {
				exact = -y
			}
			if exact != computed {
				axpy(grad, (exact-computed)/div, row)
			}
		}
	}
	return v
}

// exactMarginBelowOne reports whether y·⟨x, w⟩ < 1 exactly (exactDot).
func exactMarginBelowOne(x, w []float64, y float64) bool {
	s := exactDot(x, w, exactDotPrec)
	return s.Mul(s, big.NewFloat(y)).Cmp(big.NewFloat(1)) < 0
}

// exactDotPrec is a precision at which sums of products of float64s are exact: they are
// multiples of 2⁻²¹⁴⁸ below D·2²⁰⁴⁸ in magnitude.
const exactDotPrec = 4400

// exactDot returns ⟨x, w⟩ exactly, as a big.Float of precision prec ≥ exactDotPrec.
func exactDot(x, w []float64, prec uint) *big.Float {
	s := new(big.Float).SetPrec(prec)
	p := new(big.Float).SetPrec(prec)
	for j, v := range x {
		if v != 0 && w[j] != 0 {
			p.SetFloat64(v)
			s.Add(s, p.Mul(p, big.NewFloat(w[j])))
		}
	}
	return s
}

// MeanEnclosure encloses (1/N)Σᵢ ℓᵢ(p₁ + … + p_k), the parts summed exactly, with interval
// arithmetic at precision prec, as the ends of an interval.I (interval.I.Ends). It panics
// unless Enclosable.
func (l *Linear) MeanEnclosure(prec uint, parts ...[]float64) (lo, hi *big.Int, exp int) {
	return l.meanInterval(prec, parts...).Ends()
}

// meanInterval is MeanEnclosure's interval.
func (l *Linear) meanInterval(prec uint, parts ...[]float64) interval.I {
	if !l.Enclosable() {
		panic("loss: MeanEnclosure of a loss that is not Enclosable")
	}
	x := interval.SumParts(prec, l.d, parts)
	sum := interval.Point(0, prec)
	row := func(i int, cols []int32, vals []float64) {
		z := interval.Point(0, prec)
		for k, v := range vals {
			j := k
			if cols != nil {
				j = int(cols[k])
			}
			if v != 0 {
				z = interval.Add(z, interval.MulFloat(x[j], v, prec), prec)
			}
		}
		sum = interval.Add(sum, valueInterval(l.s, z, l.y[i], prec), prec)
	}
	var cols []int32
	var vals []float64
	buf := make([]float64, l.d)
	for i := range l.n {
		if l.readSparse(i) {
			cols, vals = l.sparse.Entries(i, cols, vals)
			row(i, cols, vals)
			continue
		}
		row(i, nil, denseRow(l.x, nil, i, l.d, buf))
	}
	return divide(sum, l.b.divisor(l.n), prec)
}

// dotInterval encloses ⟨w, x⟩ for the intervals w and the floats x at precision prec.
func dotInterval(w []interval.I, x []float64, prec uint) interval.I {
	z := interval.Point(0, prec)
	for j, v := range x {
		if v != 0 {
			z = interval.Add(z, interval.MulFloat(w[j], v, prec), prec)
		}
	}
	return z
}

// divide encloses {x/n : x ∈ a} for n > 0.
func divide(a interval.I, n float64, prec uint) interval.I {
	nb := new(big.Float).SetFloat64(n)
	lo := new(big.Float).SetPrec(prec).SetMode(big.ToNegativeInf).Quo(a.Lo, nb)
	hi := new(big.Float).SetPrec(prec).SetMode(big.ToPositiveInf).Quo(a.Hi, nb)
	return interval.I{Lo: lo, Hi: hi}
}
