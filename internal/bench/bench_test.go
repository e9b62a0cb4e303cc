package bench

import (
	"bytes"
	"context"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/mech"
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
	md := Markdown(res, wasm)
	for _, want := range []string{"| outpert-gauss | 4 | 1e-06 |", "time wasm (node) (s) | ratio |", "| 1.00 |", "Baselines: non-private"} {
		if !strings.Contains(md, want) {
			t.Errorf("the table lacks %q:\n%s", want, md)
		}
	}
	d, err := Plot(res)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := d.WriteSVG(&buf); err != nil {
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
	if res.Rows[0].Error == "" || !strings.Contains(Markdown(res), "not run") {
		t.Errorf("rows %+v", res.Rows)
	}
}

// freePlan is a plan that predicts no cost, so the cell limit only counts its measured runs.
type freePlan struct{ mech.Plan }

func (freePlan) Cost() mech.Cost { return mech.Cost{} }

// free is a mechanism whose plans predict no cost.
type free struct{ mech.Mechanism }

func (f free) Plan(b mech.Budget, p mech.Problem) (mech.Plan, error) {
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
