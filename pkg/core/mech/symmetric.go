package mech

import (
	"fmt"
	"math"
	"slices"

	"github.com/privopt/privopt/pkg/core/loss"
)

// symmetricMap is noisy-gd's change of variables to symmetric features. Under the norm fit
// "scale" every numeric feature lies in [0, c] (c = Problem.Scale) and the bound X is what a
// row reaches with every column at its largest magnitude; the rows x′ = Mx with
// x′_j = 2x_j − κ·x_bias (κ = c/b, b the bias, so x′_j = 2x_j − c) on the ranged numeric
// features (Problem.Ranged: a private range puts their values across [0, c]) and x′_j = x_j
// elsewhere lie within the same bound, with those features spread twice as wide. A feature
// scaled by its declared bounds alone may sit at one end of them (capital-gain at 0 of
// [0, 99999]), where the map would make it a near-constant −c beside the bias and slow the
// steps: on adult-lr without private ranges it cost 0.6 point at ε = 8. The steps run on θ′ with the model w = Mᵀθ′ (w_j = 2θ′_j on the numeric features, and
// w_bias = θ′_bias − κ·Σ θ′_j; the same scores: w·x = θ′·x′), so the loss is read at w on the
// rows as stored, and its mean gradient at θ′ is M·∇F(w): no copy of the rows. The release is
// w of the released θ′ (post-processing).
//
// Privacy. With κ the computed c/b, the per-example gradients at θ′ are ℓ′·Mx, of norm
// |ℓ′|·‖Mx‖. The run checks every row before the first step (squares): the computed norm of
// x̂′ (each coordinate 2x_j − c̃ rounded, c̃ = κ·b rounded) must be at most X(1 + loss.Slack),
// the loss's own acceptance rule, so the exact ‖x̂′‖ is at most X(1 + Slack)(1 + D·2⁻⁵³), and since
// |Mx − x̂′|_j ≤ 2·2⁻⁵³·c, ‖Mx‖ ≤ X(1 + 2·Slack) for D up to 10⁶: the bound every constant is
// computed with (loss.Slack). The drift's exact sensitivity is therefore the plain one. Its
// rounding: the computed mean gradient ĝ is within 2(n + 3)·u·G of the exact one
// (meanGradientRounding's argument), M moves vectors by at most ‖M‖ ≤ 2 + κ√m (m numeric
// features: ‖2v_num − κv_bias·1‖ + ‖v_rest‖), and computing Mĝ rounds each coordinate once
// or twice (within 2u·(2|ĝ_j| + κ|ĝ_bias|)); with the step's scaling, neighbours' computed
// drifts differ by at most the exact sensitivity plus (3 + κ√m)·meanGradientRounding(n, G)
// (roundingFactor). The second moments are those of x̂′, whose norm the check bounds by the
// same X(1 + 2·Slack) their sensitivity assumes (secondMoments).
type symmetricMap struct {
	numeric []int   // the mapped features (the ranged numeric ones), increasing
	dim     int     // D, the row's width and a class block's
	kappa   float64 // κ = c/b, rounded
	shift   float64 // c̃ = κ·b, rounded: what 2x_j loses in x̂′
	growth  float64 // 2 + κ√m, a bound on ‖M‖
	bound   float64 // X(1 + Slack), the computed norm a mapped row may reach
	p       float64 // the norm's exponent
}

// newSymmetricMap returns the map for a problem whose rows allow it (a FitScale factor, a bias
// coordinate and ranged numeric features: Problem.Scale, Bounds.Bias and Problem.Ranged) on
// the whole space, nil otherwise: a bounded domain constrains the released model, which Mᵀ
// would move out of it.
func newSymmetricMap(p Problem) *symmetricMap {
	if !(p.Scale > 0) || !(p.Bounds.Bias > 0) || p.Dim < 2 || !isWhole(p.Domain) {
		return nil
	}
	s := &symmetricMap{dim: p.Dim, kappa: p.Scale / p.Bounds.Bias, bound: p.Bounds.X * (1 + loss.Slack), p: p.Bounds.XNorm}
	s.shift = s.kappa * p.Bounds.Bias
	for _, j := range p.Ranged {
		if _, found := slices.BinarySearch(p.Categorical, j); !found && j < p.Dim-1 {
			s.numeric = append(s.numeric, j)
		}
	}
	if len(s.numeric) == 0 {
		return nil
	}
	s.growth = roundUp(2 + s.kappa*math.Sqrt(float64(len(s.numeric)))*(1+0x1p-50))
	return s
}

// roundingFactor is the multiple of meanGradientRounding that bounds the rounding of the
// mapped drift (see symmetricMap).
func (s *symmetricMap) roundingFactor() float64 { return roundUp(1 + s.growth) }

// weights writes w = Mᵀθ′ into dst, block by block (a class block of the multinomial each).
func (s *symmetricMap) weights(dst, theta []float64) {
	copy(dst, theta)
	for k := 0; k+s.dim <= len(dst); k += s.dim {
		block := dst[k : k+s.dim]
		sum := 0.0
		for _, j := range s.numeric {
			sum += block[j]
			block[j] *= 2
		}
		block[s.dim-1] -= s.kappa * sum
	}
}

// gradient maps a gradient in w to the gradient in θ′, g ← Mg, in place, block by block.
func (s *symmetricMap) gradient(g []float64) {
	for k := 0; k+s.dim <= len(g); k += s.dim {
		block := g[k : k+s.dim]
		bias := s.kappa * block[s.dim-1]
		for _, j := range s.numeric {
			block[j] = 2*block[j] - bias
		}
	}
}

// squares returns the sums over l's rows (d wide) of their squares mapped to x̂′ (2x_j − c̃ on
// the numeric features), or as they are when s is nil, in one full pass (loss.Squares); and an
// error when a mapped row's computed norm exceeds X(1 + Slack), which holds when its mapped
// features are in [0, c] as the norm fit "scale" makes them.
func (s *symmetricMap) squares(l loss.Loss, d int) ([]float64, error) {
	a, c := make([]float64, d), make([]float64, d)
	for j := range a {
		a[j] = 1
	}
	bound := math.Inf(1)
	if s != nil {
		for _, j := range s.numeric {
			a[j], c[j] = 2, s.shift
		}
		bound = s.bound
	}
	sums, over, err := loss.Squares(l, a, c, bound)
	if err == nil && over > 0 {
		err = fmt.Errorf("mech: noisy-gd: %d rows on symmetric features have norms above the bound %g: their ranged numeric features are not within [0, %g] as the norm fit \"scale\" makes them (NoSymmetric fits the rows as they are)", over, s.bound, s.shift)
	}
	return sums, err
}
