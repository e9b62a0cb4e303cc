package ui

import (
	"strconv"

	"github.com/privopt/privopt/pkg/core/privacy"
	"github.com/privopt/privopt/pkg/plot"
	"github.com/privopt/privopt/wasm/engine"
)

// gdpPoints is the number of points of the widget's curves.
const gdpPoints = 201

// GDPWidget is the interactive privacy-curve widget of μ-Gaussian differential privacy: a μ
// and a target (ε, δ), the privacy curve δ(ε) on a log scale with the target marked, and the
// tradeoff curve T(α) beside perfect privacy. It is the page in the embed mode
// (?embed=curve) and the last section of the app.
type GDPWidget struct {
	// Mu is μ; Eps and Delta are the target (ε, δ).
	Mu, Eps, Delta Field
	// Curve and Tradeoff are the laid-out plots for the current valid values.
	Curve, Tradeoff plot.Drawing
	// Embed hides the explanation, for an iframe.
	Embed bool
}

// NewGDPWidget returns the widget in its initial state: μ = 1 and the target (ε, δ) = (1, 10⁻⁵).
func NewGDPWidget() *GDPWidget {
	w := &GDPWidget{}
	w.Mu.set("1", checkMu)
	w.Eps.set("1", checkEps)
	w.Delta.set("1e-5", checkDelta)
	w.redraw()
	return w
}

func checkMu(v float64) string {
	switch {
	case v <= 0:
		return "μ must be positive."
	case v > 100:
		return "μ above 100 gives no meaningful privacy; enter at most 100."
	}
	return ""
}

func checkEps(v float64) string {
	switch {
	case v <= 0:
		return "ε must be positive."
	case v > 50:
		return "ε above 50 gives no meaningful privacy; enter at most 50."
	}
	return ""
}

func checkDelta(v float64) string {
	if !(v > 0 && v < 1) {
		return "δ must be between 0 and 1 (exclusive)."
	}
	if v < 1e-300 {
		return "δ below 10⁻³⁰⁰ is not supported."
	}
	return ""
}

// SetMu takes the μ field's text as typed; a valid value redraws the plots.
func (w *GDPWidget) SetMu(text string) { w.Mu.set(text, checkMu); w.redraw() }

// SetEps takes the target ε field's text as typed; a valid value redraws the plots.
func (w *GDPWidget) SetEps(text string) { w.Eps.set(text, checkEps); w.redraw() }

// SetDelta takes the target δ field's text as typed; a valid value redraws the plots.
func (w *GDPWidget) SetDelta(text string) { w.Delta.set(text, checkDelta); w.redraw() }

// UseLargestMu sets μ to the largest value that meets the target (ε, δ).
func (w *GDPWidget) UseLargestMu() {
	w.SetMu(strconv.FormatFloat(w.LargestMu(), 'g', 6, 64))
}

// gdp is the guarantee the widget shows.
func (w *GDPWidget) gdp() privacy.GDP { return privacy.GDP{Mu: w.Mu.Value} }

// DeltaAtEps is δ(ε) of μ-GDP at the target ε, formatted.
func (w *GDPWidget) DeltaAtEps() string { return plot.FormatNumber(w.gdp().Delta(w.Eps.Value)) }

// Meets reports whether μ-GDP meets the target (ε, δ).
func (w *GDPWidget) Meets() bool { return w.gdp().Delta(w.Eps.Value) <= w.Delta.Value }

// LargestMu is the largest μ meeting the target (0 if the target is invalid).
func (w *GDPWidget) LargestMu() float64 {
	mu, err := privacy.CalibrateGDP(w.Eps.Value, w.Delta.Value)
	if err != nil {
		return 0
	}
	return mu
}

// LargestMuText is LargestMu, formatted.
func (w *GDPWidget) LargestMuText() string { return plot.FormatNumber(w.LargestMu()) }

// EpsAtDelta is the smallest ε with δ(ε) ≤ target δ for the current μ, formatted.
func (w *GDPWidget) EpsAtDelta() string {
	e, err := w.gdp().Epsilon(w.Delta.Value)
	if err != nil {
		return "–"
	}
	return plot.FormatNumber(e)
}

// redraw lays out both plots for the current valid values.
func (w *GDPWidget) redraw() {
	g, eps, delta := w.gdp(), w.Eps.Value, w.Delta.Value
	xs := engine.Grid(0, epsMax(eps), gdpPoints)
	as := engine.Grid(0, 1, gdpPoints)
	ys, ts := make([]float64, gdpPoints), make([]float64, gdpPoints)
	for i := range xs {
		ys[i], ts[i] = g.Delta(xs[i]), g.Tradeoff(as[i])
	}
	w.Curve = privacyCurvePlot("Privacy curve δ(ε) of "+plot.FormatNumber(g.Mu)+"-GDP", xs,
		[]curveSeries{{"δ(ε) of μ-GDP", "series-0", ys}}, eps, delta)
	w.Tradeoff = tradeoffPlot("Tradeoff T(α): type II error of the best test", as,
		[]curveSeries{{"T(α) of μ-GDP", "series-0", ts}}, eps, delta)
}
