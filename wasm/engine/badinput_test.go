package engine

import (
	"encoding/json"
	"github.com/privopt/privopt/pkg/core/privacy"
	"io"
	"strings"
	"testing"

	"github.com/privopt/privopt/internal/badinput"
	"github.com/privopt/privopt/internal/fit"
)

// caseFile is a bad-input case's training file as the page posts it.
type caseFile struct{ c badinput.Case }

func (f caseFile) Name() string             { return "data.csv" }
func (f caseFile) Size() int64              { return f.c.Size() }
func (f caseFile) Open() (io.Reader, error) { return f.c.Open(), nil }

// TestBadInputs runs the table of bad inputs through the engine as the page does ("dataset",
// then "run"): each gets its error (naming the line when it is about one), or its defined
// behaviour: a release with a finite model from every row, the clipped values counted.
func TestBadInputs(t *testing.T) {
	for _, c := range badinput.Cases() {
		if testing.Short() {
			c = c.Short()
		}
		t.Run(c.Name, func(t *testing.T) {
			e, posted := newEngine()
			d := e.Handle(Request{ID: 1, Kind: "dataset", Source: "file", Schema: json.RawMessage(c.SchemaText())}, caseFile{c})
			check := func(r Response) {
				t.Helper()
				if r.Kind != "error" || !strings.Contains(r.Error, c.Error) || r.Line != c.Line {
					t.Errorf("got %+v; want an error containing %q at line %d", r, c.Error, c.Line)
				}
			}
			if d.Kind == "error" {
				check(d)
				return
			}
			if d.Kind != "dataset" {
				t.Fatalf("dataset: %+v", d)
			}
			seed := uint64(1)
			spec := &fit.Spec{Loss: "logistic", Domain: fit.Whole, Radius: 10, Mechanism: c.Mechanism,
				Budget: privacy.Budget{Epsilon: c.Epsilon, Delta: c.Delta}}
			r := e.Handle(Request{ID: 2, Kind: "run", Spec: spec, Seed: &seed}, nil)
			if r.Kind == "started" {
				r, _ = await(t, posted, 2)
			}
			if c.Error != "" {
				check(r)
				return
			}
			if r.Kind != "release" {
				t.Fatalf("run: %+v", r)
			}
			clipped := 0
			for _, col := range d.Dataset.Columns {
				clipped += col.Clipped
			}
			if err := c.CheckRelease(r.Result.Release.Model.Weights, d.Dataset.Rows, clipped); err != nil {
				t.Error(err)
			}
			if d.Dataset.Facts.N != d.Dataset.Rows {
				t.Errorf("n = %d of %d rows read", d.Dataset.Facts.N, d.Dataset.Rows)
			}
		})
	}
}
