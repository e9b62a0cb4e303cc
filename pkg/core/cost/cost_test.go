package cost

import (
	"math"
	"testing"

	"github.com/privopt/privopt/pkg/core/loss"
)

// TestReferenceFor: at 92 dense entries the rates are Reference; adult-lr's one-hot
// rows (11.1 non-zeros of 92, each costing two dense entries) make values and gradients
// 1/(0.3 + 0.7·22.2/92) ≈ 2.13 times faster, so a plan's predicted time falls by that factor
// save for its draws, which are per coordinate; fewer dense entries speed them up less.
func TestReferenceFor(t *testing.T) {
	if r := ReferenceFor(loss.Width{Entries: 92}); r != Reference {
		t.Errorf("dense at d = 92: %+v, want %+v", r, Reference)
	}
	oneHot := ReferenceFor(loss.Width{Entries: 11.1, Sparse: true})
	factor := 1 / (0.3 + 0.7*22.2/92)
	if math.Abs(oneHot.Queries/Reference.Queries-factor) > 1e-12 || math.Abs(oneHot.Gradients/Reference.Gradients-factor) > 1e-12 || oneHot.Draws != Reference.Draws {
		t.Errorf("one-hot rows: %+v, want the query rates %g times the reference and the same draws", oneHot, factor)
	}
	c := Cost{Queries: 1e8, Gradients: 3e8, Draws: 1e6}
	want := (1e8/Reference.Queries+3e8/Reference.Gradients)/factor + 1e6/Reference.Draws
	if got := c.Seconds(oneHot); math.Abs(got-want) > 1e-9*want {
		t.Errorf("one-hot rows: %g s predicted, want %g", got, want)
	}
	if dense := ReferenceFor(loss.Width{Entries: 11.1}); !(dense.Queries > oneHot.Queries) {
		t.Errorf("11.1 dense entries (%g queries/s) should be faster than 11.1 sparse non-zeros (%g)", dense.Queries, oneHot.Queries)
	}
}
