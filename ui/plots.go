package ui

import (
	"math"
	"strconv"

	"github.com/privopt/privopt/pkg/core/privacy"
	"github.com/privopt/privopt/pkg/plot"
)

// Plot geometry, in SVG user units.
const (
	plotWidth  = 460
	plotHeight = 340
)

// plotDecades is the most decades the privacy-curve plot shows below the target δ.
const plotDecades = 8

// curveSeries is one sampled curve of a plot.
type curveSeries struct {
	name, class string
	ys          []float64
}

// privacyCurvePlot lays out curves δ(ε) sampled at eps on a log scale whose y axis spans whole
// decades from below the target δ and the curves' smallest positive values (but at most
// plotDecades decades below the target δ, or below 10⁻³ for a pure-DP target) to 1, with the
// target (ε, δ) marked when δ > 0 (a pure-DP target has no point on a log scale). A curve that
// leaves the plot stops at its axis.
func privacyCurvePlot(title string, eps []float64, series []curveSeries, targetEps, targetDelta float64) plot.Drawing {
	ref := 1e-3
	if targetDelta > 0 {
		ref = targetDelta
	}
	low := ref / 10
	for _, s := range series {
		for _, y := range s.ys {
			if y > 0 {
				low = math.Min(low, y)
			}
		}
	}
	low = math.Max(low, math.Max(ref*math.Pow(10, -plotDecades), 1e-300))
	yMin := math.Max(math.Pow(10, math.Floor(math.Log10(low))), 1e-300)
	fig := plot.Figure{
		Width: plotWidth, Height: plotHeight, Title: title,
		X: plot.Axis{Label: "ε", Min: 0, Max: eps[len(eps)-1]},
		Y: plot.Axis{Label: "δ(ε)", Min: yMin, Max: 1, Scale: plot.Log10},
	}
	for _, s := range series {
		fig.Series = append(fig.Series, plot.Series{Name: s.name, Class: s.class, X: eps, Y: belowAxis(s.ys, yMin)})
	}
	if targetDelta > 0 {
		fig.Markers = []plot.Marker{{Label: "target (ε, δ)", Class: "marker", X: targetEps, Y: targetDelta}}
	}
	return mustDraw(fig)
}

// belowAxis returns ys with NaN (no line) at every point that follows a point below min, so a
// curve that leaves the plot ends at its axis instead of running along it.
func belowAxis(ys []float64, min float64) []float64 {
	out := make([]float64, len(ys))
	for i, y := range ys {
		out[i] = y
		if i > 0 && ys[i-1] < min && y < min {
			out[i] = math.NaN()
		}
	}
	return out
}

// tradeoffPlot lays out tradeoff curves T(α) sampled at alpha beside perfect privacy 1 − α
// and the tradeoff function of the target (ε, δ)-DP.
func tradeoffPlot(title string, alpha []float64, series []curveSeries, targetEps, targetDelta float64) plot.Drawing {
	diag, target := make([]float64, len(alpha)), make([]float64, len(alpha))
	approx := privacy.ApproxDP{Eps: targetEps, Del: targetDelta}
	for i, a := range alpha {
		diag[i], target[i] = 1-a, approx.Tradeoff(a)
	}
	fig := plot.Figure{
		Width: plotWidth, Height: plotHeight, Title: title,
		X: plot.Axis{Label: "type I error α", Min: 0, Max: 1},
		Y: plot.Axis{Label: "type II error", Min: 0, Max: 1},
		Series: []plot.Series{
			{Name: "perfect privacy 1 − α", Class: "reference", X: alpha, Y: diag},
			{Name: "target (ε, δ)-DP", Class: "series-1", X: alpha, Y: target},
		},
	}
	for _, s := range series {
		fig.Series = append(fig.Series, plot.Series{Name: s.name, Class: s.class, X: alpha, Y: s.ys})
	}
	return mustDraw(fig)
}

// mustDraw lays out a figure whose axes the page has already validated.
func mustDraw(f plot.Figure) plot.Drawing {
	d, err := f.Draw()
	if err != nil {
		panic(err) // the ranges above are always valid; an error is a programming error
	}
	return d
}

// epsMax is the largest ε the privacy-curve plots show for a target ε.
func epsMax(targetEps float64) float64 { return math.Max(10, 2*targetEps) }

// ROCPlot lays out the selected run's held-out ROC curve beside the diagonal of guessing
// (local diagnostics, not private); an empty drawing when it has none (HasROC).
func (a *App) ROCPlot() plot.Drawing {
	if !a.HasROC() {
		return plot.Drawing{}
	}
	roc := a.Result().Test.ROC
	return mustDraw(plot.Figure{
		Width: plotWidth, Height: plotHeight, Title: "Held-out ROC curve, AUC " + strconv.FormatFloat(roc.AUC, 'f', 3, 64) + " (not private)",
		X: plot.Axis{Label: "false-positive rate", Min: 0, Max: 1},
		Y: plot.Axis{Label: "true-positive rate", Min: 0, Max: 1},
		Series: []plot.Series{
			{Name: "guessing", Class: "reference", X: []float64{0, 1}, Y: []float64{0, 1}},
			{Name: "the model", Class: "series-0", X: roc.FPR, Y: roc.TPR},
		},
	})
}

// HasROC reports whether the selected run has a held-out ROC curve (a binary classifier with
// held-out rows of both classes).
func (a *App) HasROC() bool {
	res := a.Result()
	return res != nil && res.Test != nil && res.Test.ROC != nil
}
