package ui

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/privopt/privopt/internal/fit"
	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/mech"
	"github.com/privopt/privopt/wasm/engine"
)

// maxHelpers caps the workers that help runs (see dispatch): each holds its own copy of the
// data, and a pass gains less from each one more. Runs on at most data.BlockRows training rows,
// whose passes are one chunk, get no helper.
const maxHelpers = 3

// runState is the app's runs: independent fits of one spec spread over the engine's workers.
type runState struct {
	// Running is true from Run until every run has ended; Cancelling after Cancel.
	Running, Cancelling bool
	// RunList holds the runs of the last Run.
	RunList []*RunStatus
	// RunErr says why Run refused to start, or what went wrong while the runs ran.
	RunErr string
	// Selected is the index of the run whose model and report the page shows.
	Selected int
	// SortByWeight sorts the model's weights by magnitude instead of feature order.
	SortByWeight bool

	started, ended time.Time
	runSpec        fit.Spec
	runSeed        *uint64        // the seed field when Run was clicked: the ranges' and every run's
	runData        engine.Request // the "dataset" request each run worker gets first
	runFacts       fit.Facts
	runCurves      *engine.Curves
	runPredicted   float64 // predicted seconds of one run, 0 when unknown
	runSetup       float64 // predicted seconds before the runs start fitting (setupTimes)
	runWorkers     int
	runHelpers     int // workers beyond runWorkers that compute the runs' full passes
	// runUsed is the runs' schema as used and runRanges the private ranges they share (nil
	// when the spec estimates none); scaleID is the ID of the awaited "scale" request, 0 when
	// none is awaited.
	runUsed   json.RawMessage
	runRanges *mech.Ranges
	scaleID   int
}

// RunStatus is one run.
type RunStatus struct {
	// Index numbers the run from 0; ID is its request's ID and Worker the worker running it.
	Index, ID, Worker int
	// State is "waiting", "running", "done", "failed" or "cancelled".
	State string
	// Fraction and Stage are its progress.
	Fraction float64
	Stage    string
	// Err says why it failed; Result is its release.
	Err    string
	Result *engine.Result
}

// RunBlockers lists what keeps the fit from running, each naming what to fix.
func (a *App) RunBlockers() []string {
	var out []string
	switch {
	case a.Schema == nil:
		return []string{"Open a file or use the demo data (step 1)."}
	case a.Dataset == nil:
		out = append(out, "Check the data with its confirmed schema (step 1: “Use this data”).")
	}
	if bad := append(a.modelErrors(), a.budgetErrors()...); len(bad) > 0 {
		out = append(out, "Fix "+strings.Join(bad, ", ")+" (marked in red).")
	}
	if a.Dataset != nil {
		switch p := a.ChosenPlan(); {
		case a.PublicNProblem() != "":
			out = append(out, a.PublicNProblem())
		case a.PlanErr != "":
			out = append(out, "The plan failed: "+a.PlanErr)
		case p == nil:
			out = append(out, "Wait for the plan of the chosen mechanism.")
		case p.Error != "":
			out = append(out, "The chosen mechanism does not plan for these settings: "+plainError(p.Error))
		}
	}
	return out
}

// Working reports whether the engine is doing something whose progress the page shows: runs,
// checking the data, or scoring a file. Progress messages change the page's state without
// rendering it (a render rewrites every element), so the host renders it on a timer meanwhile.
func (a *App) Working() bool { return a.Running || a.Checking || a.Scoring }

// Run starts the runs: each is planned by the engine from the same spec and the data's public
// facts, with its own randomness (the browser's CSPRNG, or seed + its index when seeded), on
// up to Host.Workers() workers at once. First worker 1 answers the schema as used, with the
// private ranges when the spec estimates them, once (receiveScaled); every run then uses them.
func (a *App) Run() {
	if a.Running {
		return
	}
	if b := a.RunBlockers(); len(b) > 0 {
		a.RunErr = strings.Join(b, " ")
		return
	}
	n := int(a.Runs.Value)
	a.RunErr, a.Selected = "", 0
	a.rel, a.relErr, a.DownloadErr = nil, "", ""
	if a.UsesRuns() {
		a.useState = useState{} // the previous runs' models are gone with their results
	}
	a.runSpec, a.runData, a.runFacts, a.runCurves = a.spec(), a.datasetRequest(), a.Dataset.Facts, a.Plans.Curves
	// One seed for the ranges and every run, read once: a seed typed (or cleared) while they
	// run must not leave seeded ranges under runs that claim privacy.
	a.runSeed = a.seed()
	a.runPredicted = 0
	if s, ok := a.predictedSeconds(*a.ChosenPlan()); ok {
		a.runPredicted = s
	}
	a.RunList = make([]*RunStatus, n)
	for i := range a.RunList {
		a.RunList[i] = &RunStatus{Index: i, State: "waiting"}
	}
	a.Running, a.Cancelling = true, false
	a.started = a.Host.Now()
	a.runWorkers = max(1, min(a.Host.Workers(), n))
	a.runHelpers = 0
	if a.runFacts.N > data.BlockRows { // a pass over one chunk of rows is never farmed out
		a.runHelpers = max(0, min(a.Host.Workers()-n, maxHelpers))
	}
	a.runSetup = a.setup.seconds(a.runData, a.runWorkers)
	a.runUsed, a.runRanges = nil, nil
	a.send(1, a.runData)
	for h := a.runWorkers + 1; h <= a.runWorkers+a.runHelpers; h++ {
		a.send(h, a.helperData(h)) // the helpers encode their part of the data while worker 1 does
	}
	spec := a.runSpec
	a.scaleID = a.send(1, engine.Request{Kind: "scale", Spec: &spec, Seed: a.runSeed})
}

// receiveScaled takes the runs' schema as used and the private ranges they share, and starts
// the runs; when they could not be made, nothing runs and RunErr says why.
func (a *App) receiveScaled(r engine.Response) {
	if r.ID != a.scaleID {
		return // the runs were cancelled
	}
	a.scaleID = 0
	if r.Kind != "scaled" {
		if a.RunErr == "" { // a failed "dataset" request has said why already
			a.RunErr = "The runs could not start: " + r.Error
		}
		a.RunList, a.Running = nil, false
		return
	}
	a.runUsed, a.runRanges = r.Scaling.Schema, r.Scaling.Ranges
	for w := 1; w <= a.runWorkers; w++ {
		a.dispatch(w)
	}
}

// helperData is the "dataset" request of helper h (see dispatch): the k-th helper of worker w
// keeps the k-th of the ranges of the chunks of the training rows that worker w's helpers and
// worker w share (engine's Request.Parts).
func (a *App) helperData(h int) engine.Request {
	w := (h-a.runWorkers-1)%a.runWorkers + 1
	req := a.runData
	req.Part = (h - a.runWorkers - w) / a.runWorkers
	req.Parts = 1 + (a.runHelpers-w)/a.runWorkers + 1 // w's helpers: runWorkers + w + k·runWorkers ≤ runWorkers + runHelpers
	req.TrainRows, req.TestRows = a.runFacts.N, a.Dataset.Test
	return req
}

// dispatch starts the next waiting run on worker w, after the data it needs. When there are
// fewer runs than workers, the others help: worker w's helpers are the workers runWorkers + w,
// runWorkers + w + runWorkers…, which got the data with worker 1 (Run) and compute ranges of
// the run's full passes, talking to worker w directly (engine's "help").
func (a *App) dispatch(w int) {
	for _, r := range a.RunList {
		if r.State != "waiting" {
			continue
		}
		a.send(w, a.runData) // answered at once when the worker holds this data
		spec := a.runSpec
		r.State, r.Worker = "running", w
		req := engine.Request{Kind: "run", Spec: &spec, Run: r.Index, Seed: a.runSeed}
		if a.runRanges != nil {
			req.Scaled = a.runUsed
		}
		for h := a.runWorkers + w; h <= a.runWorkers+a.runHelpers; h += a.runWorkers {
			req.Helpers = append(req.Helpers, a.send(h, engine.Request{Kind: "help", Spec: &spec, Scaled: req.Scaled}))
		}
		r.ID = a.send(w, req)
		return
	}
}

// receiveRun takes a run's progress or its end.
func (a *App) receiveRun(resp engine.Response) {
	var r *RunStatus
	for _, s := range a.RunList {
		if s.ID == resp.ID && s.State == "running" {
			r = s
		}
	}
	if r == nil {
		return
	}
	switch resp.Kind {
	case "started", "cancelling":
		return
	case "progress":
		r.Fraction, r.Stage = resp.Progress.Fraction, resp.Progress.Stage
		return
	case "release":
		r.State, r.Fraction, r.Result = "done", 1, resp.Result
	case "cancelled":
		r.State = "cancelled"
		a.setup.forget(r.Worker) // the host may have replaced the worker
	default:
		r.State, r.Err = "failed", resp.Error
	}
	if !a.Cancelling {
		a.dispatch(r.Worker)
	}
	for _, s := range a.RunList {
		if s.State == "running" || s.State == "waiting" {
			return
		}
	}
	a.endRuns()
}

// endRuns follows the end of the last run: the release file of the finished runs is made.
func (a *App) endRuns() {
	a.Running, a.Cancelling = false, false
	a.ended = a.Host.Now()
	a.Selected = max(0, a.firstDone())
	if a.firstDone() >= 0 {
		a.makeRelease()
	}
}

// firstDone is the index of the first finished run, or −1.
func (a *App) firstDone() int {
	for i, r := range a.RunList {
		if r.State == "done" {
			return i
		}
	}
	return -1
}

// Cancel stops the runs: those waiting never start (the private ranges they wait for, if any,
// are ignored), and each running one is asked to stop (the host restarts a worker that does
// not stop within a few seconds).
func (a *App) Cancel() {
	if !a.Running || a.Cancelling {
		return
	}
	a.Cancelling = true
	for _, r := range a.RunList {
		switch r.State {
		case "waiting":
			r.State = "cancelled"
		case "running":
			a.send(r.Worker, engine.Request{Kind: "cancel", Target: r.ID})
		}
	}
	if a.scaleID != 0 {
		a.scaleID = 0
		a.endRuns()
	}
}

// Fraction is the overall progress of the runs, in [0, 1].
func (a *App) Fraction() float64 {
	if len(a.RunList) == 0 {
		return 0
	}
	sum := 0.0
	for _, r := range a.RunList {
		switch r.State {
		case "running", "cancelled": // a cancelled run stays where it stopped: it released nothing
			sum += r.Fraction
		case "done", "failed":
			sum++
		}
	}
	return sum / float64(len(a.RunList))
}

// Percent is Fraction as a whole percentage, for the progress bar.
func (a *App) Percent() int { return int(math.Floor(100 * a.Fraction())) }

// Elapsed formats the time since the runs started (until they ended).
func (a *App) Elapsed() string {
	end := a.ended
	if a.Running {
		end = a.Host.Now()
	}
	return formatDuration(end.Sub(a.started).Seconds())
}

// Remaining estimates the time left: from the progress so far once there is some, from the
// predicted times before (the workers' start and reading of the data, then the runs, as many
// at once as there are workers).
func (a *App) Remaining() string {
	if !a.Running {
		return ""
	}
	elapsed := a.Host.Now().Sub(a.started).Seconds()
	f := a.Fraction()
	if f >= 0.02 {
		return "about " + formatDuration(elapsed*(1-f)/f)
	}
	if a.runPredicted > 0 {
		batches := math.Ceil(float64(len(a.RunList)) / float64(a.runWorkers))
		return "about " + formatDuration(math.Max(0, a.runSetup+a.runPredicted*batches-elapsed)) + " (predicted)"
	}
	return "estimating…"
}

// RunSummary says how many runs are done, running, failed or cancelled, after the stage of
// the private ranges while the runs wait for them.
func (a *App) RunSummary() string {
	counts := map[string]int{}
	for _, r := range a.RunList {
		counts[r.State]++
	}
	var parts []string
	for _, s := range []string{"done", "running", "waiting", "failed", "cancelled"} {
		if counts[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[s], s))
		}
	}
	summary := fmt.Sprintf("%d of %d runs: ", counts["done"], len(a.RunList)) + strings.Join(parts, ", ")
	if a.scaleID != 0 && fit.ScalesPrivately(a.runSpec, a.runFacts) {
		summary = "Private ranges, estimated once for every run; then " + summary
	}
	return summary
}

// RunErrors lists the failed runs' errors, each once.
func (a *App) RunErrors() []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range a.RunList {
		if r.State == "failed" && !seen[r.Err] {
			seen[r.Err] = true
			out = append(out, fmt.Sprintf("Run %d failed: %s", r.Index+1, r.Err))
		}
	}
	return out
}

// WorkersText says how the runs are spread over the workers.
func (a *App) WorkersText() string {
	text := "in one Web Worker"
	if a.runWorkers > 1 {
		text = fmt.Sprintf("on %d Web Workers at once", a.runWorkers)
	}
	if a.runHelpers > 0 {
		text += ", helped by " + itoa(a.runHelpers) + " more"
	}
	return text
}
