package ui

import (
	"slices"
	"strings"
	"testing"

	"github.com/privopt/privopt/internal/curves"
	"github.com/privopt/privopt/internal/fit"
	"github.com/privopt/privopt/internal/release"
	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/mech"
)

// With the default settings the demo's runs share one set of private ranges: worker 1
// estimates them before any run starts, the results state each column's ranges in its units
// and their cost, and the release file holds them once, with the schema as used.
func TestPrivateRanges(t *testing.T) {
	t.Parallel()
	a, h := demoApp(t, 2)
	if a.ScaleShare.Text != "20" || a.spec().ScaleShare != fit.DefaultScaleShare || !a.ScaleOffered() || a.ScaleNote() != "" {
		t.Fatalf("the default share of the private ranges: %+v", a.ScaleShare)
	}
	if html := render(t, &Root{Widget: curves.New(), App: a}); !strings.Contains(html, `id="scale-share"`) || !strings.Contains(html, "privopt estimates") {
		t.Error("the privacy step has no private ranges field")
	}
	a.SetMechanism("noisy-gd") // certified, so that the release claims privacy
	a.SetOption("MaxSteps", "50")
	a.SetRuns("2")
	h.settle(a)
	if !strings.Contains(a.ComposedText(), "with the private ranges they share") {
		t.Errorf("composed: %q", a.ComposedText())
	}
	sent := len(h.sent)
	a.Run()
	var kinds []string
	for _, s := range h.sent[sent:] {
		kinds = append(kinds, s.resp.Kind+"@"+itoa(s.w))
	}
	if strings.Join(kinds, " ") != "dataset@1 scale@1" || !strings.HasPrefix(a.RunSummary(), "Private ranges, estimated once for every run; then 0 of 2 runs") {
		t.Errorf("before the runs: sent %v, summary %q", kinds, a.RunSummary())
	}
	h.settle(a)
	a.Download()
	f, err := release.Read(strings.NewReader(h.downloads["privopt-release.json"]))
	if err != nil {
		t.Fatalf("the download: %v (%q %v)", err, a.RunErr, a.RunErrors())
	}
	if f.Ranges == nil || len(f.Ranges.Intervals) != 5 || !f.Ranges.Report.Private || f.Schema.Columns[0].Range == nil || len(f.Models) != 2 ||
		!strings.Contains(f.Together, "with the private ranges of the 5 scaled columns") {
		t.Fatalf("the release: ranges %+v, together %q", f.Ranges, f.Together)
	}
	age := f.Schema.Columns[0]
	if want := "age from [17, 90] to " + interval(age.Unscale(age.Range.Lo), age.Unscale(age.Range.Hi)) + "; education-num from [1, 16] to ["; !strings.Contains(a.RangesText(), want) {
		t.Errorf("the ranges text %q lacks %q", a.RangesText(), want)
	}
	page := render(t, &Root{Widget: curves.New(), App: a})
	for _, want := range []string{`id="ranges-text"`, "They cost 20 % of the budget", "counts them once", "capital-gain from [0, 99999] to ["} {
		if !strings.Contains(page, want) {
			t.Errorf("the results lack %s", want)
		}
	}
	// A page that takes the release file's settings gets its share and its declared schema,
	// without the ranges, which a fit with them estimates anew.
	h2 := newTestHost(t, 1)
	b := NewApp(h2)
	h2.choose(settingsSource, "privopt-release.json", h.downloads["privopt-release.json"])
	b.LoadSettings(nil)
	h2.settle(b)
	if b.ScaleShare.Text != "20" || b.pendingSchema == nil || len(b.pendingSchema.PrivatelyScaled()) != 5 || f.Schema.Columns[0].Range == nil {
		t.Errorf("settings from the release: share %+v, schema %+v", b.ScaleShare, b.pendingSchema)
	}
}

// Cancelling while the runs wait for their private ranges ends them at once: no run starts,
// and the ranges, when they arrive, are ignored.
func TestCancelBeforeTheRanges(t *testing.T) {
	t.Parallel()
	a, h := demoApp(t, 1)
	sent := len(h.sent)
	a.Run()
	a.Cancel()
	if a.Running || a.RunList[0].State != "cancelled" || a.HasResults() {
		t.Fatalf("after cancel: running %v, %s", a.Running, a.RunSummary())
	}
	h.settle(a)
	for _, s := range h.sent[sent:] {
		if s.resp.Kind == "run" {
			t.Error("a run started after the cancel")
		}
	}
	a.Run()
	h.settle(a)
	if !a.HasResults() || a.rel == nil || a.rel.Ranges == nil {
		t.Errorf("the next runs: %q %v, release %q", a.RunErr, a.RunErrors(), a.relErr)
	}
}

// The private ranges' share is offered when the schema leaves a numeric column to scale under
// the norm's fit "scale": with "clip" it is not, and the spec spends nothing on them. A
// numeric label's squared loss starts on its default domain, the ball, until a domain is
// chosen; and its release maps the label through the schema as used.
func TestScaleOfferedAndDefaultDomain(t *testing.T) {
	t.Parallel()
	a, h := demoApp(t, 1)
	a.SetNormFit(string(data.FitClip))
	if a.ScaleOffered() || a.spec().ScaleShare != 0 || strings.Contains(render(t, &Root{Widget: curves.New(), App: a}), `id="scale-share"`) {
		t.Errorf("under clip: offered %v, share %g", a.ScaleOffered(), a.spec().ScaleShare)
	}
	a.SetScaleShare("100")
	if a.ScaleShare.Err == "" || slices.Contains(a.budgetErrors(), "the private ranges' share") {
		t.Errorf("an invalid share while not offered: %+v, %v", a.ScaleShare, a.budgetErrors())
	}

	h = newTestHost(t, 1)
	h.choose(dataSource, "numeric.csv", "x,z,y\n1,0,0.5\n2,1,1.5\n3,0,2\n4,1,3\n5,0,1\n6,1,2.5\n")
	a = NewApp(h)
	a.OpenFile(nil)
	h.settle(a)
	confirmAll(a)
	a.SetHoldout("0")
	a.CheckData()
	h.settle(a)
	if a.Loss != "squared" || a.Domain != fit.Ball {
		t.Errorf("a numeric label: loss %q on %q, want squared on %q", a.Loss, a.Domain, fit.Ball)
	}
	if note := a.ScaleNote(); !strings.Contains(note, "too few rows") || !strings.Contains(render(t, &Root{Widget: curves.New(), App: a}), `id="scale-note"`) {
		t.Errorf("six rows: the note %q", note)
	}
	a.SetMechanism("rem") // its fast mode: quick, and claiming no privacy
	a.SetOption("Sampler", "mala")
	a.SetOption("FastSteps", "20")
	h.settle(a)
	f, _ := run(t, a, h)
	if f.Ranges != nil || f.Schema.Columns[2].Range == nil || f.Label.Unit == 0 {
		t.Errorf("six rows, too few for private ranges: ranges %+v, label %+v", f.Ranges, f.Label)
	}
	a.SetDomain(fit.Whole)
	a.SetLoss("huber")
	a.SetLoss("squared")
	if a.Domain != fit.Whole {
		t.Errorf("a chosen domain was replaced by the loss's default: %q", a.Domain)
	}
}

// TestRangesSuggestTransforms checks that the ranges' text passes on the transform a range
// suggests (data.RangeSuggestion) and says nothing of the others.
func TestRangesSuggestTransforms(t *testing.T) {
	t.Parallel()
	col := func(name string, hi float64) data.Column {
		return data.Column{Name: name, Kind: data.Numeric, Min: 0, Max: 100000, Range: &data.Range{Lo: 0, Hi: hi}}
	}
	a := &App{releaseState: releaseState{rel: &release.File{Ranges: &mech.Ranges{}, Schema: &data.Schema{Columns: []data.Column{col("gain", 0.001), col("wide", 0.5)}}}}}
	text := a.RangesText()
	if want := data.RangeSuggestion(col("gain", 0.001), data.Range{Lo: 0, Hi: 0.001}); want == "" || !strings.Contains(text, want) {
		t.Errorf("the ranges text %q lacks the suggestion %q", text, want)
	}
	if !strings.HasSuffix(text, "In step 1's schema, each numeric column has both settings: “read on a log scale” and “keep the declared range”.") {
		t.Errorf("the ranges text %q does not say where to change the schema", text)
	}
	if data.RangeSuggestion(col("wide", 0.5), data.Range{Lo: 0, Hi: 0.5}) != "" || strings.Count(text, "log1p") != 1 {
		t.Errorf("the ranges text %q suggests more than one transform", text)
	}
}

// TestLogScaleAndDeclaredRange: the schema editor sets a numeric column's log1p transform and
// its declared scale (what a private range's suggestion names), each a change of the schema that
// the data must be checked again for; log1p on a column whose minimum is not above −1 is refused
// next to the column.
func TestLogScaleAndDeclaredRange(t *testing.T) {
	t.Parallel()
	a, h := checkedDemo(t, 1)
	i := slices.IndexFunc(a.Schema.Columns, func(c data.Column) bool { return c.Name == "capital-gain" })
	if i < 0 {
		t.Fatal("the demo has no column capital-gain")
	}
	a.ShowSchema = true
	html := render(t, &Root{Widget: curves.New(), App: a})
	for _, want := range []string{`id="log1p-` + itoa(i) + `"`, `id="declared-scale-` + itoa(i) + `"`, "read on a log scale, log(1 + v)", "keep the declared range (no private range)"} {
		if !strings.Contains(html, want) {
			t.Errorf("the schema editor lacks %s", want)
		}
	}
	a.SetLog1p(i, true)
	a.SetDeclaredScale(i, true)
	if c := a.Schema.Columns[i]; c.Transform != data.Log1p || c.Scale != data.ScaleDeclared || a.Dataset != nil || a.Cols[i].Err != "" {
		t.Fatalf("log1p and the declared scale: %+v, dataset %v, error %q", c, a.Dataset, a.Cols[i].Err)
	}
	a.CheckData()
	h.settle(a)
	if a.Dataset == nil || a.DataErr != "" {
		t.Fatalf("the data with log1p: %q", a.DataErr)
	}
	a.SetDeclaredScale(i, false)
	a.SetMin(i, "-1")
	if a.Schema.Columns[i].Scale != data.ScalePrivate || a.Cols[i].Err == "" {
		t.Errorf("log1p with a minimum of −1: %+v, error %q", a.Schema.Columns[i], a.Cols[i].Err)
	}
	a.SetLog1p(i, false)
	if a.Schema.Columns[i].Transform != data.NoTransform || a.Cols[i].Err != "" {
		t.Errorf("without log1p: %+v, error %q", a.Schema.Columns[i], a.Cols[i].Err)
	}
}
