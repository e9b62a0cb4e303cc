package results

import (
	"fmt"
	"slices"
	"testing"
)

// TestReplace: the cells of an update take the place of the base's cells of the same mechanism,
// settings and ε, new cells (another ε, or the same mechanism with other settings) are added,
// the others are kept in their order, the baselines are the update's, and results of another
// platform or radius are refused.
func TestReplace(t *testing.T) {
	fast := map[string]string{"Sampler": "kinetic-langevin"}
	row := func(m string, opts map[string]string, eps, acc float64) Row {
		return Row{Mechanism: m, Options: opts, Epsilon: eps, AccuracyMean: acc}
	}
	base := Result{Platform: "linux/amd64", Radius: 10, Rows: []Row{row("a", nil, 1, 0.1), row("b", nil, 1, 0.2), row("b", nil, 2, 0.3)}}
	update := Result{Platform: "linux/amd64", Radius: 10, Rows: []Row{row("b", nil, 1, 0.9), row("c", nil, 1, 0.8), row("b", fast, 1, 0.7)}}
	update.Baselines.MajorityAccuracy = 0.76
	base.PageReady = []float64{1}
	got, err := Replace(base, update)
	if err != nil {
		t.Fatal(err)
	}
	var summary []string
	for _, r := range got.Rows {
		summary = append(summary, fmt.Sprintf("%s@%g=%g", r.Label(), r.Epsilon, r.AccuracyMean))
	}
	want := []string{"a@1=0.1", "b@1=0.9", "b@2=0.3", "c@1=0.8", "b (Sampler=kinetic-langevin)@1=0.7"}
	if !slices.Equal(summary, want) || got.Baselines.MajorityAccuracy != 0.76 || base.Rows[1].AccuracyMean != 0.2 {
		t.Errorf("replaced: %v, baselines %+v (base now %+v)", summary, got.Baselines, base.Rows)
	}
	if !slices.Equal(got.PageReady, []float64{1}) {
		t.Errorf("a run without page loads replaced them: %v", got.PageReady)
	}
	update.PageReady = []float64{0.5, 0.7}
	if again, _ := Replace(got, update); !slices.Equal(again.PageReady, []float64{0.5, 0.7}) {
		t.Errorf("page loads not replaced: %v", again.PageReady)
	}
	if r, ok := Find(got, "b (Sampler=kinetic-langevin)", 1); !ok || r.AccuracyMean != 0.7 {
		t.Errorf("Find with settings: %+v, %v", r, ok)
	}
	if l := row("rem", map[string]string{"Sampler": "mala", "FastSteps": "9"}, 1, 0).Label(); l != "rem (FastSteps=9, Sampler=mala)" {
		t.Errorf("label %q", l)
	}
	for _, other := range []Result{{Platform: "js/wasm", Radius: 10}, {Platform: "linux/amd64", Radius: 100}} {
		if _, err := Replace(base, other); err == nil {
			t.Errorf("replaced by a %s run with radius %g", other.Platform, other.Radius)
		}
	}
}
