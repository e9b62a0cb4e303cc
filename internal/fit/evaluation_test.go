package fit

import (
	"math"
	"testing"

	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/privacy"
)

// TestMajorityAccuracy: the baseline predicts the training labels' most frequent value (the
// smallest on a tie) and scores it on the held-out labels.
func TestMajorityAccuracy(t *testing.T) {
	for _, tc := range []struct {
		train, test []float64
		want        float64
	}{
		{[]float64{1, -1, -1}, []float64{-1, 1, -1, -1}, 0.75},
		{[]float64{2, 0, 2, 1}, []float64{2, 2, 0}, 2.0 / 3},
		{[]float64{1, -1}, []float64{-1, 1, 1, 1}, 0.25}, // a tie: −1
		{[]float64{1}, nil, 0},
	} {
		if got := majorityAccuracy(tc.train, tc.test); got != tc.want {
			t.Errorf("majorityAccuracy(%v, %v) = %g, want %g", tc.train, tc.test, got, tc.want)
		}
	}
}

// TestROC: the ROC curve of held-out scores runs from (0, 0) to (1, 1) through at most
// rocPoints + 1 points, and its area is the probability that a positive row outscores a
// negative one (ties half): 1 for a perfect ranking, 0 for a reversed one, 1/2 for one score.
func TestROC(t *testing.T) {
	rows := func(ys []float64, xs []float64) *data.Dataset {
		return &data.Dataset{N: len(ys), D: 1, X: xs, Y: ys}
	}
	for _, tc := range []struct {
		name   string
		ys, xs []float64
		auc    float64
	}{
		{"perfect", []float64{1, 1, -1, -1}, []float64{3, 2, 1, 0}, 1},
		{"reversed", []float64{1, 1, -1, -1}, []float64{0, 1, 2, 3}, 0},
		{"one score", []float64{1, -1, 1, -1}, []float64{5, 5, 5, 5}, 0.5},
		{"mixed", []float64{1, -1, 1, -1}, []float64{4, 3, 2, 1}, 0.75},
	} {
		r := rocOf(rows(tc.ys, tc.xs), []float64{1})
		n := len(r.FPR)
		if r.AUC != tc.auc || r.FPR[0] != 0 || r.TPR[0] != 0 || r.FPR[n-1] != 1 || r.TPR[n-1] != 1 || len(r.TPR) != n {
			t.Errorf("%s: %+v, want AUC %g", tc.name, r, tc.auc)
		}
	}
	many := make([]float64, 1000)
	xs := make([]float64, 1000)
	for i := range many {
		many[i], xs[i] = float64(1-2*(i%2)), float64(i%7)
	}
	if r := rocOf(rows(many, xs), []float64{1}); len(r.FPR) > rocPoints+2 {
		t.Errorf("%d points for 1000 rows", len(r.FPR))
	}
	if rocOf(rows([]float64{1, 1}, []float64{0, 1}), []float64{1}) != nil {
		t.Error("a ROC curve without negative rows")
	}
}

// TestEvaluateLocallyDividesByTheRows: the held-out loss is the mean over the held-out rows,
// under add/remove too, where the fit divides by the declared public N (a held-out mean
// divided by N would shrink with the share of rows held out).
func TestEvaluateLocallyDividesByTheRows(t *testing.T) {
	ds := &data.Dataset{N: 3, D: 2, X: []float64{0.6, 0.8, -1, 0, 0, 0.5}, Y: []float64{1, -1, 1},
		P: 2, Radius: 1, Label: data.Label{Kind: data.LabelBinary}}
	facts, err := FactsOf(ds, nil)
	if err != nil {
		t.Fatal(err)
	}
	w := []float64{0.3, -2}
	want := 0.0
	for i := range ds.N {
		want += math.Log1p(math.Exp(-ds.Y[i] * dot(w, ds.Row(i, nil))))
	}
	want /= 3
	for _, nb := range []privacy.Neighbouring{privacy.ReplaceOne, privacy.AddRemove} {
		s := Spec{Loss: "logistic", Domain: Whole, Radius: 10, Mechanism: "noisy-gd", PublicN: 1000,
			Budget: privacy.Budget{Epsilon: 1, Delta: 1e-6, Neighbouring: nb}}
		if nb == privacy.ReplaceOne {
			s.PublicN = 0
		}
		ev, err := EvaluateLocally(s, facts, ds.Y, ds, nil, w)
		if err != nil {
			t.Fatalf("%s: %v", nb, err)
		}
		if math.Abs(ev.Loss-want) > 1e-12 || ev.Rows != 3 || ev.Accuracy == nil || *ev.Accuracy != 1.0/3 {
			t.Errorf("%s: %+v, want loss %g and accuracy 1/3", nb, ev, want)
		}
	}
}
