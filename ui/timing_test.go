package ui

import (
	"testing"
	"time"

	"github.com/privopt/privopt/wasm/engine"
)

// TestSetupTimes checks the prediction of the time before runs fit: the planning worker's
// start and check are measured, a fresh worker pays both, a started one holding the data
// neither, and workers after the first start in parallel once it has read the data.
func TestSetupTimes(t *testing.T) {
	var s setupTimes
	t0 := time.Unix(1000, 0)
	s.noteSent(0, engine.Request{Kind: "ping"}, t0)
	s.noteAnswer(0, "pong", t0.Add(500*time.Millisecond))
	check := engine.Request{Kind: "dataset", Source: "demo", Check: true, SplitSeed: 7}
	s.noteSent(0, check, t0.Add(time.Second))
	s.noteAnswer(0, "dataset", t0.Add(1300*time.Millisecond))
	if s.start != 0.5 || s.encode != 0.3 {
		t.Fatalf("measured start %v s, encode %v s; want 0.5, 0.3", s.start, s.encode)
	}
	data := check
	data.Check = false
	near := func(got, want float64) bool { return got > want-1e-9 && got < want+1e-9 }
	if got := s.seconds(data, 1); !near(got, 0.8) {
		t.Errorf("one fresh worker: %v s, want 0.8", got)
	}
	if got := s.seconds(data, 3); !near(got, 1.6) {
		t.Errorf("three fresh workers: %v s, want 1.6 (the first, then the others in parallel)", got)
	}
	s.noteSent(1, data, t0)
	s.noteSent(2, data, t0)
	if got := s.seconds(data, 2); !near(got, 0.6) {
		t.Errorf("two started workers still reading the data: %v s, want 0.6 (reading it)", got)
	}
	s.noteAnswer(1, "dataset", t0)
	s.noteAnswer(2, "dataset", t0)
	if got := s.seconds(data, 2); got != 0 {
		t.Errorf("two workers holding the data: %v s, want 0", got)
	}
	if got := s.seconds(data, 3); !near(got, 0.8) {
		t.Errorf("a third, fresh worker: %v s, want 0.8", got)
	}
	other := data
	other.SplitSeed = 8
	if got := s.seconds(other, 2); !near(got, 0.6) {
		t.Errorf("other data on started workers: %v s, want 0.6 (reading it twice)", got)
	}
	s.forget(2)
	if got := s.seconds(data, 2); !near(got, 0.8) {
		t.Errorf("a replaced worker: %v s, want 0.8", got)
	}
}

// TestRemainingCountsSetup checks that before any progress the remaining time predicted for
// the demo counts the workers' start and reading of the data, not the fits alone (a noisy-gd
// fit of the demo is predicted at a few hundredths of a second, and the page once said
// "about 0.00 s"): with two runs, worker 2 is fresh, while worker 1 has read the checked data
// already (prefetch).
func TestRemainingCountsSetup(t *testing.T) {
	a, h := demoApp(t, 2)
	a.SetMechanism("noisy-gd")
	if a.setup.start <= 0 || a.setup.encode <= 0 {
		t.Fatalf("start %v s, encode %v s: not measured", a.setup.start, a.setup.encode)
	}
	if data := datasetKey(a.datasetRequest()); a.setup.holds[1] != data || a.setup.holds[2] == data {
		t.Fatalf("after the check, worker 1 holds %q and worker 2 %q: want the checked data on worker 1 only", a.setup.holds[1], a.setup.holds[2])
	}
	a.Runs.Value = 2
	a.Run()
	if a.runSetup < a.setup.start+a.setup.encode {
		t.Errorf("predicted setup %v s, below a fresh worker's start and read (%v + %v s)", a.runSetup, a.setup.start, a.setup.encode)
	}
	h.settle(a)
}
