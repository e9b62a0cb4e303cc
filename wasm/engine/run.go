package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/privopt/privopt/internal/fit"
	"github.com/privopt/privopt/internal/release"
	"github.com/privopt/privopt/pkg/core/loss"
	"github.com/privopt/privopt/pkg/core/mech"
	"github.com/privopt/privopt/pkg/rng"
)

// Result answers a run ("release"): the mechanism's release and its evaluations on the
// held-out rows, local and private.
type Result struct {
	// Run is the run's number among the page's runs.
	Run int `json:"run"`
	// Release is the model, its privacy report, the utility bound, the planned parameters,
	// and the local diagnostics, which are not private and never part of what is released.
	Release *mech.Release `json:"release"`
	// Test evaluates the model on the held-out rows (local: not private), or is nil when no
	// rows are held out.
	Test *fit.LocalEvaluation `json:"test,omitempty"`
	// Private is the model's private evaluation on the held-out rows when the spec spends a
	// share of the budget on one (Spec.EvalShare > 0), nil otherwise: noisy sums released with
	// the model, part of the release file. HeldOut states the public facts it was planned
	// with, as the release file holds them (release.Model).
	Private *mech.Evaluation `json:"private,omitempty"`
	HeldOut *mech.HeldOut    `json:"held_out,omitempty"`
}

// activeRun is the run in progress.
type activeRun struct {
	id     int
	cancel context.CancelFunc
}

// progressInterval is how often a run, or the reading of a file, posts its progress (a run
// also yields to the worker's event loop then). Each report redraws the page, so a quarter
// of a second keeps the page's own thread mostly free.
const progressInterval = 250 * time.Millisecond

// start plans the request's spec on the data held and starts the run in a goroutine. The
// plan is fixed here, from the spec and the data's public facts, before the data is touched.
// The run uses the rows as its spec's schema as used encodes them (scaledFor): rescaled to
// the request's schema as used when the spec estimates private ranges.
func (e *Engine) start(req Request) (Response, error) {
	if req.Spec == nil {
		return Response{}, errors.New("engine: run needs a spec")
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.run != nil {
		return Response{}, fmt.Errorf("engine: busy with the run of request %d", e.run.id)
	}
	d, err := e.fitData()
	if err != nil {
		return Response{}, err
	}
	pl, err := fit.Plan(*req.Spec, d.summary.Facts)
	if err != nil {
		return Response{}, err
	}
	if d, err = d.scaledFor(*req.Spec, req.Scaled); err != nil {
		return Response{}, err
	}
	var r *rng.Rand
	if req.Seed != nil {
		r = rng.Seeded(*req.Seed + uint64(req.Run))
	} else {
		r = rng.New()
	}
	ctx, cancel := context.WithCancel(context.Background())
	var f *farm
	var end func()
	if len(req.Helpers) > 0 && e.link != nil {
		// Without the run's loss the run has no passes to farm out (its mechanism says why).
		if ref, err := runLoss(*req.Spec, e.data.summary.Facts, d); err == nil {
			f = &farm{ref: ref, replies: make(chan []float64, 16), done: ctx.Done()}
			f.farmLink = e.link(req, f.replies)
			end = f.end
		}
	}
	e.run = &activeRun{id: req.ID, cancel: cancel}
	go e.execute(ctx, cancel, req, pl, r, d, f, end)
	return Response{Kind: "started"}, nil
}

// execute runs a plan, with its full passes farmed out to f's helpers when f is not nil (then
// calling end after the run), and posts its progress and its end.
func (e *Engine) execute(ctx context.Context, cancel context.CancelFunc, req Request, pl mech.Plan, r *rng.Rand, d *dataset, f *farm, end func()) {
	if f != nil {
		loss.SetRunner(f)
	}
	start := time.Now()
	every := throttle{interval: progressInterval}
	rel, err := pl.Run(ctx, d.train, r, func(p mech.Progress) {
		if !every.due() {
			return
		}
		e.post(Response{ID: req.ID, Kind: "progress", Progress: &Progress{Run: req.Run, Progress: p, Seconds: time.Since(start).Seconds()}})
		if e.yield != nil {
			e.yield()
		}
	})
	if f != nil {
		loss.SetRunner(nil)
		end()
	}
	cancelled := ctx.Err() != nil
	cancel()
	var resp Response
	switch {
	case err != nil && cancelled:
		resp = Response{Kind: "cancelled"}
	case err != nil:
		resp = errorResponse(err)
	default:
		res := &Result{Run: req.Run, Release: rel}
		if err = res.evaluate(*req.Spec, d, r); err != nil {
			resp = errorResponse(err)
		} else {
			resp = Response{Kind: "release", Result: res}
		}
	}
	resp.ID = req.ID
	e.mu.Lock()
	e.run = nil // before the last message, so that the page may start the next run at once
	e.mu.Unlock()
	e.post(resp)
}

// evaluate evaluates the result's model on the held-out rows: locally (Test) when there are
// any, and privately (Private and HeldOut) when the spec spends a share of the budget on it,
// with the run's random source r.
func (res *Result) evaluate(s fit.Spec, d *dataset, r *rng.Rand) error {
	w := res.Release.Model.Weights
	var err error
	if d.test != nil && d.test.N > 0 {
		if res.Test, err = fit.EvaluateLocally(s, d.summary.Facts, d.train.Y, d.test, nil, w); err != nil {
			return err
		}
	}
	if s.EvalShare > 0 {
		if d.test == nil {
			return errors.New("engine: the settings spend a share of the budget on a private evaluation of the held-out rows, and no rows are held out")
		}
		res.Private, res.HeldOut, err = release.Evaluate(s, d.summary.Facts, d.test, w, r)
	}
	return err
}

// cancel stops the run of request req.Target if it is still running; its end is then
// posted as "cancelled".
func (e *Engine) cancel(req Request) Response {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.run != nil && e.run.id == req.Target {
		e.run.cancel()
	}
	return Response{Kind: "cancelling"}
}
