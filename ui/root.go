package ui

import (
	"math"
	"strconv"
	"strings"

	"github.com/privopt/privopt/pkg/core/privacy"
	"github.com/privopt/privopt/pkg/plot"
)

// Plot geometry, in SVG user units (the viewBoxes of the plots in root.vugu).
const (
	plotWidth   = 460
	plotHeight  = 340
	curvePoints = 201
)

// Field is a numeric input as typed, with its parsed value and the reason it is invalid.
type Field struct {
	// Text is the field as typed.
	Text string
	// Err explains why Text is not valid; empty when it is.
	Err string
	// Value is the last valid value; the page shows it while Text is invalid.
	Value float64
}

// set parses text and checks it; check returns the reason a number is not acceptable, or "".
// An invalid text keeps the last valid Value.
func (f *Field) set(text string, check func(float64) string) {
	f.Text = text
	v, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
	switch {
	case err != nil:
		f.Err = "Enter a number."
	case math.IsNaN(v) || math.IsInf(v, 0):
		f.Err = "Enter a finite number."
	default:
		f.Err = check(v)
	}
	if f.Err == "" {
		f.Value = v
	}
}

// Invalid is the aria-invalid state of the field: "true" when Err is set.
func (f *Field) Invalid() string { return strconv.FormatBool(f.Err != "") }

// Root is the page: a μ-GDP guarantee and a target (ε, δ), the privacy curve δ(ε) on a log
// scale with the target marked, the tradeoff curve T(α) beside perfect privacy, and the
// compute engine's status.
type Root struct {
	Mu, Eps, Delta Field
	// Curve and Tradeoff are the laid-out plots for the current valid values.
	Curve, Tradeoff plot.Drawing
	// EngineStatus describes the compute engine (the Web Worker), set by wasm/app.
	EngineStatus string
	// Embed selects the embed mode: only the privacy-curve widget (the fields, the results
	// and the two plots), with no header, footer or explanation, for an iframe in a course page.
	Embed bool
}

// NewRoot returns the page in its initial state: μ = 1 and the target (ε, δ) = (1, 10⁻⁵).
func NewRoot() *Root {
	r := &Root{EngineStatus: "starting"}
	r.Mu.set("1", checkMu)
	r.Eps.set("1", checkEps)
	r.Delta.set("1e-5", checkDelta)
	r.redraw()
	return r
}

// NewRootFromQuery returns the page for the parameters of its URL's query, decoded (a map,
// not url.Values: net/url would add 130 kB to app.wasm). embed=curve selects the embed mode;
// mu, eps and delta are entered in their fields as if typed, so that an invalid value keeps
// the field's default and shows its error. Other parameters are ignored.
func NewRootFromQuery(q map[string]string) *Root {
	r := NewRoot()
	r.Embed = q["embed"] == "curve"
	for _, f := range []struct {
		name string
		set  func(string)
	}{{"mu", r.SetMu}, {"eps", r.SetEps}, {"delta", r.SetDelta}} {
		if v, ok := q[f.name]; ok {
			f.set(v)
		}
	}
	return r
}

// AppClass is the class of the page's outer element: "app", or "app embed" in the embed mode.
func (c *Root) AppClass() string {
	if c.Embed {
		return "app embed"
	}
	return "app"
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

// SetMu, SetEps and SetDelta take a field's text as typed; a valid value redraws the plots.
func (c *Root) SetMu(text string)    { c.Mu.set(text, checkMu); c.redraw() }
func (c *Root) SetEps(text string)   { c.Eps.set(text, checkEps); c.redraw() }
func (c *Root) SetDelta(text string) { c.Delta.set(text, checkDelta); c.redraw() }

// UseLargestMu sets μ to the largest value that meets the target (ε, δ).
func (c *Root) UseLargestMu() {
	c.SetMu(strconv.FormatFloat(c.LargestMu(), 'g', 6, 64))
}

// gdp is the guarantee the page shows.
func (c *Root) gdp() privacy.GDP { return privacy.GDP{Mu: c.Mu.Value} }

// DeltaAtEps is δ(ε) of μ-GDP at the target ε, formatted.
func (c *Root) DeltaAtEps() string { return plot.FormatNumber(c.gdp().Delta(c.Eps.Value)) }

// Meets reports whether μ-GDP meets the target (ε, δ).
func (c *Root) Meets() bool { return c.gdp().Delta(c.Eps.Value) <= c.Delta.Value }

// LargestMu is the largest μ meeting the target (0 if the target is invalid).
func (c *Root) LargestMu() float64 {
	mu, err := privacy.CalibrateGDP(c.Eps.Value, c.Delta.Value)
	if err != nil {
		return 0
	}
	return mu
}

// LargestMuText is LargestMu, formatted.
func (c *Root) LargestMuText() string { return plot.FormatNumber(c.LargestMu()) }

// EpsAtDelta is the smallest ε with δ(ε) ≤ target δ for the current μ, formatted.
func (c *Root) EpsAtDelta() string {
	e, err := c.gdp().Epsilon(c.Delta.Value)
	if err != nil {
		return "–"
	}
	return plot.FormatNumber(e)
}

// redraw lays out both plots for the current valid values.
func (c *Root) redraw() {
	g, eps, delta := c.gdp(), c.Eps.Value, c.Delta.Value
	maxEps := math.Max(10, 2*eps)
	xs := make([]float64, curvePoints)
	ys := make([]float64, curvePoints)
	for i := range xs {
		xs[i] = maxEps * float64(i) / (curvePoints - 1)
		ys[i] = g.Delta(xs[i])
	}
	// The y axis spans whole decades from below the target δ (and the curve's end) to 1.
	low := math.Min(delta/10, math.Max(ys[len(ys)-1], 1e-300))
	yMin := math.Max(math.Pow(10, math.Floor(math.Log10(low))), 1e-300)
	curve := plot.Figure{
		Width: plotWidth, Height: plotHeight,
		Title: "Privacy curve δ(ε) of " + plot.FormatNumber(g.Mu) + "-GDP",
		X:     plot.Axis{Label: "ε", Min: 0, Max: maxEps},
		Y:     plot.Axis{Label: "δ(ε)", Min: yMin, Max: 1, Scale: plot.Log10},
		Series: []plot.Series{
			{Name: "δ(ε) of μ-GDP", Class: "series-0", X: xs, Y: ys},
		},
		Markers: []plot.Marker{{Label: "target (ε, δ)", Class: "marker", X: eps, Y: delta}},
	}
	c.Curve = mustDraw(curve)

	as := make([]float64, curvePoints)
	ts := make([]float64, curvePoints)
	target := make([]float64, curvePoints)
	diag := make([]float64, curvePoints)
	approx := privacy.ApproxDP{Eps: eps, Del: delta}
	for i := range as {
		a := float64(i) / (curvePoints - 1)
		as[i], ts[i], target[i], diag[i] = a, g.Tradeoff(a), approx.Tradeoff(a), 1-a
	}
	tradeoff := plot.Figure{
		Width: plotWidth, Height: plotHeight,
		Title: "Tradeoff T(α): type II error of the best test",
		X:     plot.Axis{Label: "type I error α", Min: 0, Max: 1},
		Y:     plot.Axis{Label: "type II error", Min: 0, Max: 1},
		Series: []plot.Series{
			{Name: "perfect privacy 1 − α", Class: "reference", X: as, Y: diag},
			{Name: "target (ε, δ)-DP", Class: "series-1", X: as, Y: target},
			{Name: "T(α) of μ-GDP", Class: "series-0", X: as, Y: ts},
		},
	}
	c.Tradeoff = mustDraw(tradeoff)
}

// mustDraw lays out a figure whose axes the page has already validated.
func mustDraw(f plot.Figure) plot.Drawing {
	d, err := f.Draw()
	if err != nil {
		panic(err) // the ranges above are always valid; an error is a programming error
	}
	return d
}
