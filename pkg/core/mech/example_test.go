package mech_test

import (
	"context"
	"fmt"
	"github.com/privopt/privopt/pkg/core/privacy"

	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/geom"
	"github.com/privopt/privopt/pkg/core/loss"
	"github.com/privopt/privopt/pkg/core/mech"
	"github.com/privopt/privopt/pkg/rng"
)

// A whole private fit with a mechanism: the problem and the budget are public, the plan fixes
// every parameter from them before any row is read, and the run releases the model with its
// privacy report. The rows here are synthetic: 2,000 points of the unit disc (the declared
// bound ‖x‖₂ ≤ 1) labelled by the side of a line, with some noise. (The page and the command
// line build the Dataset with data.Encode and a schema; internal/fit turns their settings into
// the Problem and privacy.Budget.)
func Example() {
	const n, d = 2000, 2
	src := rng.Seeded(7)
	ds := &data.Dataset{N: n, D: d, X: make([]float64, n*d), Y: make([]float64, n), P: 2, Radius: 1, Features: []string{"x", "y"}}
	for i := range n {
		row := ds.X[i*d : (i+1)*d]
		if err := src.UnitBall(row); err != nil {
			panic(err)
		}
		ds.Y[i] = 1
		if row[0]-0.5*row[1]+0.2*src.Normal() < 0 {
			ds.Y[i] = -1
		}
	}
	problem := mech.Problem{Loss: mech.LossSpec{Name: "logistic"}, Dim: d, N: n,
		Bounds: loss.Bounds{X: 1, XNorm: 2, Y: 1}, Domain: geom.Whole{D: d}, Radius: 10}
	plan, err := mech.NoisyGD{}.Plan(privacy.Budget{Epsilon: 1, Delta: 1e-6}, problem)
	if err != nil {
		panic(err)
	}
	fmt.Println("certified before the run:", plan.Guarantee().Delta(1) <= 1e-6)
	// rng.New() for a private release; a seed makes it reproducible and not private.
	rel, err := plan.Run(context.Background(), ds, rng.Seeded(1), nil)
	if err != nil {
		panic(err)
	}
	acc, _ := mech.Accuracy(problem, ds, rel.Model.Weights)
	fmt.Printf("training accuracy above 85 %%: %v\n", acc > 0.85)
	fmt.Println("private:", rel.Report.Private, "("+string(rel.Report.Randomness)+")")
	// Output:
	// certified before the run: true
	// training accuracy above 85 %: true
	// private: false (seeded: not private)
}
