package ui

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"html"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/privopt/privopt/internal/curves"
	"github.com/privopt/privopt/internal/demo"
	"github.com/privopt/privopt/internal/onnx"
	"github.com/privopt/privopt/internal/release"
	"github.com/privopt/privopt/pkg/core/data"
)

// peopleCSV is a file whose suggested schema the tests replace with typed public bounds.
const peopleCSV = "age,city,hours,income\n34,Lyon,40,high\n51,Paris,20,low\n29,Lyon,35,low\n?,Paris,50,high\n45,Lyon,38,high\n"

// fileApp opens peopleCSV, types public bounds for age (18 to 99) and hours (0 to 80),
// confirms the rest, checks the data (no held-out rows) and chooses a fast fit: the schema of
// a person who typed their bounds.
func fileApp(t *testing.T) (*App, *testHost) {
	t.Helper()
	h := newTestHost(t, 1)
	h.choose(dataSource, "people.csv", peopleCSV)
	a := NewApp(h)
	a.Start()
	a.OpenFile(nil)
	h.settle(a)
	if a.Schema == nil {
		t.Fatalf("people.csv: %q", a.LoadErr)
	}
	a.SetMin(0, "18")
	a.SetMax(0, "99")
	a.SetMin(2, "0")
	a.SetMax(2, "80")
	confirmAll(a)
	a.SetHoldout("0")
	a.CheckData()
	h.settle(a)
	a.SetMechanism("rem") // its fast mode: quick, and claiming no privacy
	a.SetOption("Sampler", "mala")
	a.SetOption("FastSteps", "40")
	h.settle(a)
	if a.Dataset == nil || a.Plans == nil {
		t.Fatalf("people.csv: dataset %+v, %q %q", a.Dataset, a.DataErr, a.PlanErr)
	}
	return a, h
}

// run runs the fit and returns the downloaded release file, read back.
func run(t *testing.T, a *App, h *testHost) (*release.File, string) {
	t.Helper()
	a.Run()
	h.settle(a)
	if !a.HasResults() {
		t.Fatalf("no result: %q %v", a.RunErr, a.RunErrors())
	}
	a.Download()
	text := h.downloads["privopt-release.json"]
	f, err := release.Read(strings.NewReader(text))
	if err != nil {
		t.Fatalf("the download does not read back: %v\n%.300s", err, text)
	}
	return f, text
}

// schemaText is a schema's JSON form.
func schemaText(t *testing.T, s *data.Schema) string {
	t.Helper()
	b, err := s.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The download is a release file (release.Read accepts it) with the schema the person
// confirmed, the spec the runs were planned with and one model per finished run, without
// diagnostics; the results state its guarantee and statements; Download ONNX saves the
// selected run's model.
func TestDownloadIsARelease(t *testing.T) {
	t.Parallel()
	a, h := fileApp(t)
	a.SetRuns("2")
	confirmed := a.schemaJSON()
	f, text := run(t, a, h)
	if f.Format != release.Format || schemaText(t, f.Schema) != confirmed || f.Schema.Columns[0].Min != 18 || f.Schema.Columns[2].Max != 80 {
		t.Errorf("the release's schema %s, want the confirmed %s", schemaText(t, f.Schema), confirmed)
	}
	spec, _ := json.Marshal(f.Settings)
	want, _ := json.Marshal(a.runSpec)
	if !bytes.Equal(spec, want) || len(f.Models) != 2 {
		t.Errorf("settings %s, want %s; %d models", spec, want, len(f.Models))
	}
	for k, r := range a.DoneRuns() {
		if !slices.Equal(f.Models[k].Model.Weights, r.Result.Release.Model.Weights) || f.Models[k].Report.Statement != r.Result.Release.Report.Statement {
			t.Errorf("model %d is not run %d's", k+1, r.Index+1)
		}
	}
	for _, unwanted := range []string{`"diagnostics"`, `"train_accuracy"`, `"train_loss"`, `"not_private"`, `"test"`} {
		if strings.Contains(text, unwanted) {
			t.Errorf("the release holds %q", unwanted)
		}
	}
	page := render(t, &Root{Widget: curves.New(), App: a})
	if f.Together == "" || a.ReleasedText() != f.Together || !strings.Contains(page, `id="released"`) || !strings.Contains(page, `id="use-model"`) {
		t.Errorf("the results do not state the file's guarantee %q", f.Together)
	}
	first, _, _ := strings.Cut(f.Statements.Plain, "\n\n")
	if first == "" || !strings.Contains(page, `id="statements"`) || !strings.Contains(page, html.EscapeString(first)) || !strings.Contains(page, `id="registry"`) {
		t.Errorf("the results do not show the statements %q", first)
	}
	// Download ONNX: the selected run's model, as internal/onnx writes it.
	a.Select(a.DoneRuns()[1].Index)
	a.DownloadONNX()
	var model bytes.Buffer
	if err := onnx.Export(f, 2, &model); err != nil {
		t.Fatal(err)
	}
	if got := h.downloads["privopt-run-2.onnx"]; got != model.String() || a.DownloadErr != "" {
		t.Errorf("the ONNX download: %d bytes (%q), want onnx.Export's %d", len(got), a.DownloadErr, model.Len())
	}
}

// A link holds the confirmed schema: opened, then given the same file, the page has the
// bounds the person typed, checks the data at once, and shows the same link.
func TestLinkRestoresTypedSchema(t *testing.T) {
	t.Parallel()
	a, _ := fileApp(t)
	a.SetEps("0.5")
	link := a.Query()
	if !strings.Contains(link, "schema=") {
		t.Fatalf("the link holds no schema: %s", link)
	}
	h := newTestHost(t, 1)
	b := NewApp(h)
	b.ApplyQuery(parseLink(link))
	b.Start()
	h.settle(b)
	if b.Query() != link || !strings.Contains(b.SettingsText(), "age, city, hours, income") {
		t.Errorf("before the data, the page shows %s (%q), want %s", b.Query(), b.SettingsText(), link)
	}
	h.choose(dataSource, "people.csv", peopleCSV)
	b.OpenFile(nil)
	h.settle(b)
	if b.Schema == nil || schemaText(t, b.Schema) != a.schemaJSON() || b.Cols[0].Min.Text != "18" || b.Cols[2].Max.Text != "80" || b.Unconfirmed() != 0 {
		t.Fatalf("the schema from the link: %+v, want %s", b.Schema, a.schemaJSON())
	}
	if b.Dataset == nil || b.Plans == nil || b.Query() != link || b.SettingsText() != "" {
		t.Errorf("the data is not checked with the link's schema (%q), or the link changed: %s", b.DataErr, b.Query())
	}
	// A file with other columns keeps its suggestion; the link's schema waits.
	h2 := newTestHost(t, 1)
	c := NewApp(h2)
	c.ApplyQuery(parseLink(link))
	h2.choose(dataSource, "other.csv", fileCSV)
	c.OpenFile(nil)
	h2.settle(c)
	if c.Unconfirmed() == 0 || c.pendingSchema == nil || !strings.Contains(render(t, &Root{Widget: curves.New(), App: c}), `id="settings-status"`) {
		t.Errorf("a schema for other columns was applied: %d to confirm", c.Unconfirmed())
	}
}

// A schema from a link follows the rules of a typed one: one that does not read back is
// reported and ignored, and a value it marks as read from the data must be confirmed.
func TestLinkSchemaRules(t *testing.T) {
	t.Parallel()
	a := NewApp(newTestHost(t, 1))
	a.ApplyQuery(map[string]string{"schema": "not base64!"})
	if a.SettingsErr == "" || a.pendingSchema != nil || strings.Contains(a.Query(), "schema=") {
		t.Errorf("a bad schema: %q, %s", a.SettingsErr, a.Query())
	}
	a, _ = fileApp(t)
	s, err := data.LoadSchema(strings.NewReader(a.schemaJSON()))
	if err != nil {
		t.Fatal(err)
	}
	s.Columns[0].Derived = []string{"min"}
	text, err := encodeSchema(s)
	if err != nil {
		t.Fatal(err)
	}
	h := newTestHost(t, 1)
	h.choose(dataSource, "people.csv", peopleCSV)
	b := NewApp(h)
	b.ApplyQuery(map[string]string{"schema": text})
	b.OpenFile(nil)
	h.settle(b)
	if b.Schema == nil || !b.Derived(0, "min") || b.Unconfirmed() != 1 || b.Dataset != nil || strings.Contains(b.Query(), "schema=") {
		t.Errorf("a derived mark from a link: unconfirmed %d, dataset %v, link %s", b.Unconfirmed(), b.Dataset, b.Query())
	}
	// The demo's own schema stays out of its link; an edited one is in it and comes back.
	d, _ := demoApp(t, 1)
	if strings.Contains(d.Query(), "schema=") {
		t.Errorf("the demo's link holds its own schema: %s", d.Query())
	}
	d.SetNormRadius("2")
	h2 := newTestHost(t, 1)
	e := NewApp(h2)
	e.ApplyQuery(parseLink(d.Query()))
	e.Start()
	h2.settle(e)
	if e.Schema == nil || e.Schema.Norm.Radius != 2 || e.Dataset == nil || e.Query() != d.Query() {
		t.Errorf("the demo with radius 2 from its link: %+v, %s", e.Schema, e.Query())
	}
}

// Loading a release file sets its settings and schema (and as many runs as it has models) on
// a fresh page, and holds the values as float32 when the file's were; the schema applies to the
// data it was made for. A file of the first format is refused with what it lacks.
func TestLoadSettingsFromRelease(t *testing.T) {
	t.Parallel()
	a, h := fileApp(t)
	a.SetFloat32(true)
	a.CheckData()
	a.SetEps("0.5")
	a.SetDelta("1e-7")
	a.SetModifier(Adversarial)
	a.SetRobust("0.2")
	a.SetRobustNorm("2")
	a.SetDomain("ball")
	a.SetRadius("3")
	a.SetNeighbouring("add-remove")
	a.SetPublicN("100")
	a.SetRuns("2")
	h.settle(a)
	_, text := run(t, a, h)
	want, _ := json.Marshal(a.runSpec)

	h2 := newTestHost(t, 1)
	b := NewApp(h2)
	b.SetEps("7") // replaced by the file's
	b.Start()
	h2.choose(settingsSource, "privopt-release.json", text)
	b.LoadSettings(nil)
	h2.settle(b)
	got, _ := json.Marshal(b.spec())
	if b.SettingsErr != "" || !bytes.Equal(got, want) || b.Runs.Text != "2" || b.pendingSchema == nil {
		t.Fatalf("settings %s (%q), want %s; runs %q", got, b.SettingsErr, want, b.Runs.Text)
	}
	if !a.runFacts.Float32 || !b.Float32 {
		t.Errorf("the run's values as float32: %v; the settings' %v", a.runFacts.Float32, b.Float32)
	}
	if html := render(t, &Root{Widget: curves.New(), App: b}); !strings.Contains(html, "The settings of privopt-release.json are set") {
		t.Error("the page does not say which settings it took")
	}
	h2.choose(dataSource, "people.csv", peopleCSV)
	b.OpenFile(nil)
	h2.settle(b)
	got, _ = json.Marshal(b.spec())
	if b.Schema == nil || schemaText(t, b.Schema) != a.schemaJSON() || b.Dataset == nil || !bytes.Equal(got, want) || b.Plans == nil {
		t.Errorf("with the data: schema %v, dataset %v, spec %s", b.Schema, b.Dataset, got)
	}
	// On a page that holds the data, the schema applies at once.
	h3 := newTestHost(t, 1)
	h3.choose(dataSource, "people.csv", peopleCSV)
	c := NewApp(h3)
	c.OpenFile(nil)
	h3.settle(c)
	h3.choose(settingsSource, "privopt-release.json", text)
	c.LoadSettings(nil)
	h3.settle(c)
	if c.Schema == nil || schemaText(t, c.Schema) != a.schemaJSON() || c.Dataset == nil || c.Plans == nil {
		t.Errorf("settings over the loaded data: schema %v, dataset %v (%q)", c.Schema, c.Dataset, c.DataErr)
	}
	h3.choose(settingsSource, "old.json", `{"format": "privopt-release/1", "settings": {}, "releases": []}`)
	c.LoadSettings(nil)
	h3.settle(c)
	if !strings.Contains(c.SettingsErr, "first format") || !strings.Contains(render(t, &Root{Widget: curves.New(), App: c}), `id="settings-status" role="status" class="error"`) {
		t.Errorf("a first-format file: %q", c.SettingsErr)
	}
}

// demoRow returns the header and the first record of the demo's held-out file, trimmed.
func demoRow(t *testing.T) (header, record []string) {
	t.Helper()
	r := csv.NewReader(demo.Test())
	r.TrimLeadingSpace = true
	header, err := r.Read()
	if err == nil {
		record, err = r.Read()
	}
	if err != nil {
		t.Fatal(err)
	}
	return header, record
}

// The panel's prediction for a typed row is the model's prediction (release.Predictor) of the
// row as privopt encodes it: for the demo's first held-out row, the training encoder's row.
func TestUseModelBinary(t *testing.T) {
	t.Parallel()
	a, h := demoApp(t, 1)
	f, _ := run(t, a, h)
	header, record := demoRow(t)
	for i, c := range f.Schema.Columns {
		if k := slices.Index(header, c.Name); k >= 0 && (c.Kind == data.Numeric || c.Kind == data.Categorical) {
			a.SetRowValue(i, record[k])
		}
	}
	test, _, err := data.Encode(demo.Test(), f.Schema)
	if err != nil {
		t.Fatal(err)
	}
	p, err := f.Predictor(1)
	if err != nil {
		t.Fatal(err)
	}
	want := p.Predict(test.Row(0, nil))
	if a.Row == nil || a.Row.Label != want.Label || !slices.Equal(a.Row.Probabilities, want.Probabilities) || len(want.Probabilities) != 2 {
		t.Fatalf("the panel predicts %+v (%q), want %+v", a.Row, a.RowErr, want)
	}
	page := render(t, &Root{Widget: curves.New(), App: a})
	if !strings.Contains(page, "Prediction of &#34;Y&#34;: "+html.EscapeString(want.Label)) || !strings.Contains(page, `id="use-0"`) || !strings.Contains(page, "age, from 17 to 90") ||
		!strings.Contains(page, "computed in this page") || !strings.Contains(page, "missing (read as ?)") {
		t.Errorf("the panel does not show the form and the prediction %q", want.Label)
	}
	// A value outside its declared range is read at its end, and the prediction says so.
	const note = `"age" is outside its declared range and was read at its end`
	if got := a.RowResult(); strings.Contains(got, ". ") {
		t.Errorf("an age of %s: %q", record[slices.Index(header, "age")], got)
	}
	a.SetRowValue(0, "150")
	if got := a.RowResult(); a.Row == nil || !strings.Contains(got, ". "+note) || !strings.HasSuffix(got, ".") {
		t.Errorf("an age of 150: %q", got)
	}
	// A value the schema refuses: no prediction, the reason names the column, the field is marked.
	a.SetRowValue(1, "Astronaut")
	page = render(t, &Root{Widget: curves.New(), App: a})
	if a.Row != nil || a.RowErrColumn != "workclass" || !strings.Contains(a.RowResult(), `column "workclass"`) ||
		!strings.Contains(page, `aria-invalid="true" id="use-1"`) || !strings.Contains(page, `id="use-result" role="status" class="error"`) {
		t.Errorf("an undeclared category: %q in %q", a.RowErr, a.RowErrColumn)
	}
}

// For a regression, the panel shows the model's value for the row as privopt encodes it, to six
// significant digits, and names the column it predicts.
func TestUseModelRegression(t *testing.T) {
	t.Parallel()
	h := newTestHost(t, 1)
	h.choose(dataSource, "numeric.csv", "x,z,y\n1,0,0.5\n2,1,1.5\n3,0,2\n4,1,3\n5,0,1\n6,1,2.5\n")
	a := NewApp(h)
	a.Start()
	a.OpenFile(nil)
	h.settle(a)
	confirmAll(a)
	a.SetHoldout("0")
	a.CheckData()
	h.settle(a)
	a.SetDomain("box")
	a.SetMechanism("rem") // its fast mode: quick, and claiming no privacy
	a.SetOption("Sampler", "mala")
	a.SetOption("FastSteps", "20")
	h.settle(a)
	f, _ := run(t, a, h)
	a.SetRowValue(0, " 3.5 ")
	a.SetRowValue(1, "1")
	ds, _, err := data.EncodeForPrediction(strings.NewReader("x,z\n3.5,1\n"), f.Schema)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := f.Predictor(1)
	want := p.Predict(ds.Row(0, nil))
	if a.Row == nil || a.Row.Label != want.Label || a.Row.Value != want.Value || a.Row.Probabilities != nil || want.Label == "" {
		t.Errorf("the panel predicts %+v (%q), want %+v", a.Row, a.RowErr, want)
	}
	if got := a.RowResult(); got != `Prediction of "y": `+strconv.FormatFloat(want.Value, 'g', 6, 64) {
		t.Errorf("shown %q", got)
	}
	a.Row = &release.Prediction{Label: "1.2345678912", Value: 1.2345678912}
	if got := a.RowResult(); got != `Prediction of "y": 1.23457` {
		t.Errorf("a value of many digits shown %q", got)
	}
}

// A CSV file is scored in a worker with the selected run's model: the predictions are
// release.File.WriteCSV's, and download as such; a bad row is reported with its line and
// column, as for the training data.
func TestScoreFile(t *testing.T) {
	t.Parallel()
	a, h := demoApp(t, 1)
	a.SetRuns("2")
	h.settle(a)
	f, _ := run(t, a, h)
	testCSV, err := io.ReadAll(demo.Test())
	if err != nil {
		t.Fatal(err)
	}
	a.Select(1)
	h.choose(scoreSource, "adult-test.csv", string(testCSV))
	a.ScoreFile(nil)
	h.settle(a)
	var want bytes.Buffer
	if _, err := f.WriteCSV(2, bytes.NewReader(testCSV), &want); err != nil {
		t.Fatal(err)
	}
	if a.Scores == nil || a.Scores.CSV != want.String() || a.Scores.Rows != 1000 || a.ScoreText() != "1000 rows of adult-test.csv scored." {
		t.Fatalf("scores %+v (%q), want WriteCSV's %d bytes", a.Scores, a.ScoreErr, want.Len())
	}
	a.DownloadScores()
	if h.downloads["adult-test-predictions.csv"] != want.String() || !strings.Contains(render(t, &Root{Widget: curves.New(), App: a}), `id="download-scores"`) {
		t.Error("the predictions do not download as scored")
	}
	// Another run forgets the scores of the previous model.
	a.Select(0)
	if a.Scores != nil {
		t.Error("the scores of run 2 are shown with run 1")
	}
	header, record := demoRow(t)
	record[0] = "old"
	bad := strings.Join(header, ",") + "\n" + strings.Join(record, ",") + "\n"
	h.choose(scoreSource, "bad.csv", bad)
	a.ScoreFile(nil)
	h.settle(a)
	if a.Scores != nil || !strings.Contains(a.ScoreErr, `line 2, column "age"`) ||
		!strings.Contains(render(t, &Root{Widget: curves.New(), App: a}), `id="score-status" role="status" class="error"`) {
		t.Errorf("a bad row: %q", a.ScoreErr)
	}
}

// A loaded release file's models predict in the page without data or a fit: its own section
// shows the form of its schema's columns, the model chosen by its number predicts the typed
// row as the page that fitted it did, and a CSV file is scored with it. On a page with
// results, the loaded file's models take the one panel until the next fit's.
func TestUseReceivedRelease(t *testing.T) {
	t.Parallel()
	a, h := demoApp(t, 1)
	a.SetRuns("2")
	h.settle(a)
	f, text := run(t, a, h)
	header, record := demoRow(t)
	typeRow := func(x *App) {
		for i, c := range f.Schema.Columns {
			if k := slices.Index(header, c.Name); k >= 0 && (c.Kind == data.Numeric || c.Kind == data.Categorical) {
				x.SetRowValue(i, record[k])
			}
		}
	}
	typeRow(a)
	if a.Row == nil {
		t.Fatalf("the fitting page predicts nothing: %q", a.RowErr)
	}

	h2 := newTestHost(t, 1)
	b := NewApp(h2)
	b.Start()
	h2.choose(settingsSource, "privopt-release.json", text)
	b.LoadSettings(nil)
	h2.settle(b)
	if !b.UsesReceived() || b.UsesRuns() || b.Loaded != nil || b.HasResults() || b.UseModel != 1 {
		t.Fatalf("the loaded file's models are not in the panel: %q", b.SettingsErr)
	}
	page := render(t, &Root{Widget: curves.New(), App: b})
	for _, want := range []string{`id="received"`, "Models of privopt-release.json", "holds 2 models and no data", html.EscapeString(f.Together),
		`id="use-model-number"`, `<option selected="selected" value="1">model 1</option>`, `id="use-0"`, "age, from 17 to 90",
		"what model 1 of privopt-release.json predicts", `id="score-file"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the loaded file's section lacks %s", want)
		}
	}
	typeRow(b)
	if b.Row == nil || b.RowResult() != a.RowResult() || !slices.Equal(b.Row.Probabilities, a.Row.Probabilities) {
		t.Errorf("the loaded file predicts %q (%q), the fitting page %q", b.RowResult(), b.RowErr, a.RowResult())
	}
	// Model 2, chosen by its number, predicts the row and scores a file.
	b.ChooseModel(2)
	test, _, err := data.Encode(demo.Test(), f.Schema)
	if err != nil {
		t.Fatal(err)
	}
	p, err := f.Predictor(2)
	if err != nil {
		t.Fatal(err)
	}
	if want := p.Predict(test.Row(0, nil)); b.UseModel != 2 || b.Row == nil || b.Row.Label != want.Label || !slices.Equal(b.Row.Probabilities, want.Probabilities) {
		t.Errorf("model 2 predicts %+v, want %+v", b.Row, want)
	}
	testCSV, err := io.ReadAll(demo.Test())
	if err != nil {
		t.Fatal(err)
	}
	h2.choose(scoreSource, "adult-test.csv", string(testCSV))
	b.ScoreFile(nil)
	h2.settle(b)
	var want bytes.Buffer
	if _, err := f.WriteCSV(2, bytes.NewReader(testCSV), &want); err != nil {
		t.Fatal(err)
	}
	if b.Scores == nil || b.Scores.CSV != want.String() {
		t.Errorf("scores %+v (%q), want model 2's", b.Scores, b.ScoreErr)
	}
	b.ChooseModel(3) // no such model
	if b.UseModel != 2 || b.Scores == nil {
		t.Error("a model the file does not hold was chosen")
	}
	// The settings are restored as before.
	got, _ := json.Marshal(b.spec())
	if wantSpec, _ := json.Marshal(a.runSpec); !bytes.Equal(got, wantSpec) || b.Runs.Text != "2" {
		t.Errorf("settings %s, want %s", got, wantSpec)
	}

	// On the page with results, the loaded file's models take the panel, shown once.
	h.choose(settingsSource, "received.json", text)
	a.LoadSettings(nil)
	h.settle(a)
	page = render(t, &Root{Widget: curves.New(), App: a})
	if !a.UsesReceived() || !a.HasResults() || strings.Count(page, `id="use-result"`) != 1 || !strings.Contains(page, "Models of received.json") {
		t.Errorf("a file loaded over results: received %v, %d panels", a.UsesReceived(), strings.Count(page, `id="use-result"`))
	}
	// The next fit's models take it back.
	a.Run()
	h.settle(a)
	page = render(t, &Root{Widget: curves.New(), App: a})
	if !a.UsesRuns() || strings.Count(page, `id="use-result"`) != 1 || strings.Contains(page, `id="received"`) {
		t.Errorf("after a fit: runs %v, %d panels (%q %v)", a.UsesRuns(), strings.Count(page, `id="use-result"`), a.RunErr, a.RunErrors())
	}
}

// TestUseModelDecimalComma: for a file whose numbers have a decimal comma, the typed row starts
// with commas (six digits, not the float's every digit), and a point typed by the person is
// read as the file's mark.
func TestUseModelDecimalComma(t *testing.T) {
	s, err := data.LoadSchema(strings.NewReader(`{"privopt_schema": 1, "decimal": ",", "norm": {"p": 2, "radius": 1, "fit": "clip"},
	  "columns": [{"name": "height", "kind": "numeric", "min": 1.51, "max": 1.84},
	    {"name": "sick", "kind": "binary-label", "positive": ["yes"], "negative": ["no"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	var a App
	a.useRelease(&release.File{Schema: s}, 0, "")
	if a.RowText[0] != "1,675" {
		t.Errorf("pre-filled %q, want 1,675", a.RowText[0])
	}
	a.RowText[0] = "1.6"
	if got := a.rowCSV(); got != "\"height\"\n\"1,6\"\n" {
		t.Errorf("typed row %q", got)
	}
}
