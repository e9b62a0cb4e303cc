package ui

import (
	"encoding/json"
	"time"

	"github.com/privopt/privopt/wasm/engine"
)

// setupTimes are durations measured on this machine for predicting what a run takes beyond
// its fit: starting a worker's engine (the planning worker's ping, from the request to the
// answer) and encoding the data (the planning worker's check of the same file and schema).
// They are local times, never part of a release.
type setupTimes struct {
	pingSent, checkSent time.Time
	start, encode       float64        // seconds, 0 until measured
	started             map[int]bool   // the workers sent a request, whose engines have started
	sent                map[int]string // the last "dataset" request each worker was sent
	holds               map[int]string // the last "dataset" request each worker answered
}

// noteSent records a request sent to worker w at now.
func (t *setupTimes) noteSent(w int, req engine.Request, now time.Time) {
	if t.started == nil {
		t.started, t.sent, t.holds = map[int]bool{}, map[int]string{}, map[int]string{}
	}
	if !t.started[w] && w == 0 && req.Kind == "ping" {
		t.pingSent = now
	}
	t.started[w] = true
	if req.Kind == "dataset" {
		if w == 0 && req.Check {
			t.checkSent = now
		}
		t.sent[w] = datasetKey(req)
	}
}

// noteAnswer records the answer of kind to a request of worker w at now.
func (t *setupTimes) noteAnswer(w int, kind string, now time.Time) {
	switch {
	case w == 0 && kind == "pong" && !t.pingSent.IsZero():
		t.start = now.Sub(t.pingSent).Seconds()
	case w == 0 && kind == "dataset" && !t.checkSent.IsZero():
		t.encode = now.Sub(t.checkSent).Seconds()
	}
	if kind == "dataset" {
		t.holds[w] = t.sent[w] // a worker answers its requests in order; the last one sent counts
	}
}

// forget records that worker w was replaced (a cancel may terminate it): the next one starts
// afresh.
func (t *setupTimes) forget(w int) {
	delete(t.started, w)
	delete(t.sent, w)
	delete(t.holds, w)
}

// seconds predicts the time before runs of the data request data start fitting on workers 1
// to workers: worker 1 starts and reads the data (and estimates the private ranges), then the
// others start and read it, in parallel; a worker that has started, or holds the data, skips
// that part.
func (t *setupTimes) seconds(data engine.Request, workers int) float64 {
	one := func(w int) float64 {
		s := 0.0
		if !t.started[w] {
			s += t.start
		}
		if t.holds[w] != datasetKey(data) {
			s += t.encode
		}
		return s
	}
	others := 0.0
	for w := 2; w <= workers; w++ {
		others = max(others, one(w))
	}
	return one(1) + others
}

// datasetKey identifies the rows a "dataset" request makes (its ID aside).
func datasetKey(req engine.Request) string {
	req.ID, req.Check = 0, false
	b, _ := json.Marshal(req)
	return string(b)
}
