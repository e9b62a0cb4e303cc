package mech

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/geom"
	"github.com/privopt/privopt/pkg/core/loss"
	"github.com/privopt/privopt/pkg/core/privacy"
	"github.com/privopt/privopt/pkg/rng"
)

// evaluationCase is a problem whose models the evaluation tests score, a model, and a
// generator of held-out rows that include the extremes (labels at the bounds, predictions
// clipped at either end, every class).
type evaluationCase struct {
	name    string
	problem Problem
	heldOut HeldOut
	w       []float64
	row     func(r *rng.Rand) ([]float64, float64)
}

func evaluationCases() []evaluationCase {
	unit := func(r *rng.Rand, d int) []float64 {
		x := make([]float64, d)
		if err := r.UnitBall(x); err != nil {
			panic(err)
		}
		return x
	}
	problem := func(l LossSpec, d int) Problem {
		return Problem{Loss: l, Dim: d, N: 50, Bounds: loss.Bounds{X: 1, XNorm: 2, Y: 4}, Domain: geom.Whole{D: d * max(1, l.Classes)}, Radius: 1}
	}
	return []evaluationCase{
		{"binary", problem(LossSpec{Name: "logistic"}, 2), HeldOut{}, []float64{1, -2}, func(r *rng.Rand) ([]float64, float64) {
			return unit(r, 2), float64(2*r.IntN(2) - 1)
		}},
		{"multinomial", problem(LossSpec{Name: "multinomial", Classes: 3}, 2), HeldOut{}, []float64{1, 0, -1, 1, 0, -3}, func(r *rng.Rand) ([]float64, float64) {
			return unit(r, 2), float64(r.IntN(3))
		}},
		{"regression", problem(LossSpec{Name: "squared"}, 2), HeldOut{Min: -1, Max: 4}, []float64{9, -9}, func(r *rng.Rand) ([]float64, float64) {
			y := []float64{-1, 4, 5*r.Float64() - 1}[r.IntN(3)] // often at the bounds
			return unit(r, 2), y
		}},
	}
}

// TestEvaluationSensitivity replays the evaluation's sums on 3,000 random neighbouring
// held-out sets of each kind, under both relations (replace a row; add one), and checks that
// their ℓ2 and ℓ1 distances never exceed the declared sensitivities and reach them.
func TestEvaluationSensitivity(t *testing.T) {
	for _, c := range evaluationCases() {
		for _, rel := range []privacy.Neighbouring{privacy.ReplaceOne, privacy.AddRemove} {
			r := rng.Seeded(7)
			b := privacy.Budget{Epsilon: 1, Delta: 1e-6, Neighbouring: rel}
			h := c.heldOut
			h.Rows = 20
			e, err := PlanEvaluation(c.problem, b, h)
			if err != nil {
				t.Fatal(err)
			}
			var most2, most1 float64
			for range 3000 {
				rows, labels := make([][]float64, 20), make([]float64, 20)
				for i := range rows {
					rows[i], labels[i] = c.row(r)
				}
				d0 := rowsData(2, rows, labels)
				x, y := c.row(r)
				var d1 *data.Dataset
				if rel == privacy.ReplaceOne {
					k := r.IntN(20)
					rows[k], labels[k] = x, y
					d1 = rowsData(2, rows, labels)
				} else {
					d0 = rowsData(2, rows[:19], labels[:19])
					d1 = rowsData(2, append(rows[:19:19], x), append(labels[:19:19], y))
				}
				s0, err := e.sums(d0, c.w)
				if err != nil {
					t.Fatal(err)
				}
				s1, err := e.sums(d1, c.w)
				if err != nil {
					t.Fatal(err)
				}
				var l2, l1 float64
				for k := range s0 {
					l2 += (s1[k] - s0[k]) * (s1[k] - s0[k])
					l1 += math.Abs(s1[k] - s0[k])
				}
				most2, most1 = max(most2, math.Sqrt(l2)), max(most1, l1)
			}
			if most2 > e.l2 || most1 > e.l1 {
				t.Errorf("%s %s: measured ℓ2 %g and ℓ1 %g above the declared %g and %g", c.name, rel, most2, most1, e.l2, e.l1)
			}
			if most2 < 0.99*e.l2 && c.name != "regression" || most2 < 0.5*e.l2 {
				t.Errorf("%s %s: measured ℓ2 %g far below the declared %g: is the declared sensitivity the right one?", c.name, rel, most2, e.l2)
			}
			t.Logf("%s %s: ℓ2 %.4f of %.4f, ℓ1 %.4f of %.4f", c.name, rel, most2, e.l2, most1, e.l1)
		}
	}
}

// TestEvaluationRelease checks the released sums and statistics: the guarantee meets the
// budget and the report says so, the noise is on the grid, and with a large ε the statistics
// are those of the exact sums (accuracy, MAE, RMSE, R² computed directly).
func TestEvaluationRelease(t *testing.T) {
	for _, c := range evaluationCases() {
		r := rng.Seeded(3)
		rows, labels := make([][]float64, 400), make([]float64, 400)
		for i := range rows {
			rows[i], labels[i] = c.row(r)
		}
		ds := rowsData(2, rows, labels)
		h := c.heldOut
		h.Rows = ds.N
		for _, b := range []privacy.Budget{{Epsilon: 0.5, Delta: 1e-6}, {Epsilon: 0.5}, {Epsilon: 5000, Delta: 1e-6, Neighbouring: privacy.AddRemove}} {
			e, err := PlanEvaluation(c.problem, b, h)
			if err != nil {
				t.Fatal(err)
			}
			ev, err := e.Run(ds, c.w, rng.Seeded(1))
			if err != nil {
				t.Fatal(err)
			}
			if !(privacy.Budget{Epsilon: b.Epsilon, Delta: b.Delta}).Meets(e.Guarantee()) || ev.Report.Achieved.Delta > b.Delta {
				t.Errorf("%s %+v: the guarantee %v does not meet the budget", c.name, b, e.Guarantee())
			}
			if !strings.Contains(ev.Report.Statement, "NOT private") || !strings.Contains(ev.Report.Mechanism, "private evaluation") {
				t.Errorf("%s: report %q", c.name, ev.Report.Statement)
			}
			g := e.grid.Spacing()
			for _, v := range ev.Sums {
				if v/g != math.Round(v/g) {
					t.Errorf("%s: released %g is off the grid %g", c.name, v, g)
				}
			}
			if b.Epsilon < 1000 {
				continue
			}
			exact, _ := e.sums(ds, c.w)
			want := e.statistics(exact)
			var got []float64
			if ev.Accuracy != nil {
				got = []float64{ev.Accuracy.Value}
			} else {
				got = []float64{ev.MAE.Value, ev.RMSE.Value, ev.R2.Value}
			}
			direct := directStatistics(c, ds)
			for k := range want {
				if math.Abs(got[k]-direct[k]) > 1e-3*max(1, math.Abs(direct[k])) || math.Abs(want[k]-direct[k]) > 1e-5*max(1, math.Abs(direct[k])) {
					t.Errorf("%s: statistic %d released %g, from the exact sums %g, computed directly %g", c.name, k, got[k], want[k], direct[k])
				}
			}
		}
	}
}

// directStatistics computes accuracy, or MAE, RMSE and R², straight from their definitions.
func directStatistics(c evaluationCase, ds *data.Dataset) []float64 {
	n := float64(ds.N)
	if c.heldOut.Max == 0 {
		right := 0
		for i := range ds.N {
			pred := 0.0
			if c.problem.Loss.Name == "multinomial" {
				pred = float64(argmaxScore(c.w, ds.Row(i, nil), c.problem.Loss.Classes))
			} else if dot(c.w, ds.Row(i, nil)) >= 0 {
				pred = 1
			} else {
				pred = -1
			}
			if pred == ds.Y[i] {
				right++
			}
		}
		return []float64{float64(right) / n}
	}
	var mean, abs, sq, sst float64
	for _, y := range ds.Y {
		mean += y / n
	}
	for i := range ds.N {
		e := ds.Y[i] - min(max(dot(c.w, ds.Row(i, nil)), c.heldOut.Min), c.heldOut.Max)
		abs += math.Abs(e) / n
		sq += e * e / n
		sst += (ds.Y[i] - mean) * (ds.Y[i] - mean) / n
	}
	return []float64{abs, math.Sqrt(sq), 1 - sq/sst}
}

// TestEvaluationRefuses checks the plan's and the run's errors.
func TestEvaluationRefuses(t *testing.T) {
	cs := evaluationCases()
	b := privacy.Budget{Epsilon: 1, Delta: 1e-6}
	if _, err := PlanEvaluation(cs[0].problem, b, HeldOut{}); err == nil {
		t.Error("replace-one without the held-out rows: no error")
	}
	if _, err := PlanEvaluation(cs[2].problem, b, HeldOut{Rows: 5}); err == nil {
		t.Error("regression without the label's range: no error")
	}
	e, err := PlanEvaluation(cs[0].problem, b, HeldOut{Rows: 5})
	if err != nil {
		t.Fatal(err)
	}
	ds := rowsData(2, [][]float64{{0, 0}}, []float64{1})
	if _, err := e.Run(ds, cs[0].w, rng.Seeded(1)); err == nil || !strings.Contains(err.Error(), "planned for 5") {
		t.Errorf("a held-out set of another size: error %v", err)
	}
}

// TestEvaluationUnit checks that a label's unit (a label mapped from a private range to
// [−1, 1]) multiplies the mean absolute error and the RMSE, and nothing else: the same seed
// releases the same sums.
func TestEvaluationUnit(t *testing.T) {
	c := evaluationCases()[2]
	r := rng.Seeded(3)
	rows, labels := make([][]float64, 200), make([]float64, 200)
	for i := range rows {
		rows[i], labels[i] = c.row(r)
	}
	ds := rowsData(2, rows, labels)
	run := func(unit float64) *Evaluation {
		h := c.heldOut
		h.Rows, h.Unit = ds.N, unit
		e, err := PlanEvaluation(c.problem, privacy.Budget{Epsilon: 1, Delta: 1e-6}, h)
		if err != nil {
			t.Fatal(err)
		}
		ev, err := e.Run(ds, c.w, rng.Seeded(1))
		if err != nil {
			t.Fatal(err)
		}
		return ev
	}
	one, three := run(0), run(3)
	if !slices.Equal(one.Sums, three.Sums) || one.R2.Value != three.R2.Value {
		t.Errorf("the unit changed the sums or R²: %v / %v, %v / %v", one.Sums, three.Sums, one.R2, three.R2)
	}
	for _, pair := range [][2]*Estimate{{one.MAE, three.MAE}, {one.RMSE, three.RMSE}} {
		a, b := pair[0], pair[1]
		if math.Abs(b.Value-3*a.Value) > 1e-12*b.Value || math.Abs(b.Low-3*a.Low) > 1e-12*b.Value || math.Abs(b.High-3*a.High) > 1e-12*b.Value {
			t.Errorf("unit 3: %+v, want 3 × %+v", *b, *a)
		}
	}
	h := c.heldOut
	h.Rows, h.Unit = ds.N, math.Inf(1)
	if _, err := PlanEvaluation(c.problem, privacy.Budget{Epsilon: 1, Delta: 1e-6}, h); err == nil {
		t.Error("an infinite unit was accepted")
	}
}
