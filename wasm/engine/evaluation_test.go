package engine

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/privopt/privopt/internal/demo"
	"github.com/privopt/privopt/internal/fit"
	"github.com/privopt/privopt/internal/release"
	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/mech"
	"github.com/privopt/privopt/pkg/core/privacy"
)

// runResult runs spec on the engine's data (seeded with seed when not nil) and returns the
// run's answer.
func runResult(t *testing.T, e *Engine, posted chan Response, id int, spec *fit.Spec, seed *uint64) Response {
	t.Helper()
	if r := e.Handle(Request{ID: id, Kind: "run", Spec: spec, Seed: seed}, nil); r.Kind != "started" {
		t.Fatalf("run %d: %+v", id, r)
	}
	r, _ := await(t, posted, id)
	return r
}

// releaseOf returns the release file of one run's result on data of the schema, written and
// read back as the page's download is.
func releaseOf(t *testing.T, schema io.Reader, spec fit.Spec, facts fit.Facts, res *Result) *release.File {
	t.Helper()
	s, err := data.LoadSchema(schema)
	if err != nil {
		t.Fatal(err)
	}
	rel := res.Release
	f, err := release.New(s, spec, facts, nil, []release.Model{{Model: rel.Model, Report: rel.Report, Utility: rel.Utility,
		Parameters: rel.Parameters, Evaluation: res.Private, HeldOut: res.HeldOut}})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := f.Write(&b); err != nil {
		t.Fatal(err)
	}
	back, err := release.Read(&b)
	if err != nil {
		t.Fatalf("the release file does not read back: %v", err)
	}
	return back
}

// A spec that spends a share of the budget on a private evaluation gets one with each run: on
// the held-out rows, with the run's randomness, beside the local evaluation. The release file
// made of it reads back and composes both guarantees within the budget; a spec without a share
// gets none.
func TestRunPrivateEvaluation(t *testing.T) {
	e, posted := newEngine()
	d := demoDataset(t, e, posted, false)
	seed := uint64(5)
	spec := demoSpec()
	spec.EvalShare = 0.1
	r := runResult(t, e, posted, 30, spec, &seed)
	if r.Kind != "release" {
		t.Fatalf("run: %+v", r)
	}
	res := r.Result
	ev := res.Private
	if ev == nil || res.HeldOut == nil || *res.HeldOut != (mech.HeldOut{Rows: 1000}) || ev.Rows != 1000 || len(ev.Confusion) != 2 || ev.Accuracy == nil {
		t.Fatalf("private evaluation %+v, held out %+v", ev, res.HeldOut)
	}
	// The noisy accuracy is within six standard deviations of the noise on the confusion
	// matrix's trace (two cells) of the exact one.
	if a := ev.Accuracy; !(a.Low <= a.Value && a.Value <= a.High) || res.Test == nil || math.Abs(a.Value-*res.Test.Accuracy) > 6*math.Sqrt2*ev.NoiseSD/1000 {
		t.Errorf("private accuracy %+v (noise %g per cell), local %+v", a, ev.NoiseSD, res.Test)
	}
	if ev.Report.Randomness != privacy.SeededNotPrivate || ev.Report.Neighbouring != privacy.ReplaceOne {
		t.Errorf("the evaluation's report: %+v", ev.Report)
	}
	// The run's seed fixes the evaluation's noise too.
	if again := runResult(t, e, posted, 31, spec, &seed); again.Kind != "release" || !slices.Equal(again.Result.Private.Sums, ev.Sums) {
		t.Errorf("the same seed gave another evaluation: %+v", again.Result.Private)
	}
	// It survives the JSON trip to the page.
	var back Response
	if err := json.Unmarshal([]byte(Encode(r)), &back); err != nil || back.Result.Private == nil || !slices.Equal(back.Result.Private.Sums, ev.Sums) || *back.Result.HeldOut != *res.HeldOut {
		t.Errorf("JSON round trip: %v", err)
	}
	f := releaseOf(t, demo.Schema(), *spec, d.Facts, back.Result)
	g, err := f.Guarantee()
	if err != nil {
		t.Fatal(err)
	}
	pl, err := fit.Plan(*spec, d.Facts)
	if err != nil {
		t.Fatal(err)
	}
	if model, both := pl.Guarantee().Delta(1), g.Delta(1); !(model < both && both <= 1e-6) {
		t.Errorf("δ(1): the model alone %g, with its evaluation %g; want model < both ≤ 10⁻⁶", model, both)
	}
	if m := f.Models[0]; m.Evaluation == nil || m.HeldOut.Rows != 1000 || f.Settings.EvalShare != 0.1 {
		t.Errorf("the release's model: %+v, settings %+v", m, f.Settings)
	}
	// Without a share, no private evaluation.
	if r := runResult(t, e, posted, 32, demoSpec(), &seed); r.Kind != "release" || r.Result.Private != nil || r.Result.HeldOut != nil {
		t.Errorf("a spec without a share: %+v", r.Result)
	}
}

// Under add/remove the number of held-out rows is private: the evaluation releases a noisy
// count, and the public facts leave the number out.
func TestRunPrivateEvaluationAddRemove(t *testing.T) {
	e, posted := newEngine()
	d := demoDataset(t, e, posted, false)
	spec := demoSpec()
	spec.Budget.Neighbouring, spec.PublicN, spec.EvalShare = privacy.AddRemove, 5000, 0.2
	r := runResult(t, e, posted, 40, spec, nil)
	if r.Kind != "release" {
		t.Fatalf("run: %+v", r)
	}
	ev := r.Result.Private
	if ev == nil || r.Result.HeldOut == nil || r.Result.HeldOut.Rows != 0 || math.Abs(ev.Rows-1000) > 10*ev.NoiseSD || ev.Report.Neighbouring != privacy.AddRemove {
		t.Fatalf("private evaluation %+v, held out %+v", ev, r.Result.HeldOut)
	}
	if _, err := releaseOf(t, demo.Schema(), *spec, d.Facts, r.Result).Guarantee(); err != nil {
		t.Error(err)
	}
}

// A file with no held-out rows cannot be evaluated privately; under add/remove a split by
// content that held out no row is evaluated all the same (whether a row is held out is
// private there), with no local evaluation.
func TestRunPrivateEvaluationWithoutRows(t *testing.T) {
	file, schema := fourKinds()
	spec := demoSpec()
	spec.EvalShare = 0.1
	e, posted := newEngine()
	if r := e.Handle(Request{ID: 1, Kind: "dataset", Source: "file", Schema: schema}, file); r.Kind != "dataset" || r.Dataset.Test != 0 {
		t.Fatalf("dataset: %+v", r)
	}
	if r := runResult(t, e, posted, 2, spec, nil); r.Kind != "error" || !strings.Contains(r.Error, "no rows are held out") {
		t.Errorf("no held-out rows: %+v", r)
	}
	// A split seed whose split by content holds out none of the 200 rows at 0.1 %.
	spec.Budget.Neighbouring, spec.PublicN = privacy.AddRemove, 1000
	for seed := uint64(1); ; seed++ {
		r := e.Handle(Request{ID: 3, Kind: "dataset", Source: "file", Schema: schema, Holdout: 0.001, SplitSeed: seed, SplitByContent: true}, file)
		if r.Kind != "dataset" {
			t.Fatalf("dataset: %+v", r)
		}
		if r.Dataset.Test == 0 {
			break
		}
	}
	r := runResult(t, e, posted, 4, spec, nil)
	if r.Kind != "release" || r.Result.Test != nil || r.Result.Private == nil || r.Result.HeldOut.Rows != 0 {
		t.Errorf("an empty held-out set under add/remove: %+v", r)
	}
}

// Under add/remove a split by content may hold out every row: the run then fits on no rows
// (its noise alone, as its neighbour with one row more would fit on one), with the private
// ranges and the evaluation, and releases; refusing would tell that no row is left to train on.
func TestRunWithEveryRowHeldOut(t *testing.T) {
	_, schema := fourKinds()
	file := memFile{"x.csv", []byte("x,y\n1,a\n2,b\n")}
	spec := &fit.Spec{Loss: "logistic", Domain: fit.Whole, Radius: 10, Mechanism: "noisy-gd", ScaleShare: fit.DefaultScaleShare, EvalShare: 0.1,
		Budget: privacy.Budget{Epsilon: 1, Delta: 1e-6, Neighbouring: privacy.AddRemove}, PublicN: 1000}
	e, posted := newEngine()
	for seed := uint64(1); ; seed++ { // a split seed whose split by content holds out both rows
		r := e.Handle(Request{ID: 1, Kind: "dataset", Source: "file", Schema: schema, Holdout: 0.5, SplitSeed: seed, SplitByContent: true}, file)
		if r.Kind != "dataset" {
			t.Fatalf("dataset: %+v", r)
		}
		if r.Dataset.Test == r.Dataset.Rows {
			break
		}
	}
	r := runResult(t, e, posted, 2, spec, nil)
	if r.Kind != "release" || r.Result.Private == nil || r.Result.Test == nil || r.Result.Test.Rows != 2 {
		t.Fatalf("every row held out under add/remove: %+v", r)
	}
	if _, err := json.Marshal(r); err != nil { // as the page's worker posts it
		t.Errorf("the answer: %v", err)
	}
	if _, err := releaseOf(t, bytes.NewReader(schema), *spec, e.data.summary.Facts, r.Result).Guarantee(); err != nil {
		t.Error(err)
	}
}

// With a private evaluation the plan's curves are those of a run and its evaluation composed:
// within the budget, and above the mechanism's own.
func TestPlanWithPrivateEvaluation(t *testing.T) {
	e, posted := newEngine()
	d := demoDataset(t, e, posted, true)
	spec := demoSpec()
	spec.EvalShare = 0.1
	r := e.Handle(Request{ID: 3, Kind: "plan", Spec: spec, Facts: &d.Facts, Runs: 2, EpsMax: 10}, nil)
	if r.Kind != "plans" || r.Plans.Curves == nil {
		t.Fatalf("plan: %+v", r)
	}
	pl, err := fit.Plan(*spec, d.Facts)
	if err != nil {
		t.Fatal(err)
	}
	c := r.Plans.Curves // Eps[20] is ε = 1, the target
	if c.Eps[20] != 1 || !(c.Delta[20] <= 1e-6) || !(c.Delta[20] > pl.Guarantee().Delta(1)) || c.Guarantee == pl.Guarantee().String() || !(c.ComposedDelta[20] > c.Delta[20]) {
		t.Errorf("δ(1): one run with its evaluation %g, the mechanism alone %g, two runs %g (%s)", c.Delta[20], pl.Guarantee().Delta(1), c.ComposedDelta[20], c.Guarantee)
	}
}
