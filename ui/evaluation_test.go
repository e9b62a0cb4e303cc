package ui

import (
	"html"
	"slices"
	"strings"
	"testing"

	"github.com/privopt/privopt/internal/curves"
	"github.com/privopt/privopt/pkg/core/mech"
)

// A share of the budget spent on a private evaluation: offered for the demo (off by default),
// it reaches the spec, the plans and the link; each run's result holds its evaluation, which
// the downloaded release file holds too (release.Read accepts it, File.Guarantee composes it);
// the results show it beside the local figure, each labelled; and loading the release file
// restores the share.
func TestPrivateEvaluation(t *testing.T) {
	t.Parallel()
	a, h := demoApp(t, 1)
	if page := render(t, &Root{Widget: curves.New(), App: a}); !strings.Contains(page, `id="eval-share"`) || a.EvalShare.Text != "0" ||
		a.spec().EvalShare != 0 || strings.Contains(a.Query(), "eval=") {
		t.Fatalf("the demo's evaluation control: %+v, link %s", a.EvalShare, a.Query())
	}
	a.SetMechanism("noisy-gd")
	a.SetOption("MaxSteps", "50")
	a.SetRuns("2")
	a.SetEvalShare("10")
	h.settle(a)
	if a.spec().EvalShare != 0.1 || !strings.Contains(a.ComposedText(), "all 2 models and their private evaluations") || !strings.Contains(a.EvalText(), "exact composition") {
		t.Errorf("share 10 %%: spec %v, composed %q", a.spec().EvalShare, a.ComposedText())
	}
	f, text := run(t, a, h)
	for k, r := range a.DoneRuns() {
		ev, m := r.Result.Private, f.Models[k]
		if ev == nil || ev.Accuracy == nil || m.Evaluation == nil || !slices.Equal(m.Evaluation.Sums, ev.Sums) || m.HeldOut == nil || *m.HeldOut != (mech.HeldOut{Rows: 1000}) {
			t.Fatalf("run %d: evaluation %+v, in the release %+v (held out %+v)", k+1, ev, m.Evaluation, m.HeldOut)
		}
	}
	if _, err := f.Guarantee(); err != nil || f.Settings.EvalShare != 0.1 || !strings.Contains(f.Together, "all 2 models and their private evaluations") {
		t.Errorf("the release's guarantee: %v, %q", err, f.Together)
	}
	if strings.Contains(text, `"test"`) || strings.Contains(text, `"diagnostics"`) {
		t.Error("the release holds local figures")
	}
	page := render(t, &Root{Widget: curves.New(), App: a})
	ev := a.DoneRuns()[1].Result.Private
	for _, want := range []string{`id="private-evaluation"`, "Local held-out accuracy: exact, for you only", "Private held-out accuracy: part of the release",
		"not private", "The local figure is exact", "The private figure was released with noise, spending 10 % of each run&#39;s budget",
		html.EscapeString(f.Together), "run 2", percent(*a.DoneRuns()[1].Result.Test.Accuracy),
		percent(ev.Accuracy.Value) + " (95 % interval for the noise: " + percent(ev.Accuracy.Low) + " to " + percent(ev.Accuracy.High) + ")",
		"Private evaluation (part of the release)"} {
		if !strings.Contains(page, want) {
			t.Errorf("the results lack %s", want)
		}
	}
	// The link holds the share, and gives it back.
	q := a.Query()
	b := NewApp(newTestHost(t, 1))
	b.ApplyQuery(parseLink(q))
	if !strings.Contains(q, "eval=10") || b.Query() != q || b.spec().EvalShare != 0.1 {
		t.Errorf("the link %s gives %s, share %v", q, b.Query(), b.spec().EvalShare)
	}
	// The release file restores it.
	h2 := newTestHost(t, 1)
	c := NewApp(h2)
	c.Start()
	h2.choose(settingsSource, "privopt-release.json", text)
	c.LoadSettings(nil)
	h2.settle(c)
	if c.SettingsErr != "" || c.EvalShare.Text != "10" || c.spec().EvalShare != 0.1 {
		t.Errorf("from the release file: %q, share %+v", c.SettingsErr, c.EvalShare)
	}
}

// The control is offered when there are held-out rows only; its value is checked; without it
// the spec spends nothing on an evaluation.
func TestEvalShareOffered(t *testing.T) {
	t.Parallel()
	a, _ := fileApp(t) // no held-out rows
	a.SetEvalShare("10")
	if a.EvalOffered() || a.spec().EvalShare != 0 || strings.Contains(a.Query(), "eval=") ||
		strings.Contains(render(t, &Root{Widget: curves.New(), App: a}), `id="eval-share"`) || len(a.budgetErrors()) > 0 {
		t.Errorf("no held-out rows: offered %v, spec %v, link %s", a.EvalOffered(), a.spec().EvalShare, a.Query())
	}
	a.SetHoldout("20")
	if !a.EvalOffered() || a.spec().EvalShare != 0.1 || !strings.Contains(a.Query(), "eval=10") {
		t.Errorf("20 %% held out: offered %v, spec %v", a.EvalOffered(), a.spec().EvalShare)
	}
	for _, bad := range []string{"100", "-1", "ten", ""} {
		a.SetEvalShare(bad)
		if a.EvalShare.Err == "" || a.EvalShare.Value != 10 || !slices.Contains(a.budgetErrors(), "the private evaluation's share") ||
			!strings.Contains(render(t, &Root{Widget: curves.New(), App: a}), `id="eval-share-error"`) {
			t.Errorf("%q: %+v", bad, a.EvalShare)
		}
	}
}

// A regression's private evaluation releases its mean absolute error and R², shown beside the
// local held-out mean loss.
func TestPrivateEvaluationRegression(t *testing.T) {
	t.Parallel()
	var csv strings.Builder
	csv.WriteString("x,z,y\n")
	for i := range 40 {
		csv.WriteString(itoa(i%7) + "," + itoa(i%2) + "," + itoa(i%7/2+i%2) + "\n")
	}
	h := newTestHost(t, 1)
	h.choose(dataSource, "numeric.csv", csv.String())
	a := NewApp(h)
	a.Start()
	a.OpenFile(nil)
	h.settle(a)
	confirmAll(a)
	a.SetHoldout("25")
	a.CheckData()
	h.settle(a)
	a.SetDomain("box")
	a.SetMechanism("rem") // its fast mode: quick, and claiming no privacy
	a.SetOption("Sampler", "mala")
	a.SetOption("FastSteps", "20")
	a.SetEvalShare("30")
	h.settle(a)
	f, _ := run(t, a, h)
	ev := a.Result().Private
	// The held-out facts state the label's range as the mechanisms see it: [−1, 1], where the
	// schema as used maps the label.
	if ev == nil || ev.MAE == nil || ev.Accuracy != nil || f.Models[0].Evaluation == nil || f.Models[0].HeldOut.Rows != 10 || f.Models[0].HeldOut.Max != 1 ||
		f.Schema.Columns[2].Range == nil {
		t.Fatalf("evaluation %+v, held out %+v", ev, f.Models[0].HeldOut)
	}
	page := render(t, &Root{Widget: curves.New(), App: a})
	for _, want := range []string{"Local held-out mean loss: exact, for you only", "Private held-out error: part of the release",
		"mean absolute error " + shortText(ev.MAE.Value) + " (95 % interval for the noise: ", "R² "} {
		if !strings.Contains(page, want) {
			t.Errorf("the results lack %s", want)
		}
	}
	// An R² of at most 0 says the model does no better than the mean label.
	r2 := ev.R2
	defer func() { ev.R2 = r2 }()
	for _, v := range []float64{0.01, 0, -0.5} {
		ev.R2 = &mech.Estimate{Value: v, Low: v - 0.1, High: v + 0.1}
		said := strings.Contains(a.EvaluationRows()[0].Private, "no better than predicting the mean label")
		if said != (v <= 0) {
			t.Errorf("R² %v: said no better %t", v, said)
		}
	}
}
