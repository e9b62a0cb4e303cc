package ui

import (
	"fmt"

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
	// Platforms names the columns of times after the native one; Rows are the table's rows;
	// Err explains why there are none.
	Platforms []string
	Rows      []AboutRow
	Err       string
	// NotRun names, once each, the mechanisms the benchmark could not run, with the reason.
	NotRun []string
}

// AboutRow is one cell of the benchmark, formatted for the table: Times holds the native time
// and then, per platform, its time and its ratio to the native one.
type AboutRow struct {
	Mechanism, Epsilon, Accuracy, Runs, Certified string
	Times                                         []string
}

// AboutView renders the About view.
type AboutView struct {
	A *About
}

// NewAbout lays out the embedded benchmark results.
func NewAbout() *About {
	native, others, err := results.Load()
	if err != nil {
		return &About{Err: err.Error()}
	}
	a := &About{
		Baselines: fmt.Sprintf("Baselines: non-private logistic regression %.2f %% test accuracy, majority class %.2f %%.",
			100*native.Baselines.NonPrivateAccuracy, 100*native.Baselines.MajorityAccuracy),
		Setup: fmt.Sprintf("Private logistic regression on UCI Adult (32,561 training rows, 92 features, ‖x‖₂ ≤ 1, tested on 16,281 rows), δ = 10⁻⁶ for the approximate-DP mechanisms, declared radius D = %g fixed in advance. Times are per private fit, natively (%s) and in WebAssembly, on the machine that ran ./build.sh bench.",
			native.Radius, native.Platform),
	}
	for _, o := range others {
		a.Platforms = append(a.Platforms, results.PlatformLabel(o.Platform))
	}
	if a.Plot, err = results.Plot(native); err != nil {
		a.Err = err.Error()
	}
	notRun := map[string]bool{}
	for _, r := range native.Rows {
		if r.Error != "" { // one line per mechanism under the table, not a row per ε
			if !notRun[r.Label()] {
				notRun[r.Label()] = true
				a.NotRun = append(a.NotRun, r.Label()+": "+plainError(r.Error))
			}
			continue
		}
		row := AboutRow{Mechanism: r.Label(), Epsilon: fmt.Sprintf("%g", r.Epsilon), Runs: itoa(r.Runs), Certified: r.Certified,
			Accuracy: fmt.Sprintf("%.2f ± %.2f", 100*r.AccuracyMean, 100*r.AccuracySD), Times: []string{fmt.Sprintf("%.3g", r.Seconds)}}
		for _, o := range others {
			if w, ok := results.Find(o, r.Label(), r.Epsilon); ok && w.Error == "" && w.Runs > 0 {
				row.Times = append(row.Times, fmt.Sprintf("%.3g", w.Seconds), fmt.Sprintf("%.2f", w.Seconds/r.Seconds))
			} else {
				row.Times = append(row.Times, "–", "–")
			}
		}
		a.Rows = append(a.Rows, row)
	}
	return a
}
