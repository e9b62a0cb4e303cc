package engine

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/privopt/privopt/internal/fit"
	"github.com/privopt/privopt/internal/release"
	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/privacy"
)

// scalingSpec is demoSpec with the default share of the budget on private ranges.
func scalingSpec() *fit.Spec {
	s := demoSpec()
	s.ScaleShare = fit.DefaultScaleShare
	return s
}

// The demo's five numeric columns get private ranges from one "scale" request; runs carry
// the schema as used, reuse one rescaling of the rows held and never modify them; two runs
// make one release file whose guarantee counts the ranges once. A seeded request is
// reproducible.
func TestRangesSharedByRuns(t *testing.T) {
	e, posted := newEngine()
	d := demoDataset(t, e, posted, false)
	if d.Facts.Scalable != 5 || d.Facts.LabelScalable {
		t.Fatalf("the demo's facts count %d columns to scale (label %v), want 5", d.Facts.Scalable, d.Facts.LabelScalable)
	}
	train, test := denseRows(e.data.train), denseRows(e.data.test)
	spec, seed := scalingSpec(), uint64(5)
	if r := e.Handle(Request{ID: 3, Kind: "run", Spec: spec, Seed: &seed}, nil); r.Kind != "error" || !strings.Contains(r.Error, "no schema as used") {
		t.Errorf("a run that scales without a schema as used: %+v", r)
	}
	r := e.Handle(Request{ID: 4, Kind: "scale", Spec: spec, Seed: &seed}, nil)
	if r.Kind != "scaled" || r.ID != 4 {
		t.Fatalf("ranges: %+v", r)
	}
	sc := r.Scaling
	if len(sc.Ranges.Intervals) != 5 || sc.Ranges.Report.Private || sc.Ranges.Report.Randomness != privacy.SeededNotPrivate {
		t.Errorf("seeded ranges: %+v", sc.Ranges)
	}
	used, err := data.LoadSchema(bytes.NewReader(sc.Schema))
	if err != nil {
		t.Fatal(err)
	}
	if rest := used.PrivatelyScaled(); len(rest) != 0 || used.Columns[0].Range == nil {
		t.Errorf("the schema as used leaves %v unscaled: %+v", rest, used.Columns[0])
	}
	// The same seed gives the same ranges, in another engine too.
	e2, posted2 := newEngine()
	demoDataset(t, e2, posted2, false)
	if again := e2.Handle(Request{ID: 4, Kind: "scale", Spec: spec, Seed: &seed}, nil); again.Kind != "scaled" || !bytes.Equal(again.Scaling.Schema, sc.Schema) ||
		!slices.Equal(again.Scaling.Ranges.Intervals, sc.Ranges.Intervals) {
		t.Errorf("the same seed gave other ranges: %+v", again.Scaling)
	}
	rescaled := e.data.rescaled
	var models []release.Model
	for run := range 2 {
		id := 10 + run
		if r := e.Handle(Request{ID: id, Kind: "run", Spec: spec, Run: run, Seed: &seed, Scaled: sc.Schema}, nil); r.Kind != "started" {
			t.Fatalf("run %d: %+v", run, r)
		}
		r, _ := await(t, posted, id)
		if r.Kind != "release" || r.Result.Test == nil || r.Result.Test.Rows != 1000 {
			t.Fatalf("run %d: %+v", run, r)
		}
		if e.data.rescaled != rescaled {
			t.Errorf("run %d rescaled the rows again", run)
		}
		rel := r.Result.Release
		models = append(models, release.Model{Model: rel.Model, Report: rel.Report, Utility: rel.Utility, Parameters: rel.Parameters})
	}
	if !slices.Equal(denseRows(e.data.train), train) || !slices.Equal(denseRows(e.data.test), test) || e.data.train.Sparse == nil {
		t.Error("the rows held were modified")
	}
	f, err := release.New(used, *spec, d.Facts, sc.Ranges, models)
	if err != nil {
		t.Fatal(err)
	}
	got, err := f.Guarantee()
	if err != nil {
		t.Fatal(err)
	}
	pl, err := fit.Plan(*spec, d.Facts)
	if err != nil {
		t.Fatal(err)
	}
	ranges, _, err := fit.Beside(*spec, d.Facts)
	if err != nil {
		t.Fatal(err)
	}
	once, err := privacy.Compose(ranges, pl.Guarantee(), pl.Guarantee())
	if err != nil {
		t.Fatal(err)
	}
	twice, err := privacy.Compose(ranges, ranges, pl.Guarantee(), pl.Guarantee())
	if err != nil {
		t.Fatal(err)
	}
	if g, o, tw := got.Delta(2), once.Delta(2), twice.Delta(2); g != o || !(tw > g) {
		t.Errorf("δ(2) of the release %g, want the ranges once %g (twice: %g)", g, o, tw)
	}
	if !strings.Contains(f.Together, "No privacy is claimed") { // seeded
		t.Errorf("together: %s", f.Together)
	}
	// A spec without private ranges must not carry a schema as used; a schema as used must
	// give every column its range.
	if r := e.Handle(Request{ID: 20, Kind: "run", Spec: demoSpec(), Scaled: sc.Schema}, nil); r.Kind != "error" || !strings.Contains(r.Error, "estimate no private ranges") {
		t.Errorf("a run that does not scale, with a schema as used: %+v", r)
	}
	declared, _ := e.data.schema.MarshalJSON()
	if r := e.Handle(Request{ID: 21, Kind: "run", Spec: spec, Scaled: declared}, nil); r.Kind != "error" || !strings.Contains(r.Error, "no private range for column") {
		t.Errorf("a run with the declared schema as its schema as used: %+v", r)
	}
	// Without a share of the budget, "scale" answers the declared schema and no ranges.
	if r := e.Handle(Request{ID: 22, Kind: "scale", Spec: demoSpec()}, nil); r.Kind != "scaled" || r.Scaling.Ranges != nil || !bytes.Equal(r.Scaling.Schema, declared) {
		t.Errorf("scale without a share: %+v", r)
	}
}

// Without a seed the ranges are private, and a run in an engine that did not estimate them
// rescales its own rows to the schema as used.
func TestRangesPrivateInAnotherEngine(t *testing.T) {
	e, posted := newEngine()
	demoDataset(t, e, posted, false)
	spec := scalingSpec()
	r := e.Handle(Request{ID: 4, Kind: "scale", Spec: spec}, nil)
	if r.Kind != "scaled" || !r.Scaling.Ranges.Report.Private || r.Scaling.Ranges.Report.Randomness != privacy.OSSeeded {
		t.Fatalf("ranges: %+v", r)
	}
	other, posted2 := newEngine()
	demoDataset(t, other, posted2, false)
	if got := other.Handle(Request{ID: 5, Kind: "run", Spec: spec, Scaled: r.Scaling.Schema}, nil); got.Kind != "started" {
		t.Fatalf("run: %+v", got)
	}
	if res, _ := await(t, posted2, 5); res.Kind != "release" {
		t.Fatalf("run: %+v", res)
	}
	if other.data.rescaled == nil || other.data.rescaled.train == other.data.train {
		t.Error("the other engine did not keep its rescaled rows")
	}
}

// The plan of several runs composes the private ranges once with every run's model.
func TestPlanWithRanges(t *testing.T) {
	e, posted := newEngine()
	d := demoDataset(t, e, posted, true)
	spec := scalingSpec()
	r := e.Handle(Request{ID: 3, Kind: "plan", Spec: spec, Facts: &d.Facts, Runs: 3, EpsMax: 10}, nil)
	if r.Kind != "plans" || r.Plans.Curves == nil {
		t.Fatalf("plan: %+v", r)
	}
	pl, err := fit.Plan(*spec, d.Facts)
	if err != nil {
		t.Fatal(err)
	}
	ranges, _, err := fit.Beside(*spec, d.Facts)
	if err != nil {
		t.Fatal(err)
	}
	exact, err := privacy.Compose(pl.Guarantee(), pl.Guarantee(), pl.Guarantee(), ranges)
	if err != nil {
		t.Fatal(err)
	}
	want, err := fit.Together(pl, *spec, d.Facts, 3)
	if err != nil {
		t.Fatal(err)
	}
	if want.String() != exact.String() {
		t.Errorf("three runs with their ranges: %v, want their exact composition %v", want, exact)
	}
	one, err := fit.Guarantee(pl, *spec, d.Facts)
	if err != nil {
		t.Fatal(err)
	}
	c := r.Plans.Curves
	if c.Guarantee != one.String() || c.Composed != want.String() || c.ComposedDelta[20] != want.Delta(c.Eps[20]) {
		t.Errorf("curves: one run %s (want %s), composed %s (want %s)", c.Guarantee, one, c.Composed, want)
	}
	// One run, its ranges included, meets the budget.
	if !(c.Delta[20] <= spec.Budget.Delta*(1+1e-9)) {
		t.Errorf("δ(1) of one run with its ranges = %g", c.Delta[20])
	}
}

// A numeric label that may be scaled is mapped from its declared range to [−1, 1] when no
// private ranges are estimated (too few rows for their noise here): "scale" answers that
// schema as used without ranges, and a run, which carries none, fits the label so mapped.
func TestScaleLabelWithoutRanges(t *testing.T) {
	e, posted := newEngine()
	file := memFile{"n.csv", []byte("x,y\n1,0.5\n2,1.5\n3,2\n4,3\n5,1\n6,2.5\n")}
	schema := []byte(`{"privopt_schema":1,"norm":{"p":2,"radius":1,"fit":"scale"},"columns":[{"name":"x","kind":"numeric","min":1,"max":6},{"name":"y","kind":"numeric-label","min":0,"max":4}]}`)
	if r := e.Handle(Request{ID: 1, Kind: "dataset", Source: "file", Schema: schema}, file); r.Kind != "dataset" || !r.Dataset.Facts.LabelScalable {
		t.Fatalf("dataset: %+v", r)
	}
	spec := &fit.Spec{Loss: "squared", Domain: fit.DefaultDomain("squared"), Radius: 10, Mechanism: "rem", ScaleShare: fit.DefaultScaleShare,
		Options: map[string]string{"Sampler": "mala", "FastSteps": "20"}, Budget: privacy.Budget{Epsilon: 1, Delta: 1e-6}}
	r := e.Handle(Request{ID: 2, Kind: "scale", Spec: spec}, nil)
	if r.Kind != "scaled" || r.Scaling.Ranges != nil {
		t.Fatalf("scale: %+v", r)
	}
	used, err := data.LoadSchema(bytes.NewReader(r.Scaling.Schema))
	if err != nil || used.Columns[1].Range == nil || *used.Columns[1].Range != (data.Range{Lo: 0, Hi: 1}) || used.Columns[0].Range != nil {
		t.Fatalf("the schema as used: %s (%v)", r.Scaling.Schema, err)
	}
	if got := e.Handle(Request{ID: 3, Kind: "run", Spec: spec, Scaled: r.Scaling.Schema}, nil); got.Kind != "error" {
		t.Errorf("a run without private ranges that carries a schema as used: %+v", got)
	}
	if got := e.Handle(Request{ID: 4, Kind: "run", Spec: spec}, nil); got.Kind != "started" {
		t.Fatalf("run: %+v", got)
	}
	if res, _ := await(t, posted, 4); res.Kind != "release" {
		t.Fatalf("run: %+v", res)
	}
	if y := e.data.rescaled.train.Y; slices.Min(y) < -1 || slices.Max(y) > 1 || slices.Equal(y, e.data.train.Y) {
		t.Errorf("the labels the run used: %v", y)
	}
}
