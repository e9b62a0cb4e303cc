package ui

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/privopt/privopt/pkg/plot"
)

// maxChartWeights is the most weights the weights chart shows.
const maxChartWeights = 20

// weightsChartWidth is the weights chart's width, in SVG user units: narrow enough for its
// text to stay readable when a phone scales it down.
const weightsChartWidth = 400

// weightSpread is one weight of the model in each finished run (in run order), with its
// label: its feature, or "class: feature".
type weightSpread struct {
	label  string
	values []float64
	lo, hi float64
}

// unreliable reports whether the runs disagree on the weight's sign.
func (s weightSpread) unreliable() bool { return s.lo < 0 && s.hi > 0 }

// weightSpreads lists the weights of the finished runs' models, weight by weight (labelled
// "class: feature" for a multinomial model's): the at most maxChartWeights weights largest in
// magnitude in any run, largest first (ties in the model's order), and the number of weights.
func (a *App) weightSpreads() (shown []weightSpread, weights int) {
	runs := a.DoneRuns()
	if len(runs) == 0 {
		return nil, 0
	}
	m := runs[0].Result.Release.Model
	all := make([]weightSpread, len(m.Weights))
	for k := range m.Weights {
		s := weightSpread{label: m.Features[k%len(m.Features)], lo: math.Inf(1), hi: math.Inf(-1)}
		if len(m.Classes) > 0 {
			s.label = m.Classes[k/len(m.Features)] + ": " + s.label
		}
		for _, r := range runs {
			v := r.Result.Release.Model.Weights[k]
			s.values = append(s.values, v)
			s.lo, s.hi = math.Min(s.lo, v), math.Max(s.hi, v)
		}
		all[k] = s
	}
	order := largestFirst(len(all), func(k int) float64 { return math.Max(-all[k].lo, all[k].hi) })
	for _, k := range order[:min(len(order), maxChartWeights)] {
		shown = append(shown, all[k])
	}
	return shown, len(all)
}

// WeightsChart lays out the weights of the finished runs' models as a dot chart: a row per
// weight (those of weightSpreads), a dot per run (the selected run's filled) and a line over
// their range, flagged "unreliable" when the runs disagree on the sign. An empty drawing when
// no run has finished.
func (a *App) WeightsChart() plot.Drawing {
	shown, _ := a.weightSpreads()
	if len(shown) == 0 {
		return plot.Drawing{}
	}
	c := plot.DotChart{Width: weightsChartWidth, Mark: -1}
	lo, hi := 0.0, 0.0
	for _, s := range shown {
		row := plot.DotRow{Label: s.label, Values: s.values}
		if s.unreliable() {
			row.Class = "unreliable"
		}
		c.Rows = append(c.Rows, row)
		lo, hi = math.Min(lo, s.lo), math.Max(hi, s.hi)
	}
	if lo == hi { // every weight shown is 0
		lo, hi = -1, 1
	}
	pad := (hi - lo) / 20
	c.X = plot.Axis{Label: "weight", Min: lo - pad, Max: hi + pad}
	for k, r := range a.DoneRuns() {
		if r.Index == a.Selected {
			c.Mark = k
		}
	}
	d, err := c.Draw()
	if err != nil {
		panic(err) // the axis's range is finite and not empty: an error is a programming error
	}
	return d
}

// WeightsChartText says in one sentence how to read the weights chart and, with several runs,
// what their spread means.
func (a *App) WeightsChartText() string {
	shown, weights := a.weightSpreads()
	what := fmt.Sprintf("The model's %d weights", weights)
	if len(shown) < weights {
		what = fmt.Sprintf("The %d largest of the model's %d weights (the table below has them all)", len(shown), weights)
	}
	runs := len(a.DoneRuns())
	if runs < 2 {
		return what + ", a dot each: several runs (step 3) would show how much the privacy's noise moves them."
	}
	unreliable := 0
	for _, s := range shown {
		if s.unreliable() {
			unreliable++
		}
	}
	return fmt.Sprintf("%s, with a dot per run (filled: run %d) and a line over the %d runs: that spread is the noise "+
		"the privacy adds, so a weight whose runs disagree in sign, drawn in red (%d of %d here), is not reliable.",
		what, a.Selected+1, runs, unreliable, len(shown))
}

// largestFirst orders the indices 0 to n−1 by decreasing size, ties in index order.
func largestFirst(n int, size func(int) float64) []int {
	order := make([]int, n)
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(x, y int) int { return cmp.Compare(size(y), size(x)) })
	return order
}
