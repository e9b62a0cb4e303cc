package release

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/privacy"
)

// rangedSchema is testSchema with private ranges on age and on the numeric label: age is
// clipped to [35, 65], the label to [1, 6] and mapped to [−1, 1] (offset 3.5, unit 2.5).
func rangedSchema(t *testing.T) *data.Schema {
	t.Helper()
	s := testSchema(t, `{"name": "outcome", "kind": "numeric-label", "min": 0, "max": 10, "private_range": {"lo": 0.1, "hi": 0.6}}`)
	s, err := s.WithRanges(map[string]data.Range{"age": {Lo: 0.25, Hi: 0.75}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestPredictLabelRange checks a regression release fitted with a private range on its label:
// the file states the map, and its predictions are in the label's units, offset + unit·s for
// the score s clipped to [−1, 1], within the private range, after a round trip too.
func TestPredictLabelRange(t *testing.T) {
	s := rangedSchema(t)
	f := fitted(t, s, "squared", [3]string{"1", "9.5", "4"}, privacy.ReplaceOne)
	if l := f.Label; l.Min != 0 || l.Max != 10 || l.Offset != 3.5 || l.Unit != 2.5 ||
		!strings.Contains(l.Meaning, "offset + unit·s for the score s = w·x clipped to [−1, 1], with offset 3.5 and unit 2.5; the training labels were clipped to [1, 6] (a private estimate, inside the declared [0, 10]), then mapped to [−1, 1]") {
		t.Errorf("label %+v", l)
	}
	if want := "Columns with a transform or a private range differ: age is clipped to [35, 65] (a private estimate, inside the declared [20, 80]), then scaled to [0, 1]. "; !strings.Contains(f.Encoding.Description, want) {
		t.Errorf("encoding description %q does not say %q", f.Encoding.Description, want)
	}
	// A second model with large weights, so that some scores are clipped.
	big := f.Models[0]
	big.Model.Weights = slices.Clone(big.Model.Weights)
	for j := range big.Model.Weights {
		big.Model.Weights[j] = float64(2*(j%2)-1) * 40
	}
	f.Models = append(f.Models, big)
	var b bytes.Buffer
	if err := f.Write(&b); err != nil {
		t.Fatal(err)
	}
	back, err := Read(&b)
	if err != nil {
		t.Fatal(err)
	}
	rows := "age,smoker\n30,no\n,yes\n95,maybe\n50,yes\n"
	ds, _, err := data.EncodeForPrediction(strings.NewReader(rows), s)
	if err != nil {
		t.Fatal(err)
	}
	clipped := 0
	for k := 1; k <= 2; k++ {
		for _, file := range []*File{f, back} {
			p, err := file.Predictor(k)
			if err != nil {
				t.Fatal(err)
			}
			var csv bytes.Buffer
			if _, err := file.WriteCSV(k, strings.NewReader(rows), &csv); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(csv.String()), "\n")
			for i := range ds.N {
				s := min(max(dot(file.Models[k-1].Model.Weights, ds.Row(i, nil)), -1), 1)
				if s == -1 || s == 1 {
					clipped++
				}
				want := 3.5 + float64(2.5*s)
				got := p.Predict(ds.Row(i, nil))
				if got.Value != want || got.Label != strconv.FormatFloat(want, 'g', -1, 64) || lines[i+1] != got.Label || want < 1 || want > 6 {
					t.Errorf("model %d, row %d: %+v (file: %s), want %v", k, i, got, lines[i+1], want)
				}
			}
		}
	}
	if clipped == 0 {
		t.Error("no score was clipped: the test exercises no clipping")
	}
}

// TestNoRangeDescriptions checks that a release without transforms or ranges states its
// encoding and label as before: no sentence about them, no offset or unit in its label.
func TestNoRangeDescriptions(t *testing.T) {
	f := fitted(t, testSchema(t, regressionLabel), "squared", [3]string{"1", "9.5", "4"}, privacy.ReplaceOne)
	if strings.Contains(f.Encoding.Description, "private range") || f.Label.Meaning != "a number in the label's own units, clipped to the declared range [0, 10]" {
		t.Errorf("description %q, meaning %q", f.Encoding.Description, f.Label.Meaning)
	}
	b, err := json.Marshal(f.Label)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), `"offset"`) || strings.Contains(string(b), `"unit"`) {
		t.Errorf("label %s", b)
	}
}
