package rng_test

import (
	"fmt"

	"github.com/privopt/privopt/pkg/rng"
)

// A floating-point-safe release of a mean with Gaussian noise: the mean is rounded to the
// grid 2⁻²⁰·Z and exact discrete Gaussian noise is added there, so every bit of the output is
// an integer count of grid steps (no low-order bits of a floating-point sample to leak). With
// an ℓ2 sensitivity Δ of the mean and σ = Δ̃/√(2ρ) (Δ̃ = Δ plus the rounding's g), the release
// is ρ-zCDP. A seeded source makes the example reproducible, and NOT private: use rng.New().
func ExampleGrid_Release() {
	grid, err := rng.NewGrid(20)
	if err != nil {
		panic(err)
	}
	noise, err := grid.DiscreteGaussian(0.05) // σ in real units
	if err != nil {
		panic(err)
	}
	mean := []float64{0.3125, -1.75}
	released := make([]float64, len(mean))
	if err := grid.Release(rng.Seeded(1), released, mean, noise); err != nil {
		panic(err)
	}
	for _, v := range released {
		fmt.Printf("%v = %.0f grid steps\n", v, v/grid.Spacing()) // a whole number of steps
	}
	// Output:
	// 0.3227357864379883 = 338413 grid steps
	// -1.7932205200195312 = -1880328 grid steps
}
