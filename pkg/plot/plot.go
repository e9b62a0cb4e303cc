// Package plot lays out two-dimensional line plots, and dot charts (DotChart), as SVG
// primitives.
//
// A Figure (axes, series, markers) is turned by Draw into a Drawing: lines, paths, texts and
// circles in pixel coordinates with their coordinates already formatted as strings. The UI
// renders a Drawing element by element from a Vugu template, the light curve widget creates
// its Elements in the DOM, and pkg/plot/svgfile writes it as a standalone SVG document (for
// reports and the README). No styling is inline: every element carries a CSS class, so the
// page's Content-Security-Policy can forbid inline styles.
package plot

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Scale is the mapping of an axis from data to pixels.
type Scale int

const (
	// Linear maps data linearly.
	Linear Scale = iota
	// Log10 maps the base-10 logarithm of the data linearly; values ≤ 0 are clamped to Min.
	Log10
)

// Axis describes one axis: its label, its data range and its scale.
// For a Log10 axis, Min and Max must be positive.
type Axis struct {
	Label    string
	Min, Max float64
	Scale    Scale
}

// Series is a polyline through the points (X[i], Y[i]). A NaN coordinate breaks the line.
type Series struct {
	Name  string // shown in the legend when not empty
	Class string // CSS class of the path, for example "series-0"
	X, Y  []float64
}

// Marker is a single labelled point.
type Marker struct {
	Label string
	Class string
	X, Y  float64
}

// Figure is a plot to be laid out by Draw.
type Figure struct {
	Width, Height float64 // pixels; both must be positive
	Title         string
	X, Y          Axis
	Series        []Series
	Markers       []Marker
	// LegendBelow draws the legend under the plot, in two columns (one when a name is too long
	// for half the width), instead of over its top right corner: for many series or long
	// names. The plotting area gives up the room.
	LegendBelow bool
}

// Line is a straight segment in pixel coordinates.
type Line struct {
	X1, Y1, X2, Y2 string
	Class          string
}

// Path is an SVG path; D is its path data.
type Path struct {
	D     string
	Class string
}

// Text is a label. Anchor is the SVG text-anchor ("start", "middle" or "end").
type Text struct {
	X, Y   string
	Anchor string
	Class  string
	Text   string
	// Rotate is the SVG transform attribute, empty for horizontal text.
	Rotate string
}

// Circle is a marker dot.
type Circle struct {
	CX, CY, R string
	Class     string
}

// Drawing holds the primitives of a laid-out Figure, in drawing order.
type Drawing struct {
	Width, Height string
	ViewBox       string
	Lines         []Line
	Paths         []Path
	Circles       []Circle
	Texts         []Text
}

// margins around the plotting area, in pixels.
const (
	marginLeft   = 64
	marginRight  = 16
	marginTop    = 28
	marginBottom = 46
	tickLength   = 5
)

// px formats a pixel coordinate with two decimals, which is finer than any screen needs.
func px(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }

// num writes a number as fmt's %g does. The package does without fmt, which would add about
// 200 kB (gzip) to the light curve widget (wasm/widget).
func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// Grid returns n ≥ 2 evenly spaced values from lo to hi, both included: where a curve is
// sampled for a plot.
func Grid(lo, hi float64, n int) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = lo + (hi-lo)*float64(i)/float64(n-1)
	}
	return xs
}

// frame maps data coordinates to pixels for one figure.
type frame struct {
	left, right, top, bottom float64
	x, y                     Axis
}

func (f frame) pos(a Axis, v, lo, hi float64) float64 {
	t := 0.0
	switch a.Scale {
	case Log10:
		if v <= a.Min {
			v = a.Min
		}
		t = (math.Log10(v) - math.Log10(a.Min)) / (math.Log10(a.Max) - math.Log10(a.Min))
	default:
		t = (v - a.Min) / (a.Max - a.Min)
	}
	return lo + t*(hi-lo)
}

func (f frame) px(x float64) float64 { return f.pos(f.x, x, f.left, f.right) }
func (f frame) py(y float64) float64 { return f.pos(f.y, y, f.bottom, f.top) }

// clampY keeps a data value inside the y range so that paths stay within the plot area.
func (f frame) clampY(y float64) float64 {
	return math.Min(math.Max(y, f.y.Min), f.y.Max)
}

// Draw lays out the figure. It returns an error when the figure cannot be drawn: a
// non-positive size, an empty or inverted axis range, or a non-positive bound on a log axis.
func (fig *Figure) Draw() (Drawing, error) {
	if !(fig.Width > 0 && fig.Height > 0) {
		return Drawing{}, errors.New("plot: size " + num(fig.Width) + "x" + num(fig.Height) + " is not positive")
	}
	for _, a := range []Axis{fig.X, fig.Y} {
		if !(a.Min < a.Max) || math.IsInf(a.Min, 0) || math.IsInf(a.Max, 0) {
			return Drawing{}, errors.New("plot: axis " + strconv.Quote(a.Label) + " has range [" + num(a.Min) + ", " + num(a.Max) + "]")
		}
		if a.Scale == Log10 && a.Min <= 0 {
			return Drawing{}, errors.New("plot: log axis " + strconv.Quote(a.Label) + " needs a positive minimum, got " + num(a.Min))
		}
	}
	fr := frame{
		left: marginLeft, right: fig.Width - marginRight,
		top: marginTop, bottom: fig.Height - marginBottom - fig.legendHeight(),
		x: fig.X, y: fig.Y,
	}
	if !(fr.bottom > fr.top) {
		return Drawing{}, errors.New("plot: a " + num(fig.Width) + "x" + num(fig.Height) + " figure has no room for its plot and legend")
	}
	d := Drawing{
		Width:   px(fig.Width),
		Height:  px(fig.Height),
		ViewBox: "0 0 " + px(fig.Width) + " " + px(fig.Height),
	}
	d.drawAxes(fr, fig)
	for _, s := range fig.Series {
		d.Paths = append(d.Paths, Path{D: pathData(fr, s), Class: s.Class})
		if x, y, ok := lonePoint(s); ok { // a path through one point draws nothing
			d.Circles = append(d.Circles, Circle{CX: px(fr.px(x)), CY: px(fr.py(fr.clampY(y))), R: "3", Class: "point " + s.Class})
		}
	}
	for _, m := range fig.Markers {
		cx, cy := fr.px(m.X), fr.py(fr.clampY(m.Y))
		d.Circles = append(d.Circles, Circle{CX: px(cx), CY: px(cy), R: "4", Class: m.Class})
		if m.Label != "" {
			d.Texts = append(d.Texts, Text{X: px(cx + 7), Y: px(cy - 7), Anchor: "start", Class: "marker-label", Text: m.Label})
		}
	}
	if fig.LegendBelow {
		d.drawLegendBelow(fr, fig.Series, fig.legendColumns())
	} else {
		d.drawLegend(fr, fig.Series)
	}
	return d, nil
}

// MustDraw is Draw for a figure whose size and axes are valid by construction: an error is a
// programming error, and it panics.
func (fig *Figure) MustDraw() Drawing {
	d, err := fig.Draw()
	if err != nil {
		panic(err)
	}
	return d
}

// legendRowHeight is the height of a legend entry, in pixels.
const legendRowHeight = 16

// legendHeight is the room a legend under the plot takes (0 for the legend over the plot).
func (fig *Figure) legendHeight() float64 {
	if !fig.LegendBelow {
		return 0
	}
	cols := fig.legendColumns()
	return float64((namedSeries(fig.Series)+cols-1)/cols*legendRowHeight + 6)
}

// legendColumns is the number of columns of a legend below the plot: two, or one when a name
// would not fit in half the plot's width (at about 6.5 px a character of the 11 px label).
func (fig *Figure) legendColumns() int {
	half := (fig.Width - marginLeft - marginRight) / 2
	for _, s := range fig.Series {
		if 28+6.5*float64(utf8.RuneCountInString(s.Name)) > half {
			return 1
		}
	}
	return 2
}

// namedSeries counts the series that have a legend entry.
func namedSeries(series []Series) int {
	n := 0
	for _, s := range series {
		if s.Name != "" {
			n++
		}
	}
	return n
}

// lonePoint returns the only point of a series that has exactly one drawable point.
func lonePoint(s Series) (x, y float64, ok bool) {
	n := 0
	for i := range min(len(s.X), len(s.Y)) {
		if !math.IsNaN(s.X[i]) && !math.IsNaN(s.Y[i]) {
			x, y, n = s.X[i], s.Y[i], n+1
		}
	}
	return x, y, n == 1
}

// drawLegendBelow draws the legend in cols columns under the x axis's label.
func (d *Drawing) drawLegendBelow(fr frame, series []Series, cols int) {
	top := fr.bottom + marginBottom + 10
	col := (fr.right - fr.left) / float64(cols)
	k := 0
	for _, s := range series {
		if s.Name == "" {
			continue
		}
		x, y := fr.left+float64(k%cols)*col, top+float64(k/cols*legendRowHeight)
		d.Lines = append(d.Lines, Line{X1: px(x), Y1: px(y - 4), X2: px(x + 22), Y2: px(y - 4), Class: "legend-swatch " + s.Class})
		d.Texts = append(d.Texts, Text{X: px(x + 28), Y: px(y), Anchor: "start", Class: "legend-label", Text: s.Name})
		k++
	}
}

func (d *Drawing) drawAxes(fr frame, fig *Figure) {
	d.Lines = append(d.Lines,
		Line{X1: px(fr.left), Y1: px(fr.bottom), X2: px(fr.right), Y2: px(fr.bottom), Class: "axis"},
		Line{X1: px(fr.left), Y1: px(fr.bottom), X2: px(fr.left), Y2: px(fr.top), Class: "axis"},
	)
	d.drawXTicks(fr)
	for _, t := range Ticks(fig.Y) {
		y := fr.py(t.Value)
		d.Lines = append(d.Lines,
			Line{X1: px(fr.left), Y1: px(y), X2: px(fr.right), Y2: px(y), Class: "grid"},
			Line{X1: px(fr.left - tickLength), Y1: px(y), X2: px(fr.left), Y2: px(y), Class: "tick"})
		d.Texts = append(d.Texts, Text{X: px(fr.left - tickLength - 3), Y: px(y + 4), Anchor: "end", Class: "tick-label", Text: t.Label})
	}
	cx := d.drawXLabel(fr)
	cy := (fr.top + fr.bottom) / 2
	d.Texts = append(d.Texts, Text{X: "14", Y: px(cy), Anchor: "middle", Class: "axis-label", Text: fig.Y.Label,
		Rotate: "rotate(-90 14 " + px(cy) + ")"})
	if fig.Title != "" {
		d.Texts = append(d.Texts, Text{X: px(cx), Y: "18", Anchor: "middle", Class: "title", Text: fig.Title})
	}
}

// drawXTicks draws the x axis's ticks with their labels and grid lines.
func (d *Drawing) drawXTicks(fr frame) {
	for _, t := range Ticks(fr.x) {
		x := fr.px(t.Value)
		d.Lines = append(d.Lines,
			Line{X1: px(x), Y1: px(fr.top), X2: px(x), Y2: px(fr.bottom), Class: "grid"},
			Line{X1: px(x), Y1: px(fr.bottom), X2: px(x), Y2: px(fr.bottom + tickLength), Class: "tick"})
		d.Texts = append(d.Texts, Text{X: px(x), Y: px(fr.bottom + tickLength + 13), Anchor: "middle", Class: "tick-label", Text: t.Label})
	}
}

// drawXLabel draws the x axis's label, centred under the axis, and returns its x.
func (d *Drawing) drawXLabel(fr frame) float64 {
	cx := (fr.left + fr.right) / 2
	d.Texts = append(d.Texts, Text{X: px(cx), Y: px(fr.bottom + marginBottom - 8), Anchor: "middle", Class: "axis-label", Text: fr.x.Label})
	return cx
}

func (d *Drawing) drawLegend(fr frame, series []Series) {
	y := fr.top + 12
	for _, s := range series {
		if s.Name == "" {
			continue
		}
		x := fr.right - 150
		d.Lines = append(d.Lines, Line{X1: px(x), Y1: px(y - 4), X2: px(x + 22), Y2: px(y - 4), Class: "legend-swatch " + s.Class})
		d.Texts = append(d.Texts, Text{X: px(x + 28), Y: px(y), Anchor: "start", Class: "legend-label", Text: s.Name})
		y += 16
	}
}

// pathData builds the path of a series, starting a new subpath after every NaN point.
func pathData(fr frame, s Series) string {
	var b strings.Builder
	pen := false
	for i := range min(len(s.X), len(s.Y)) {
		x, y := s.X[i], s.Y[i]
		if math.IsNaN(x) || math.IsNaN(y) {
			pen = false
			continue
		}
		if pen {
			b.WriteString("L")
		} else {
			b.WriteString("M")
			pen = true
		}
		b.WriteString(px(fr.px(x)))
		b.WriteByte(' ')
		b.WriteString(px(fr.py(fr.clampY(y))))
	}
	return b.String()
}

// Tick is an axis tick at a data value, with its label.
type Tick struct {
	Value float64
	Label string
}

// Ticks returns the ticks of an axis: for a linear axis, at most 9 multiples of 1, 2 or 5 times
// a power of ten inside the range; for a log axis, the powers of ten inside the range (every
// k-th one when there are more than 8).
func Ticks(a Axis) []Tick {
	if a.Scale == Log10 {
		lo, hi := int(math.Ceil(math.Log10(a.Min)-1e-9)), int(math.Floor(math.Log10(a.Max)+1e-9))
		step := (hi-lo)/8 + 1
		var ts []Tick
		for e := hi; e >= lo; e -= step {
			ts = append([]Tick{{Value: math.Pow(10, float64(e)), Label: powerLabel(e)}}, ts...)
		}
		return ts
	}
	span := a.Max - a.Min
	step := math.Pow(10, math.Floor(math.Log10(span/4)))
	for _, m := range []float64{1, 2, 5, 10} {
		if span/(m*step) <= 8 {
			step *= m
			break
		}
	}
	var ts []Tick
	first := math.Ceil(a.Min/step-1e-9) * step
	for i := 0; ; i++ {
		v := first + float64(i)*step
		if v > a.Max+step*1e-9 {
			break
		}
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		ts = append(ts, Tick{Value: v, Label: strconv.FormatFloat(v, 'g', 6, 64)})
	}
	return ts
}

// powerLabel writes 10^e with a Unicode superscript exponent.
func powerLabel(e int) string {
	switch e {
	case 0:
		return "1"
	case 1:
		return "10"
	}
	return "10" + Superscript(e)
}

// superscriptDigits are the Unicode superscript digits.
var superscriptDigits = []rune("⁰¹²³⁴⁵⁶⁷⁸⁹")

// Superscript writes an integer in Unicode superscript characters, for example ⁻¹².
func Superscript(n int) string {
	var b strings.Builder
	if n < 0 {
		b.WriteRune('⁻')
		n = -n
	}
	for _, d := range strconv.Itoa(n) {
		b.WriteRune(superscriptDigits[d-'0'])
	}
	return b.String()
}

// FormatNumber writes a number for people: four significant digits (whole numbers from 10⁴),
// and scientific notation as "1.234 × 10⁻⁷" below 0.001 or from 10⁶ on.
func FormatNumber(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e4 && a < 1e6:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v == 0 || (a >= 1e-3 && a < 1e4) || math.IsNaN(v) || math.IsInf(v, 0):
		return strconv.FormatFloat(v, 'g', 4, 64)
	}
	mant, exp, _ := strings.Cut(strconv.FormatFloat(v, 'e', 3, 64), "e") // e.g. 1.230e-07
	if strings.Contains(mant, ".") {
		mant = strings.TrimRight(strings.TrimRight(mant, "0"), ".")
	}
	n, _ := strconv.Atoi(exp)
	return mant + " × 10" + Superscript(n)
}

// Attr is an attribute of an SVG element.
type Attr struct {
	Name, Value string
}

// Element is one SVG element of a Drawing: its name, its attributes in order and, for a
// text, its content.
type Element struct {
	Name  string
	Attrs []Attr
	Text  string
}

// Elements returns the drawing's SVG elements in drawing order: lines, paths, circles, then
// texts. pkg/plot/svgfile writes them to a file; the light curve widget (wasm/widget) creates
// them in the DOM.
func (d Drawing) Elements() []Element {
	els := make([]Element, 0, len(d.Lines)+len(d.Paths)+len(d.Circles)+len(d.Texts))
	for _, l := range d.Lines {
		els = append(els, Element{Name: "line", Attrs: []Attr{{"x1", l.X1}, {"y1", l.Y1}, {"x2", l.X2}, {"y2", l.Y2}, {"class", l.Class}}})
	}
	for _, p := range d.Paths {
		els = append(els, Element{Name: "path", Attrs: []Attr{{"d", p.D}, {"class", p.Class}}})
	}
	for _, c := range d.Circles {
		els = append(els, Element{Name: "circle", Attrs: []Attr{{"cx", c.CX}, {"cy", c.CY}, {"r", c.R}, {"class", c.Class}}})
	}
	for _, t := range d.Texts {
		attrs := []Attr{{"x", t.X}, {"y", t.Y}, {"text-anchor", t.Anchor}, {"class", t.Class}}
		if t.Rotate != "" {
			attrs = append(attrs, Attr{"transform", t.Rotate})
		}
		els = append(els, Element{Name: "text", Attrs: attrs, Text: t.Text})
	}
	return els
}
