package solve

import (
	"fmt"
	"math"
	"slices"

	"github.com/privopt/privopt/pkg/core/geom"
)

// lbfgsMemory is the number of correction pairs L-BFGS keeps.
const lbfgsMemory = 10

// armijoC is the sufficient-decrease constant of the line search.
const armijoC = 1e-4

// fNoise is the relative increase of F the approximate Wolfe test tolerates: well above the
// rounding of a mean over many rows (about √n·2⁻⁵³ relative), far below any real progress.
const fNoise = 1e-10

// LBFGS minimizes a differentiable λ-strongly convex F over the whole space by limited-memory
// BFGS (Nocedal and Wright 2006, Algorithm 7.4/7.5: two-loop recursion, 10 correction pairs,
// initial scaling sᵀy/yᵀy) with a backtracking line search, stopping when the certificate
//
//	‖x − x*‖₂ ≤ ‖∇F(x)‖₂/λ
//
// reaches the target. The certificate follows from strong monotonicity of the gradient:
// λ‖x − x*‖² ≤ ⟨∇F(x) − ∇F(x*), x − x*⟩ ≤ ‖∇F(x)‖‖x − x*‖, with ∇F(x*) = 0; it is evaluated at
// every iterate, with the gradient the iteration computes anyway. It reads Target,
// StrongConvexity, MaxIter and, if positive and finite, Smoothness (β sets the first step to
// 1/β; the first step has length 1 otherwise).
//
// The line search halves the step, starting from 1, until either the Armijo condition
// F(x + td) ≤ F(x) + 10⁻⁴·t·∇F(x)ᵀd or the approximate Wolfe condition of Hager and Zhang
// (2005) holds: F increases by at most 10⁻¹⁰·|F| (a bound on its rounding) and the slope
// along d at the new point is at most (1 − 2·10⁻⁴)·|∇F(x)ᵀd| (the Armijo condition for a
// quadratic, stated with derivatives only). The second matters near the minimizer, where
// F(x + td) − F(x) ≈ ‖∇F‖²/λ falls below the rounding of F: the gradient, hence the
// certificate, keeps improving after function values stop resolving progress. Strong
// convexity gives sᵀy ≥ λ‖s‖² > 0 for every step, so every correction pair is kept and the
// quasi-Newton matrix stays positive definite.
//
// It returns an error wrapping ErrNotCertified when MaxIter iterations pass, or the line
// search fails (60 halvings), before the certificate reaches the target.
func LBFGS(p Problem, x0 []float64, s Settings) (*Result, error) {
	const name = "L-BFGS"
	if err := check(name, p, x0, s); err != nil {
		return nil, err
	}
	d := len(x0)
	ev := &evaluator{p: p}
	x, g := slices.Clone(x0), make([]float64, d)
	xn, gn, dir := make([]float64, d), make([]float64, d), make([]float64, d)
	f := ev.funcGrad(g, x)
	if math.IsNaN(f) || math.IsInf(f, 0) || !finite(g) {
		return nil, errNonFinite(name, 0)
	}
	var hist [lbfgsMemory]struct {
		s, y       []float64
		rho, alpha float64
	}
	for i := range hist {
		hist[i].s, hist[i].y = make([]float64, d), make([]float64, d)
	}
	count, newest := 0, -1 // stored pairs; index of the newest
	gnorm := geom.Norm(g, 2)
	best := gnorm / s.StrongConvexity
	for k := 0; ; k++ {
		if r := gnorm / s.StrongConvexity; r <= s.Target {
			return &Result{X: x, F: f, Target: s.Target, Achieved: r, Stats: ev.stats(k)}, nil
		} else if r < best {
			best = r
		}
		if k == s.MaxIter {
			break
		}
		if err := s.stopped(); err != nil {
			return nil, err
		}
		// Two-loop recursion: dir = −H·g.
		copy(dir, g)
		for j := 0; j < count; j++ {
			h := &hist[(newest-j+lbfgsMemory)%lbfgsMemory]
			h.alpha = h.rho * dotv(h.s, dir)
			axpyv(dir, -h.alpha, h.y)
		}
		gamma := 1 / gnorm
		if s.Smoothness > 0 && !math.IsInf(s.Smoothness, 1) {
			gamma = 1 / s.Smoothness
		}
		if count > 0 {
			h := &hist[newest]
			gamma = dotv(h.s, h.y) / dotv(h.y, h.y)
		}
		for i := range dir {
			dir[i] *= gamma
		}
		for j := count - 1; j >= 0; j-- {
			h := &hist[(newest-j+lbfgsMemory)%lbfgsMemory]
			b := h.rho * dotv(h.y, dir)
			axpyv(dir, h.alpha-b, h.s)
		}
		for i := range dir {
			dir[i] = -dir[i]
		}
		slope := dotv(g, dir)
		if !(slope < 0) { // not a descent direction (only through rounding): restart
			count = 0
			for i := range dir {
				dir[i] = -gamma * g[i]
			}
			slope = -gamma * gnorm * gnorm
		}
		t, accepted := 1.0, false
		var fnew, gnew float64
		for ls := 0; ls < 60; ls++ {
			for i := range xn {
				xn[i] = x[i] + t*dir[i]
			}
			fnew = ev.funcGrad(gn, xn)
			if !math.IsNaN(fnew) && !math.IsInf(fnew, 0) && finite(gn) {
				armijo := fnew <= f+armijoC*t*slope
				approx := fnew <= f+fNoise*math.Abs(f) && dotv(gn, dir) <= -(1-2*armijoC)*slope
				if armijo || approx {
					gnew = geom.Norm(gn, 2)
					accepted = true
					break
				}
			}
			t /= 2
		}
		if !accepted {
			return nil, fmt.Errorf("solve: %s: %w: line search failed at iteration %d with certificate %g > target %g", name, ErrNotCertified, k+1, best, s.Target)
		}
		newest = (newest + 1) % lbfgsMemory
		h := &hist[newest]
		for i := range h.s {
			h.s[i], h.y[i] = xn[i]-x[i], gn[i]-g[i]
		}
		if sy := dotv(h.s, h.y); sy > 0 {
			h.rho = 1 / sy
			count = min(count+1, lbfgsMemory)
		} else { // impossible for a strongly convex F except through rounding: drop the pair
			newest = (newest - 1 + lbfgsMemory) % lbfgsMemory
		}
		x, xn = xn, x
		g, gn = gn, g
		f, gnorm = fnew, gnew
	}
	return nil, fmt.Errorf("solve: %s: %w: best certificate %g > target %g after %d iterations", name, ErrNotCertified, best, s.Target, s.MaxIter)
}

// dotv returns Σ a_i·b_i.
func dotv(a, b []float64) float64 {
	b = b[:len(a)]
	s := 0.0
	for i, v := range a {
		s += v * b[i]
	}
	return s
}

// axpyv adds c·x to y.
func axpyv(y []float64, c float64, x []float64) {
	y = y[:len(x)]
	for i, v := range x {
		y[i] += c * v
	}
}
