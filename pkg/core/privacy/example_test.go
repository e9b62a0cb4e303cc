package privacy_test

import (
	"fmt"

	"github.com/privopt/privopt/pkg/core/privacy"
)

// Calibrating a Gaussian mechanism to (ε, δ) = (1, 10⁻⁶) on its exact privacy curve, then
// reading the guarantee three ways: δ at the target ε, the ε that meets the target δ, and the
// tradeoff curve as an attack (the largest share of the people in the data a membership test
// can find while wrongly accusing 5 % of the others).
func ExampleCalibrateGDP() {
	mu, err := privacy.CalibrateGDP(1, 1e-6)
	if err != nil {
		panic(err)
	}
	g := privacy.GDP{Mu: mu}
	eps, err := g.Epsilon(1e-6)
	if err != nil {
		panic(err)
	}
	fmt.Printf("μ = %.4f\n", mu)
	fmt.Printf("δ(1) ≤ 1e-6: %v\n", g.Delta(1) <= 1e-6)
	fmt.Printf("ε(1e-6) = %.4f\n", eps)
	fmt.Printf("found at 5 %% false positives: %.1f %%\n", 100*(1-g.Tradeoff(0.05)))
	// Output:
	// μ = 0.2367
	// δ(1) ≤ 1e-6: true
	// ε(1e-6) = 1.0000
	// found at 5 % false positives: 8.0 %
}

// Composing: four releases of the same 0.2367-GDP mechanism are √4·μ-GDP exactly, and several
// guarantees of different kinds compose by Compose.
func ExampleComposeGDP() {
	c, err := privacy.ComposeGDP(0.2367, 0.2367, 0.2367, 0.2367)
	if err != nil {
		panic(err)
	}
	eps, err := c.Epsilon(1e-6)
	if err != nil {
		panic(err)
	}
	fmt.Printf("μ = %.4f, ε at δ = 1e-6: %.3f\n", c.Mu, eps)
	// Output:
	// μ = 0.4734, ε at δ = 1e-6: 2.123
}
