package ui

import (
	"bytes"
	"strings"
	"testing"

	"github.com/vugu/vugu"
	"github.com/vugu/vugu/staticrender"
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

func TestRootRendersCurveAndDelta(t *testing.T) {
	root := NewRoot()
	html := render(t, root)
	for _, want := range []string{
		`<output id="delta-at-1" for="mu">0.1269</output>`, // δ(1) of 1-GDP = 0.12693673750664395
		`<svg class="plot" id="curve" viewBox="0 0 560 340"`,
		`class="series-0"`,
		`aria-invalid="false"`,
		`Privacy curve of 1-GDP`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("rendered page lacks %s", want)
		}
	}
	if strings.Contains(html, `id="mu-error"`) {
		t.Error("a valid μ shows an error")
	}
}

func TestSetMu(t *testing.T) {
	root := NewRoot()
	atOne := root.Curve.Paths[0].D
	root.SetMu("2")
	if root.MuError != "" || root.Mu != 2 {
		t.Fatalf("SetMu(2): Mu=%g MuError=%q", root.Mu, root.MuError)
	}
	if root.Curve.Paths[0].D == atOne {
		t.Error("the curve did not change with μ")
	}
	if got := root.DeltaAt1(); got != "0.5099" { // δ(1) of 2-GDP = Φ(0.5) − e·Φ(−1.5) = 0.509861
		t.Errorf("δ(1) for μ=2: got %s, want 0.5099", got)
	}
	atTwo := root.Curve.Paths[0].D
	for _, bad := range []string{"", "abc", "0", "-1", "NaN", "Inf", "1e9"} {
		root.SetMu(bad)
		if root.MuError == "" {
			t.Errorf("SetMu(%q) accepted", bad)
		}
		if root.Mu != 2 || root.Curve.Paths[0].D != atTwo {
			t.Errorf("SetMu(%q) changed the valid state", bad)
		}
		html := render(t, root)
		if !strings.Contains(html, `id="mu-error"`) || !strings.Contains(html, `aria-invalid="true"`) {
			t.Errorf("SetMu(%q): the error is not shown next to the field", bad)
		}
	}
}
