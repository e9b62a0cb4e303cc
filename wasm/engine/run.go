package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/privopt/privopt/internal/fit"
	"github.com/privopt/privopt/internal/release"
	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/mech"
	"github.com/privopt/privopt/pkg/core/privacy"
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
	Test *Evaluation `json:"test,omitempty"`
	// Private is the model's private evaluation on the held-out rows when the spec spends a
	// share of the budget on one (Spec.EvalShare > 0), nil otherwise: noisy sums released with
	// the model, part of the release file. HeldOut states the public facts it was planned
	// with, as the release file holds them (release.Model).
	Private *mech.Evaluation `json:"private,omitempty"`
	HeldOut *mech.HeldOut    `json:"held_out,omitempty"`
}

// Evaluation is a model's accuracy and mean loss on held-out rows: computed from the data,
// shown to its owner only.
type Evaluation struct {
	// Rows is the number of held-out rows.
	Rows int `json:"rows"`
	// Accuracy is the fraction of rows classified right, nil for a regression loss; Majority
	// that of always predicting the training rows' most frequent class (the smallest on a
	// tie), the baseline a model must beat.
	Accuracy *float64 `json:"accuracy,omitempty"`
	Majority *float64 `json:"majority,omitempty"`
	// ROC is a binary classifier's ROC curve on the held-out rows (nil for the others).
	ROC *ROC `json:"roc,omitempty"`
	// Loss is the mean loss of the held-out rows (the plain per-row loss, or the robust one).
	Loss float64 `json:"loss"`
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
	d := e.data
	if d == nil {
		return Response{}, errNoData
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
	e.run = &activeRun{id: req.ID, cancel: cancel}
	go e.execute(ctx, cancel, req, pl, r, d)
	return Response{Kind: "started"}, nil
}

// execute runs a plan and posts its progress and its end.
func (e *Engine) execute(ctx context.Context, cancel context.CancelFunc, req Request, pl mech.Plan, r *rng.Rand, d *dataset) {
	start := time.Now()
	every := throttle{interval: progressInterval}
	rel, err := pl.Run(ctx, d.train, r, func(p mech.Progress) {
		if !every.due() {
			return
		}
		e.post(Response{ID: req.ID, Kind: "progress", Progress: &Progress{Run: req.Run, Fraction: p.Fraction, Stage: p.Stage, Seconds: time.Since(start).Seconds()}})
		if e.yield != nil {
			e.yield()
		}
	})
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
		if res.Test, err = evaluate(s, d, w); err != nil {
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

// evaluate returns the accuracy and mean loss of a model on the held-out rows. They are local
// diagnostics, not private: the mean is over the held-out rows themselves, whatever the
// relation (under add/remove the fit divides by a declared public N instead).
func evaluate(s fit.Spec, d *dataset, w []float64) (*Evaluation, error) {
	facts := d.summary.Facts
	facts.N = d.test.N
	s.Budget.Neighbouring = privacy.ReplaceOne // the problem's size is then facts.N
	p, err := fit.Problem(s, facts)
	if err != nil {
		return nil, err
	}
	l, err := p.NewLoss(d.test)
	if err != nil {
		return nil, fmt.Errorf("engine: the held-out rows: %w", err)
	}
	ev := &Evaluation{Rows: d.test.N, Loss: l.Mean(nil, w)}
	if acc, ok := mech.Accuracy(p, d.test, w); ok {
		m := majorityAccuracy(d.train.Y, d.test.Y)
		ev.Accuracy, ev.Majority = &acc, &m
		if p.Loss.Name != "multinomial" {
			ev.ROC = rocOf(d.test, w)
		}
	}
	return ev, nil
}

// ROC is a ROC curve: the false- and true-positive rates of the rule "positive when the score
// ⟨w, x⟩ is at least t", for thresholds t from +∞ down to −∞ (at most rocPoints + 1 points,
// from (0, 0) to (1, 1)), and the area under the full curve.
type ROC struct {
	FPR []float64 `json:"fpr"`
	TPR []float64 `json:"tpr"`
	AUC float64   `json:"auc"`
}

// rocPoints bounds the points of a ROC curve sent to the page.
const rocPoints = 100

// rocOf returns the ROC curve of the scores ⟨w, x⟩ of the rows of ds against their labels
// (positive when y > 0); nil when either class is absent. Tied scores move together, so the
// area is the probability that a positive row scores above a negative one, ties counting half.
func rocOf(ds *data.Dataset, w []float64) *ROC {
	type scored struct {
		s   float64
		pos bool
	}
	rows := make([]scored, ds.N)
	pos := 0
	x := make([]float64, ds.D)
	for i := range ds.N {
		x = ds.Row(i, x)
		s := 0.0
		for j, v := range x {
			s += w[j] * v
		}
		rows[i] = scored{s, ds.Y[i] > 0}
		if rows[i].pos {
			pos++
		}
	}
	neg := ds.N - pos
	if pos == 0 || neg == 0 {
		return nil
	}
	slices.SortFunc(rows, func(a, b scored) int { return cmp.Compare(b.s, a.s) })
	r := &ROC{FPR: []float64{0}, TPR: []float64{0}}
	tp, fp, every, drawn := 0, 0, max(1, ds.N/rocPoints), 0
	for i := 0; i < len(rows); {
		tp0, fp0, score := tp, fp, rows[i].s
		for ; i < len(rows) && rows[i].s == score; i++ {
			if rows[i].pos {
				tp++
			} else {
				fp++
			}
		}
		r.AUC += float64(fp-fp0) * float64(tp+tp0) / 2 // trapezoid: ties count half
		if i == len(rows) || i-drawn >= every {
			r.FPR, r.TPR, drawn = append(r.FPR, float64(fp)/float64(neg)), append(r.TPR, float64(tp)/float64(pos)), i
		}
	}
	r.AUC /= float64(pos) * float64(neg)
	return r
}

// majorityAccuracy returns the fraction of the labels test equal to the most frequent of
// train (the smallest on a tie).
func majorityAccuracy(train, test []float64) float64 {
	counts := map[float64]int{}
	for _, y := range train {
		counts[y]++
	}
	best, bestCount := math.Inf(1), 0
	for y, c := range counts {
		if c > bestCount || (c == bestCount && y < best) {
			best, bestCount = y, c
		}
	}
	hits := 0
	for _, y := range test {
		if y == best {
			hits++
		}
	}
	return float64(hits) / float64(max(len(test), 1))
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
