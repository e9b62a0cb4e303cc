package ui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/privopt/privopt/internal/release"
	"github.com/privopt/privopt/pkg/core/data"
)

// RangesText states, in words, what the private ranges of the finished runs did and cost (""
// when their release file has none): each scaled column's declared range and its private
// range, in the column's units (mapped back through its transform), the share of the budget
// and the ranges' own (ε, δ) (their report's target), counted once in the release's guarantee
// however many runs used them, then what each column's range suggests declaring, if anything
// (data.RangeSuggestion).
func (a *App) RangesText() string {
	if a.rel == nil || a.rel.Ranges == nil {
		return ""
	}
	var cols, suggestions []string
	for _, c := range a.rel.Schema.Columns {
		if c.Range != nil {
			cols = append(cols, c.Name+" from "+interval(c.Min, c.Max)+" to "+interval(c.Unscale(c.Range.Lo), c.Unscale(c.Range.Hi)))
			if line := data.RangeSuggestion(c, *c.Range); c.Kind == data.Numeric && line != "" {
				suggestions = append(suggestions, line)
			}
		}
	}
	r := a.rel.Ranges
	t := r.Report.Target
	text := fmt.Sprintf("Before the runs, privopt estimated where the values of each numeric column lie, privately, and clipped and "+
		"rescaled the column to that range: %s. Every run's model uses the same ranges. They cost %s of the budget: on their own "+
		"they are (ε = %s, δ = %s)-differentially private, and the release's guarantee counts them once.",
		strings.Join(cols, "; "), shareText(a.runSpec.ScaleShare), shortText(t.Epsilon), shortText(t.Delta))
	if !r.Report.Private {
		text += " They were seeded: not private."
	}
	for _, line := range suggestions {
		text += " " + line + "."
	}
	if len(suggestions) > 0 {
		text += " In step 1's schema, each numeric column has both settings: “read on a log scale” and “keep the declared range”."
	}
	return text
}

// interval writes [lo, hi] for reading.
func interval(lo, hi float64) string { return "[" + shortText(lo) + ", " + shortText(hi) + "]" }

// shareText writes a share of the budget as a percentage.
func shareText(share float64) string { return shortText(100*share) + " %" }

// declaredSchema is the schema of release file f as its settings declare it: when f holds
// private ranges, a copy of its schema as used without them, so that a fit with the settings
// estimates them anew; otherwise its schema.
func declaredSchema(f *release.File) *data.Schema {
	if f.Ranges == nil {
		return f.Schema
	}
	s := *f.Schema
	s.Columns = slices.Clone(s.Columns)
	for i := range s.Columns {
		s.Columns[i].Range = nil
	}
	return &s
}
