package solve

import (
	"fmt"
	"math"

	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/geom"
	"github.com/privopt/privopt/pkg/core/loss"
)

// FitLogisticTarget is the certificate FitLogistic reaches: ‖w − w*‖₂ ≤ 10⁻⁶.
const FitLogisticTarget = 1e-6

// FitLogistic fits non-private ℓ2-regularized logistic regression on ds (labels ±1):
//
//	w* = argmin_w (1/n)Σ_i log(1 + exp(−y_i⟨w, x_i⟩)) + (λ/2)‖w‖₂²,
//
// with LBFGS from w = 0, certified to ‖w − w*‖₂ ≤ FitLogisticTarget, in at most 10 000
// iterations. No feature bound is assumed (the rows are only checked to be finite), so this
// is for reference fits, not for a release. It returns an error for λ ≤ 0, a malformed
// dataset or a failed certificate.
func FitLogistic(ds *data.Dataset, lambda float64) (*Result, error) {
	if !(lambda > 0) || math.IsInf(lambda, 1) {
		return nil, fmt.Errorf("solve: fit logistic: λ = %v is not a positive finite number", lambda)
	}
	l, err := loss.NewLinear(loss.Logistic{}, ds, loss.Bounds{X: math.Inf(1), XNorm: 2, Y: math.Inf(1)})
	if err != nil {
		return nil, fmt.Errorf("solve: fit logistic: %w", err)
	}
	ridge, err := geom.NewScaledLpRegularizer(2, 1, ds.D, nil)
	if err != nil {
		return nil, fmt.Errorf("solve: fit logistic: %w", err)
	}
	obj, err := loss.NewObjective(l, 0, ridge, lambda)
	if err != nil {
		return nil, fmt.Errorf("solve: fit logistic: %w", err)
	}
	p := Problem{Func: obj.Func, Grad: obj.Grad, FuncGrad: obj.FuncGrad}
	return LBFGS(p, make([]float64, ds.D), Settings{Target: FitLogisticTarget, StrongConvexity: lambda, MaxIter: 10000})
}
