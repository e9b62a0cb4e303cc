package ui

import (
	"fmt"

	"github.com/privopt/privopt/internal/bench"
	"github.com/privopt/privopt/internal/bench/results"
	"github.com/privopt/privopt/pkg/plot"
)

// About is the page's About view: what privopt is, and the adult-lr benchmark as ./build.sh
// bench last measured it (internal/bench/results, embedded in the page).
type About struct {
	// Plot is test accuracy against ε per mechanism, with the baselines.
	Plot plot.Drawing
	// Baselines and Setup describe the benchmark in a sentence each.
	Baselines, Setup string
	// Rows are the table's rows; Err explains why there are none.
	Rows []AboutRow
	Err  string
}

// AboutRow is one cell of the benchmark, formatted for the table.
type AboutRow struct {
	Mechanism, Epsilon, Accuracy, Runs, Native, Wasm, Ratio, Certified string
}

// AboutView renders the About view.
type AboutView struct {
	A *About
}

// NewAbout lays out the embedded benchmark results.
func NewAbout() *About {
	native, wasm, err := results.Load()
	if err != nil {
		return &About{Err: err.Error()}
	}
	a := &About{
		Baselines: fmt.Sprintf("Baselines: non-private logistic regression %.2f %% test accuracy, majority class %.2f %%.",
			100*native.Baselines.NonPrivateAccuracy, 100*native.Baselines.MajorityAccuracy),
		Setup: fmt.Sprintf("Private logistic regression on UCI Adult (32,561 training rows, 92 features, ‖x‖₂ ≤ 1, tested on 16,281 rows), δ = 10⁻⁶ for the approximate-DP mechanisms, declared radius D = %g fixed in advance. Times are per private fit, natively (%s) and in WebAssembly (Node.js), on the machine that ran ./build.sh bench.",
			native.Radius, native.Platform),
	}
	if a.Plot, err = bench.Plot(native); err != nil {
		a.Err = err.Error()
	}
	for _, r := range native.Rows {
		row := AboutRow{Mechanism: r.Mechanism, Epsilon: fmt.Sprintf("%g", r.Epsilon), Runs: itoa(r.Runs), Accuracy: "–", Native: "–", Wasm: "–", Ratio: "–", Certified: r.Certified}
		if r.Error != "" {
			row.Certified = "not run: " + r.Error
		} else {
			row.Accuracy = fmt.Sprintf("%.2f ± %.2f", 100*r.AccuracyMean, 100*r.AccuracySD)
			row.Native = fmt.Sprintf("%.3g", r.Seconds)
			if w, ok := bench.Find(wasm, r.Mechanism, r.Epsilon); ok && w.Error == "" {
				row.Wasm, row.Ratio = fmt.Sprintf("%.3g", w.Seconds), fmt.Sprintf("%.2f", w.Seconds/r.Seconds)
			}
		}
		a.Rows = append(a.Rows, row)
	}
	return a
}
