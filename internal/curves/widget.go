// Package curves is the privacy-curve widget of μ-Gaussian differential privacy without its
// view: its μ, ε and δ fields parsed and checked, the numbers and sentences it shows, and its
// two plots. The page's Vugu component (ui.CurveWidget, below the app's steps) and the light
// widget page (widget.html, run by wasm/widget) both show a Widget, so they accept the same
// input, start from the same defaults and draw the same curves.
//
// The package also holds what the page's other privacy plots share with the widget: the
// numeric Field and the layout of the privacy-curve and tradeoff plots. It links the privacy
// accounting, pkg/plot, math, strconv and strings only (no fmt), which keeps widget.wasm
// small.
package curves

import (
	"math"
	"strconv"
	"strings"

	"github.com/privopt/privopt/pkg/core/privacy"
	"github.com/privopt/privopt/pkg/plot"
)

// The fields' initial texts. The target (ε, δ) is the app's initial budget too (ui), so the
// widget and the app open on the same target.
const (
	DefaultMu    = "1"
	DefaultEps   = "1"
	DefaultDelta = "1e-6"
)

// points is the number of points of the widget's curves.
const points = 201

// widgetPlots is the size of the widget's plots: drawn about 340 px wide, in two columns of a
// 720 px frame or one column of a 360 px one, their 11 px labels show at about 12.5 px.
var widgetPlots = Size{Width: 300, Height: 180}

// Widget is the widget's state: a μ and a target (ε, δ) as typed, and the plots of the μ-GDP
// curves when all three are valid.
type Widget struct {
	// Mu is μ; Eps and Delta are the target (ε, δ).
	Mu, Eps, Delta Field
	// Curve is the privacy curve δ(ε) on a log scale with the target marked, Tradeoff the
	// tradeoff curve T(α) beside perfect privacy and the target's; both empty while a field
	// is invalid (Valid).
	Curve, Tradeoff plot.Drawing
}

// New returns the widget with μ = 1 and the target (ε, δ) = (1, 10⁻⁶).
func New() *Widget {
	w := &Widget{}
	w.Mu.Set(DefaultMu, CheckMu)
	w.Eps.Set(DefaultEps, CheckEps)
	w.Delta.Set(DefaultDelta, CheckDelta)
	w.redraw()
	return w
}

// ApplyQuery enters the parameters mu, eps and delta of a URL's query (decoded) in the
// fields as if typed; other names are ignored. An invalid value shows its field's error, and
// no curve is drawn until it is corrected.
func (w *Widget) ApplyQuery(q map[string]string) {
	for _, f := range []struct {
		name  string
		field *Field
		check func(float64) string
	}{{"mu", &w.Mu, CheckMu}, {"eps", &w.Eps, CheckEps}, {"delta", &w.Delta, CheckDelta}} {
		if v, ok := q[f.name]; ok {
			f.field.Set(v, f.check)
		}
	}
	w.redraw()
}

// SetMu takes the μ field's text as typed.
func (w *Widget) SetMu(text string) { w.Mu.Set(text, CheckMu); w.redraw() }

// SetEps takes the target ε field's text as typed.
func (w *Widget) SetEps(text string) { w.Eps.Set(text, CheckEps); w.redraw() }

// SetDelta takes the target δ field's text as typed.
func (w *Widget) SetDelta(text string) { w.Delta.Set(text, CheckDelta); w.redraw() }

// UseLargestMu sets μ to the largest value that meets the target (ε, δ), written to six
// significant digits and rounded down, so that it still meets the target.
func (w *Widget) UseLargestMu() {
	w.SetMu(roundDown6(w.LargestMu()))
}

// Valid reports whether all three fields are valid: the numbers and curves are shown only then.
func (w *Widget) Valid() bool { return w.Mu.Err == "" && w.Eps.Err == "" && w.Delta.Err == "" }

// Problem says, while a field is invalid, that nothing is computed and which field to correct;
// "" when all are valid.
func (w *Widget) Problem() string {
	var bad []string
	for _, f := range []struct {
		name  string
		field *Field
	}{{"μ", &w.Mu}, {"ε", &w.Eps}, {"δ", &w.Delta}} {
		if f.field.Err != "" {
			bad = append(bad, f.name)
		}
	}
	switch len(bad) {
	case 0:
		return ""
	case 1:
		return "No curve is drawn while " + bad[0] + " is invalid: correct it above."
	}
	return "No curve is drawn while " + strings.Join(bad[:len(bad)-1], ", ") + " and " + bad[len(bad)-1] + " are invalid: correct them above."
}

// gdp is the guarantee the widget shows.
func (w *Widget) gdp() privacy.GDP { return privacy.GDP{Mu: w.Mu.Value} }

// DeltaAtEps is δ(ε) of μ-GDP at the target ε, formatted.
func (w *Widget) DeltaAtEps() string { return plot.FormatNumber(w.gdp().Delta(w.Eps.Value)) }

// EpsAtDelta is the smallest ε with δ(ε) ≤ the target δ for the current μ, formatted.
func (w *Widget) EpsAtDelta() string {
	e, err := w.gdp().Epsilon(w.Delta.Value)
	if err != nil {
		return "–"
	}
	return plot.FormatNumber(e)
}

// Meets reports whether μ-GDP meets the target (ε, δ).
func (w *Widget) Meets() bool { return w.gdp().Delta(w.Eps.Value) <= w.Delta.Value }

// Verdict compares μ-GDP with the target, in neutral words (the views do not colour it): a μ
// above the target is a fact to read, not the reader's error.
func (w *Widget) Verdict() string {
	g := plot.FormatNumber(w.Mu.Value) + "-GDP"
	if w.Meets() {
		return g + " meets the target (ε, δ)."
	}
	return g + " does not meet the target (ε, δ)."
}

// LargestMu is the largest μ meeting the target (0 if there is none).
func (w *Widget) LargestMu() float64 {
	mu, err := privacy.CalibrateGDP(w.Eps.Value, w.Delta.Value)
	if err != nil {
		return 0
	}
	return mu
}

// LargestMuText is LargestMu, formatted.
func (w *Widget) LargestMuText() string { return plot.FormatNumber(w.LargestMu()) }

// redraw lays out both plots for valid fields, and empties them otherwise.
func (w *Widget) redraw() {
	if !w.Valid() {
		w.Curve, w.Tradeoff = plot.Drawing{}, plot.Drawing{}
		return
	}
	g, eps, delta := w.gdp(), w.Eps.Value, w.Delta.Value
	xs, ys, as, ts := sample(g, eps)
	name := plot.FormatNumber(g.Mu) + "-GDP"
	w.Curve = PrivacyCurvePlot(widgetPlots, "Privacy curve δ(ε) of "+name, xs,
		[]Series{{"δ(ε) of μ-GDP", "series-0", ys}}, eps, delta)
	w.Tradeoff = TradeoffPlot(widgetPlots, "Tradeoff curve T(α) of "+name, as,
		[]Series{{"T(α) of μ-GDP", "series-0", ts}}, eps, delta)
}

// sample returns the curves of g the widget draws for a target ε: δ(ε) at xs, from 0 to
// EpsMax(ε), and T(α) at as, from 0 to 1.
func sample(g privacy.GDP, targetEps float64) (xs, ys, as, ts []float64) {
	xs, as = plot.Grid(0, EpsMax(targetEps), points), plot.Grid(0, 1, points)
	ys, ts = make([]float64, points), make([]float64, points)
	for i := range xs {
		ys[i], ts[i] = g.Delta(xs[i]), g.Tradeoff(as[i])
	}
	return xs, ys, as, ts
}

// roundDown6 writes v > 0 with six significant digits, rounded toward zero (so that a largest
// μ, written down, still meets its target).
func roundDown6(v float64) string {
	s := strconv.FormatFloat(v, 'g', 6, 64)
	if r, _ := strconv.ParseFloat(s, 64); r > v {
		s = strconv.FormatFloat(r-math.Pow(10, math.Floor(math.Log10(v))-5), 'g', 6, 64)
	}
	return s
}
