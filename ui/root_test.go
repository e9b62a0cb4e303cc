package ui

import (
	"bytes"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/vugu/vugu"
	"github.com/vugu/vugu/staticrender"

	"github.com/privopt/privopt/pkg/core/privacy"
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

// embed returns the page of an embed-mode query.
func embed(q map[string]string) *Root {
	q["embed"] = "curve"
	return NewRoot(q, nil)
}

func TestWidgetRendersCurvesAndResults(t *testing.T) {
	t.Parallel()
	html := render(t, embed(map[string]string{}))
	for _, want := range []string{
		`<output id="delta-at-eps">0.1269</output>`, // δ(1) of 1-GDP = 0.12693673750664395
		`<output id="eps-at-delta">4.377</output>`,  // ε(10⁻⁵) of 1-GDP: 4.3771
		`<output id="largest-mu">0.2681</output>`,   // largest μ for (1, 10⁻⁵): 0.26805
		`id="verdict" class="bad"`,
		`id="curve" viewBox="0 0 460.00 340.00"`,
		`id="tradeoff" viewBox="0 0 460.00 340.00"`,
		`10⁻⁶`, // a log-scale tick of the privacy curve
		`class="reference"`,
		`perfect privacy 1 − α`,
		`aria-invalid="false"`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("rendered page lacks %s", want)
		}
	}
	if strings.Contains(html, `class="error"`) {
		t.Error("valid fields show an error")
	}
}

func TestWidgetFieldsValidateAsYouType(t *testing.T) {
	t.Parallel()
	root := embed(map[string]string{})
	w := root.Widget
	curve := w.Curve.Paths[0].D
	w.SetMu("2")
	if w.Mu.Err != "" || w.Mu.Value != 2 || w.Curve.Paths[0].D == curve {
		t.Fatalf("SetMu(2): %+v; the curve must change", w.Mu)
	}
	if got := w.DeltaAtEps(); got != "0.5099" { // δ(1) of 2-GDP = Φ(0.5) − e·Φ(−1.5) = 0.509861
		t.Errorf("δ(1) for μ=2: got %s, want 0.5099", got)
	}
	for _, tc := range []struct {
		set   func(string)
		field *Field
		bad   []string
	}{
		{w.SetMu, &w.Mu, []string{"", "abc", "0", "-1", "NaN", "Inf", "1e9"}},
		{w.SetEps, &w.Eps, []string{"", "x", "0", "-2", "+Inf", "100"}},
		{w.SetDelta, &w.Delta, []string{"", "0", "1", "1.5", "-1e-5", "1e-320"}},
	} {
		valid := tc.field.Value
		drawn := w.Curve.Paths[0].D
		for _, text := range tc.bad {
			tc.set(text)
			if tc.field.Err == "" {
				t.Errorf("%q accepted", text)
			}
			if tc.field.Value != valid || w.Curve.Paths[0].D != drawn {
				t.Errorf("%q changed the valid state", text)
			}
			if html := render(t, root); !strings.Contains(html, `class="error"`) || !strings.Contains(html, `aria-invalid="true"`) {
				t.Errorf("%q: the error is not shown next to the field", text)
			}
		}
		tc.set(strconv.FormatFloat(valid, 'g', -1, 64))
		if tc.field.Err != "" {
			t.Errorf("restoring %g: %s", valid, tc.field.Err)
		}
	}
}

func TestWidgetUseLargestMu(t *testing.T) {
	t.Parallel()
	root := embed(map[string]string{})
	w := root.Widget
	w.UseLargestMu()
	if !w.Meets() {
		t.Fatalf("the largest μ %g does not meet the target", w.Mu.Value)
	}
	if d := (privacy.GDP{Mu: w.Mu.Value}).Delta(1); d > 1e-5 {
		t.Fatalf("δ = %g above the target", d)
	}
	if html := render(t, root); !strings.Contains(html, `id="verdict" class="ok"`) {
		t.Error("the verdict does not say the target is met")
	}
}

// ?embed=curve shows the widget alone; mu, eps and delta fill the fields as if typed. Without
// embed=curve the page is the app, with the widget as its last section.
func TestRootFromQuery(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		query   string
		embed   bool
		present []string
		absent  []string
	}{
		{"", false, []string{`class="app"`, "<header", "<footer", `class="explain"`, `id="data"`, `id="use-demo"`, `id="privacy"`, `id="run-button"`,
			`<output id="delta-at-eps">0.1269</output>`}, []string{"embed", `id="results"`}},
		{"embed=curve&mu=1", true,
			[]string{`class="app embed"`, `id="curve"`, `id="tradeoff"`, `id="mu"`, `id="eps"`, `id="delta"`, `id="largest-mu"`, `<output id="delta-at-eps">0.1269</output>`},
			[]string{"<header", "<footer", `class="explain"`, `class="error"`, `id="data"`, `id="run-button"`}},
		// δ(0.5) of 2-GDP = Φ(0.75) − e^0.5·Φ(−1.25) = 0.59919; ε at δ = 10⁻⁶ for 2-GDP: 10.997.
		{"embed=curve&mu=2&eps=0.5&delta=1e-6", true,
			[]string{`<output id="delta-at-eps">0.5992</output>`, `<output id="eps-at-delta">11</output>`, `id="verdict" class="bad"`}, []string{`class="error"`}},
		// Invalid values keep the defaults (μ = 1, ε = 1, δ = 10⁻⁵) and show the fields' errors.
		{"embed=curve&mu=-1&eps=abc&delta=2", true,
			[]string{`<output id="delta-at-eps">0.1269</output>`, "μ must be positive.", "Enter a number.", "δ must be between 0 and 1", `aria-invalid="true"`},
			nil},
		{"embed=plot&mu=0.25", false, []string{"<header", `id="data"`}, nil}, // not an embed mode privopt has
	} {
		values, err := url.ParseQuery(tc.query)
		if err != nil {
			t.Fatal(err)
		}
		q := map[string]string{}
		for k := range values {
			q[k] = values.Get(k)
		}
		root := NewRoot(q, newTestHost(t, 1))
		if root.Embed != tc.embed || (root.App == nil) != tc.embed {
			t.Errorf("%q: Embed = %v, App = %v", tc.query, root.Embed, root.App)
		}
		html := render(t, root)
		for _, want := range tc.present {
			if !strings.Contains(html, want) {
				t.Errorf("%q: the page lacks %s", tc.query, want)
			}
		}
		for _, unwanted := range tc.absent {
			if strings.Contains(html, unwanted) {
				t.Errorf("%q: the page has %s", tc.query, unwanted)
			}
		}
	}
	bad := embed(map[string]string{"mu": "-1"})
	if bad.Widget.Mu.Text != "-1" || bad.Widget.Mu.Value != 1 || bad.Widget.Curve.Paths[0].D != NewGDPWidget().Curve.Paths[0].D {
		t.Errorf("an invalid μ: text %q, value %v; want the text kept and the default curve", bad.Widget.Mu.Text, bad.Widget.Mu.Value)
	}
}

// The page (not the embed mode) shows the About view with the embedded benchmark: its plot
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
	if e := embed(map[string]string{}); e.About != nil || strings.Contains(render(t, e), `id="about"`) {
		t.Error("the embed mode shows the About view")
	}
}
