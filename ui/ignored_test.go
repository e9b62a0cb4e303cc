package ui

import (
	"fmt"
	"github.com/privopt/privopt/internal/curves"
	"strings"
	"testing"
)

// ignoredCSV has an identifier, a free-text column, a constant and a numeric feature.
func ignoredCSV() string {
	var b strings.Builder
	b.WriteString("patient,comment,site,dose,y\n")
	for i := range 60 {
		fmt.Fprintf(&b, "P%03d,felt %d times better,3,%d,%s\n", i, i, i%5, []string{"no", "yes"}[i%2])
	}
	return b.String()
}

// No column is left out in silence: the columns the suggestion ignores are listed with the
// reason, and the data is not used until the person has chosen for each.
func TestIgnoredColumnsAreAsked(t *testing.T) {
	h := newTestHost(t, 1)
	h.choose(dataSource, "patients.csv", ignoredCSV())
	a := NewApp(h)
	a.Start()
	a.OpenFile(nil)
	h.settle(a)
	var asked []string
	for _, g := range a.IgnoreAsk {
		asked = append(asked, g.Column+" "+string(g.Instead))
	}
	if strings.Join(asked, ", ") != "patient categorical, comment categorical, site numeric" {
		t.Fatalf("asked about %q", asked)
	}
	html := render(t, &Root{Widget: curves.New(), App: a})
	for _, want := range []string{`id="ignored"`, "patient: it has more than 50 distinct texts in the rows read, like an identifier or free text.",
		"site: every value in the rows read is the same number: it carries no information.", `id="leave-out-2"`, `id="use-column-2"`,
		"Use it as a number (type its public range)", "Choose what to do with the 3 columns"} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	confirmAll(a)
	a.CheckData()
	if a.Checking || a.Dataset != nil {
		t.Fatal("the data was used before the person chose what to do with the ignored columns")
	}
	// Leaving a column out, or choosing its kind in the editor, answers for it.
	a.Decide("patient", "ignore")
	a.SetKind(1, "ignore")
	if len(a.IgnoreAsk) != 1 || a.IgnoreAsk[0].Column != "site" || len(a.DataBlockers()) != 1 {
		t.Fatalf("asked %+v, blockers %q", a.IgnoreAsk, a.DataBlockers())
	}
	// Using a column needs its public bounds: the editor opens, and the schema is incomplete
	// until they are typed.
	a.ShowSchema = false
	a.Decide("site", "numeric")
	if len(a.IgnoreAsk) != 0 || !a.ShowSchema || a.Schema.Columns[2].Kind != "numeric" || a.Cols[2].Err == "" {
		t.Fatalf("site used as a number: asked %+v, %+v, error %q", a.IgnoreAsk, a.Schema.Columns[2], a.Cols[2].Err)
	}
	a.SetMin(2, "0")
	a.SetMax(2, "10")
	if b := a.DataBlockers(); len(b) != 0 {
		t.Fatalf("blockers %q", b)
	}
	a.CheckData()
	h.settle(a)
	if a.Dataset == nil || a.Dataset.Facts.D != 3 { // site, dose and the bias
		t.Fatalf("dataset %+v, %q", a.Dataset, a.DataErr)
	}
}
