package ui

import (
	"strings"
	"testing"

	"github.com/privopt/privopt/internal/curves"
	"github.com/privopt/privopt/pkg/core/privacy"
	"github.com/privopt/privopt/wasm/engine"
)

// The public number of rows N is a whole number from 1 to 10¹⁵, or empty (none declared on
// the page); an invalid text shows its error and keeps the last valid value.
func TestPublicNField(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text  string
		value float64 // after "7" was valid
		bad   bool
	}{
		{"", 0, false},
		{"   ", 0, false},
		{"5000", 5000, false},
		{" 12 ", 12, false},
		{"1e3", 1000, false},
		{"1", 1, false},
		{"1e15", 1e15, false},
		{"0", 7, true},
		{"-3", 7, true},
		{"2.5", 7, true},
		{"abc", 7, true},
		{"NaN", 7, true},
		{"Inf", 7, true},
		{"1e16", 7, true},
	} {
		a := NewApp(newTestHost(t, 1))
		a.SetNeighbouring(string(privacy.AddRemove))
		a.SetPublicN("7")
		a.SetPublicN(tc.text)
		if (a.PublicN.Err != "") != tc.bad || a.PublicN.Value != tc.value || a.PublicN.Text != tc.text {
			t.Errorf("%q: %+v; want value %v, invalid %v", tc.text, a.PublicN, tc.value, tc.bad)
		}
		html := render(t, &Root{Widget: curves.New(), App: a})
		if strings.Contains(html, `id="public-n-error"`) != tc.bad {
			t.Errorf("%q: the error shown: %v", tc.text, !tc.bad)
		}
		blocked := strings.Contains(strings.Join(a.budgetErrors(), ", "), "the public number of rows N")
		if blocked != tc.bad {
			t.Errorf("%q: listed among the invalid fields: %v", tc.text, blocked)
		}
	}
	// The field shows under add/remove only, and an invalid N blocks nothing under replace-one.
	a := NewApp(newTestHost(t, 1))
	if html := render(t, &Root{Widget: curves.New(), App: a}); strings.Contains(html, `id="public-n"`) ||
		!strings.Contains(html, "add or remove one row (the number of rows stays private: declare a public N)") {
		t.Error("replace-one: the N field is shown, or the add/remove option is misworded")
	}
	a.SetNeighbouring(string(privacy.AddRemove))
	html := render(t, &Root{Widget: curves.New(), App: a})
	for _, want := range []string{`<label for="public-n">Public number of rows N</label>`, `id="public-n-help"`, "never silently dropped"} {
		if !strings.Contains(html, want) {
			t.Errorf("add/remove: the page lacks %s", want)
		}
	}
	a.SetPublicN("0")
	a.SetNeighbouring(string(privacy.ReplaceOne))
	if bad := a.budgetErrors(); len(bad) != 0 {
		t.Errorf("replace-one with an invalid N: %q", bad)
	}
}

// The spec carries N under add/remove only; an empty field leaves it to the schema (0).
func TestPublicNSpec(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		relation privacy.Neighbouring
		text     string
		want     int
	}{
		{privacy.ReplaceOne, "5000", 0},
		{privacy.AddRemove, "5000", 5000},
		{privacy.AddRemove, "", 0},
		{privacy.AddRemove, "-1", 0}, // never valid: the default, none
	} {
		a := NewApp(newTestHost(t, 1))
		a.SetNeighbouring(string(tc.relation))
		a.SetPublicN(tc.text)
		if s := a.spec(); s.PublicN != tc.want || s.Budget.Neighbouring != tc.relation {
			t.Errorf("%s, %q: spec N %d, relation %s; want %d", tc.relation, tc.text, s.PublicN, s.Budget.Neighbouring, tc.want)
		}
	}
}

// Under add/remove the demo (4000 training rows) is not planned without N, nor with N below
// its rows: the page says why in words and refuses to run. With a large enough N it runs, and
// the statements name the relation and N, never the observed number of rows.
func TestAddRemoveNeedsPublicN(t *testing.T) {
	t.Parallel()
	a, h := demoApp(t, 1)
	a.SetMechanism("outpert-gauss") // fast, and private
	a.SetEps("2")                   // a plan request in flight: its answer must not be shown once N is missing
	a.SetNeighbouring(string(privacy.AddRemove))
	h.settle(a)
	for _, tc := range []struct {
		text, want string
	}{
		{"", "every average is taken over a declared public number of rows N instead: enter N"},
		{"100", "The data has 4000 training rows, more than the public number of rows N = 100: enter a larger N (at least 4000). Rows are never dropped to fit N."},
		{"3999", "more than the public number of rows N = 3999"},
	} {
		a.SetPublicN(tc.text)
		h.settle(a)
		if got := a.PublicNProblem(); !strings.Contains(got, tc.want) {
			t.Errorf("N %q: problem %q, want %q", tc.text, got, tc.want)
		}
		if a.Plans != nil || a.PlanErr != "" || a.PlanID() != 0 || a.Planning() {
			t.Errorf("N %q: planned: %+v, %q, plan %d", tc.text, a.Plans, a.PlanErr, a.PlanID())
		}
		if b := a.RunBlockers(); len(b) != 1 || b[0] != a.PublicNProblem() {
			t.Errorf("N %q: blockers %q", tc.text, b)
		}
		html := render(t, &Root{Widget: curves.New(), App: a})
		for _, want := range []string{`id="public-n-problem"`, "not planned: see the message above"} {
			if !strings.Contains(html, want) {
				t.Errorf("N %q: the page lacks %s", tc.text, want)
			}
		}
		a.Run()
		if a.Running || a.RunErr != a.PublicNProblem() {
			t.Errorf("N %q: run started (%v) or refused with %q", tc.text, a.Running, a.RunErr)
		}
	}
	a.SetPublicN("5000")
	h.settle(a)
	if a.PublicNProblem() != "" || a.Plans == nil || a.ChosenPlan() == nil || a.ChosenPlan().Error != "" {
		t.Fatalf("N = 5000: problem %q, plans %+v", a.PublicNProblem(), a.Plans)
	}
	if strings.Contains(render(t, &Root{Widget: curves.New(), App: a}), `id="public-n-problem"`) {
		t.Error("N = 5000: a problem is shown")
	}
	a.Run()
	h.settle(a)
	if !a.HasResults() {
		t.Fatalf("N = 5000: no result: %q %v", a.RunErr, a.RunErrors())
	}
	statement := a.ReleasedText()
	if want := "differentially private under the add-remove relation with the declared public number of rows N = 5000"; !strings.Contains(statement, want) ||
		strings.Contains(statement, "4000") {
		t.Errorf("statement %q, want %q and no observed number of rows", statement, want)
	}
	for _, r := range a.ReportRows() {
		if r.Name == "Neighbouring relation" && r.Value != "add-remove (declared public number of rows N = 5000)" {
			t.Errorf("report row %q", r.Value)
		}
	}
	if a.runSpec.PublicN != 5000 {
		t.Errorf("the runs' spec has N = %d", a.runSpec.PublicN)
	}
	// Under replace-one the statement names the relation alone.
	a.SetNeighbouring(string(privacy.ReplaceOne))
	h.settle(a)
	a.Run()
	h.settle(a)
	if got := a.ReleasedText(); !strings.Contains(got, "-differentially private under the replace-one relation (") {
		t.Errorf("replace-one statement %q", got)
	}
}

// A schema's "public_rows" fills the N field while the person has typed none; it reaches the
// engine's facts, and it is read from a file, so the link does not hold it.
func TestPublicNFromSchema(t *testing.T) {
	t.Parallel()
	h := newTestHost(t, 1)
	h.choose(dataSource, "people.csv", fileCSV)
	a := NewApp(h)
	a.OpenFile(nil)
	h.settle(a)
	confirmAll(a)
	a.SetHoldout("0") // every row trains: under add/remove the held-out rows depend on a random key
	a.SetNeighbouring(string(privacy.AddRemove))
	// loadSchema delivers the file's confirmed schema, declaring public_rows = rows (0: none),
	// as the engine's answer to "load", and checks the data.
	loadSchema := func(rows int) {
		t.Helper()
		s := *a.Schema
		s.PublicRows = rows
		js, err := s.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		a.receiveLoad(engine.Response{Kind: "loaded", Loaded: &engine.Loaded{Source: "file", Name: "people.csv", Schema: js}})
		h.settle(a)
		if a.Dataset == nil || a.Dataset.Facts.PublicN != rows {
			t.Fatalf("public_rows %d: dataset %+v, %q", rows, a.Dataset, a.DataErr)
		}
	}
	for _, tc := range []struct {
		typed        *string // the text typed before the schema loads, if any
		rows         int
		text         string
		inLink       bool
		placeholder  string
		problem, run bool
	}{
		{nil, 10, "10", false, "10 (the schema's)", false, true},
		{nil, 20, "20", false, "20 (the schema's)", false, true}, // the page's own value follows the schema
		{nil, 0, "", false, "", true, false},                     // and goes with it
		{ptr("7"), 10, "7", true, "10 (the schema's)", false, true},
		{ptr(""), 10, "10", false, "10 (the schema's)", false, true},
		{ptr("2"), 10, "2", true, "10 (the schema's)", true, false}, // 4 training rows > 2
	} {
		if tc.typed != nil {
			a.SetPublicN(*tc.typed)
		}
		loadSchema(tc.rows)
		if a.PublicN.Text != tc.text || a.PublicN.Err != "" || a.PublicNPlaceholder() != tc.placeholder {
			t.Errorf("%+v: field %+v, placeholder %q", tc, a.PublicN, a.PublicNPlaceholder())
		}
		if got := strings.Contains(a.Query(), "pn="); got != tc.inLink {
			t.Errorf("%+v: the link %s holds N: %v", tc, a.Query(), got)
		}
		if (a.PublicNProblem() != "") != tc.problem || (a.Plans != nil) != tc.run {
			t.Errorf("%+v: problem %q, plans %v", tc, a.PublicNProblem(), a.Plans != nil)
		}
	}
	// Emptied by the person, the field leaves N to the schema: the spec declares none.
	loadSchema(10)
	a.SetPublicN("")
	h.settle(a)
	if a.spec().PublicN != 0 || a.PublicNProblem() != "" || a.Plans == nil {
		t.Errorf("an emptied field over the schema's N: spec N %d, problem %q", a.spec().PublicN, a.PublicNProblem())
	}
}

func ptr(s string) *string { return &s }
