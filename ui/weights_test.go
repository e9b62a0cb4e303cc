package ui

import (
	"strings"
	"testing"

	"github.com/privopt/privopt/pkg/core/mech"
	"github.com/privopt/privopt/wasm/engine"
)

// runsOf returns an app whose finished runs released the given models (features f0, f1, …).
func runsOf(classes []string, weights ...[]float64) *App {
	a := NewApp(newTestHost(nil, 1))
	d := len(weights[0]) / max(1, len(classes))
	var features []string
	for j := range d {
		features = append(features, "f"+itoa(j))
	}
	for i, w := range weights {
		a.RunList = append(a.RunList, &RunStatus{Index: i, State: "done", Result: &engine.Result{Release: &mech.Release{
			Model: mech.Model{Features: features, Classes: classes, Weights: w}}}})
	}
	return a
}

// labelsOf lists the labels of spreads, in order.
func labelsOf(s []weightSpread) string {
	var out []string
	for _, w := range s {
		out = append(out, w.label)
	}
	return strings.Join(out, "|")
}

// The weights chart's rows: the features whose weight is largest in magnitude in any run
// first, ties in feature order; each row's spread over the runs; at most maxChartWeights rows.
func TestWeightSpreads(t *testing.T) {
	a := runsOf(nil,
		[]float64{5.8, 0.1, -3, 0, 1},
		[]float64{4.3, 0.2, -2, 0, -1},
		[]float64{-0.8, -7, -1, 0, 1})
	shown, n := a.weightSpreads()
	if n != 5 || labelsOf(shown) != "f1|f0|f2|f4|f3" {
		t.Fatalf("%d features, shown %s", n, labelsOf(shown))
	}
	age := shown[1]
	if age.lo != -0.8 || age.hi != 5.8 || len(age.values) != 3 || age.values[1] != 4.3 || !age.unreliable() {
		t.Errorf("f0's spread %+v", age)
	}
	if shown[2].unreliable() || shown[4].unreliable() {
		t.Error("weights of one sign (or 0) are flagged unreliable")
	}
	// The chart flags the rows whose runs disagree in sign, and fills the selected run's dot.
	a.Selected = 2
	d := a.WeightsChart()
	var red, marked int
	for _, c := range d.Circles {
		if strings.Contains(c.Class, "unreliable") {
			red++
		}
		if strings.HasSuffix(c.Class, " mark") {
			marked++
		}
	}
	if red != 9 || marked != 5 { // f1, f0 and f4: 3 dots each; one marked dot per row
		t.Errorf("%d red dots, %d marked", red, marked)
	}
	if txt := a.WeightsChartText(); !strings.Contains(txt, "The model's 5 weights, with a dot per run (filled: run 3)") ||
		!strings.Contains(txt, "(3 of 5 here)") || !strings.Contains(txt, "noise the privacy adds") {
		t.Errorf("text %q", txt)
	}

	// Many features: the largest maxChartWeights, and the text says so.
	w := make([]float64, 30)
	for j := range w {
		w[j] = float64(j%10) - 4.5 // |w| of f4, f5, f14, … is smallest; f0 and f9 tie
	}
	a = runsOf(nil, w)
	shown, n = a.weightSpreads()
	if n != 30 || len(shown) != maxChartWeights || shown[0].label != "f0" || shown[1].label != "f9" || shown[len(shown)-1].label != "f6" {
		t.Errorf("%d of %d shown: %s", len(shown), n, labelsOf(shown))
	}
	for _, s := range shown {
		if abs(s.values[0]) < 1.5 {
			t.Errorf("%s (weight %g) shown among the largest", s.label, s.values[0])
		}
	}
	if txt := a.WeightsChartText(); !strings.Contains(txt, "The 20 largest of the model's 30 weights (the table below has them all), a dot each: several runs") {
		t.Errorf("one run's text %q", txt)
	}
}

// A multinomial model's weights are labelled with their class and compared across classes.
func TestWeightSpreadsMulticlass(t *testing.T) {
	a := runsOf([]string{"a", "b"}, []float64{1, -3, 9, 0}, []float64{2, -1, 8, 0.5})
	shown, n := a.weightSpreads()
	if n != 4 || labelsOf(shown) != "b: f0|a: f1|a: f0|b: f1" || shown[0].lo != 8 || shown[1].hi != -1 || shown[3].values[1] != 0.5 {
		t.Errorf("%d weights: %+v", n, shown)
	}
}
