package plot

import (
	"errors"
	"math"
)

// DotRow is one row of a DotChart: its label, and its values drawn as dots on one line.
type DotRow struct {
	Label  string
	Values []float64
	// Class is added to the classes of the row's range line and dots (to flag a row).
	Class string
}

// DotChart is a chart of labelled rows of values along one linear axis: each row is its
// label and, under it, a dot per value with a line over their range. The labels sit above
// their dots rather than beside them, so a long label needs no margin and the chart reads at
// a phone's width. The height follows from the number of rows.
type DotChart struct {
	// Width is in pixels, and must be positive.
	Width float64
	// X is the values' axis, whose range holds every value (Scale is ignored: it is linear);
	// a vertical line marks 0 when it lies inside the range.
	X    Axis
	Rows []DotRow
	// Mark is the index, in each row's Values, of the value drawn highlighted (classes
	// "dot mark"), over the others; -1 for none.
	Mark int
}

// The layout of a DotChart, in pixels: a row's height, and the baselines of its label and of
// its dots below the row's top. The axis takes marginBottom under the rows.
const (
	dotRowHeight = 30
	dotLabelY    = 12
	dotLineY     = 22
	dotMargin    = 16
)

// Draw lays out the chart: the rows from the top, then the axis with its ticks and label. It
// returns an error when the width leaves no room or the axis's range is empty or not finite.
func (c *DotChart) Draw() (Drawing, error) {
	x := c.X
	x.Scale = Linear
	if !(c.Width > 2*dotMargin) || !(x.Min < x.Max) || math.IsInf(x.Min, 0) || math.IsInf(x.Max, 0) {
		return Drawing{}, errors.New("plot: a dot chart " + num(c.Width) + " wide with the range [" + num(x.Min) + ", " + num(x.Max) + "]")
	}
	fr := frame{left: dotMargin, right: c.Width - dotMargin, bottom: float64(4 + len(c.Rows)*dotRowHeight), x: x}
	height := px(fr.bottom + marginBottom)
	d := Drawing{Width: px(c.Width), Height: height, ViewBox: "0 0 " + px(c.Width) + " " + height}
	d.drawXTicks(fr)
	if x.Min < 0 && 0 < x.Max {
		d.Lines = append(d.Lines, Line{X1: px(fr.px(0)), Y1: "0", X2: px(fr.px(0)), Y2: px(fr.bottom), Class: "zero"})
	}
	d.Lines = append(d.Lines, Line{X1: px(fr.left), Y1: px(fr.bottom), X2: px(fr.right), Y2: px(fr.bottom), Class: "axis"})
	d.drawXLabel(fr)
	for i, r := range c.Rows {
		top := float64(i * dotRowHeight)
		d.Texts = append(d.Texts, Text{X: px(fr.left), Y: px(top + dotLabelY), Anchor: "start", Class: "dot-label", Text: r.Label})
		if len(r.Values) == 0 {
			continue
		}
		y := px(top + dotLineY)
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, v := range r.Values {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		extra := ""
		if r.Class != "" {
			extra = " " + r.Class
		}
		d.Lines = append(d.Lines, Line{X1: px(fr.px(lo)), Y1: y, X2: px(fr.px(hi)), Y2: y, Class: "range" + extra})
		dot := func(v float64, class string) {
			d.Circles = append(d.Circles, Circle{CX: px(fr.px(v)), CY: y, R: "4", Class: class})
		}
		for k, v := range r.Values {
			if k != c.Mark {
				dot(v, "dot"+extra)
			}
		}
		if c.Mark >= 0 && c.Mark < len(r.Values) { // over the others
			dot(r.Values[c.Mark], "dot"+extra+" mark")
		}
	}
	return d, nil
}
