package fit

import (
	"fmt"

	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/mech"
	"github.com/privopt/privopt/pkg/rng"
)

// Scaled is what a private scaling gives a fit: the schema as used (the declared one with
// each scaled column's private range), the training rows (and held-out rows, when any)
// encoded as that schema encodes them, and the released ranges (nil when the spec asks for
// none, and then everything else is what was given).
type Scaled struct {
	Schema      *data.Schema
	Train, Test *data.Dataset
	Ranges      *mech.Ranges
}

// Scale estimates the private ranges of the spec (ScalesPrivately) on the training rows
// train, encoded with the declared schema, with the random source r, and rescales train and
// test (nil for none) to them. Without private ranges, a numeric label that may be scaled
// (Facts.LabelScalable) is mapped from its declared range to [−1, 1], at no privacy cost.
// Neither train nor test is modified.
func Scale(s Spec, f Facts, declared *data.Schema, train, test *data.Dataset, r *rng.Rand) (*Scaled, error) {
	out := &Scaled{Schema: declared, Train: train, Test: test}
	names := declared.PrivatelyScaled()
	if len(names) != f.Scalable {
		return nil, fmt.Errorf("fit: the facts count %d columns to scale privately, the schema %d", f.Scalable, len(names))
	}
	ranges := make(map[string]data.Range, len(names))
	switch {
	case ScalesPrivately(s, f):
		plan, err := Ranges(s, f)
		if err != nil {
			return nil, err
		}
		rel, err := plan.Run(func(k int) ([]float64, error) { return data.ColumnValues(train, declared, names[k]) }, r)
		if err != nil {
			return nil, err
		}
		for k, name := range names {
			ranges[name] = data.Range{Lo: rel.Intervals[k].Lo, Hi: rel.Intervals[k].Hi}
		}
		out.Ranges = rel
	case f.LabelScalable:
		ranges[train.Label.Name] = data.Range{Lo: 0, Hi: 1}
	default:
		return out, nil
	}
	var err error
	if out.Schema, err = declared.WithRanges(ranges); err != nil {
		return nil, err
	}
	if out.Train, err = data.Rescale(train, declared, out.Schema); err != nil {
		return nil, err
	}
	if test != nil {
		if out.Test, err = data.Rescale(test, declared, out.Schema); err != nil {
			return nil, err
		}
	}
	return out, nil
}
