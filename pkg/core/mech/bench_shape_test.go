package mech

import (
	"context"
	"github.com/privopt/privopt/pkg/core/privacy"
	"testing"

	"github.com/privopt/privopt/pkg/rng"
)

// The benchmarks run at the adult-lr shape (n = 32561, d = 92, ‖x‖₂ ≤ 1, logistic loss,
// D = 10, ε = 1, δ = 1e-6) on synthetic rows, so they need no shared data and run under
// js/wasm too. Langevin's step count depends on public quantities only, so it equals adult's;
// the solver's iterations depend on the data.

func benchRun(b *testing.B, m Mechanism) {
	ds := toyData(32561, 92, 1)
	p := toyProblem(ds)
	p.Radius = 10
	pl, err := m.Plan(privacy.Budget{Epsilon: 1, Delta: 1e-6}, p)
	if err != nil {
		b.Fatal(err)
	}
	r := rng.Seeded(1)
	for b.Loop() {
		if _, err := pl.Run(context.Background(), ds, r, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(pl.Cost().Steps, "planned-steps")
}

// BenchmarkOutPertGaussAdultShape measures one run of outpert-gauss: L-BFGS to the certificate,
// then the discrete Gaussian release.
func BenchmarkOutPertGaussAdultShape(b *testing.B) { benchRun(b, OutputPerturbation{Gaussian: true}) }

// BenchmarkOutPertAdultShape measures one run of pure-ε outpert (discrete Laplace).
func BenchmarkOutPertAdultShape(b *testing.B) { benchRun(b, OutputPerturbation{}) }

// BenchmarkLangevinAdultShape measures one run of the planned noisy gradient descent.
func BenchmarkLangevinAdultShape(b *testing.B) { benchRun(b, Langevin{}) }

// BenchmarkPlans measures planning (calibration, the λ or μ search, the grid) of the three.
func BenchmarkPlans(b *testing.B) {
	ds := toyData(100, 92, 1)
	p := toyProblem(ds)
	p.N, p.Radius = 32561, 10
	for _, m := range []Mechanism{OutputPerturbation{Gaussian: true}, OutputPerturbation{}, Langevin{}} {
		b.Run(m.Name(), func(b *testing.B) {
			for b.Loop() {
				if _, err := m.Plan(privacy.Budget{Epsilon: 1, Delta: 1e-6}, p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
