package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/privopt/privopt/internal/demo"
	"github.com/privopt/privopt/internal/fit"
	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/loss"
	"github.com/privopt/privopt/pkg/core/mech"
	"github.com/privopt/privopt/pkg/core/privacy"
)

// memFile is a File held in memory.
type memFile struct {
	name string
	data []byte
}

func (f memFile) Name() string             { return f.name }
func (f memFile) Size() int64              { return int64(len(f.data)) }
func (f memFile) Open() (io.Reader, error) { return bytes.NewReader(f.data), nil }

// newEngine returns an engine whose posted messages arrive on the returned channel.
func newEngine() (*Engine, chan Response) {
	posted := make(chan Response, 1000)
	return New(func(r Response) { posted <- r }, nil), posted
}

// await returns the first posted message of request id that is not a progress report, and
// the progress reports before it.
func await(t *testing.T, posted chan Response, id int) (Response, []Progress) {
	t.Helper()
	var progress []Progress
	timeout := time.After(60 * time.Second)
	for {
		select {
		case r := <-posted:
			if r.ID != id {
				continue
			}
			if r.Kind == "progress" {
				progress = append(progress, *r.Progress)
				continue
			}
			return r, progress
		case <-timeout:
			t.Fatalf("no answer to request %d in 60 s", id)
		}
	}
}

func TestPingAndErrors(t *testing.T) {
	e, _ := newEngine()
	pong := e.Handle(Request{ID: 7, Kind: "ping"}, nil)
	if pong.Kind != "pong" || pong.ID != 7 || pong.Version == "" || !slices.Equal(pong.Capabilities, Capabilities) {
		t.Errorf("ping: got %+v", pong)
	}
	for _, tc := range []struct {
		req  Request
		want string
	}{
		{Request{ID: 8, Kind: "fit-everything"}, `unknown request kind "fit-everything"`},
		{Request{ID: 9, Kind: "load", Source: "file"}, "no file was posted"},
		{Request{ID: 10, Kind: "load", Source: "cloud"}, `unknown source "cloud"`},
		{Request{ID: 11, Kind: "plan"}, "needs a spec"},
		{Request{ID: 12, Kind: "run", Spec: &fit.Spec{}}, "no data"},
		{Request{ID: 13, Kind: "dataset", Source: "demo", Holdout: 0.9}, "not in [0, 0.5]"},
	} {
		r := e.Handle(tc.req, nil)
		if r.Kind != "error" || r.ID != tc.req.ID || !strings.Contains(r.Error, tc.want) {
			t.Errorf("%+v: got %+v, want an error containing %q", tc.req, r, tc.want)
		}
	}
}

func TestHandleJSON(t *testing.T) {
	e, _ := newEngine()
	for _, tc := range []struct{ in, want string }{
		{`{"id":3,"kind":"ping"}`, `"kind":"pong"`},
		{`{"id":4,"kind":"nope"}`, `"error":"engine: unknown request kind \"nope\""`},
		{`not json`, `"error":"engine: malformed request:`},
		{``, `"kind":"error"`},
	} {
		if got := e.HandleJSON(tc.in, nil); !strings.Contains(got, tc.want) {
			t.Errorf("HandleJSON(%q) = %s, want it to contain %s", tc.in, got, tc.want)
		}
	}
	// A response that JSON cannot hold becomes an error with the same ID.
	bad := Encode(Response{ID: 5, Kind: "release", Result: &Result{Release: &mech.Release{Parameters: map[string]float64{"k": math.Inf(1)}}}})
	if !strings.Contains(bad, `"id":5,"kind":"error"`) || !strings.Contains(bad, "cannot be encoded") {
		t.Errorf("an unencodable response: %s", bad)
	}
}

func TestNumberJSON(t *testing.T) {
	for _, v := range []float64{0, -1.5, 1e-300, math.Inf(1), math.Inf(-1)} {
		b, err := json.Marshal(Number(v))
		if err != nil {
			t.Fatal(err)
		}
		var back Number
		if err := json.Unmarshal(b, &back); err != nil || float64(back) != v {
			t.Errorf("%v: %s read back as %v (%v)", v, b, back, err)
		}
	}
	b, _ := json.Marshal(Number(math.NaN()))
	var back Number
	if err := json.Unmarshal(b, &back); err != nil || !math.IsNaN(float64(back)) {
		t.Errorf("NaN: %s read back as %v", b, back)
	}
	if err := json.Unmarshal([]byte(`"many"`), &back); err == nil {
		t.Error(`"many" accepted`)
	}
}

func TestLoadDemo(t *testing.T) {
	e, _ := newEngine()
	r := e.Handle(Request{ID: 1, Kind: "load", Source: "demo"}, nil)
	if r.Kind != "loaded" {
		t.Fatalf("got %+v", r)
	}
	l := r.Loaded
	if l.Name != demo.Name || l.Bytes != demo.TrainSize() || l.Suggested || !strings.Contains(l.Attribution, "CC BY 4.0") {
		t.Errorf("loaded %+v", l)
	}
	if len(l.Header) != 13 || l.Header[0] != "age" || len(l.Rows) != PreviewRows || l.Rows[0][1] != "State-gov" {
		t.Errorf("preview: header %q, first row %q", l.Header, l.Rows[0])
	}
	var s data.Schema
	if err := json.Unmarshal(l.Schema, &s); err != nil || len(s.Unconfirmed()) != 0 || len(s.Features()) != 92 {
		t.Errorf("demo schema: %v, unconfirmed %v", err, s.Unconfirmed())
	}
}

const semicolonCSV = "height; colour ; y\n1.5;red;yes\n2;blue;no\n\n2.5;\"red\";yes\n?;green;no\n"

func TestLoadSuggestsAndMarksDerived(t *testing.T) {
	e, _ := newEngine()
	r := e.Handle(Request{ID: 2, Kind: "load", Source: "file"}, memFile{"h.csv", []byte(semicolonCSV)})
	if r.Kind != "loaded" {
		t.Fatalf("got %+v", r)
	}
	l := r.Loaded
	if !l.Suggested || l.Name != "h.csv" || l.Bytes != int64(len(semicolonCSV)) || l.Ignored != nil {
		t.Errorf("loaded %+v", l)
	}
	if !slices.Equal(l.Header, []string{"height", "colour", "y"}) || len(l.Rows) != 4 || !slices.Equal(l.Rows[1], []string{"2", "blue", "no"}) || l.Rows[3][0] != "?" {
		t.Errorf("preview %q %q", l.Header, l.Rows)
	}
	var s data.Schema
	if err := json.Unmarshal(l.Schema, &s); err != nil {
		t.Fatal(err)
	}
	if s.Delimiter != ';' {
		t.Errorf("the suggestion does not state the delimiter: %q", s.Delimiter)
	}
	want := []string{`column "height": min`, `column "height": max`, `column "height": missing`, `column "colour": categories`, `column "y": positive`, `column "y": negative`}
	if got := s.Unconfirmed(); !slices.Equal(got, want) {
		t.Errorf("unconfirmed %q, want %q", got, want)
	}
	// A column the suggestion ignores is listed with the reason.
	c := e.Handle(Request{ID: 4, Kind: "load", Source: "file"}, memFile{"c.csv", []byte("c,x,y\n4,1,yes\n4,2,no\n")})
	if g := c.Loaded.Ignored; len(g) != 1 || g[0].Column != "c" || g[0].Instead != data.Numeric || g[0].Reason == "" {
		t.Errorf("ignored %+v", g)
	}
	// The unconfirmed suggestion is refused by "dataset", naming what is not confirmed.
	d := e.Handle(Request{ID: 3, Kind: "dataset", Source: "file", Schema: l.Schema}, memFile{"h.csv", []byte(semicolonCSV)})
	if d.Kind != "error" || !strings.Contains(d.Error, `column "height": min was read from the data and is not confirmed (and 5 more)`) {
		t.Errorf("an unconfirmed schema: %+v", d)
	}
}

// Malformed files get errors that name the line and the column.
func TestMalformedFiles(t *testing.T) {
	e, _ := newEngine()
	for _, tc := range []struct {
		csv, want, column string
		line              int
	}{
		{"a,b\n1,x\n2,y\n3\n", "1 fields, but the header has 2", "", 4},
		{"a,b,y\n1,2,yes\n1,2,no\n\"open,2,yes\n", "quoted field never closes", "a", 4},
		{"a,a,y\n1,2,yes\n", "duplicate column name", "", 1},
		{"a,y\n", "no data rows", "", 2},
	} {
		r := e.Handle(Request{ID: 1, Kind: "load", Source: "file"}, memFile{"bad.csv", []byte(tc.csv)})
		if r.Kind != "error" || !strings.Contains(r.Error, tc.want) || r.Line != tc.line || r.Column != tc.column {
			t.Errorf("%q: got %+v, want %q at line %d, column %q", tc.csv, r, tc.want, tc.line, tc.column)
		}
	}
	// An error in the rows that the suggestion did not read is reported by "dataset".
	schema := `{"privopt_schema":1,"norm":{"p":2,"radius":1,"fit":"scale"},"columns":[{"name":"a","kind":"numeric","min":0,"max":10},{"name":"y","kind":"binary-label","positive":["1"],"negative":["0"]}]}`
	r := e.Handle(Request{ID: 2, Kind: "dataset", Source: "file", Schema: json.RawMessage(schema)}, memFile{"f.csv", []byte("a,y\n1,1\n2,0\nabc,1\n")})
	if r.Kind != "error" || r.Line != 4 || r.Column != "a" || !strings.Contains(r.Error, `"abc" is not a number`) {
		t.Errorf("a bad number: %+v", r)
	}
}

func demoDataset(t *testing.T, e *Engine, posted chan Response, check bool) *Dataset {
	t.Helper()
	l := e.Handle(Request{ID: 1, Kind: "load", Source: "demo"}, nil)
	r := e.Handle(Request{ID: 2, Kind: "dataset", Source: "demo", Schema: l.Loaded.Schema, Check: check}, nil)
	if r.Kind != "dataset" {
		t.Fatalf("dataset: %+v", r)
	}
	return r.Dataset
}

func TestDatasetDemo(t *testing.T) {
	e, posted := newEngine()
	d := demoDataset(t, e, posted, false)
	want := fit.Facts{N: 4000, D: 92, P: 2, Radius: 1, Label: data.LabelBinary}
	if !equalFacts(d.Facts, want) || d.Test != 1000 || d.Rows != 5000 || d.ClippedRows != 0 || len(d.Features) != 92 || d.Delimiter != "comma" {
		t.Errorf("demo dataset: %+v", d)
	}
	// The demo's one-hot rows are held sparse: 7 ones, the bias and up to 5 numbers of 92.
	if w := d.RowWidth; !w.Sparse || !(w.Entries >= 8 && w.Entries <= 13) || w != loss.RowWidth(e.data.train, nil) {
		t.Errorf("row width %+v", w)
	}
	// Missing values counted over both files: workclass has "?" in the first rows.
	if d.Columns[1].Name != "workclass" || d.Columns[1].Missing == 0 {
		t.Errorf("column diagnostics: %+v", d.Columns[1])
	}
	// The same request again is answered from the data held, without reading (no progress).
	for len(posted) > 0 {
		<-posted
	}
	l := e.Handle(Request{ID: 3, Kind: "load", Source: "demo"}, nil)
	again := e.Handle(Request{ID: 4, Kind: "dataset", Source: "demo", Schema: l.Loaded.Schema}, nil)
	if again.Dataset != d || len(posted) != 0 {
		t.Errorf("the second identical request read the data again")
	}
	// A check keeps the rows held; a request for other data drops them before it reads (here,
	// a schema it refuses), so that a worker never holds two datasets.
	if r := e.Handle(Request{ID: 5, Kind: "dataset", Source: "demo", Schema: l.Loaded.Schema, Holdout: 0.3, Check: true}, nil); r.Kind != "dataset" || e.data == nil {
		t.Errorf("a check: %s %s, rows held %v", r.Kind, r.Error, e.data != nil)
	}
	if r := e.Handle(Request{ID: 6, Kind: "dataset", Source: "demo", Schema: json.RawMessage(`{"privopt_schema":1}`)}, nil); r.Kind != "error" || e.data != nil {
		t.Errorf("other data: %s, rows held %v", r.Kind, e.data != nil)
	}
}

func equalFacts(a, b fit.Facts) bool {
	return a.N == b.N && a.D == b.D && a.P == b.P && a.Radius == b.Radius && a.Label == b.Label
}

// fourKinds returns a file of 200 rows of 4 kinds (x from 1 to 4, y alternating) and its schema.
// denseRows returns the rows of ds dense, row-major, however they are held.
func denseRows(ds *data.Dataset) []float64 {
	var out []float64
	for i := range ds.N {
		out = append(out, ds.Row(i, nil)...)
	}
	return out
}

func fourKinds() (memFile, json.RawMessage) {
	var csv strings.Builder
	csv.WriteString("x,y\n")
	for i := range 200 {
		csv.WriteString([]string{"1,a\n", "2,b\n", "3,a\n", "4,b\n"}[i%4])
	}
	return memFile{"x.csv", []byte(csv.String())}, json.RawMessage(`{"privopt_schema":1,"norm":{"p":2,"radius":1,"fit":"scale"},"columns":[{"name":"x","kind":"numeric","min":0,"max":4},{"name":"y","kind":"binary-label","positive":["a"],"negative":["b"]}]}`)
}

func TestDatasetHoldout(t *testing.T) {
	file, schema := fourKinds()
	e, posted := newEngine()
	r := e.Handle(Request{ID: 5, Kind: "dataset", Source: "file", Schema: schema, Holdout: 0.25, SplitSeed: 9}, file)
	if r.Kind != "dataset" || r.Dataset.Facts.N != 150 || r.Dataset.Test != 50 || r.Dataset.Rows != 200 {
		t.Fatalf("holdout: %+v", r)
	}
	// Reading the file posts its progress.
	if p := <-posted; p.ID != 5 || p.Kind != "progress" || p.Progress.Stage != "reading" {
		t.Errorf("progress: %+v", p)
	}
	// Two engines with the same split seed hold the same rows.
	e2, _ := newEngine()
	e2.Handle(Request{ID: 5, Kind: "dataset", Source: "file", Schema: schema, Holdout: 0.25, SplitSeed: 9}, file)
	if !slices.Equal(denseRows(e.data.test), denseRows(e2.data.test)) {
		t.Error("the same split seed gave different held-out rows")
	}
	// Under add/remove the held-out rows are chosen by their content: data.SplitByContent's.
	e4, _ := newEngine()
	if r := e4.Handle(Request{ID: 7, Kind: "dataset", Source: "file", Schema: schema, Holdout: 0.25, SplitSeed: 9, SplitByContent: true}, file); r.Kind != "dataset" {
		t.Fatalf("split by content: %+v", r)
	}
	parsed, err := data.LoadSchema(bytes.NewReader(schema))
	if err != nil {
		t.Fatal(err)
	}
	full, _, err := data.Encode(bytes.NewReader(file.data), parsed)
	if err != nil {
		t.Fatal(err)
	}
	_, want, err := data.SplitByContent(full, 0.25, 9)
	if err != nil || !slices.Equal(denseRows(e4.data.test), denseRows(want)) || e4.data.summary.Test != want.N {
		t.Errorf("split by content: %d held-out rows, want data.SplitByContent's %d (%v)", e4.data.summary.Test, want.N, err)
	}
	// A check keeps nothing (under replace-one it keeps no row while reading, data.Summarize),
	// and summarises the training rows as the split does, their values held as float32 too.
	for _, byContent := range []bool{false, true} {
		for _, f32 := range []bool{false, true} {
			e3, _ := newEngine()
			req := Request{ID: 6, Kind: "dataset", Source: "file", Schema: schema, Holdout: 0.25, SplitSeed: 9, SplitByContent: byContent, Float32: f32}
			want := e3.Handle(req, file)
			e3.data = nil
			req.Check = true
			if r := e3.Handle(req, file); r.Kind != "dataset" || e3.data != nil || !reflect.DeepEqual(r.Dataset, want.Dataset) || want.Dataset.Facts.Float32 != f32 {
				t.Errorf("check (by content: %v, float32 %v): %+v, data kept: %v; want %+v", byContent, f32, r.Dataset, e3.data != nil, want.Dataset)
			}
		}
	}
}

func demoSpec() *fit.Spec {
	return &fit.Spec{Loss: "logistic", Domain: fit.Whole, Radius: 10, Mechanism: "rem",
		Options: map[string]string{"Sampler": "mala", "FastSteps": "40"},
		Budget:  privacy.Budget{Epsilon: 1, Delta: 1e-6}}
}

func TestPlan(t *testing.T) {
	e, posted := newEngine()
	d := demoDataset(t, e, posted, true)
	r := e.Handle(Request{ID: 3, Kind: "plan", Spec: demoSpec(), Facts: &d.Facts, Runs: 4, EpsMax: 10}, nil)
	if r.Kind != "plans" {
		t.Fatalf("plan: %+v", r)
	}
	var rem *PlanSummary
	for i, m := range r.Plans.Mechanisms {
		if m.Name == "rem" {
			rem = &r.Plans.Mechanisms[i]
		}
	}
	if len(r.Plans.Mechanisms) != len(mech.Names()) || rem == nil {
		t.Fatalf("plans: %+v", r.Plans.Mechanisms)
	}
	if rem.Error != "" || !(float64(rem.DeltaAtEps) <= 1e-6) || !(rem.Utility > 0) || rem.Queries != Number(40*4000) || rem.Draws != Number(40*92) || rem.Paper == "" {
		t.Errorf("rem: %+v", rem)
	}
	c := r.Plans.Curves
	if c == nil || len(c.Eps) != CurvePoints || len(c.Delta) != CurvePoints || len(c.Tradeoff) != CurvePoints || c.Eps[CurvePoints-1] != 10 || c.Alpha[CurvePoints-1] != 1 {
		t.Fatalf("curves: %+v", c)
	}
	// One run meets the budget; four composed need a larger ε, and their curve lies above.
	if c.Delta[20] > 1e-6 || !(float64(c.ComposedEps) > 1) || c.Runs != 4 || c.Composed == "" {
		t.Errorf("δ(1) = %g, composed ε = %v", c.Delta[20], c.ComposedEps)
	}
	for i := range c.Eps {
		if c.ComposedDelta[i] < c.Delta[i] || c.ComposedTradeoff[i] > c.Tradeoff[i] {
			t.Fatalf("the composition is more private than one run at point %d", i)
		}
	}
	// δ = 0: REM does not plan, and says why; no curves.
	pure := demoSpec()
	pure.Budget.Delta = 0
	r = e.Handle(Request{ID: 4, Kind: "plan", Spec: pure, Facts: &d.Facts, Runs: 1, EpsMax: 10}, nil)
	if r.Kind != "plans" || r.Plans.Curves != nil || !strings.Contains(r.Plans.Mechanisms[slices.Index(mech.Names(), "rem")].Error, "δ > 0") {
		t.Errorf("pure DP: %+v", r.Plans)
	}
	for _, bad := range []Request{
		{ID: 5, Kind: "plan", Spec: demoSpec(), Facts: &d.Facts, EpsMax: 0},
		{ID: 6, Kind: "plan", Spec: demoSpec(), Facts: &d.Facts, EpsMax: 10, Runs: MaxRuns + 1},
	} {
		if r := e.Handle(bad, nil); r.Kind != "error" {
			t.Errorf("%+v accepted", bad)
		}
	}
}

func TestRun(t *testing.T) {
	e, posted := newEngine()
	demoDataset(t, e, posted, false)
	seed := uint64(7)
	release := func(id, run int) *Result {
		t.Helper()
		if r := e.Handle(Request{ID: id, Kind: "run", Spec: demoSpec(), Run: run, Seed: &seed}, nil); r.Kind != "started" || r.ID != id {
			t.Fatalf("run: %+v", r)
		}
		r, progress := await(t, posted, id)
		if r.Kind != "release" {
			t.Fatalf("run %d: %+v", run, r)
		}
		if len(progress) == 0 || progress[0].Run != run || progress[0].Stage != "sampling" {
			t.Errorf("run %d: progress %+v", run, progress)
		}
		return r.Result
	}
	a, b, c := release(10, 0), release(11, 0), release(12, 1)
	rep := a.Release.Report
	if rep.Randomness != privacy.SeededNotPrivate || rep.Private || !strings.HasPrefix(rep.Statement, "This release is NOT private") {
		t.Errorf("a seeded run's report: %+v", rep)
	}
	if !slices.Equal(a.Release.Model.Weights, b.Release.Model.Weights) {
		t.Error("the same seed and run number gave different models")
	}
	if slices.Equal(a.Release.Model.Weights, c.Release.Model.Weights) {
		t.Error("runs 0 and 1 of the same seed gave the same model")
	}
	if a.Run != 0 || c.Run != 1 || a.Test == nil || a.Test.Rows != 1000 || a.Test.Accuracy == nil || !(*a.Test.Accuracy > 0.5) || !(a.Test.Loss > 0) {
		t.Errorf("evaluation: %+v", a.Test)
	}
	// The demo's held-out rows: 1000 of adult.test, 76.0 % of them with the training rows'
	// majority label (income ≤ 50K).
	if m := a.Test.Majority; m == nil || *m != 0.76 {
		t.Errorf("majority baseline %v, want 0.76", m)
	}
	if len(a.Release.Model.Features) != 92 || a.Release.Diagnostics.NotPrivate == "" {
		t.Errorf("release: %+v", a.Release)
	}
	// The release survives the JSON trip to the page.
	var back Response
	if err := json.Unmarshal([]byte(Encode(Response{ID: 1, Kind: "release", Result: a})), &back); err != nil || !slices.Equal(back.Result.Release.Model.Weights, a.Release.Model.Weights) {
		t.Errorf("JSON round trip: %v", err)
	}
	// Without a seed, the randomness is the OS's and the report says so.
	spec := demoSpec()
	e.Handle(Request{ID: 13, Kind: "run", Spec: spec}, nil)
	if r, _ := await(t, posted, 13); r.Kind != "release" || r.Result.Release.Report.Randomness != privacy.OSSeeded {
		t.Errorf("an OS-seeded run: %+v", r)
	}
}

// Under add/remove the run divides by the declared public number of rows N, refuses data with
// more rows than N, and evaluates the held-out rows over their own number.
func TestRunAddRemove(t *testing.T) {
	e, posted := newEngine()
	demoDataset(t, e, posted, false)
	spec := demoSpec()
	spec.Budget.Neighbouring = privacy.AddRemove
	for id, n := range map[int]int{20: 0, 21: 3999} {
		spec.PublicN = n
		if r := e.Handle(Request{ID: id, Kind: "run", Spec: spec}, nil); r.Kind != "error" || !strings.Contains(r.Error, "public number of rows") {
			t.Errorf("N = %d: %+v", n, r)
		}
	}
	spec.PublicN = 5000
	if r := e.Handle(Request{ID: 22, Kind: "run", Spec: spec}, nil); r.Kind != "started" {
		t.Fatalf("N = 5000: %+v", r)
	}
	r, _ := await(t, posted, 22)
	if r.Kind != "release" || r.Result.Release.Report.Neighbouring != privacy.AddRemove {
		t.Fatalf("N = 5000: %+v", r)
	}
	if ev := r.Result.Test; ev == nil || ev.Rows != 1000 || ev.Accuracy == nil || !(*ev.Accuracy > 0.5) || !(ev.Loss > 0) {
		t.Errorf("evaluation: %+v", ev)
	}
}

// A long run is refused a second run while it runs, and ends "cancelled" after a cancel.
func TestCancel(t *testing.T) {
	e, posted := newEngine()
	demoDataset(t, e, posted, false)
	long := demoSpec()
	long.Options["FastSteps"] = "200000" // minutes, checking for cancellation every 200 steps
	if r := e.Handle(Request{ID: 20, Kind: "run", Spec: long}, nil); r.Kind != "started" {
		t.Fatalf("run: %+v", r)
	}
	if r := e.Handle(Request{ID: 21, Kind: "run", Spec: demoSpec()}, nil); r.Kind != "error" || !strings.Contains(r.Error, "busy with the run of request 20") {
		t.Errorf("a second run: %+v", r)
	}
	if r := e.Handle(Request{ID: 22, Kind: "cancel", Target: 20}, nil); r.Kind != "cancelling" || r.ID != 22 {
		t.Errorf("cancel: %+v", r)
	}
	if r, _ := await(t, posted, 20); r.Kind != "cancelled" {
		t.Errorf("after cancel: %+v", r)
	}
	// The engine is free again.
	if r := e.Handle(Request{ID: 23, Kind: "run", Spec: demoSpec()}, nil); r.Kind != "started" {
		t.Errorf("a run after the cancel: %+v", r)
	}
	if r, _ := await(t, posted, 23); r.Kind != "release" {
		t.Errorf("the run after the cancel: %+v", r)
	}
}

func TestCalibrate(t *testing.T) {
	e, _ := newEngine()
	r := e.Handle(Request{ID: 1, Kind: "calibrate"}, nil)
	rate := r.Rate
	if r.Kind != "rate" || rate == nil || len(rate.Measured) != 3 || !(rate.PerParam > 0) || rate.PerQuery < 0 || !(rate.PerNonZero > 0) {
		t.Fatalf("calibrate: %+v", r)
	}
	for i, m := range rate.Measured {
		want := Measured{Dim: calibrationDims[min(i, 1)]}
		if i == 2 {
			want.NonZeros = calibrationNonZeros
		}
		if m.Dim != want.Dim || m.NonZeros != want.NonZeros || !(m.QueriesPerSecond > 0) || math.IsInf(m.QueriesPerSecond, 1) {
			t.Errorf("measured %+v", m)
		}
	}
	dense := loss.Width{Entries: 92}
	if s := rate.Seconds(1e6, 0, dense); !(s > 0 && rate.Seconds(2e6, 0, dense) == 2*s && rate.Seconds(1e6, 0, loss.Width{Entries: 184}) > s) {
		t.Errorf("Seconds is not increasing in queries and parameters: %g", s)
	}
	if !(rate.PerDraw > 0) || rate.Seconds(1e6, 1e6, dense) != rate.Seconds(1e6, 0, dense)+1e6*rate.PerDraw {
		t.Errorf("draws: %g s each", rate.PerDraw)
	}
	// The calibration's sparse rows: the fit reproduces their measured rate.
	sparse := rate.Seconds(1, 0, loss.Width{Entries: calibrationNonZeros, Sparse: true})
	if got := 1 / rate.Measured[2].QueriesPerSecond; rate.PerNonZero != rate.PerParam && math.Abs(sparse-got) > 1e-9*got {
		t.Errorf("sparse rows: %g s per query predicted, %g measured", sparse, got)
	}
}

// Seconds charges a query PerParam per entry of a dense row and PerNonZero per non-zero entry
// of a sparse one: adult-lr's one-hot rows (11.1 non-zeros of 92) cost 1.222e-7 s, not the
// 1.92e-7 s of dense rows.
func TestRateSeconds(t *testing.T) {
	r := Rate{PerQuery: 1e-7, PerParam: 1e-9, PerNonZero: 2e-9, PerDraw: 1e-8}
	for _, c := range []struct {
		w    loss.Width
		want float64
	}{
		{loss.Width{Entries: 92}, 1e6*1.92e-7 + 10*1e-8},
		{loss.Width{Entries: 11.1, Sparse: true}, 1e6*1.222e-7 + 10*1e-8},
	} {
		if got := r.Seconds(1e6, 10, c.w); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%+v: %g s, want %g", c.w, got, c.want)
		}
	}
}

// BenchmarkPlan measures a "plan" request on the demo's facts: every mechanism planned and the
// chosen one's curves sampled for one run and for four composed (what the page asks at each
// keystroke in the privacy step).
func BenchmarkPlan(b *testing.B) {
	e, _ := newEngine()
	facts := fit.Facts{N: 4000, D: 92, P: 2, Radius: 1, Label: data.LabelBinary}
	for _, runs := range []int{1, 4} {
		b.Run(fmt.Sprintf("runs=%d", runs), func(b *testing.B) {
			req := Request{ID: 1, Kind: "plan", Spec: demoSpec(), Facts: &facts, Runs: runs, EpsMax: 10}
			for b.Loop() {
				if r := e.Handle(req, nil); r.Kind != "plans" {
					b.Fatal(r.Error)
				}
			}
		})
	}
}

// TestPlanAuto: auto's guarantee, the worse of its selection's and its final fit's, is
// sampled into curves whose every value is in [0, 1] (its δ at ε = +∞, behind T(0), was NaN).
func TestPlanAuto(t *testing.T) {
	e, posted := newEngine()
	d := demoDataset(t, e, posted, true)
	spec := &fit.Spec{Loss: "logistic", Domain: fit.Whole, Radius: 10, Mechanism: "auto", Budget: privacy.Budget{Epsilon: 1, Delta: 1e-6}}
	r := e.Handle(Request{ID: 3, Kind: "plan", Spec: spec, Facts: &d.Facts, Runs: 1, EpsMax: 10}, nil)
	if r.Kind != "plans" || r.Plans.Curves == nil {
		t.Fatalf("plan: %+v", r)
	}
	if !strings.Contains(r.Plans.Curves.Guarantee, "disjoint parts of the rows") {
		t.Errorf("auto's curve is %q", r.Plans.Curves.Guarantee)
	}
}
