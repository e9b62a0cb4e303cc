package sampler

import (
	"errors"
	"fmt"
	"math"

	"github.com/privopt/privopt/pkg/core/geom"
)

// Target is a strongly log-concave distribution π(x) ∝ exp(−f(x) − (m/2)‖x − c‖²) on a convex
// domain K, with f convex. Value gives f; the constants say what is known about f and K from
// public quantities alone (never from the data); Domain gives K.
//
// A strongly convex part that is not Gaussian (the ℓp regularizers of Gopi, Lee, Liu, Shen and
// Tian) is expressed by putting its convex remainder r(x) − (m/2)‖x − c‖² into f, where m is its
// strong-convexity modulus in ℓ2 (a regularizer that is 1-strongly convex in ℓp for p ≤ 2 is
// 1-strongly convex in ℓ2, since ‖v‖_p ≥ ‖v‖₂).
type Target interface {
	// Dim is the dimension d.
	Dim() int
	// Value returns f(x) for x in K.
	Value(x []float64) float64
	// Constants returns the public constants of f and the Gaussian part.
	Constants() Constants
	// Domain returns K. The certified sampler supports the whole space (geom.Whole), boxes
	// (*geom.Box and ℓ∞ balls) and ℓ2 balls (*geom.Ball with p = 2), where Gaussian proposals
	// restricted to K can be drawn exactly; the fast modes support every convex geom.Domain.
	Domain() geom.Domain
}

// Gradient is implemented by targets that can evaluate a subgradient of f; the envelope
// oracle (C) and the fast modes need it.
type Gradient interface {
	// Grad writes a subgradient of f at x into grad and returns f(x).
	Grad(grad, x []float64) float64
}

// Subgradient is implemented by Gradient targets that can write the same subgradient as Grad
// faster without f(x) (for a logistic loss the value costs a logarithm per example); the
// proximal steps of the envelope oracle use it, and Grad otherwise.
type Subgradient interface {
	// Subgradient writes into grad the bits Grad(grad, x) writes.
	Subgradient(grad, x []float64)
}

// Examples is implemented by targets whose f is a mean of per-example terms,
// f(x) = (1/N)·Σᵢ ExampleValue(i, x); the stochastic oracle (B) needs it, and its cost per
// step does not grow with N.
type Examples interface {
	// NumExamples is N.
	NumExamples() int
	// ExampleValue returns the i-th term at x (scaled so that f is their mean).
	ExampleValue(i int, x []float64) float64
}

// Constants are the public constants of a target.
type Constants struct {
	// Lipschitz is a Lipschitz constant of f in ℓ2 on K (the sampler's cost grows with its square).
	Lipschitz float64
	// ExampleLipschitz is a Lipschitz constant in ℓ2 on K of every per-example term (Examples).
	ExampleLipschitz float64
	// ExampleRank r says that f is the mean of per-example terms that each depend on x only
	// through its orthogonal projection on some r-dimensional subspace (1 for a linear model
	// ℓ(⟨a, x⟩); 0 means Dim, which claims nothing).
	ExampleRank int
	// Smoothness is a Lipschitz constant in ℓ2 of ∇f and of the gradient of every per-example
	// term (0 when f is not smooth).
	Smoothness float64
	// StrongConvexity is m > 0, the modulus of the Gaussian part.
	StrongConvexity float64
	// Center is c, the centre of the Gaussian part (nil means the origin).
	Center []float64
	// Domain is the kind of K (proposals restricted to K, which some of the plan's bounds
	// must allow for, cost differently on a box and on a ball).
	Domain DomainKind
	// Radius is, for an ℓ2 ball (BallDomain), its radius, which oracle C's bounds use (at most
	// the actual radius); for a box, the largest |xᵢ| over it, which the floating-point-safe
	// plan's bounds use (at least the actual one; 0: unknown). DomainOf gives both.
	Radius float64
	// GradErrorFloor + GradErrorSlope·‖x‖₂ bounds the rounding ‖ĝ − ∇f(x)‖₂ of the gradient
	// the target computes at x, for every dataset (0, 0: unknown; NewSafePlan needs them).
	GradErrorFloor, GradErrorSlope float64
	// Split, when its Rough and Smoothness are positive, describes f as a smooth part plus a
	// rough one, which oracle C's acceptance bound can use (SplitConstants).
	Split SplitConstants
}

// SplitConstants describe f = f_s + f_r: f_r Rough-Lipschitz in ℓ2 on K (of any rank, not
// smooth), f_s the mean of per-example terms that are each Smoothness-smooth and of rank Rank
// (0: Dim), as ExampleRank and Smoothness would describe f_s alone. The parts' Bregman gaps
// add (each at most (β_s/2)‖P(x − w)‖² and 2L_r‖x − w‖), so oracle C's mean gap is at most
// (β_s/2)·E‖P(x − w)‖² + 2L_r·E‖x − w‖ (splitEnvelopeStep), far below f's own Lipschitz bound
// with rank Dim when f_r is small (REM in ℓq: a smooth loss plus the regularizer's remainder).
type SplitConstants struct {
	Rough, Smoothness float64
	Rank              int
}

// DomainOf returns the kind of a domain and, for an ℓ2 ball, its radius, for a box the largest
// |xᵢ| over it: the fields Domain and Radius of Constants.
func DomainOf(dom geom.Domain) (DomainKind, float64) {
	kind := KindOf(dom)
	switch kind {
	case BallDomain:
		return kind, dom.(*geom.Ball).R()
	case BoxDomain:
		lo, hi := boxCorners(dom)
		extent := 0.0
		for i := range lo {
			extent = math.Max(extent, math.Max(math.Abs(lo[i]), math.Abs(hi[i])))
		}
		return kind, extent
	}
	return kind, 0
}

// boxCorners returns the corners of a box: a *geom.Box, or an ℓ∞ *geom.Ball.
func boxCorners(dom geom.Domain) (lo, hi []float64) {
	if b, ok := dom.(*geom.Box); ok {
		return b.Lo(), b.Hi()
	}
	b := dom.(*geom.Ball)
	d := b.Dim()
	lo, hi = make([]float64, d), make([]float64, d)
	center := b.Center()
	for i := range lo {
		if center != nil {
			lo[i], hi[i] = center[i], center[i]
		}
		lo[i] -= b.R()
		hi[i] += b.R()
	}
	return lo, hi
}

// DomainKind is the kind of a target's domain K, as far as a plan needs to know it.
type DomainKind int

const (
	// WholeSpace is Rᵈ (geom.Whole).
	WholeSpace DomainKind = iota
	// BoxDomain is a box (*geom.Box, or an ℓ∞ *geom.Ball): proposals are drawn coordinate by
	// coordinate.
	BoxDomain
	// BallDomain is an ℓ2 ball (*geom.Ball with p = 2): proposals are drawn by a radial
	// decomposition (ballnormal.go).
	BallDomain
	// OtherDomain is any other convex domain (an ℓp ball with p ≠ 2, say): the fast modes
	// support it, the certified sampler does not (no exact draw of a Gaussian restricted to
	// it with a bounded cost is known).
	OtherDomain
)

// String names the kind.
func (k DomainKind) String() string {
	switch k {
	case WholeSpace:
		return "the whole space"
	case BoxDomain:
		return "a box"
	case BallDomain:
		return "an ℓ2 ball"
	case OtherDomain:
		return "a convex domain"
	}
	return fmt.Sprintf("DomainKind(%d)", int(k))
}

// errUnsupportedDomain says why the certified sampler does not run on dom (an OtherDomain).
func errUnsupportedDomain(dom geom.Domain) error {
	what := fmt.Sprintf("a %T", dom)
	if b, ok := dom.(*geom.Ball); ok {
		what = fmt.Sprintf("an ℓ%g ball", b.P())
	}
	return fmt.Errorf("sampler: the certified sampler supports the whole space, boxes and ℓ2 balls, not %s (no exact draw of a Gaussian restricted to it with a bounded cost is known); use a fast mode", what)
}

// KindOf returns the kind of a domain.
func KindOf(dom geom.Domain) DomainKind {
	switch b := dom.(type) {
	case geom.Whole:
		return WholeSpace
	case *geom.Box:
		return BoxDomain
	case *geom.Ball:
		switch {
		case b.P() == 2:
			return BallDomain
		case math.IsInf(b.P(), 1): // the box c ± R
			return BoxDomain
		}
	}
	return OtherDomain
}

// Validate checks the constants for a target of dimension dim.
func (c Constants) Validate(dim int) error {
	pos := func(name string, v float64) error {
		if !(v >= 0) || math.IsInf(v, 1) {
			return fmt.Errorf("sampler: %s must be finite and non-negative, got %g", name, v)
		}
		return nil
	}
	if err := errors.Join(pos("the Lipschitz constant", c.Lipschitz), pos("the per-example Lipschitz constant", c.ExampleLipschitz),
		pos("the smoothness", c.Smoothness), pos("the rough part's Lipschitz constant", c.Split.Rough),
		pos("the smooth part's smoothness", c.Split.Smoothness)); err != nil {
		return err
	}
	if !(c.StrongConvexity > 0) || math.IsInf(c.StrongConvexity, 1) {
		return fmt.Errorf("sampler: the strong convexity must be finite and positive, got %g", c.StrongConvexity)
	}
	if c.ExampleRank < 0 || c.ExampleRank > dim || c.Split.Rank < 0 || c.Split.Rank > dim {
		return fmt.Errorf("sampler: the per-example ranks must be in [0, %d], got %d and %d", dim, c.ExampleRank, c.Split.Rank)
	}
	if c.Domain < WholeSpace || c.Domain > OtherDomain {
		return fmt.Errorf("sampler: unknown domain kind %v", c.Domain)
	}
	if c.Domain == BallDomain && (!(c.Radius > 0) || math.IsInf(c.Radius, 1)) {
		return fmt.Errorf("sampler: the ball's radius must be finite and positive, got %g", c.Radius)
	}
	if c.Center != nil && len(c.Center) != dim {
		return fmt.Errorf("sampler: the centre has %d coordinates, want %d", len(c.Center), dim)
	}
	return nil
}

// rank returns the per-example rank, Dim when it is not given.
func (c Constants) rank(dim int) int {
	if c.ExampleRank == 0 {
		return dim
	}
	return c.ExampleRank
}

// split reports whether the constants describe a split f = f_s + f_r (SplitConstants).
func (c Constants) split() bool { return c.Split.Rough > 0 && c.Split.Smoothness > 0 }

// center returns c, the origin when it is not given.
func (c Constants) center(dim int) []float64 {
	if c.Center == nil {
		return make([]float64, dim)
	}
	return c.Center
}
