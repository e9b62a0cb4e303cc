// Package engine is privopt's compute engine: the code that runs in a Web Worker so that
// reading files, planning and fitting never freeze the page.
//
// It is linked into app.wasm: wasm/app starts it when the module is run inside a worker
// (web/engine-worker.js), so the browser downloads and compiles one module for both roles.
// The page and the engine exchange JSON messages, a Request in and Responses out. An Engine's
// Handle answers each request at once; a run answers "started" and then posts "progress"
// messages and one final "release", "cancelled" or "error" through the Engine's post
// function. Everything here is plain Go, tested natively; Serve (js/wasm only) connects an
// Engine to the worker.
//
// The operations, by Request.Kind:
//
//   - "ping": the engine's version and capabilities ("pong").
//   - "calibrate": the speed of per-example loss queries on this machine, measured on
//     synthetic data, never the person's ("rate").
//   - "load": a preview of a file (its first rows) and a suggested schema whose every value
//     read from the data is marked derived; or the built-in demo with its public schema
//     ("loaded").
//   - "dataset": encode the data with a confirmed schema and hold out rows for evaluation
//     ("dataset": the public facts and local diagnostics; "progress" while reading).
//   - "plan": plan every mechanism for a spec and the public facts of the data, and sample
//     the chosen mechanism's privacy curves ("plans"). Plans never see data.
//   - "scale": the schema as used by a fit of the spec on the data held, with the private
//     ranges of its numeric columns when the spec spends a share of the budget on them,
//     estimated once ("scaled": the schema and the ranges, which every run of the page then
//     carries, so that all its models share one set of ranges).
//   - "run": one private fit on the dataset as the spec's schema as used encodes it (with the
//     private ranges the run carries, when the spec estimates them), then the evaluation of
//     its model on the held-out rows, local and, when the spec spends a share of the budget on
//     it, private ("started", then "progress", then "release").
//   - "help": build the loss of a run of the spec (with the schema as used it carries) over
//     the data held, and compute the ranges of its full passes that the running worker posts
//     (Answer; "helping"). A "run" names its helpers' "help" requests (see farm.go).
//   - "cancel": stop a run ("cancelling"; the run then ends with "cancelled").
//   - "read-release": read and check a release file (package internal/release) that the
//     person chose, for the settings and the schema it holds ("release-file").
//   - "score": predict with one model of a release file for every row of a CSV file that the
//     person chose ("scores": the predictions as CSV; "progress" while reading).
package engine

import (
	"encoding/json"
	"fmt"
	"github.com/privopt/privopt/pkg/core/mech"
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/privopt/privopt/internal/fit"
	"github.com/privopt/privopt/internal/release"
	"github.com/privopt/privopt/internal/version"
)

// Request is a message from the page to the engine. Kind selects the operation; the other
// fields are the operation's arguments (see the package documentation).
type Request struct {
	// ID is chosen by the page and echoed in every response to the request.
	ID int `json:"id"`
	// Kind names the operation.
	Kind string `json:"kind"`
	// Source is the data of "load" and "dataset": "demo", or "file" for the File the page
	// posts beside the message. "read-release" and "score" read the File posted beside the
	// message; their Source names which of the page's files it is, for the page's host.
	Source string `json:"source,omitempty"`
	// Schema is the confirmed schema of "dataset", in its JSON form (docs/schemas.md).
	Schema json.RawMessage `json:"schema,omitempty"`
	// Holdout is the fraction of a file's rows held out for evaluation ("dataset"), in
	// [0, 0.5]; 0 holds out none. The demo has its own held-out file.
	Holdout float64 `json:"holdout,omitempty"`
	// SplitSeed seeds the held-out split, so that every worker holds the same split.
	SplitSeed uint64 `json:"split_seed,omitempty"`
	// SplitByContent chooses the held-out rows by each row's content (data.SplitByContent,
	// keyed by SplitSeed), as the add/remove relation needs: adding or removing a row then
	// changes one side by that row only. Otherwise a fixed-size random subset is held out
	// (data.Split), whose size replace-one makes public.
	SplitByContent bool `json:"split_by_content,omitempty"`
	// Check asks "dataset" to encode and report without keeping the encoded rows (the page's
	// planning worker needs only the facts).
	Check bool `json:"check,omitempty"`
	// Float32 holds the values of rows held dense as float32 ("dataset"; data.Options.Float32).
	Float32 bool `json:"float32,omitempty"`
	// Parts ≥ 2, in a "dataset" for a worker that will help runs, divides the chunks of the
	// training rows into Parts contiguous ranges (the last the run's own) and makes this
	// worker the helper of range Part (from 0; see farm.go). TrainRows and TestRows are the
	// numbers of training and held-out rows that the planning worker's check counted: with
	// them the worker keeps, while reading, only its range's rows (data.Part) unless the
	// held-out rows are chosen by content; then it holds the training rows as a run's worker
	// does.
	Part      int `json:"part,omitempty"`
	Parts     int `json:"parts,omitempty"`
	TrainRows int `json:"train_rows,omitempty"`
	TestRows  int `json:"test_rows,omitempty"`
	// Spec is the fit of "plan", "scale" and "run".
	Spec *fit.Spec `json:"spec,omitempty"`
	// Scaled is the schema as used that "scale" answered with private ranges (its JSON form),
	// which a "run" whose spec estimates private ranges must carry and any other run must not.
	Scaled json.RawMessage `json:"scaled,omitempty"`
	// Facts are the public facts of the data that "plan" plans for.
	Facts *fit.Facts `json:"facts,omitempty"`
	// Runs is the number of independent runs whose composed guarantee "plan" reports.
	Runs int `json:"runs,omitempty"`
	// EpsMax is the largest ε at which "plan" samples the privacy curve δ(ε).
	EpsMax float64 `json:"eps_max,omitempty"`
	// Run numbers a run among the page's independent runs, from 0.
	Run int `json:"run,omitempty"`
	// Seed, when set, seeds run number Run with Seed + Run, and "scale" with a stream split
	// from Seed: the release is then reproducible and its report says "seeded: not private".
	Seed *uint64 `json:"seed,omitempty"`
	// Helpers, in a "run", are the IDs of the "help" requests whose workers compute chunks of
	// the run's full passes; the page connects each to the running worker (see farm.go).
	Helpers []int `json:"helpers,omitempty"`
	// Target is the ID of the run that "cancel" stops.
	Target int `json:"target,omitempty"`
	// Release is the release file of "score", in its JSON form, and Model the number of the
	// model that predicts, from 1.
	Release json.RawMessage `json:"release,omitempty"`
	Model   int             `json:"model,omitempty"`
}

// Response is one message from the engine to the page. Kind says which fields are set.
type Response struct {
	// ID is the ID of the request answered.
	ID int `json:"id"`
	// Kind names the answer: "pong", "rate", "loaded", "dataset", "plans", "scaled",
	// "helping", "started", "progress", "release", "cancelling", "cancelled", "release-file",
	// "scores" or "error".
	Kind string `json:"kind"`
	// Error explains why a request failed (kind "error"); Line and Column locate an error
	// in the data file when it has a place.
	Error  string `json:"error,omitempty"`
	Line   int    `json:"line,omitempty"`
	Column string `json:"column,omitempty"`
	// Version and Capabilities answer "ping" ("pong").
	Version      string   `json:"version,omitempty"`
	Capabilities []string `json:"capabilities,omitempty"`
	// Rate answers "calibrate" ("rate").
	Rate *Rate `json:"rate,omitempty"`
	// Loaded answers "load" ("loaded").
	Loaded *Loaded `json:"loaded,omitempty"`
	// Dataset answers "dataset" ("dataset").
	Dataset *Dataset `json:"dataset,omitempty"`
	// Plans answers "plan" ("plans").
	Plans *Plans `json:"plans,omitempty"`
	// Scaling answers "scale" ("scaled").
	Scaling *Scaling `json:"scaling,omitempty"`
	// Progress reports a run or a file being read ("progress").
	Progress *Progress `json:"progress,omitempty"`
	// Result is a run's release ("release").
	Result *Result `json:"result,omitempty"`
	// ReleaseFile answers "read-release" ("release-file").
	ReleaseFile *release.File `json:"release_file,omitempty"`
	// Scores answers "score" ("scores").
	Scores *Scores `json:"scores,omitempty"`
}

// Capabilities are the request kinds Handle understands.
var Capabilities = []string{"ping", "calibrate", "load", "dataset", "plan", "scale", "run", "help", "cancel", "read-release", "score"}

// Number is a float64 whose JSON form is a number, or "inf", "-inf" or "nan" for the values
// JSON cannot hold (a mechanism's parameter or bound may be infinite).
type Number float64

// MarshalJSON writes the number, or its name when it is not finite.
func (n Number) MarshalJSON() ([]byte, error) {
	v := float64(n)
	switch {
	case math.IsNaN(v):
		return []byte(`"nan"`), nil
	case math.IsInf(v, 1):
		return []byte(`"inf"`), nil
	case math.IsInf(v, -1):
		return []byte(`"-inf"`), nil
	}
	return strconv.AppendFloat(nil, v, 'g', -1, 64), nil
}

// UnmarshalJSON reads what MarshalJSON writes.
func (n *Number) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case `"nan"`:
		*n = Number(math.NaN())
	case `"inf"`:
		*n = Number(math.Inf(1))
	case `"-inf"`:
		*n = Number(math.Inf(-1))
	default:
		var v float64
		if err := json.Unmarshal(b, &v); err != nil {
			return fmt.Errorf("engine: a number or \"inf\", \"-inf\", \"nan\": %w", err)
		}
		*n = Number(v)
	}
	return nil
}

// gcPercent is a worker's GOGC (see Serve): its heap grows by a quarter of the live heap
// between collections.
const gcPercent = 25

// Engine answers the page's requests. It holds the encoded dataset of its worker and at most
// one run at a time. Its methods are safe for concurrent use.
type Engine struct {
	post  func(Response)
	yield func()

	mu      sync.Mutex
	data    *dataset   // the encoded data, or nil
	run     *activeRun // the run in progress, or nil
	helping helping    // the run this worker helps (see farm.go), if any

	// link, when set, connects a run to the workers of its helpers (see farm.go, farmLink);
	// the link sends its answers on replies without blocking. Serve links the MessagePorts the
	// page posts with a "run"; tests link engines in one process.
	link func(req Request, replies chan<- []float64) farmLink

	// memory is what the data may take in this worker (WorkerMemory unless a test lowers it).
	memory int64
}

// New returns an engine that posts the asynchronous messages of runs and file reads with
// post (which must be safe to call from any goroutine) and, during a run, calls yield (when
// not nil) each time it posts the run's progress: at the mechanism's progress reports, at
// most every quarter of a second. In a worker, yield lets the event loop deliver a "cancel".
func New(post func(Response), yield func()) *Engine {
	return &Engine{post: post, yield: yield, memory: WorkerMemory}
}

// Handle answers one request. f is the file posted with the request, or nil.
func (e *Engine) Handle(req Request, f File) Response {
	var resp Response
	var err error
	switch req.Kind {
	case "ping":
		resp = Response{Kind: "pong", Version: version.String(), Capabilities: Capabilities}
	case "calibrate":
		resp = Response{Kind: "rate", Rate: Calibrate()}
	case "load":
		resp, err = e.load(req, f)
	case "dataset":
		resp, err = e.dataset(req, f)
	case "plan":
		resp, err = plan(req)
	case "scale":
		resp, err = e.scale(req)
	case "run":
		resp, err = e.start(req)
	case "help":
		resp, err = e.help(req)
	case "cancel":
		resp = e.cancel(req)
	case "read-release":
		resp, err = readRelease(f)
	case "score":
		resp, err = e.score(req, f)
	default:
		err = fmt.Errorf("engine: unknown request kind %q", req.Kind)
	}
	if err != nil {
		resp = errorResponse(err)
	}
	resp.ID = req.ID
	return resp
}

// HandleJSON answers one request encoded as JSON with the JSON encoding of the response; a
// message that is not a valid Request gets an "error" response.
func (e *Engine) HandleJSON(message string, f File) string {
	var req Request
	if err := json.Unmarshal([]byte(message), &req); err != nil {
		return Encode(Response{Kind: "error", Error: "engine: malformed request: " + err.Error()})
	}
	return Encode(e.Handle(req, f))
}

// Encode returns the JSON form of a response; should a value not be encodable, it returns
// an "error" response that says so, with the same ID.
func Encode(resp Response) string {
	out, err := json.Marshal(resp)
	if err != nil {
		out, _ = json.Marshal(Response{ID: resp.ID, Kind: "error", Error: fmt.Sprintf("engine: the %s response cannot be encoded: %v", resp.Kind, err)})
	}
	return string(out)
}

// Progress reports how far a run, or the reading of a file, has come: the mechanism's
// progress (its stage "reading" while a file is read) for the page's run Run, Seconds after
// the request arrived.
type Progress struct {
	// Run is the run's number among the page's runs.
	Run int `json:"run"`
	mech.Progress
	// Seconds is the time since the request arrived.
	Seconds float64 `json:"seconds"`
}

// throttle limits how often something happens: due is true at most once per interval (and
// the first time). It is not safe for concurrent use.
type throttle struct {
	interval time.Duration
	last     time.Time
}

// due reports whether the interval has passed since the last time due returned true.
func (t *throttle) due() bool {
	now := time.Now()
	if !t.last.IsZero() && now.Sub(t.last) < t.interval {
		return false
	}
	t.last = now
	return true
}
