package ui

import (
	"bytes"
	"net/url"
	"strings"
	"testing"

	"github.com/vugu/vugu"
	"github.com/vugu/vugu/staticrender"

	"github.com/privopt/privopt/internal/curves"
)

// render returns the static HTML of a component.
func render(t *testing.T, c vugu.Builder) string {
	t.Helper()
	var buf bytes.Buffer
	r := staticrender.New(&buf)
	env, err := vugu.NewBuildEnv(r.EventEnv())
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Render(env.RunBuild(c)); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// The widget below the steps shows the shared curves.Widget: its numbers, its neutral verdict
// and its plots while its fields are valid; the errors and a note that nothing is drawn while
// one is not.
func TestCurveWidgetView(t *testing.T) {
	t.Parallel()
	w := curves.New()
	html := render(t, &CurveWidget{W: w})
	for _, want := range []string{
		`<output id="delta-at-eps">0.1269</output>`, // δ(1) of 1-GDP = 0.12693673750664395
		`<output id="eps-at-delta">4.887</output>`,  // ε(10⁻⁶) of 1-GDP
		`<output id="largest-mu">` + w.LargestMuText() + `</output>`,
		`<li id="verdict">1-GDP does not meet the target (ε, δ)`,
		`<p class="problem" id="curve-problem" role="status"></p>`,
		`id="curve" viewBox="0 0 300.00 180.00"`,
		`id="tradeoff" viewBox="0 0 300.00 180.00"`,
		`10⁻⁶`, // a log-scale tick of the privacy curve
		`perfect privacy 1 − α`,
		`aria-invalid="false"`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the widget lacks %s", want)
		}
	}
	if strings.Contains(html, `class="error"`) || strings.Contains(html, `class="bad"`) {
		t.Error("the widget opens with an error or a red verdict")
	}

	w.SetMu("abc")
	html = render(t, &CurveWidget{W: w})
	for _, want := range []string{`<p class="error" id="mu-error" role="alert">Enter a number.</p>`, `aria-invalid="true"`,
		`role="status">No curve is drawn while μ is invalid: correct it above.</p>`} {
		if !strings.Contains(html, want) {
			t.Errorf("an invalid μ: the widget lacks %s", want)
		}
	}
	for _, unwanted := range []string{`id="curve"`, `id="tradeoff"`, `id="delta-at-eps"`, `id="verdict"`} {
		if strings.Contains(html, unwanted) {
			t.Errorf("an invalid μ: the widget shows %s", unwanted)
		}
	}

	w.SetMu("2")
	w.UseLargestMu()
	if html := render(t, &CurveWidget{W: w}); !strings.Contains(html, `<li id="verdict">0.2367-GDP meets the target (ε, δ)`) || !strings.Contains(html, `id="curve"`) {
		t.Errorf("after Use it, μ = %s: the verdict does not say the target is met", w.Mu.Text)
	}
}

// The page is the app with the widget as its last step's neighbour; the widget and the app
// open on the same target (ε, δ). A link with embed=curve is the app too (web/boot.js sends
// such links to widget.html before the module loads).
func TestRootFromQuery(t *testing.T) {
	t.Parallel()
	for _, query := range []string{"", "embed=curve&mu=2"} {
		values, err := url.ParseQuery(query)
		if err != nil {
			t.Fatal(err)
		}
		q := map[string]string{}
		for k := range values {
			q[k] = values.Get(k)
		}
		root := NewRoot(q, newTestHost(t, 1))
		html := render(t, root)
		for _, want := range []string{`class="app"`, "<header", "<footer", `id="data"`, `id="use-demo"`, `id="privacy"`, `id="run-button"`,
			`<output id="delta-at-eps">0.1269</output>`, `id="about"`} {
			if !strings.Contains(html, want) {
				t.Errorf("%q: the page lacks %s", query, want)
			}
		}
		if root.App.Eps.Text != root.Widget.Eps.Text || root.App.Delta.Text != root.Widget.Delta.Text || root.Widget.Delta.Text != "1e-6" {
			t.Errorf("%q: the app opens on (%s, %s), the widget on (%s, %s)", query, root.App.Eps.Text, root.App.Delta.Text, root.Widget.Eps.Text, root.Widget.Delta.Text)
		}
	}
}

// The page shows the About view with the embedded benchmark: its plot
// (legend under it, the two baselines drawn differently), a row per cell that ran, and one
// line per mechanism that did not, in words.
func TestAboutView(t *testing.T) {
	t.Parallel()
	r := NewRoot(map[string]string{}, newTestHost(t, 1))
	if r.About == nil || r.About.Err != "" || len(r.About.Rows) == 0 {
		t.Fatalf("about: %+v", r.About)
	}
	html := render(t, r)
	for _, want := range []string{`id="about"`, `id="bench-plot"`, `id="bench-table"`, "<td>" + r.About.Rows[0].Mechanism + "</td>", "non-private"} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	for _, row := range r.About.Rows {
		if row.Accuracy == "" || strings.Contains(row.Certified, "not run") {
			t.Errorf("a row of a cell that did not run: %+v", row)
		}
	}
	if len(r.About.NotRun) == 0 || !strings.HasPrefix(r.About.NotRun[0], "expmech: Exact Gibbs sampling") || strings.Contains(html, "geom.Whole") {
		t.Errorf("the mechanisms not run: %q", r.About.NotRun)
	}
	if !strings.Contains(html, `class="reference-2"`) || !strings.Contains(html, `class="reference"`) {
		t.Error("the two baselines are drawn alike")
	}
}
