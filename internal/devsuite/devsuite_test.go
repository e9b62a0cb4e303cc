package devsuite

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/privopt/privopt/internal/bench"
	"github.com/privopt/privopt/internal/fit"
	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/rng"
)

// near reports whether a and b agree to within tol.
func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// bisect returns the root of an increasing function f in [lo, hi].
func bisect(f func(float64) float64, lo, hi float64) float64 {
	for range 200 {
		mid := (lo + hi) / 2
		if f(mid) > 0 {
			hi = mid
		} else {
			lo = mid
		}
	}
	return (lo + hi) / 2
}

func sigmoid(z float64) float64 { return 1 / (1 + math.Exp(-z)) }

// TestLeastSquaresKnownOptimum fits labels that a linear model gives exactly, with two
// opposite columns (as a standardised two-category one-hot pair is): the least-norm
// minimiser splits their weight evenly.
func TestLeastSquaresKnownOptimum(t *testing.T) {
	a := []float64{0.3, -1.2, 2.0, 0.7, -0.4, 1.1, -2.2, 0.9}
	b := []float64{1, -1, 1, 1, -1, -1, 1, -1}
	ds := &data.Dataset{N: len(a), D: 4}
	for i := range a {
		ds.X = append(ds.X, a[i], b[i], -b[i], 1)
		ds.Y = append(ds.Y, 2+3*a[i]+4*b[i])
	}
	w, err := fitLeastSquares(ds)
	if err != nil {
		t.Fatal(err)
	}
	for j, want := range []float64{3, 2, -2, 2} {
		if !near(w[j], want, 1e-9) {
			t.Errorf("w = %v, want [3 2 -2 2]", w)
			break
		}
	}
}

// TestRidgeLogisticKnownOptimum fits data symmetric under (x, y) → (−x, −y): the intercept's
// optimum is 0 and the slope w solves −p·σ(−w) + (1 − p)·σ(w) + λw = 0, p being the share of
// rows with y = x.
func TestRidgeLogisticKnownOptimum(t *testing.T) {
	const lambda, p = 0.05, 0.8
	ds := &data.Dataset{D: 2}
	for i := range 10 {
		y := 1.0
		if i >= 8 {
			y = -1
		}
		ds.X = append(ds.X, 1, 1, -1, 1)
		ds.Y = append(ds.Y, y, -y)
	}
	ds.N = len(ds.Y)
	w, err := fitRidgeLogistic(ds, lambda)
	if err != nil {
		t.Fatal(err)
	}
	slope := bisect(func(w float64) float64 { return -p*sigmoid(-w) + (1-p)*sigmoid(w) + lambda*w }, -10, 10)
	if !near(w[0], slope, 1e-5) || !near(w[1], 0, 1e-5) {
		t.Errorf("w = %v, want [%.6f 0]", w, slope)
	}
}

// TestRidgeMultinomialKnownOptimum fits three classes with shares s and a feature ±1 balanced
// within each class: the feature's weights are 0 by symmetry and the intercepts b solve
// softmax(b)_k − s_k + λb_k = 0.
func TestRidgeMultinomialKnownOptimum(t *testing.T) {
	const lambda = 0.01
	counts := []int{6, 3, 1} // pairs of rows per class
	ds := &data.Dataset{D: 2}
	for k, c := range counts {
		for range c {
			ds.X = append(ds.X, 1, 1, -1, 1)
			ds.Y = append(ds.Y, float64(k), float64(k))
		}
	}
	ds.N = len(ds.Y)
	w, err := fitRidgeMultinomial(ds, 3, lambda)
	if err != nil {
		t.Fatal(err)
	}
	b := []float64{w[1], w[3], w[5]}
	z := math.Exp(b[0]) + math.Exp(b[1]) + math.Exp(b[2])
	for k, c := range counts {
		share := float64(c) / 10
		if r := math.Exp(b[k])/z - share + lambda*b[k]; !near(r, 0, 1e-6) || !near(w[2*k], 0, 1e-6) {
			t.Errorf("class %d: stationarity residual %g, feature weight %g (w = %v)", k, r, w[2*k], w)
		}
	}
}

func TestStandardised(t *testing.T) {
	ref := &data.Dataset{N: 4, D: 3, X: []float64{1, 5, 0.7, 2, 5, 0.7, 3, 5, 0.7, 4, 5, 0.7}, Y: []float64{1, -1, 1, -1}}
	other := &data.Dataset{N: 1, D: 3, X: []float64{5, 0, 0.7}, Y: []float64{1}}
	z := standardised(ref, ref, other)
	// Only the first column varies: mean 2.5, standard deviation √1.25; then the intercept.
	sd := math.Sqrt(1.25)
	want := []float64{-1.5 / sd, 1, -0.5 / sd, 1, 0.5 / sd, 1, 1.5 / sd, 1}
	if z[0].D != 2 || len(z[0].X) != len(want) {
		t.Fatalf("standardised rows %v", z[0].X)
	}
	for i, v := range want {
		if !near(z[0].X[i], v, 1e-12) {
			t.Fatalf("standardised rows %v, want %v", z[0].X, want)
		}
	}
	if !near(z[1].X[0], 2.5/sd, 1e-12) || z[1].X[1] != 1 {
		t.Errorf("the other dataset, scaled by the reference: %v", z[1].X)
	}
}

func TestMeasures(t *testing.T) {
	if got := rmse([]float64{1, 2, 3}, []float64{1, 2, 5}); !near(got, math.Sqrt(4.0/3), 1e-12) {
		t.Errorf("rmse = %v", got)
	}
	y := []float64{1, 2, 3, 4}
	// MSE 0.25 against a mean squared deviation from 2.5 of 1.25.
	if got := rSquared([]float64{1, 2, 3, 5}, y, 2.5); !near(got, 0.8, 1e-12) {
		t.Errorf("R² = %v, want 0.8", got)
	}
	if got := rSquared([]float64{2.5, 2.5, 2.5, 2.5}, y, 2.5); got != 0 {
		t.Errorf("R² of the reference itself = %v, want 0", got)
	}
	// Ten rows, share 0.2: the two best. Rows 0 and 2 tie behind row 1; the earlier one wins.
	score := []float64{0.5, 0.9, 0.5, 0.1, 0.2, 0.3, 0.1, 0, -1, 0.4}
	labels := []float64{-1, 1, 1, 1, 1, 1, 1, 1, 1, 1}
	if got := topHits(score, labels, 0.2); got != 1 {
		t.Errorf("top hits = %d, want 1", got)
	}
	if topRows(11, 0.2) != 2 || topRows(13, 0.2) != 3 || topRows(4000, 0.2) != 800 {
		t.Errorf("topRows: %d, %d, %d", topRows(11, 0.2), topRows(13, 0.2), topRows(4000, 0.2))
	}
	train := &data.Dataset{N: 5, Y: []float64{-1, -1, -1, 1, 1}}
	valid := &data.Dataset{N: 10, Y: []float64{1, 1, 1, 1, -1, -1, -1, -1, -1, -1}}
	m := majority(Task{Label: data.LabelBinary, TopShare: 0.2}, train, valid)
	if m[MeasureAccuracy] != 0.6 || m[MeasureTopHits] != 0.8 {
		t.Errorf("majority %v, want accuracy 0.6 and 2·4/10 = 0.8 random hits", m)
	}
	c := Cell{Runs: []Measures{{MeasureRMSE: 1}, {MeasureRMSE: 2}, {MeasureRMSE: 3}}}
	if mean, se := c.Stat(MeasureRMSE); mean != 2 || !near(se, 1/math.Sqrt(3), 1e-12) {
		t.Errorf("Stat = %v ± %v, want 2 ± 1/√3", mean, se)
	}
	if _, se := (Cell{Runs: c.Runs[:1]}).Stat(MeasureRMSE); !math.IsNaN(se) {
		t.Errorf("the standard error of one run is %v, want NaN", se)
	}
}

func TestDefaultSpec(t *testing.T) {
	for _, tc := range []struct {
		label        data.LabelKind
		loss, domain string
	}{
		{data.LabelBinary, "logistic", fit.Whole},
		{data.LabelClass, "multinomial", fit.Whole},
		{data.LabelNumeric, "squared", fit.Ball},
	} {
		s := defaultSpec(Task{Label: tc.label}, 2, 1e-6)
		if s.Loss != tc.loss || s.Domain != tc.domain || s.Radius != 10 || s.Mechanism != "noisy-gd" ||
			s.Budget.Epsilon != 2 || s.Budget.Delta != 1e-6 || s.ScaleShare != fit.DefaultScaleShare {
			t.Errorf("%s: %+v", tc.label, s)
		}
	}
}

// writeSuite writes a small suite into dir: a binary task "bin" (with a top-share measure) and
// a regression "reg", n training rows each, and test files that cannot be encoded, so that
// reading them fails.
func writeSuite(t *testing.T, dir string, n int) []Task {
	t.Helper()
	r := rng.Seeded(7)
	const columns = `{"name": "a", "kind": "numeric", "min": 0, "max": 1},
    {"name": "b", "kind": "numeric", "min": 0, "max": 1},
    {"name": "c", "kind": "categorical", "categories": ["u", "v", "w"]},`
	schemas := map[string]string{
		"bin": `{"name": "y", "kind": "binary-label", "positive": ["yes"], "negative": ["no"]}`,
		"reg": `{"name": "y", "kind": "numeric-label", "min": 0, "max": 10}`,
	}
	for name, label := range schemas {
		folder := filepath.Join(dir, name)
		if err := os.MkdirAll(folder, 0o755); err != nil {
			t.Fatal(err)
		}
		schema := fmt.Sprintf(`{"privopt_schema": 1, "norm": {"p": 2, "radius": 1, "bias": 0.7071067811865476, "fit": "scale"},
  "columns": [%s
    %s]}`, columns, label)
		var csv strings.Builder
		csv.WriteString("a,b,c,y\n")
		for range n {
			a, b, c := r.Float64(), r.Float64(), []string{"u", "v", "w"}[r.IntN(3)]
			y := fmt.Sprintf("%.4f", min(10, max(0, 5+3*a-2*b+0.3*r.Normal())))
			if name == "bin" {
				y = "no"
				if 2*a-b+0.3*r.Normal() > 0.5 {
					y = "yes"
				}
			}
			fmt.Fprintf(&csv, "%.4f,%.4f,%s,%s\n", a, b, c, y)
		}
		for file, text := range map[string]string{"schema.json": schema, "train.csv": csv.String(), "test.csv": "a,b\nnot,numbers\n"} {
			if err := os.WriteFile(filepath.Join(folder, file), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return []Task{
		{Name: "bin", Folder: "bin", Schema: "schema.json", Label: data.LabelBinary, TopShare: 0.2},
		{Name: "reg", Folder: "reg", Schema: "schema.json", Label: data.LabelNumeric},
	}
}

func TestDevsuiteEndToEnd(t *testing.T) {
	dir := t.TempDir()
	tasks := writeSuite(t, dir, 300)
	var lines []string
	cfg := Config{Dir: dir, Tasks: tasks, Epsilons: []float64{1, 8}, Delta: 1e-6, Runs: 2, Unscaled: true,
		Progress: func(l string) { lines = append(lines, l) }}
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tasks) != 2 || len(lines) != 4 {
		t.Fatalf("%d tasks, %d progress lines", len(res.Tasks), len(lines))
	}
	bin, reg := res.Tasks[0], res.Tasks[1]
	for _, tr := range res.Tasks {
		if tr.FitRows != 240 || tr.ValidationRows != 60 || tr.Features != 6 || len(tr.Cells) != 2 {
			t.Errorf("%s: %d fit rows, %d validation rows, %d features, %d cells", tr.Task.Name, tr.FitRows, tr.ValidationRows, tr.Features, len(tr.Cells))
		}
		for _, c := range tr.Cells {
			if c.Error != "" || len(c.Runs) != 2 || len(c.Seconds) != 2 {
				t.Errorf("%s ε=%g: %+v", tr.Task.Name, c.Epsilon, c)
			}
		}
	}
	if c := bin.Cells[1]; len(c.Runs[0]) != 3 || c.Spec.Loss != "logistic" || c.Spec.Domain != fit.Whole {
		t.Errorf("bin ε=8: measures %v, spec %+v", c.Runs[0], c.Spec)
	}
	if !(bin.NonPrivate[MeasureAccuracy] > bin.Trivial[MeasureAccuracy]) || bin.TopRows != 12 {
		t.Errorf("bin: baselines %v and %v, %d top rows", bin.NonPrivate, bin.Trivial, bin.TopRows)
	}
	if c := reg.Cells[0]; c.Spec.Domain != fit.Ball || c.Spec.Radius != 10 || len(c.Runs[0]) != 2 {
		t.Errorf("reg ε=1: measures %v, spec %+v", c.Runs[0], c.Spec)
	}
	if !(reg.NonPrivate[MeasureR2] > 0.5) || reg.Trivial[MeasureR2] != 0 || !(reg.NonPrivate[MeasureRMSE] < reg.Trivial[MeasureRMSE]) {
		t.Errorf("reg: baselines %v and %v", reg.NonPrivate, reg.Trivial)
	}
	// The split is fixed: a second load divides the rows the same way.
	_, train, valid, _, err := loadDevsuiteTask(dir, tasks[1])
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := bench.MeanSD(train.Y); !near(rmse(constantOf(m, valid.N), valid.Y), reg.Trivial[MeasureRMSE], 1e-12) {
		t.Error("a second load split the rows differently")
	}

	md := Markdown(res)
	for _, tr := range res.Tasks {
		for _, c := range tr.Cells {
			if len(c.Unscaled) != 2 || c.Spec.ScaleShare != fit.DefaultScaleShare {
				t.Errorf("%s ε=%g: %d runs without private ranges, share %g", tr.Task.Name, c.Epsilon, len(c.Unscaled), c.Spec.ScaleShare)
			}
		}
	}
	for _, want := range []string{"without private ranges (%)", "R² without private ranges", "| bin | 8 | 2 |", "| reg | 1 | 2 |", "| reg | numeric | 240 | 60 | 6 | squared | ball | 10 | 0 |",
		"R² (% of OLS)", "top hits", "among the 12 best-scored of its 60 validation rows", "rng.Seeded(20261125)", "never read"} {
		if !strings.Contains(md, want) {
			t.Errorf("the markdown lacks %q:\n%s", want, md)
		}
	}
	var svg bytes.Buffer
	if err := WriteSVG(&svg, res); err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(svg.Bytes(), new(struct{})); err != nil || strings.Count(svg.String(), "<g transform=") != 2 {
		t.Errorf("plot: %v\n%s", err, svg.String())
	}
	var js bytes.Buffer
	if err := bench.WriteJSON(&js, res); err != nil {
		t.Fatal(err)
	}
}

func TestDevsuiteRefusesAWrongLabel(t *testing.T) {
	dir := t.TempDir()
	tasks := writeSuite(t, dir, 50)
	tasks[0].Label = data.LabelClass
	_, err := Run(context.Background(), Config{Dir: dir, Tasks: tasks[:1], Epsilons: []float64{1}, Delta: 1e-6, Runs: 1})
	if err == nil || !strings.Contains(err.Error(), "declares a binary label, the task a class one") {
		t.Errorf("err = %v", err)
	}
}
