package ui

import (
	"math"
	"strconv"
	"time"

	"github.com/vugu/vugu"

	"github.com/privopt/privopt/pkg/core/privacy"
	"github.com/privopt/privopt/pkg/plot"
	"github.com/privopt/privopt/wasm/engine"
)

// Host is what the app needs from the browser. wasm/app implements it with Web Workers, the
// page's file input and downloads; the tests implement it with engines in the same process.
type Host interface {
	// Send posts a request to engine worker w. Worker 0 loads, checks, plans, reads release
	// files and scores; workers 1 to Workers() run fits, one at a time each. A request
	// carries the file that TakeFile kept last for its Source, if any. After a "cancel", a
	// run that has not ended a few seconds later is stopped by restarting its worker and
	// answered "cancelled".
	Send(w int, req engine.Request)
	// Workers is how many fits may run at once: the machine's cores.
	Workers() int
	// TakeFile keeps the file of a file-input change or drop event for the requests whose
	// Source is source that follow, and returns its name and size; ok is false when the
	// event carries no file.
	TakeFile(e vugu.DOMEvent, source string) (name string, size int64, ok bool)
	// Download offers content, of media type mime, to save as a file.
	Download(name, mime string, content []byte)
	// Now is the current time.
	Now() time.Time
}

// App is the state of the page a person uses: the data and its schema, the model, the
// mechanism and the budget, the runs and their results. Its methods are the page's event
// handlers and the views' queries; it talks to the engine through Host only and receives
// the engine's answers through Receive, so a test can drive it with engines in the same
// process.
type App struct {
	// Host connects the app to the browser (or to a test).
	Host Host

	// BaseURL is the page's address without its query, for the link to the settings.
	BaseURL string

	// EngineStatus describes the engine; Rate is its measured query rate (nil until known).
	EngineStatus string
	Rate         *engine.Rate

	nextID      int
	pending     map[int]string // the kind of each request awaiting its answer, by ID
	wantDemo    bool           // the link asked for the demo data
	calibrating bool           // a "calibrate" request is awaited
	setup       setupTimes     // measured times of starting a worker and reading the data

	dataState
	modelState
	privacyState
	runState
	releaseState
	useState
}

// The Sources of the requests that read a file the person chose, each naming one of the
// page's files (see Host.TakeFile).
const (
	dataSource     = "file"     // the data to fit
	settingsSource = "settings" // a release file whose settings the page takes
	scoreSource    = "score"    // a CSV file to score with a released model
)

// NewApp returns the app in its initial state, talking to the engine through host; Start
// sends its first requests.
func NewApp(host Host) *App {
	a := &App{Host: host, EngineStatus: "starting", pending: map[int]string{}}
	a.initData()
	a.initModel()
	a.initPrivacy()
	return a
}

// Start pings the engine, and loads the demo when the link asked for it.
func (a *App) Start() {
	a.send(0, engine.Request{Kind: "ping"})
	if a.wantDemo {
		a.UseDemo()
	}
}

// send posts a request with a fresh ID and returns the ID.
func (a *App) send(w int, req engine.Request) int {
	a.nextID++
	req.ID = a.nextID
	a.pending[req.ID] = req.Kind
	a.setup.noteSent(w, req, a.Host.Now())
	a.Host.Send(w, req)
	return req.ID
}

// Receive takes one message from engine worker w.
func (a *App) Receive(w int, r engine.Response) {
	kind, ok := a.pending[r.ID]
	if !ok {
		return // the answer to a request the page has forgotten (a superseded plan)
	}
	if r.Kind != "progress" && r.Kind != "started" && r.Kind != "cancelling" {
		delete(a.pending, r.ID)
		a.setup.noteAnswer(w, r.Kind, a.Host.Now())
	}
	switch kind {
	case "ping":
		if r.Kind == "pong" {
			a.EngineStatus = "ready (version " + r.Version + ")"
		} else {
			a.EngineStatus = "failed: " + r.Error
		}
	case "calibrate":
		a.Rate, a.calibrating = r.Rate, false
		a.prefetch()
	case "load":
		a.receiveLoad(r)
	case "dataset":
		if w == 0 {
			a.receiveCheck(r)
		} else if r.Kind == "error" && a.Running && w <= a.runWorkers {
			a.RunErr = r.Error // the run that follows fails for want of data and says so too (a helper's run does not)
		}
	case "plan":
		a.receivePlan(r)
	case "scale":
		a.receiveScaled(r)
	case "run":
		a.receiveRun(r)
	case "read-release":
		a.receiveSettings(r)
	case "score":
		a.receiveScores(r)
	}
}

// shortText writes a number for reading: four significant digits, powers of ten as
// superscripts (plot.FormatNumber).
func shortText(v float64) string { return plot.FormatNumber(v) }

// upText shows a bound (a privacy parameter the page states, a utility bound) as shortText
// does, but rounded up to its four significant digits: never below the value it states.
func upText(v float64) string {
	up, err := strconv.ParseFloat(privacy.FormatUp(v, 4), 64)
	if err != nil {
		return shortText(v)
	}
	return shortText(up)
}

// boundText shows a utility bound: "≤ b", or "none proven" for +Inf.
func boundText(b float64) string {
	if math.IsInf(b, 1) {
		return "none proven"
	}
	return "≤ " + upText(b)
}

// when returns v when ok, "" otherwise (for the templates).
func when(ok bool, v string) string {
	if ok {
		return v
	}
	return ""
}
