package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/privopt/privopt/internal/fit"
	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/mech"
	"github.com/privopt/privopt/pkg/rng"
)

// Scaling answers "scale": the schema as used by a fit of the request's spec on the data held
// (fit.Scale: the declared schema with each column's private range when the spec estimates
// them, and a numeric label that may be scaled mapped to [−1, 1]), and the private ranges
// released, if any. The page's runs all use that one schema: they carry it when it holds
// private ranges (Request.Scaled), and the release file states it.
type Scaling struct {
	// Schema is the schema as used, in its JSON form: public, as the ranges are released.
	Schema json.RawMessage `json:"schema"`
	// Ranges are the released ranges with their privacy report, or nil when the spec
	// estimates none.
	Ranges *mech.Ranges `json:"ranges,omitempty"`
}

// errNoData refuses a request that needs the data before a "dataset" request has kept it.
var errNoData = errors.New("engine: no data: send a \"dataset\" request first")

// fitData returns the data held for fits ("scale", "run"): an error when none is held, or
// only a helper's (Request.Parts), which may hold some of the training rows only. The caller
// holds the engine's lock.
func (e *Engine) fitData() (*dataset, error) {
	switch {
	case e.data == nil:
		return nil, errNoData
	case e.data.parts > 0:
		return nil, errors.New("engine: this worker holds a helper's part of the data: send a \"dataset\" request without Parts first")
	}
	return e.data, nil
}

// scale prepares the training and held-out rows held for the request's spec (fit.Scale),
// estimating the private ranges, if the spec asks for them, with a stream split from the
// request's seed (not private) or fresh randomness; it answers the schema as used and the
// ranges, and keeps the rows so prepared for the runs that follow.
func (e *Engine) scale(req Request) (Response, error) {
	if req.Spec == nil {
		return Response{}, errors.New("engine: scale needs a spec")
	}
	e.mu.Lock()
	d, err := e.fitData()
	e.mu.Unlock()
	if err != nil {
		return Response{}, err
	}
	var r *rng.Rand
	if req.Seed != nil {
		r = rng.Seeded(*req.Seed).Split() // independent of every run's stream, Seeded(Seed + Run)
	} else {
		r = rng.New()
	}
	sc, err := fit.Scale(*req.Spec, d.summary.Facts, d.schema, d.train, d.test, r)
	if err != nil {
		return Response{}, err
	}
	js, err := sc.Schema.MarshalJSON()
	if err != nil {
		return Response{}, err
	}
	key := ""
	if sc.Ranges != nil {
		key = string(js)
	}
	e.mu.Lock()
	d.rescaled = &dataset{key: key, schema: sc.Schema, train: sc.Train, test: sc.Test, summary: d.summary}
	e.mu.Unlock()
	return Response{Kind: "scaled", Scaling: &Scaling{Schema: js, Ranges: sc.Ranges}}, nil
}

// scaledFor returns the data held as a run of spec uses it. When the spec estimates private
// ranges, the run must carry its schema as used (text, from a "scale" answer), which must give
// each column that the declared schema leaves to private scaling its range, and the rows are
// rescaled to it (data.Rescale); otherwise the run must carry none, and the rows are prepared
// as fit.Scale prepares them without private ranges (at no privacy cost). The last rows so
// prepared are kept, keyed by the schema's text ("" without private ranges), for the runs that
// follow; the rows held are never modified. The caller holds the engine's lock.
func (d *dataset) scaledFor(s fit.Spec, text json.RawMessage) (*dataset, error) {
	private := fit.ScalesPrivately(s, d.summary.Facts)
	switch {
	case private && len(text) == 0:
		return nil, errors.New("engine: the settings spend a share of the budget on private ranges, and the run carries no schema as used: " +
			"send a \"scale\" request first and run with the schema it answers, so that every run shares one set of ranges")
	case !private && len(text) > 0:
		return nil, errors.New("engine: the settings estimate no private ranges, and the run carries a schema as used")
	case !private:
		if d.rescaled == nil || d.rescaled.key != "" {
			sc, err := fit.Scale(s, d.summary.Facts, d.schema, d.train, d.test, nil) // no randomness without private ranges
			if err != nil {
				return nil, err
			}
			d.rescaled = &dataset{schema: sc.Schema, train: sc.Train, test: sc.Test, summary: d.summary}
		}
		return d.rescaled, nil
	}
	used, err := data.LoadSchema(bytes.NewReader(text))
	if err != nil {
		return nil, fmt.Errorf("engine: the run's schema as used: %w", err)
	}
	if rest := used.PrivatelyScaled(); len(rest) > 0 {
		return nil, fmt.Errorf("engine: the run's schema as used has no private range for column %q", rest[0])
	}
	js, err := used.MarshalJSON()
	if err != nil {
		return nil, err
	}
	if d.rescaled != nil && d.rescaled.key == string(js) {
		return d.rescaled, nil
	}
	out := &dataset{key: string(js), schema: used, summary: d.summary}
	if out.train, err = data.Rescale(d.train, d.schema, used); err != nil {
		return nil, err
	}
	if d.test != nil {
		if out.test, err = data.Rescale(d.test, d.schema, used); err != nil {
			return nil, err
		}
	}
	d.rescaled = out
	return out, nil
}
