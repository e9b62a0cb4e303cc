package ui

import (
	"bytes"
	"encoding/json"
	"github.com/privopt/privopt/pkg/core/data"
	"io"
	"maps"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vugu/vugu"

	"github.com/privopt/privopt/internal/curves"
	"github.com/privopt/privopt/internal/fit"
	"github.com/privopt/privopt/internal/release"
	"github.com/privopt/privopt/pkg/core/privacy"
	"github.com/privopt/privopt/wasm/engine"
)

// memFile is a file the test host "chose".
type memFile struct {
	name string
	data []byte
}

func (f memFile) Name() string             { return f.name }
func (f memFile) Size() int64              { return int64(len(f.data)) }
func (f memFile) Open() (io.Reader, error) { return bytes.NewReader(f.data), nil }

// delivery is one message from an engine worker, or one request to it (req).
type delivery struct {
	w    int
	resp engine.Response
	req  engine.Request
}

// testHost runs the engine in the same process: one engine per worker, answers queued and
// delivered by settle.
type testHost struct {
	t         *testing.T
	workers   int
	engines   map[int]*engine.Engine
	files     map[string]memFile // the file the person "chose" for each request Source
	queue     []delivery
	posted    chan delivery
	sent      []delivery // every request sent, with its worker
	downloads map[string]string
}

func newTestHost(t *testing.T, workers int) *testHost {
	return &testHost{t: t, workers: workers, engines: map[int]*engine.Engine{}, files: map[string]memFile{}, posted: make(chan delivery, 10000), downloads: map[string]string{}}
}

// choose makes text, named name, the file the person chooses for the requests of source.
func (h *testHost) choose(source, name, text string) { h.files[source] = memFile{name, []byte(text)} }

func (h *testHost) Send(w int, req engine.Request) {
	h.sent = append(h.sent, delivery{w: w, resp: engine.Response{ID: req.ID, Kind: req.Kind}, req: req})
	e, ok := h.engines[w]
	if !ok {
		// A run yields as the page's engine does (serve_js.go) when it posts progress: under
		// js/wasm Go runs on one thread, and a run that never yields ends before a cancel.
		e = engine.New(func(r engine.Response) { h.posted <- delivery{w: w, resp: r} }, func() { time.Sleep(time.Millisecond) })
		h.engines[w] = e
	}
	if req.Kind == "calibrate" { // the engine's tests measure; here a fixed rate will do
		h.queue = append(h.queue, delivery{w: w, resp: engine.Response{ID: req.ID, Kind: "rate",
			Rate: &engine.Rate{PerQuery: 1e-7, PerParam: 1e-9, PerNonZero: 2e-9,
				Measured: []engine.Measured{{Dim: 128, QueriesPerSecond: 4.4e6}, {Dim: 128, NonZeros: 16, QueriesPerSecond: 7.5e6}}}}})
		return
	}
	var f engine.File
	if file, ok := h.files[req.Source]; ok {
		f = file
	}
	// The request goes through JSON, as in the browser.
	b, err := json.Marshal(req)
	if err != nil {
		h.t.Fatal(err)
	}
	var answer string
	cached := false
	if req.Kind == "plan" && testing.Short() {
		answer, cached = h.shortPlan(e, req, string(b), f)
	} else {
		answer = e.HandleJSON(string(b), f)
	}
	var resp engine.Response
	if err := json.Unmarshal([]byte(answer), &resp); err != nil {
		h.t.Fatal(err)
	}
	if cached {
		resp.ID = req.ID // the answer is to an earlier request, with its ID
	}
	h.queue = append(h.queue, delivery{w: w, resp: resp})
}

// shortPlans holds, under go test -short, the engine's answers (JSON) to the "plan" requests
// the package's tests have made, by request without its ID: the engine's plan is a function of
// the request alone (it reads no state of the engine), and the tests plan the same settings of
// the demo many times (four plans in every demoApp), at up to a second each. Without -short
// every request is planned.
var shortPlans sync.Map // string → *plannedAnswer

type plannedAnswer struct {
	once   sync.Once
	answer string
}

// shortPlan answers a "plan" request (message, its JSON) from shortPlans, planning it with e if
// no test has (once, while tests running in parallel wait); cached reports whether the answer
// was planned for an earlier request.
func (h *testHost) shortPlan(e *engine.Engine, req engine.Request, message string, f engine.File) (answer string, cached bool) {
	req.ID = 0
	key, err := json.Marshal(req)
	if err != nil {
		h.t.Fatal(err)
	}
	v, _ := shortPlans.LoadOrStore(string(key), new(plannedAnswer))
	p := v.(*plannedAnswer)
	cached = true
	p.once.Do(func() { p.answer, cached = e.HandleJSON(message, f), false })
	return p.answer, cached
}

func (h *testHost) Workers() int { return h.workers }

func (h *testHost) TakeFile(_ vugu.DOMEvent, source string) (string, int64, bool) {
	f, ok := h.files[source]
	return f.name, f.Size(), ok
}

func (h *testHost) Download(name, _ string, content []byte) { h.downloads[name] = string(content) }
func (h *testHost) Now() time.Time                          { return time.Now() }

// settle delivers the engines' answers to the app until none is left and no run is in progress.
func (h *testHost) settle(a *App) {
	h.t.Helper()
	timeout := time.After(60 * time.Second)
	for {
		if len(h.queue) > 0 {
			d := h.queue[0]
			h.queue = h.queue[1:]
			a.Receive(d.w, d.resp)
			continue
		}
		select {
		case d := <-h.posted:
			a.Receive(d.w, d.resp)
			continue
		default:
		}
		if !a.Running {
			return
		}
		select {
		case d := <-h.posted:
			a.Receive(d.w, d.resp)
		case <-timeout:
			h.t.Fatal("the runs did not end in 60 s")
		}
	}
}

// waitProgress delivers answers until a run reports progress.
func (h *testHost) waitProgress(a *App) {
	h.t.Helper()
	timeout := time.After(60 * time.Second)
	for {
		for len(h.queue) > 0 {
			d := h.queue[0]
			h.queue = h.queue[1:]
			a.Receive(d.w, d.resp)
		}
		select {
		case d := <-h.posted:
			a.Receive(d.w, d.resp)
			if d.resp.Kind == "progress" {
				return
			}
		case <-timeout:
			h.t.Fatal("no progress in 60 s")
		}
	}
}

// checkedDemo returns an app with the demo data checked and planned, with its defaults.
func checkedDemo(t *testing.T, workers int) (*App, *testHost) {
	t.Helper()
	h := newTestHost(t, workers)
	a := NewApp(h)
	a.Start()
	a.UseDemo()
	h.settle(a)
	if a.Dataset == nil || a.Plans == nil || a.Rate == nil {
		t.Fatalf("demo: dataset %v, plans %v, rate %v, errors %q %q %q", a.Dataset, a.Plans, a.Rate, a.LoadErr, a.DataErr, a.PlanErr)
	}
	return a, h
}

// demoApp returns an app with the demo data checked and planned, with a fast sampler.
func demoApp(t *testing.T, workers int) (*App, *testHost) {
	t.Helper()
	a, h := checkedDemo(t, workers)
	a.SetMechanism("rem") // its fast mode: quick, and claiming no privacy
	a.SetOption("Sampler", "mala")
	a.SetOption("FastSteps", "40")
	h.settle(a)
	return a, h
}

// TestOpensOnRecommended: the page opens on noisy-gd, marked as recommended in the plans'
// table and the mechanism's heading.
func TestOpensOnRecommended(t *testing.T) {
	t.Parallel()
	a := NewApp(newTestHost(t, 1))
	html := render(t, &Root{Widget: curves.New(), App: a})
	if a.Mechanism != "noisy-gd" || !strings.Contains(html, `<tr class="chosen" id="plan-noisy-gd">`) ||
		!strings.Contains(html, "Noisy gradient descent with momentum (recommended)") {
		t.Errorf("the page opens on %q; its plans table or heading does not mark noisy-gd as recommended", a.Mechanism)
	}
}

func TestDemoFlow(t *testing.T) {
	t.Parallel()
	a, h := demoApp(t, 2)
	if !strings.HasPrefix(a.EngineStatus, "ready") || a.Dataset.Facts.N != 4000 || a.Dataset.Test != 1000 {
		t.Fatalf("status %q, dataset %+v", a.EngineStatus, a.Dataset)
	}
	if !a.HasCurves() || a.CurvePlot.ViewBox == "" || len(a.TradeoffPlot.Paths) != 3 {
		t.Fatalf("the chosen mechanism's curves are not drawn: %+v", a.Plans)
	}
	for i := range a.Plans.Mechanisms {
		a.Plans.Mechanisms[i].PlanSeconds = 0 // measured: the times below are the queries'
	}
	html := render(t, &Root{Widget: curves.New(), App: a})
	for _, want := range []string{`id="attribution"`, "CC BY 4.0", `id="preview"`, "State-gov", `id="dataset-summary"`,
		`id="privacy-curve"`, `id="privacy-tradeoff"`, `<tr class="chosen" id="plan-rem">`, "mixing not certified", `id="option-Sampler"`,
		`id="data-changes"`, "workclass: ", "missing, replaced by the declared value",
		"4.4 million per-example loss queries per second at d = 128, 7.5 million on sparse rows with 16 non-zero entries",
		"≈ 0.02 s"} { // 40·4000 gradient queries at 1e-7 + 11.1·2e-9 s each (the demo's one-hot rows: 0.03 s at 92·1e-9 if dense)
		if !strings.Contains(html, want) {
			t.Errorf("the planned page lacks %s", want)
		}
	}
	// Three seeded runs over two workers.
	a.SetRuns("3")
	a.SetSeed("11")
	h.settle(a)
	if a.ComposedText() == "" || !strings.Contains(render(t, &Root{Widget: curves.New(), App: a}), `id="seed-warning"`) {
		t.Error("three runs: no composed guarantee, or no seed warning")
	}
	a.Run()
	if !a.Running {
		t.Fatalf("Run refused: %s", a.RunErr)
	}
	h.settle(a)
	if len(a.DoneRuns()) != 3 || a.RunSummary() != "3 of 3 runs: 3 done" {
		t.Fatalf("runs: %s; %v", a.RunSummary(), a.RunErrors())
	}
	workers := map[int]bool{}
	for _, s := range h.sent {
		if s.resp.Kind == "run" {
			workers[s.w] = true
		}
	}
	if !workers[1] || !workers[2] || workers[0] {
		t.Errorf("the runs ran on workers %v, want 1 and 2", workers)
	}
	res := a.Result()
	if res.Release.Report.Randomness != privacy.SeededNotPrivate || a.Private() {
		t.Errorf("a seeded run claims privacy: %+v", res.Release.Report)
	}
	html = render(t, &Root{Widget: curves.New(), App: a})
	for _, want := range []string{`id="results"`, `id="report-verdict" class="bad"`, "seeded: not private", "not private",
		`id="weights"`, "(bias)", `id="spread"`, "held-out accuracy over 3 runs", "No privacy is claimed", `id="download"`, `id="share-link"`,
		"(always the majority class: 76.0 %)", `id="roc"`, "Held-out ROC curve, AUC 0.", `id="weights-chart"`,
		"92 weights (the table below has them all), with a dot per run (filled: run 1) and a line over the 3 runs"} {
		if !strings.Contains(html, want) {
			t.Errorf("the results lack %s", want)
		}
	}
	// A model no better than always predicting the majority class says so.
	accuracy, majority := res.Test.Accuracy, *res.Test.Majority
	for _, acc := range []float64{majority + 1e-9, majority} {
		res.Test.Accuracy = &acc
		said := slices.ContainsFunc(a.Diagnostics(), func(d DiagnosticRow) bool { return strings.Contains(d.Value, "no better than always predicting it") })
		if said != (acc <= majority) {
			t.Errorf("held-out accuracy %v against the majority class's %v: said no better %t", acc, majority, said)
		}
	}
	res.Test.Accuracy = accuracy
	// Sorting by magnitude puts the largest weight first.
	a.SetSort(true)
	ws := a.Weights()
	if len(ws) != 92 || abs(ws[0].value) < abs(ws[91].value) {
		t.Errorf("sorted weights: first %v, last %v", ws[0], ws[91])
	}
	a.Select(2)
	if a.Selected != 2 || a.Result() != a.RunList[2].Result {
		t.Error("Select(2) did not select run 3")
	}
	// The download is a release file of the three models and reports, never the diagnostics.
	a.Download()
	text := h.downloads["privopt-release.json"]
	f, err := release.Read(strings.NewReader(text))
	if err != nil || len(f.Models) != 3 || len(f.Models[0].Model.Weights) != 92 {
		t.Fatalf("download: %v, %.200s", err, text)
	}
	for _, unwanted := range []string{`"diagnostics"`, `"train_accuracy"`, `"train_loss"`, `"not_private"`, `"test"`, `"evaluation"`, `"held_out"`} {
		if strings.Contains(text, unwanted) {
			t.Errorf("the download holds %q", unwanted)
		}
	}
	// With no share of the budget spent on a private evaluation (the default), there is none.
	if res.Private != nil || res.HeldOut != nil || f.Settings.EvalShare != 0 || strings.Contains(html, `id="private-evaluation"`) || strings.Contains(a.Query(), "eval=") {
		t.Errorf("a private evaluation without a share: %+v", res.Private)
	}
}

// confirmAll confirms every value read from the data, one by one, as a person does after
// checking each.
func confirmAll(a *App) {
	for i, c := range a.Schema.Columns {
		for _, f := range slices.Clone(c.Derived) {
			a.Confirm(i, f)
		}
	}
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}

// An OS-seeded single run is private when its sampler is certified; with a fast sampler the
// report says mixing is not certified.
func TestReportOfUnseededRun(t *testing.T) {
	t.Parallel()
	a, h := demoApp(t, 1)
	a.Run()
	h.settle(a)
	rep := a.Result().Release.Report
	if rep.Randomness != privacy.OSSeeded || rep.Private || !strings.Contains(rep.Statement, "Mixing is not certified") {
		t.Errorf("report %+v", rep)
	}
	rows := a.ReportRows()
	if rows[7].Name != "Sampler" || !strings.HasPrefix(rows[7].Value, "mixing not certified") {
		t.Errorf("sampler row %+v", rows[7])
	}
}

func TestCancel(t *testing.T) {
	t.Parallel()
	a, h := demoApp(t, 1)
	a.SetOption("FastSteps", "200000") // minutes
	h.settle(a)
	a.Run()
	h.waitProgress(a)
	if a.Fraction() >= 1 || !a.Running || !strings.Contains(render(t, &Root{Widget: curves.New(), App: a}), `id="cancel-button"`) {
		t.Fatalf("running: %v, %v", a.Running, a.Fraction())
	}
	// No other data can be opened while the runs need the current one.
	loaded := a.Loaded
	a.OpenFile(nil)
	a.UseDemo()
	if a.Loaded != loaded || a.Loading || !strings.Contains(a.LoadErr, "Wait for the runs") {
		t.Errorf("new data opened during a run: %q", a.LoadErr)
	}
	a.Cancel()
	h.settle(a)
	if a.Running || a.RunList[0].State != "cancelled" || a.HasResults() || a.Fraction() >= 1 {
		t.Errorf("after cancel: running %v, state %s, progress %v (a full bar looks finished)", a.Running, a.RunList[0].State, a.Fraction())
	}
	// The worker is free for the next run.
	a.SetOption("FastSteps", "40")
	h.settle(a)
	a.Run()
	h.settle(a)
	if !a.HasResults() {
		t.Errorf("no result after the cancelled run: %v %s", a.RunErrors(), a.RunErr)
	}
}

const fileCSV = "age, city, income\n34, Lyon, high\n51, Paris, low\n29, SECRETVILLE, low\n?, Lyon, high\n"

// A file's suggested schema marks what it read from the data; nothing runs until each is
// confirmed; typing a value confirms it.
func TestFileFlowConfirmation(t *testing.T) {
	t.Parallel()
	h := newTestHost(t, 1)
	h.choose(dataSource, "people.csv", fileCSV)
	a := NewApp(h)
	a.Start()
	a.OpenFile(nil)
	h.settle(a)
	if a.Loaded == nil || a.Unconfirmed() != 6 || !a.ShowSchema {
		t.Fatalf("loaded %+v, unconfirmed %d, load error %q", a.Loaded, a.Unconfirmed(), a.LoadErr)
	}
	html := render(t, &Root{Widget: curves.New(), App: a})
	for _, want := range []string{`id="unconfirmed"`, "from your data: the smallest number read from your file", "first 1000 rows only",
		`id="confirm-min-0"`, `id="check-data" class="primary" disabled="disabled"`, "Confirm the 6 values",
		"Still to confirm: age (minimum, maximum, missing-value replacement); city (categories); income (positive values, negative values)."} {
		if !strings.Contains(html, want) {
			t.Errorf("the unconfirmed schema's page lacks %s", want)
		}
	}
	if strings.Contains(html, `id="confirm-all"`) {
		t.Error("the values read from the data can be confirmed all at once")
	}
	a.CheckData()
	if a.Checking || a.Dataset != nil {
		t.Fatal("data with unconfirmed bounds was checked")
	}
	if q := a.Query(); strings.Contains(q, "schema=") {
		t.Errorf("the link holds a schema with values to confirm: %s", q)
	}
	a.Run()
	if a.Running || !strings.Contains(a.RunErr, "Check the data") {
		t.Errorf("a run before the check: %q", a.RunErr)
	}
	// Typing a public bound confirms it; a value's button confirms it; each value needs its own,
	// and the data is not used until the last one is confirmed.
	a.SetMin(0, "17")
	a.Confirm(0, "max")
	if a.Derived(0, "min") || a.Derived(0, "max") || a.Unconfirmed() != 4 || a.Schema.Columns[0].Min != 17 {
		t.Errorf("after confirming age: %+v", a.Schema.Columns[0])
	}
	a.Confirm(0, "missing")
	a.Confirm(1, "categories")
	a.Confirm(2, "negative")
	if b := strings.Join(a.DataBlockers(), " "); a.Unconfirmed() != 1 || !strings.Contains(b, "Confirm the 1 values") ||
		a.StillToConfirm() != "Still to confirm: income (positive values)." {
		t.Errorf("one value left: blockers %q, %q", b, a.StillToConfirm())
	}
	a.CheckData()
	a.Run()
	if a.Checking || a.Dataset != nil || a.Running {
		t.Fatal("the data was used with one value unconfirmed")
	}
	a.Confirm(2, "positive")
	if a.Unconfirmed() != 0 || len(a.DataBlockers()) != 0 || a.StillToConfirm() != "" {
		t.Fatalf("all confirmed: blockers %q", a.DataBlockers())
	}
	a.SetHoldout("25")
	a.CheckData()
	h.settle(a)
	if a.Dataset == nil || a.Dataset.Facts.N != 3 || a.Dataset.Test != 1 || a.Plans == nil {
		t.Fatalf("checked: %+v, %q", a.Dataset, a.DataErr)
	}
	// Under add/remove the held-out rows are chosen by their content, so choosing that
	// relation checks the data again (data.SplitByContent; the split key is fixed here).
	a.splitSeed = 1
	a.SetNeighbouring(string(privacy.AddRemove))
	a.SetPublicN("10")
	h.settle(a)
	if a.Dataset == nil || !a.splitByContent() || a.checked != a.checkKey() || a.Dataset.Test+a.Dataset.Facts.N != 4 {
		t.Fatalf("after choosing add/remove: %+v, %q", a.Dataset, a.DataErr)
	}
	a.SetNeighbouring(string(privacy.ReplaceOne))
	h.settle(a)
	if a.Dataset == nil || a.splitByContent() || a.Dataset.Facts.N != 3 || a.Dataset.Test != 1 {
		t.Fatalf("back to replace-one: %+v, %q", a.Dataset, a.DataErr)
	}
	// A link that sets the relation checks the data again too.
	a.ApplyQuery(map[string]string{"nb": string(privacy.AddRemove), "pn": "10"})
	h.settle(a)
	if a.Dataset == nil || !a.splitByContent() || a.checked != a.checkKey() {
		t.Fatalf("add/remove from a link: %+v, %q", a.Dataset, a.DataErr)
	}
	a.SetNeighbouring(string(privacy.ReplaceOne))
	h.settle(a)
	// Changing the schema forgets the check.
	a.SetMax(0, "100")
	if a.Dataset != nil || a.Plans != nil {
		t.Error("a schema edit kept the old check")
	}
	// The link never holds data: not the file's name, nor its rows. It holds the schema once
	// the person has confirmed every value read from the data (public by declaration), and
	// never before.
	if q := a.Query(); strings.Contains(q, "people") || strings.Contains(q, "data=") || !strings.Contains(q, "schema=") {
		t.Errorf("the link holds data, or not the confirmed schema: %s", q)
	}

}

// Schema errors appear next to the column they name; data errors name the line and column.
func TestErrorsNextToTheirControl(t *testing.T) {
	t.Parallel()
	h := newTestHost(t, 1)
	h.choose(dataSource, "people.csv", fileCSV)
	a := NewApp(h)
	a.OpenFile(nil)
	h.settle(a)
	a.SetMin(0, "90")
	a.SetMax(0, "17")
	if a.Cols[0].Err == "" || !strings.Contains(render(t, &Root{Widget: curves.New(), App: a}), `id="column-error-0"`) {
		t.Errorf("min > max: column error %q", a.Cols[0].Err)
	}
	a.SetMax(0, "abc")
	if a.Cols[0].Max.Err == "" || !strings.Contains(render(t, &Root{Widget: curves.New(), App: a}), `aria-invalid="true"`) {
		t.Error("a non-numeric max is not marked invalid")
	}
	a.SetMax(0, "90")
	a.SetMin(0, "20")
	a.SetKind(1, "categorical")
	a.SetValues(1, "Lyon\nParis")
	confirmAll(a)
	a.CheckData()
	h.settle(a)
	if a.DataErrColumn != "city" || !strings.Contains(a.DataErr, "line 4") || a.ColumnDataErr(1) == "" {
		t.Errorf("an undeclared category: %q in column %q", a.DataErr, a.DataErrColumn)
	}
	if html := render(t, &Root{Widget: curves.New(), App: a}); !strings.Contains(html, `id="column-data-error-1"`) || !strings.Contains(html, `id="data-error"`) {
		t.Error("the data error is not shown next to the file and the column")
	}
	// A malformed file is reported where it was opened, with its line.
	h.choose(dataSource, "bad.csv", "a,b\n1,x\n2\n")
	a.OpenFile(nil)
	h.settle(a)
	if !strings.Contains(a.LoadErr, "line 3") || !strings.Contains(render(t, &Root{Widget: curves.New(), App: a}), `id="load-error"`) {
		t.Errorf("malformed file: %q", a.LoadErr)
	}
}

// Changing a column's kind keeps the values that fit the new kind with their marks, and a
// new label turns the old one into a feature of its values, with their marks.
func TestSetKind(t *testing.T) {
	t.Parallel()
	h := newTestHost(t, 1)
	h.choose(dataSource, "people.csv", fileCSV)
	a := NewApp(h)
	a.OpenFile(nil)
	h.settle(a)
	a.SetKind(0, "numeric-label")
	c := a.Schema.Columns
	if c[0].Min != 29 || c[0].Max != 51 || !a.Derived(0, "min") || c[2].Kind != "categorical" || len(c[2].Categories) != 2 || !a.Derived(2, "categories") {
		t.Errorf("numeric → numeric label: %+v; old label %+v", c[0], c[2])
	}
	a.SetKind(1, "class-label")
	if c := a.Schema.Columns; len(c[1].Classes) != 3 || !a.Derived(1, "classes") || c[0].Kind != "numeric" || c[0].Min != 29 || !a.Derived(0, "max") {
		t.Errorf("categorical → class label: %+v; old label %+v", c[1], c[0])
	}
	if a.LabelKind() != data.LabelClass || a.LossChoices()[0] != "multinomial" {
		t.Errorf("label kind %q", a.LabelKind())
	}
}

// Before the data is checked nothing is planned and the run says what is missing; a budget the
// chosen mechanism cannot meet is refused with its reason.
func TestRunBlockers(t *testing.T) {
	t.Parallel()
	a := NewApp(newTestHost(t, 1))
	if b := a.RunBlockers(); len(b) != 1 || !strings.Contains(b[0], "demo") {
		t.Errorf("blockers without data: %q", b)
	}
	a, h := demoApp(t, 1)
	a.SetDelta("0")
	h.settle(a)
	if b := strings.Join(a.RunBlockers(), " "); !strings.Contains(b, "does not plan") || !strings.Contains(b, "δ > 0") || strings.Contains(b, "mech: ") {
		t.Errorf("REM at δ = 0: %q", b)
	}
	a.SetDelta("1e-6")
	a.SetOption("FastSteps", "many")
	h.settle(a)
	if html := render(t, &Root{Widget: curves.New(), App: a}); !strings.Contains(html, `id="option-error-FastSteps"`) || !strings.Contains(html, `many&#34; is not an integer`) {
		t.Error("a setting's error is not shown next to it")
	}
	a.SetEps("-1")
	if b := strings.Join(a.RunBlockers(), " "); !strings.Contains(b, "Fix ε") {
		t.Errorf("ε = −1: %q", b)
	}
	a.Run()
	if a.Running || a.RunErr == "" {
		t.Error("an invalid budget ran")
	}
}

// The chosen mechanism's settings are folded while every one is at its default: the summary
// counts them; a setting typed, or in error, opens them, and so does the person.
func TestAdvancedSettingsFolded(t *testing.T) {
	t.Parallel()
	a, h := checkedDemo(t, 1)
	h.settle(a)
	n := len(a.Options())
	if a.AdvancedOpen() || n == 0 || a.AdvancedSummary() != strconv.Itoa(n)+", each computed by the plan" {
		t.Fatalf("at the defaults: open %v, summary %q (%d settings)", a.AdvancedOpen(), a.AdvancedSummary(), n)
	}
	if html := render(t, &Root{Widget: curves.New(), App: a}); !strings.Contains(html, `<details class="advanced" id="advanced">`) {
		t.Error("the settings are not folded")
	}
	name := a.Options()[0].Name
	a.SetOption(name, "many")
	h.settle(a)
	if !a.AdvancedOpen() || a.AdvancedSummary() != strconv.Itoa(n)+", 1 of them set" {
		t.Errorf("a setting typed: open %v, summary %q", a.AdvancedOpen(), a.AdvancedSummary())
	}
	if html := render(t, &Root{Widget: curves.New(), App: a}); !strings.Contains(html, `<details class="advanced" id="advanced" open`) {
		t.Error("a setting typed leaves them folded")
	}
	a.SetOption(name, "")
	h.settle(a)
	if a.AdvancedOpen() {
		t.Error("open with every setting at its default again")
	}
	a.SetAdvancedOpen(true)
	if !a.AdvancedOpen() {
		t.Error("the person's opening is not kept")
	}
}

// The seed is read once, when Run is clicked: the private ranges and every run use it, however
// the field changes while they run, so a release never mixes seeded ranges with runs that claim
// privacy (or the reverse); and the verdict claims privacy only when the whole release does.
func TestSeedReadOnceAtRun(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ before, during string }{{"7", ""}, {"", "7"}} {
		a, h := demoApp(t, 1)
		a.SetMechanism("noisy-gd")
		a.SetRuns("2")
		a.SetSeed(c.before)
		h.settle(a)
		a.Run()
		if !a.Running {
			t.Fatalf("Run refused: %s", a.RunErr)
		}
		a.SetSeed(c.during) // typed or cleared while the ranges are estimated
		h.settle(a)
		if a.rel == nil || a.rel.Ranges == nil || len(a.rel.Models) != 2 {
			t.Fatalf("seed %q then %q: no release with ranges and two models: %s", c.before, c.during, a.relErr)
		}
		seeded := c.before != ""
		var kinds []string
		for _, d := range h.sent {
			if d.req.Kind == "scale" || d.req.Kind == "run" {
				kinds = append(kinds, d.req.Kind)
				if (d.req.Seed != nil) != seeded || seeded && *d.req.Seed != 7 {
					t.Errorf("seed %q then %q: a %q request has seed %v", c.before, c.during, d.req.Kind, d.req.Seed)
				}
			}
		}
		if len(kinds) != 3 {
			t.Errorf("seed %q then %q: requests %v, want the ranges' and two runs'", c.before, c.during, kinds)
		}
		private := a.rel.Ranges.Report.Private && a.rel.Models[0].Report.Private && a.rel.Models[1].Report.Private
		if private == seeded || a.Private() == seeded || a.rel.Private() == seeded || strings.HasPrefix(a.rel.Statements.Plain, "NO PRIVACY") != seeded {
			t.Errorf("seed %q then %q: parts private %v, page %v, file %v; statement %.60q", c.before, c.during, private, a.Private(), a.rel.Private(), a.rel.Statements.Plain)
		}
	}
}

// The results judge a budget against the number of rows the runs were planned for, not the
// settings changed since.
func TestRowsOfRunAreTheRunsOwn(t *testing.T) {
	t.Parallel()
	a, h := demoApp(t, 1)
	a.Run()
	h.settle(a)
	n := a.rowsOfRun()
	if len(a.DoneRuns()) != 1 || n != a.Dataset.Facts.N {
		t.Fatalf("after a run: %d rows, the data %d; %v", n, a.Dataset.Facts.N, a.RunErrors())
	}
	a.SetNeighbouring(string(privacy.AddRemove))
	a.SetPublicN("10")
	h.settle(a)
	if got := a.rowsOfRun(); got != n {
		t.Errorf("after choosing add/remove with N = 10: %d rows, want the run's %d", got, n)
	}
}

// Holding the values as float32 is part of the configuration: a link carries it for a file
// (f32=1), not for the demo, and it keys the check, so that changing it checks the data again.
func TestLinkFloat32(t *testing.T) {
	t.Parallel()
	a := NewApp(newTestHost(t, 1))
	a.ApplyQuery(map[string]string{"f32": "1"})
	key := a.checkKey()
	if !a.Float32 || !strings.Contains(a.Query(), "f32=1") {
		t.Fatalf("f32=1 gives float32 %v and the link %s", a.Float32, a.Query())
	}
	a.SetFloat32(false)
	if strings.Contains(a.Query(), "f32") || a.checkKey() == key {
		t.Errorf("without float32 the link is %s, and the check's key is the same: %v", a.Query(), a.checkKey() == key)
	}
	b, _ := demoApp(t, 1)
	b.SetFloat32(true)
	if strings.Contains(b.Query(), "f32") {
		t.Errorf("the demo's link holds f32: %s", b.Query())
	}
}

// A link reproduces the configuration: applied to a fresh page, it gives the same link.
func TestLinkRoundTrip(t *testing.T) {
	t.Parallel()
	a, _ := demoApp(t, 1)
	a.SetEps("0.5")
	a.SetDelta("1e-7")
	a.SetNeighbouring("add-remove")
	a.SetPublicN("5000")
	a.SetRuns("4")
	a.SetSeed("42")
	a.SetModifier(Adversarial)
	a.SetRobust("0.1")
	a.SetRobustNorm("2")
	a.SetDomain(fit.Ball)
	a.SetRadius("3")
	a.SetEvalShare("12.5")
	if strings.Contains(a.Query(), "scale=") {
		t.Errorf("the link holds the default share of the private ranges: %s", a.Query())
	}
	a.SetScaleShare("5")
	q := a.Query()
	for _, want := range []string{"data=demo", "eps=0.5", "delta=1e-7", "nb=add-remove", "pn=5000", "runs=4", "seed=42", "mod=adversarial", "rho=0.1", "rnorm=2",
		"domain=ball", "radius=3", "mech=rem", "opt.Sampler=mala", "opt.FastSteps=40", "eval=12.5", "scale=5"} {
		if !strings.Contains(q, want) {
			t.Errorf("the link %s lacks %s", q, want)
		}
	}
	values, err := url.ParseQuery(q)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for k := range values {
		m[k] = values.Get(k)
	}
	b := NewApp(newTestHost(t, 1))
	b.ApplyQuery(m)
	if b.Query() != q || !b.wantDemo || b.spec().PublicN != 5000 || b.spec().EvalShare != 0.125 || b.spec().ScaleShare != 0.05 {
		t.Errorf("round trip:\n%s\n%s", q, b.Query())
	}
	// Invalid values show their fields' errors and keep the defaults.
	c := NewApp(newTestHost(t, 1))
	c.ApplyQuery(map[string]string{"eps": "-3", "runs": "2.5", "loss": "nonsense", "mech": "nonsense"})
	if c.Eps.Err == "" || c.Eps.Value != 1 || c.Runs.Err == "" || c.Loss != "logistic" || c.Mechanism != Recommended {
		t.Errorf("invalid link values: %+v %+v %q %q", c.Eps, c.Runs, c.Loss, c.Mechanism)
	}
	// An invalid N shows its error and declares none; N is left out under replace-one.
	for _, tc := range []struct {
		q    map[string]string
		link string
	}{
		{map[string]string{"nb": "add-remove", "pn": "2.5"}, "pn=2.5"},
		{map[string]string{"nb": "add-remove", "pn": "0"}, "pn=0"},
		{map[string]string{"nb": "add-remove", "pn": "many"}, "pn=many"},
		{map[string]string{"nb": "replace-one", "pn": "5000"}, ""},
		{map[string]string{"pn": "5000"}, ""},
	} {
		d := NewApp(newTestHost(t, 1))
		d.ApplyQuery(tc.q)
		if d.spec().PublicN != 0 || d.AddRemove() && d.PublicN.Err == "" {
			t.Errorf("%v: N %+v, spec N %d", tc.q, d.PublicN, d.spec().PublicN)
		}
		if got := d.Query(); tc.link == "" && strings.Contains(got, "pn=") || tc.link != "" && !strings.Contains(got, tc.link) {
			t.Errorf("%v: the link %s, want %q", tc.q, got, tc.link)
		}
	}
}

func TestQueryEscape(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "plain", "a b&c=d", "ε = 1/2 + 100%", "x\n\"y\"#?"} {
		got := queryEscape(s)
		back, err := url.QueryUnescape(got)
		if err != nil || back != s || strings.ContainsAny(got, " &=#?+\n") {
			t.Errorf("queryEscape(%q) = %q, reads back as %q (%v)", s, got, back, err)
		}
	}
}

func TestFormatDuration(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		s    float64
		want string
	}{{0.123, "0.12 s"}, {12.4, "12 s"}, {600, "10 min"}, {7200, "2.0 h"}, {86400 * 10, "10 days"}, {86400 * 365 * 30, "30 years"}} {
		if got := formatDuration(tc.s); got != tc.want {
			t.Errorf("formatDuration(%g) = %q, want %q", tc.s, got, tc.want)
		}
	}
}

// A class label fits the multinomial loss (one weight vector per class); a numeric label a
// regression loss, which has no accuracy.
func TestOtherLabels(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, csv, kind, loss, domain string
		weights                       int
		accuracy                      bool
	}{
		{"classes", "x,z,y\n1,0,a\n2,1,b\n3,0,c\n4,1,a\n5,0,b\n6,1,c\n", "class-label", "multinomial", fit.Whole, 3 * 3, true},
		{"numeric", "x,z,y\n1,0,0.5\n2,1,1.5\n3,0,2\n4,1,3\n5,0,1\n6,1,2.5\n", "numeric-label", "squared", fit.Box, 3, false},
	} {
		h := newTestHost(t, 1)
		h.choose(dataSource, tc.name+".csv", tc.csv)
		a := NewApp(h)
		a.Start()
		a.OpenFile(nil)
		h.settle(a)
		if a.Schema == nil || string(a.Schema.Columns[2].Kind) != tc.kind {
			t.Fatalf("%s: suggested %+v (%s)", tc.name, a.Schema, a.LoadErr)
		}
		confirmAll(a)
		a.SetHoldout("0")
		a.CheckData()
		h.settle(a)
		if a.Dataset == nil || a.Loss != tc.loss {
			t.Fatalf("%s: dataset %+v, loss %q, %q", tc.name, a.Dataset, a.Loss, a.DataErr)
		}
		a.SetDomain(tc.domain)
		a.SetMechanism("rem") // its fast mode: quick, and claiming no privacy
		a.SetOption("Sampler", "mala")
		a.SetOption("FastSteps", "20")
		h.settle(a)
		a.Run()
		h.settle(a)
		res := a.Result()
		if res == nil {
			t.Fatalf("%s: no result: %q %v", tc.name, a.RunErr, a.RunErrors())
		}
		if len(a.Weights()) != tc.weights || a.Multiclass() != (tc.loss == "multinomial") {
			t.Errorf("%s: %d weights, multiclass %v", tc.name, len(a.Weights()), a.Multiclass())
		}
		if (res.Release.Diagnostics.TrainAccuracy != nil) != tc.accuracy {
			t.Errorf("%s: training accuracy %v", tc.name, res.Release.Diagnostics.TrainAccuracy)
		}
		html := render(t, &Root{Widget: curves.New(), App: a})
		if tc.loss == "multinomial" && !strings.Contains(html, `<th scope="col">class</th>`) {
			t.Errorf("%s: the weights have no class column", tc.name)
		}
		if strings.Contains(html, "Training accuracy") != tc.accuracy {
			t.Errorf("%s: training accuracy shown: %v", tc.name, !tc.accuracy)
		}
	}
}

// TestBoundText: a proven utility bound shows as "≤ b", an unproven one (+Inf) as such.
func TestBoundText(t *testing.T) {
	t.Parallel()
	if got := boundText(0.25); got != "≤ 0.25" {
		t.Errorf("boundText(0.25) = %q", got)
	}
	if got := boundText(math.Inf(1)); got != "none proven" {
		t.Errorf("boundText(+Inf) = %q", got)
	}
}

// TestDemoSchemaCitesSources checks that the demo's schema says, beside each column, where its
// declared values come from, and that capital-loss's bound is the field's width, not the
// largest value in the data.
func TestDemoSchemaCitesSources(t *testing.T) {
	t.Parallel()
	a, _ := demoApp(t, 1)
	a.ShowSchema = true
	html := render(t, &Root{Widget: curves.New(), App: a})
	for i, c := range a.Schema.Columns {
		if c.Source == "" || !strings.Contains(html, `id="`+id("source", i)+`"`) {
			t.Errorf("column %s: no source shown (%q)", c.Name, c.Source)
		}
	}
	if !strings.Contains(html, "Where its values come from: 0 to 99999: the largest value the public-use file") {
		t.Error("capital-loss's source is not shown")
	}
}

// TestRunHelpers: one run on a page of three workers runs on worker 1, helped by workers 2
// and 3, which get the data with worker 1 and a "help" request each, and the run names them;
// but not on the demo's 4,000 rows, whose passes are one chunk.
func TestRunHelpers(t *testing.T) {
	t.Parallel()
	a, h := demoApp(t, 3)
	a.SetSeed("5")
	h.settle(a)
	requests := func() map[string][]int {
		sent := map[string][]int{}
		for _, s := range h.sent {
			if s.resp.Kind == "run" || s.resp.Kind == "help" || s.resp.Kind == "dataset" {
				sent[s.resp.Kind] = append(sent[s.resp.Kind], s.w)
			}
		}
		h.sent = nil
		return sent
	}
	requests()
	a.Run()
	h.settle(a)
	if sent := requests(); len(a.DoneRuns()) != 1 || a.WorkersText() != "in one Web Worker" || len(sent["help"]) != 0 || slices.Contains(sent["dataset"], 2) {
		t.Errorf("the demo: %s (%s); requests by worker %v", a.RunSummary(), a.WorkersText(), sent)
	}
	a.Dataset.Facts.N = data.BlockRows + 1 // as if the data made two chunks
	a.Run()
	h.settle(a)
	if len(a.DoneRuns()) != 1 || a.WorkersText() != "in one Web Worker, helped by 2 more" {
		t.Fatalf("runs: %s (%s); %v", a.RunSummary(), a.WorkersText(), a.RunErrors())
	}
	parts := map[int][2]int{}
	for _, s := range h.sent {
		if s.req.Kind == "dataset" {
			parts[s.w] = [2]int{s.req.Part, s.req.Parts}
			if s.w > 1 && (s.req.TrainRows != a.Dataset.Facts.N || s.req.TestRows != a.Dataset.Test) {
				t.Errorf("helper %d's data: %d training and %d held-out rows", s.w, s.req.TrainRows, s.req.TestRows)
			}
		}
	}
	if sent := requests(); !slices.Equal(sent["run"], []int{1}) || !slices.Equal(sent["help"], []int{2, 3}) || !slices.Contains(sent["dataset"], 2) || !slices.Contains(sent["dataset"], 3) {
		t.Errorf("requests by worker: %v", sent)
	}
	if want := map[int][2]int{1: {0, 0}, 2: {0, 3}, 3: {1, 3}}; !maps.Equal(parts, want) {
		t.Errorf("the ranges of the workers' data (part, parts): %v, want %v", parts, want)
	}
}

// TestHelperParts: with fewer runs than workers, each run's helpers hold the ranges of the
// chunks that they and the run's worker share (engine's Request.Parts), whatever the numbers.
func TestHelperParts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		workers, helpers int
		want             map[int][2]int // helper → part, parts
	}{
		{1, 1, map[int][2]int{2: {0, 2}}},
		{1, 3, map[int][2]int{2: {0, 4}, 3: {1, 4}, 4: {2, 4}}},
		{2, 2, map[int][2]int{3: {0, 2}, 4: {0, 2}}},
		{2, 3, map[int][2]int{3: {0, 3}, 4: {0, 2}, 5: {1, 3}}},
		{3, 3, map[int][2]int{4: {0, 2}, 5: {0, 2}, 6: {0, 2}}},
	} {
		a := &App{runState: runState{runWorkers: tc.workers, runHelpers: tc.helpers}}
		a.Dataset = &engine.Dataset{}
		got := map[int][2]int{}
		for h := tc.workers + 1; h <= tc.workers+tc.helpers; h++ {
			req := a.helperData(h)
			got[h] = [2]int{req.Part, req.Parts}
		}
		if !maps.Equal(got, tc.want) {
			t.Errorf("%d workers, %d helpers: %v, want %v", tc.workers, tc.helpers, got, tc.want)
		}
	}
}

// TestUpText: the bounds the page states are rounded up to their four digits, never below.
func TestUpText(t *testing.T) {
	for v, want := range map[float64]string{9.99211e-7: "9.993 × 10⁻⁷", 0.99994999: "1", 2.718281828: "2.719", 1e-6: "1 × 10⁻⁶", 0.25: "0.25"} {
		if got := upText(v); got != want {
			t.Errorf("upText(%v) = %q, want %q (shortText gives %q)", v, got, want, shortText(v))
		}
	}
}

// TestMissingFollowsTypedMin: the suggestion replaces people.csv's missing age by the smallest
// age read (29), unconfirmed; typing a public minimum makes the replacement that minimum, still
// to confirm, and once the replacement is confirmed or typed the minimum no longer moves it.
func TestMissingFollowsTypedMin(t *testing.T) {
	t.Parallel()
	h := newTestHost(t, 1)
	h.choose(dataSource, "people.csv", peopleCSV)
	a := NewApp(h)
	a.Start()
	a.OpenFile(nil)
	h.settle(a)
	age := &a.Schema.Columns[0]
	if age.Missing.Value != "29" || !a.Derived(0, "missing") {
		t.Fatalf("the suggested replacement %+v (derived: %v), want the data's minimum 29", age.Missing, a.Derived(0, "missing"))
	}
	a.SetMin(0, "18")
	if age.Missing.Value != "18" || a.Cols[0].Missing != "18" || !a.Derived(0, "missing") {
		t.Errorf("after typing the minimum 18: replacement %+v (%q), derived %v", age.Missing, a.Cols[0].Missing, a.Derived(0, "missing"))
	}
	a.Confirm(0, "missing")
	a.SetMin(0, "20")
	if age.Missing.Value != "18" {
		t.Errorf("a confirmed replacement moved with the minimum: %+v", age.Missing)
	}
}

// TestLabelMissingPolicy: the schema editor offers a missing-value replacement for feature
// columns, not for the label (a replaced label would be a made-up answer), unless the schema
// already replaces it, so that it can be turned off.
func TestLabelMissingPolicy(t *testing.T) {
	t.Parallel()
	a, _ := checkedDemo(t, 1)
	label := len(a.Schema.Columns) - 1
	if a.Schema.Columns[label].Name != "Y" {
		t.Fatalf("the demo's last column is %q", a.Schema.Columns[label].Name)
	}
	a.ShowSchema = true
	html := render(t, &Root{Widget: curves.New(), App: a})
	if !strings.Contains(html, `id="missing-policy-1"`) || strings.Contains(html, `id="missing-policy-`+itoa(label)+`"`) {
		t.Error("the missing-value policy is not offered for a feature, or is for the label")
	}
	a.Schema.Columns[label].Missing = data.Missing{Replace: true, Value: "0"}
	if html := render(t, &Root{Widget: curves.New(), App: a}); !strings.Contains(html, `id="missing-policy-`+itoa(label)+`"`) {
		t.Error("a label whose missing values the schema replaces has no control to stop it")
	}
}
