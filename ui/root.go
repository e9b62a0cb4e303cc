package ui

import (
	"math"
	"strconv"
	"strings"

	"github.com/privopt/privopt/pkg/core/privacy"
	"github.com/privopt/privopt/pkg/plot"
)

// DefaultMu is the Gaussian-DP parameter the page opens with.
const DefaultMu = 1.0

// curve plot geometry, in SVG user units (the viewBox of the plot in root.vugu).
const (
	curveWidth  = 560
	curveHeight = 340
	curvePoints = 201
	curveMaxEps = 10
)

// Root is the page: a μ input, the privacy curve δ(ε) of μ-GDP, and the engine's status.
type Root struct {
	// MuText is the μ field as typed.
	MuText string
	// MuError explains why MuText is not a valid μ; empty when it is.
	MuError string
	// Mu is the last valid μ; the plot and δ(1) show it.
	Mu float64
	// Curve is the laid-out plot of δ(ε) for Mu.
	Curve plot.Drawing
	// EngineStatus describes the compute engine (the Web Worker), set by wasm/app.
	EngineStatus string
}

// NewRoot returns the page in its initial state, with μ = DefaultMu.
func NewRoot() *Root {
	r := &Root{EngineStatus: "starting"}
	r.SetMu(strconv.FormatFloat(DefaultMu, 'g', -1, 64))
	return r
}

// SetMu parses the μ field. A valid μ (finite and positive) redraws the curve; an invalid one
// keeps the last valid curve and sets MuError.
func (c *Root) SetMu(text string) {
	c.MuText = text
	mu, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
	switch {
	case err != nil:
		c.MuError = "μ must be a number."
		return
	case math.IsNaN(mu) || math.IsInf(mu, 0) || mu <= 0:
		c.MuError = "μ must be a positive, finite number."
		return
	case mu > 100:
		c.MuError = "μ above 100 gives no meaningful privacy; enter at most 100."
		return
	}
	c.MuError = ""
	c.Mu = mu
	c.Curve = curveDrawing(mu)
}

// DeltaAt1 is δ(ε = 1) for the current μ, to four significant digits.
func (c *Root) DeltaAt1() string {
	return strconv.FormatFloat(privacy.GDP{Mu: c.Mu}.Delta(1), 'g', 4, 64)
}

// curveDrawing lays out δ(ε) of μ-GDP for ε in [0, curveMaxEps].
func curveDrawing(mu float64) plot.Drawing {
	gdp := privacy.GDP{Mu: mu}
	xs := make([]float64, curvePoints)
	ys := make([]float64, curvePoints)
	for i := range xs {
		xs[i] = curveMaxEps * float64(i) / (curvePoints - 1)
		ys[i] = gdp.Delta(xs[i])
	}
	fig := plot.Figure{
		Width: curveWidth, Height: curveHeight,
		Title: "Privacy curve of " + strconv.FormatFloat(mu, 'g', 4, 64) + "-GDP",
		X:     plot.Axis{Label: "ε", Min: 0, Max: curveMaxEps},
		Y:     plot.Axis{Label: "δ(ε)", Min: 0, Max: 1},
		Series: []plot.Series{
			{Name: "δ(ε)", Class: "series-0", X: xs, Y: ys},
		},
		Markers: []plot.Marker{{Label: "ε = 1", Class: "marker", X: 1, Y: gdp.Delta(1)}},
	}
	d, err := fig.Draw()
	if err != nil {
		// The figure above is fixed and valid; an error here is a programming error.
		panic(err)
	}
	return d
}

// MuInvalid is the aria-invalid state of the μ field: "true" when MuError is set.
func (c *Root) MuInvalid() string {
	return strconv.FormatBool(c.MuError != "")
}
