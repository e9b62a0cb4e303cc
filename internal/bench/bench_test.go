package bench

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"github.com/privopt/privopt/internal/bench/results"
	"github.com/privopt/privopt/pkg/core/cost"
	"github.com/privopt/privopt/pkg/core/privacy"
	"math"
	"strings"
	"testing"

	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/mech"
	"github.com/privopt/privopt/pkg/plot/svgfile"
	"github.com/privopt/privopt/pkg/rng"
)

// task returns a small separable-ish task with ‖x‖₂ ≤ 1 and a bias-like first feature.
func task(n int, seed uint64) *data.Dataset {
	r := rng.Seeded(seed)
	d := 3
	ds := &data.Dataset{N: n, D: d, X: make([]float64, n*d), Y: make([]float64, n), P: 2, Radius: 1, Features: []string{"a", "b", "c"}}
	for i := range n {
		row := ds.X[i*d : (i+1)*d]
		_ = r.UnitBall(row)
		ds.Y[i] = 1
		if row[0]+0.2*r.Normal() < 0.1 {
			ds.Y[i] = -1
		}
	}
	return ds
}

func TestBenchmarkTable(t *testing.T) {
	cfg := Config{Train: task(300, 1), Test: task(200, 2), Epsilons: []float64{1, 4}, Delta: 1e-6, Runs: 3, Radius: 5,
		Mechanisms: []Entry{{Name: "outpert", Mech: mech.OutputPerturbation{}, Pure: true}, {Name: "outpert-gauss", Mech: mech.OutputPerturbation{Gaussian: true}}}}
	var lines []string
	cfg.Progress = func(l string) { lines = append(lines, l) }
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 4 || len(lines) != 4 {
		t.Fatalf("%d rows, %d progress lines", len(res.Rows), len(lines))
	}
	for _, r := range res.Rows {
		if r.Error != "" || r.Runs != 3 || !(r.AccuracyMean > 0.4) || !(r.Seconds > 0) || !r.Private {
			t.Errorf("row %+v", r)
		}
		if (r.Mechanism == "outpert") != (r.Delta == 0) {
			t.Errorf("%s planned with δ = %g", r.Mechanism, r.Delta)
		}
	}
	if !(res.Baselines.NonPrivateAccuracy > res.Baselines.MajorityAccuracy) {
		t.Errorf("baselines %+v", res.Baselines)
	}
	wasm := res
	wasm.Platform = "js/wasm"
	chromium := res
	chromium.Platform, chromium.PageReady = "chromium", []float64{0.9, 0.4, 0.6}
	md := results.Markdown(res, wasm, chromium)
	for _, want := range []string{"| outpert-gauss | 4 | 1e-06 |", "time wasm (node) (s) | ratio |", "| 1.00 |", "Baselines: non-private",
		"The page in Chromium is usable 0.6 s after the navigation (median of 3 loads in fresh contexts from a local server; 0.4 to 0.9 s)."} {
		if !strings.Contains(md, want) {
			t.Errorf("the table lacks %q:\n%s", want, md)
		}
	}
	d, err := results.Plot(res)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := svgfile.Write(&buf, d); err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(buf.Bytes(), new(struct{})); err != nil || !strings.Contains(buf.String(), "outpert-gauss") {
		t.Errorf("plot: %v", err)
	}
}

// A mechanism that cannot plan at a budget gives a row with the reason, not a failure.
func TestBenchmarkRecordsPlanErrors(t *testing.T) {
	cfg := Config{Train: task(100, 3), Test: task(50, 4), Epsilons: []float64{1}, Delta: 1e-6, Runs: 1, Radius: 5,
		Mechanisms: []Entry{{Name: "rem", Mech: mech.REM{}, Pure: true}}}
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Rows[0].Error == "" || !strings.Contains(results.Markdown(res), "not run") {
		t.Errorf("rows %+v", res.Rows)
	}
}

// freePlan is a plan that predicts no cost, so the cell limit only counts its measured runs.
type freePlan struct{ mech.Plan }

func (freePlan) Cost() cost.Cost { return cost.Cost{} }

// free is a mechanism whose plans predict no cost.
type free struct{ mech.Mechanism }

func (f free) Plan(b privacy.Budget, p mech.Problem) (mech.Plan, error) {
	pl, err := f.Mechanism.Plan(b, p)
	return freePlan{pl}, err
}

// The cell limit: a cell whose one run is predicted over it is not run, and says why; a cell
// stops after the run that reaches it (here the first, whatever its time, since the limit is
// a femtosecond).
func TestBenchmarkCellLimit(t *testing.T) {
	cfg := Config{Train: task(100, 3), Test: task(50, 4), Epsilons: []float64{1}, Delta: 1e-6, Runs: 3, Radius: 5, CellSeconds: 1e-15,
		Mechanisms: []Entry{{Name: "langevin", Mech: mech.Langevin{}}, {Name: "free", Mech: free{mech.OutputPerturbation{Gaussian: true}}}}}
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Rows[0]; !strings.Contains(r.Error, "predicted to take") || r.Runs != 0 {
		t.Errorf("langevin: %+v", r)
	}
	if r := res.Rows[1]; r.Error != "" || r.Runs != 1 {
		t.Errorf("free: %+v", r)
	}
}

// oneHot returns n rows of d ≥ 8 features with k non-zero entries each (‖x‖₂ ≤ 1), which the
// loss holds sparse when k ≤ d/4, with labels that follow the first column; filled returns the
// same rows with every zero replaced by a tiny entry, so that the loss holds them dense.
func oneHot(n, d, k int, filled bool) *data.Dataset {
	ds := &data.Dataset{N: n, D: d, X: make([]float64, n*d), Y: make([]float64, n), P: 2, Radius: 1}
	for i := range n {
		row := ds.X[i*d : (i+1)*d]
		if filled {
			for j := range row {
				row[j] = 1e-9
			}
		}
		for j := range k {
			row[(j*(d/k)+i)%d] = 0.5 / math.Sqrt(float64(k))
		}
		ds.Y[i] = 1
		if row[0] < 0.1 {
			ds.Y[i] = -1
		}
	}
	return ds
}

// The cell limit uses the prediction for the data's rows: one-hot rows (4 non-zeros of 64, each
// counting as two dense entries) make the same plan's predicted time (0.3 + 0.7·64/92)/(0.3 +
// 0.7·8/92) ≈ 2.2 times shorter than dense rows, each row records it, and a limit between the
// two predictions runs the one-hot cell and skips the dense one.
func TestBenchmarkCellLimitSparse(t *testing.T) {
	run := func(ds *data.Dataset, limit float64) results.Row {
		t.Helper()
		cfg := Config{Train: ds, Test: ds, Epsilons: []float64{1}, Delta: 1e-6, Runs: 1, Radius: 5, CellSeconds: limit,
			Mechanisms: []Entry{{Name: "langevin", Mech: mech.Langevin{}}}}
		res, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		return res.Rows[0]
	}
	sparse, dense := oneHot(200, 64, 4, false), oneHot(200, 64, 4, true)
	s, d := run(sparse, 0), run(dense, 0)
	want := (0.3 + 0.7*64/92) / (0.3 + 0.7*8/92)
	if s.Error != "" || d.Error != "" || !(s.Predicted > 0) || math.Abs(d.Predicted/s.Predicted-want) > 1e-9*want {
		t.Fatalf("predicted %g s on one-hot rows and %g s on dense ones, want a ratio of %g", s.Predicted, d.Predicted, want)
	}
	limit := math.Sqrt(s.Predicted * d.Predicted)
	if r := run(sparse, limit); r.Error != "" || r.Runs != 1 {
		t.Errorf("one-hot rows, limit %g s: %+v", limit, r)
	}
	if r := run(dense, limit); !strings.Contains(r.Error, "predicted to take") || r.Runs != 0 {
		t.Errorf("dense rows, limit %g s: %+v", limit, r)
	}
	md := results.Markdown(results.Result{Rows: []results.Row{s}})
	if !strings.Contains(md, "| predicted native (s) |") || !strings.Contains(md, fmt.Sprintf(" %.3g |", s.Predicted)) {
		t.Errorf("the table lacks the predicted time:\n%s", md)
	}
	if strings.Contains(results.Markdown(results.Result{Rows: []results.Row{{Mechanism: "old", Seconds: 1}}}), "predicted") {
		t.Error("a result without predictions (the committed ones) has a predicted column")
	}
}
