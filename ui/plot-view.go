package ui

import "github.com/privopt/privopt/pkg/plot"

// PlotView renders a laid-out plot as an inline SVG element.
type PlotView struct {
	// ID is the element's id; Label its accessible description.
	ID, Label string
	// Drawing is the plot, laid out by pkg/plot.
	Drawing plot.Drawing
}
