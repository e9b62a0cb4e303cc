package mech

import (
	"fmt"
	"math"

	"github.com/privopt/privopt/pkg/core/privacy"
	"github.com/privopt/privopt/pkg/rng"
)

// noiseKind is the kind of noise a vectorNoise adds.
type noiseKind int

const (
	noiseDiscreteGaussian noiseKind = iota
	noiseDiscreteLaplace
	noiseContinuousLaplace
)

// vectorNoise is the noise of one release of a vector of coords coordinates with a declared
// sensitivity, calibrated to a budget: exact discrete Gaussian noise on a grid ((ε, δ), under
// the Gaussian accounting when the discretisation's total variation fits its share of δ, zCDP
// otherwise; see gaussianTarget), exact discrete Laplace noise on a grid (pure ε), or outpert's
// continuous ℓ2-Laplace noise (pure ε in exact arithmetic only). newVectorNoise fixes the
// target, calibrate the grid and scale from the sensitivity, add releases.
type vectorNoise struct {
	noise     noiseKind
	coords    int
	grid      rng.Grid
	gridSens  float64       // the sensitivity the noise is calibrated to (ℓ2, or ℓ1 for the Laplace)
	scale     float64       // σ, or the Laplace scale b, in real units
	sigma2    float64       // σ_g², the discrete Gaussian's parameter in grid units
	rho       float64       // ρ of the discrete Gaussian: the calibrated target, then the actual
	gdp       bool          // the Gaussian accounting of the discrete Gaussian (see gaussianTarget)
	tvBudget  float64       // with gdp, the total variation the release may add
	tv        float64       // with gdp, the release's total variation from rounded Gaussian noise
	epsActual float64       // ε of a Laplace release
	base      privacy.Curve // the guarantee before the total variation is folded in
	guarantee privacy.Curve
}

// newVectorNoise returns the noise of kind for a release of coords coordinates under budget
// b, with its target fixed (ρ for the discrete Gaussian) and not yet calibrated.
func newVectorNoise(kind noiseKind, b privacy.Budget, coords int) (vectorNoise, error) {
	v := vectorNoise{noise: kind, coords: coords}
	if kind == noiseDiscreteGaussian {
		var err error
		if v.rho, v.tvBudget, v.gdp, err = gaussianTarget(b, coords, 0); err != nil {
			return vectorNoise{}, err
		}
	}
	return v, nil
}

// calibrate fixes the grid, the noise scale and the guarantee for a vector whose ℓ2 and ℓ1
// sensitivities (before the grid's rounding, which adds g√d and g·d) are at most l2 and l1.
func (v *vectorNoise) calibrate(b privacy.Budget, l2, l1 float64) error {
	d, eps := v.coords, b.Epsilon
	var err error
	switch v.noise {
	case noiseDiscreteGaussian:
		minUnits := 0.0
		if v.gdp {
			minUnits = gridUnitsFor(d, v.tvBudget)
		}
		if v.grid, err = releaseGrid(l2/math.Sqrt(2*v.rho), minUnits); err != nil {
			return err
		}
		if v.gridSens, err = v.grid.L2Sensitivity(l2, d); err != nil {
			return err
		}
		v.scale = v.gridSens / math.Sqrt(2*v.rho) * calibrationMargin
		dg, err := v.grid.DiscreteGaussian(v.scale)
		if err != nil {
			return err
		}
		v.sigma2 = dg.Sigma2()
		s := v.gridSens / v.grid.Spacing() // exact: a power-of-two scaling
		rho := roundUp(s * s / (2 * v.sigma2))
		if rho > v.rho {
			return fmt.Errorf("mech: internal error: the discrete Gaussian gives ρ = %g above the calibrated %g", rho, v.rho)
		}
		v.rho = rho
		if v.gdp {
			v.tv = roundedGaussianTV(d, v.sigma2)
			v.base = privacy.GDP{Mu: sqrtUp(2 * rho)}
			if v.guarantee, err = privacy.FoldSamplerError(v.base, v.tv); err != nil {
				return err
			}
			break
		}
		c, err := privacy.ZCDP(rho)
		if err != nil {
			return err
		}
		c.Name = fmt.Sprintf("%.6g-zCDP (discrete Gaussian, σ = %.6g, ℓ2 sensitivity %.6g)", rho, v.scale, v.gridSens)
		v.base, v.guarantee = c, c
	case noiseDiscreteLaplace:
		if v.grid, err = releaseGrid(l1/eps, 0); err != nil {
			return err
		}
		if v.gridSens, err = v.grid.L1Sensitivity(l1, d); err != nil {
			return err
		}
		v.scale = v.gridSens / eps * calibrationMargin
		dl, err := v.grid.DiscreteLaplace(v.scale)
		if err != nil {
			return err
		}
		v.epsActual = roundUp(v.gridSens / v.grid.Spacing() / dl.Scale())
		if v.epsActual > eps {
			return fmt.Errorf("mech: internal error: the discrete Laplace gives ε = %g above the target %g", v.epsActual, eps)
		}
		v.guarantee = privacy.PureDP{Eps: v.epsActual}
		v.base = v.guarantee
	case noiseContinuousLaplace:
		v.gridSens = l2
		v.scale = l2 / eps * calibrationMargin
		v.epsActual = eps
		v.guarantee = privacy.PureDP{Eps: eps}
		v.base = v.guarantee
	}
	return nil
}

// add writes x plus the noise into dst and returns the grid's spacing (0 for the continuous
// Laplace noise, which has no grid).
func (v *vectorNoise) add(r *rng.Rand, dst, x []float64) (grid float64, err error) {
	if v.noise == noiseContinuousLaplace {
		if err := r.L2Laplace(dst, v.scale); err != nil {
			return 0, err
		}
		for i, x := range x {
			dst[i] += x
		}
		return 0, nil
	}
	var noise rng.IntNoise
	if v.noise == noiseDiscreteGaussian {
		noise, err = v.grid.DiscreteGaussian(v.scale)
	} else {
		noise, err = v.grid.DiscreteLaplace(v.scale)
	}
	if err != nil {
		return 0, err
	}
	if err := v.grid.Release(r, dst, x, noise); err != nil {
		return 0, err
	}
	return v.grid.Spacing(), nil
}

// sampler is the report's sampler status of the release.
func (v *vectorNoise) sampler() privacy.SamplerStatus {
	if v.gdp {
		return discretizationStatus("the noise is drawn exactly", v.sigma2, v.tv)
	}
	return privacy.SamplerStatus{Exact: true, Statement: "no sampler: the noise is drawn exactly"}
}

// moments returns bounds on E‖z‖ and E‖z‖² of the noise, and the grid's rounding g√d/2 (0
// without a grid).
func (v *vectorNoise) moments() (m1, m2, rounding float64) {
	d := float64(v.coords)
	switch v.noise {
	case noiseDiscreteGaussian:
		// Var N_Z(0, σ_g²) ≤ σ_g² (CKS20, Proposition 1), in grid units.
		g := v.grid.Spacing()
		m2 = d * v.sigma2 * g * g
		return math.Sqrt(m2), m2, g * math.Sqrt(d) / 2
	case noiseDiscreteLaplace:
		// Var of the discrete Laplace of scale b: 2q/(1−q)² = 1/(2sinh²(1/(2b))) ≤ 2b².
		m2 = 2 * d * v.scale * v.scale
		return math.Sqrt(m2), m2, v.grid.Spacing() * math.Sqrt(d) / 2
	default:
		return d * v.scale, d * (d + 1) * v.scale * v.scale, 0
	}
}

// addParameters adds the noise's planned parameters to ps.
func (v *vectorNoise) addParameters(ps map[string]float64) {
	if v.noise != noiseContinuousLaplace {
		ps["grid_spacing"] = v.grid.Spacing()
	}
	switch v.noise {
	case noiseDiscreteGaussian:
		ps["sigma"], ps["rho_zcdp"] = v.scale, v.rho
		if v.gdp {
			ps["mu_gdp"], ps["discretization_tv"] = v.base.(privacy.GDP).Mu, v.tv
		}
	default:
		ps["laplace_scale"], ps["epsilon_pure"] = v.scale, v.epsActual
	}
}

// noiseName names the noise of a grid release in a report.
func (v *vectorNoise) noiseName() string {
	if v.noise == noiseDiscreteGaussian {
		return "discrete Gaussian on a grid"
	}
	return "discrete Laplace on a grid"
}

// sensitivityNorm names the norm of the sensitivity the noise is calibrated to.
func (v *vectorNoise) sensitivityNorm() string {
	if v.noise == noiseDiscreteLaplace {
		return "ℓ1"
	}
	return "ℓ2"
}

// noiseSD bounds the standard deviation of the noise of a grid release per coordinate.
func (v *vectorNoise) noiseSD() float64 {
	g := v.grid.Spacing()
	if v.noise == noiseDiscreteGaussian {
		return math.Sqrt(v.sigma2) * g // Var N_Z(0, σ_g²) ≤ σ_g²
	}
	return math.Sqrt2 * v.scale // Var of the discrete Laplace of scale b ≤ 2b²
}
