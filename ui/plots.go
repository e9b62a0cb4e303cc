package ui

import (
	"strconv"

	"github.com/privopt/privopt/internal/curves"
	"github.com/privopt/privopt/pkg/plot"
)

// pagePlots is the size of the app's plots, in SVG user units.
var pagePlots = curves.Size{Width: 460, Height: 340}

// ROCPlot lays out the selected run's held-out ROC curve beside the diagonal of guessing
// (local diagnostics, not private); an empty drawing when it has none (HasROC).
func (a *App) ROCPlot() plot.Drawing {
	if !a.HasROC() {
		return plot.Drawing{}
	}
	roc := a.Result().Test.ROC
	fig := plot.Figure{
		Width: pagePlots.Width, Height: pagePlots.Height, Title: "Held-out ROC curve, AUC " + strconv.FormatFloat(roc.AUC, 'f', 3, 64) + " (not private)",
		X: plot.Axis{Label: "false-positive rate", Min: 0, Max: 1},
		Y: plot.Axis{Label: "true-positive rate", Min: 0, Max: 1},
		Series: []plot.Series{
			{Name: "guessing", Class: "reference", X: []float64{0, 1}, Y: []float64{0, 1}},
			{Name: "the model", Class: "series-0", X: roc.FPR, Y: roc.TPR},
		},
	}
	return fig.MustDraw()
}

// HasROC reports whether the selected run has a held-out ROC curve (a binary classifier with
// held-out rows of both classes).
func (a *App) HasROC() bool {
	res := a.Result()
	return res != nil && res.Test != nil && res.Test.ROC != nil
}
