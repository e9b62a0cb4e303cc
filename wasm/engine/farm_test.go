package engine

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/privopt/privopt/internal/fit"
	"github.com/privopt/privopt/pkg/core/loss"
	"github.com/privopt/privopt/pkg/core/privacy"
)

// helperWait is how long the fakeLink waits for the helpers' sums of a pass.
var helperWait = 5 * time.Second

// farmData returns a CSV file of n rows of three numeric columns and a binary label, and its
// schema. The rows come in blocks of 8,192 that alternate: rows of magnitude 1 whose label
// follows their features, and rows of magnitude 10⁻³ with a random label, so that the chunks'
// sums differ in size and adding them in another order changes their bits.
func farmData(n int) (memFile, json.RawMessage) {
	rng := rand.New(rand.NewPCG(5, 6))
	var csv strings.Builder
	csv.WriteString("a,b,c,y\n")
	for i := range n {
		easy := i/8192%2 == 0
		m := 1.0
		if !easy {
			m = 1e-3
		}
		a, b, c := m*(2*rng.Float64()-1), m*(2*rng.Float64()-1), m*(2*rng.Float64()-1)
		y := "no"
		if (easy && a+b-c > 0) || (!easy && rng.IntN(2) == 0) {
			y = "yes"
		}
		fmt.Fprintf(&csv, "%.6g,%.6g,%.6g,%s\n", a, b, c, y)
	}
	return memFile{"farm.csv", []byte(csv.String())}, json.RawMessage(`{"privopt_schema":1,"norm":{"p":2,"radius":1,"fit":"scale"},"columns":[` +
		`{"name":"a","kind":"numeric","min":-1,"max":1},{"name":"b","kind":"numeric","min":-1,"max":1},{"name":"c","kind":"numeric","min":-1,"max":1},` +
		`{"name":"y","kind":"binary-label","positive":["yes"],"negative":["no"]}]}`)
}

// farmSpec is a noisy-gd fit, whose time goes to full passes.
func farmSpec() *fit.Spec {
	return &fit.Spec{Loss: "logistic", Domain: fit.Whole, Radius: 10, Mechanism: "noisy-gd",
		Budget: privacy.Budget{Epsilon: 1, Delta: 1e-6}}
}

// fakeLink is the in-process stand-in of engine-worker.js's side of a farm: it splits a pass's
// chunks among the helper engines that are ready (their first answer) and idle, asks each for
// its range on a goroutine of its own (through fault(i, answer) when fault is not nil; a nil
// answer is never delivered), and delivers the pass's sums once every helper asked has
// answered, or helperWait after the pass. ranges counts the ranges asked for.
type fakeLink struct {
	helpers     []*Engine
	fault       func(i int, a []float64) []float64
	ranges      atomic.Int64
	mu          sync.Mutex
	ready, busy []bool
}

func (fl *fakeLink) link(_ Request, replies chan<- []float64) (func([]float64) int, func()) {
	fl.ready, fl.busy = make([]bool, len(fl.helpers)), make([]bool, len(fl.helpers))
	for i, h := range fl.helpers {
		fl.ready[i] = h.Answer(nil)[1] == 1
	}
	post := func(msg []float64) int {
		fl.mu.Lock()
		defer fl.mu.Unlock()
		var idle []int
		for i := range fl.helpers {
			if fl.ready[i] && !fl.busy[i] {
				idle = append(idle, i)
			}
		}
		if len(idle) == 0 {
			return 0
		}
		n, parts, w := int(msg[4]), len(idle)+1, len(msg)-6
		if loss.Op(msg[1]) == loss.OpValue {
			w = 0
		}
		own := len(idle) * n / parts
		out := make([]float64, 1+own*(w+2))
		out[0] = msg[0]
		type answer struct {
			i, first, last int
			a              []float64
		}
		answers := make(chan answer, len(idle))
		for k, i := range idle {
			fl.busy[i] = true
			m := slices.Clone(msg) // a message is copied to another worker
			m[3], m[4] = float64(k*n/parts), float64((k+1)*n/parts)
			fl.ranges.Add(1)
			go func() {
				a := fl.helpers[i].Answer(m)
				if fl.fault != nil {
					a = fl.fault(i, a)
				}
				if a != nil {
					answers <- answer{i, int(m[3]), int(m[4]), a}
				}
			}()
		}
		go func() {
			timeout := time.After(helperWait)
		collect:
			for range idle {
				var r answer
				select {
				case r = <-answers:
				case <-timeout:
					break collect
				}
				fl.mu.Lock()
				fl.busy[r.i] = false
				k := r.last - r.first
				if r.a[1] == 1 && len(r.a) == 2+k*(w+1) {
					for c := r.first; c < r.last; c++ {
						out[1+c] = 1
					}
					copy(out[1+own+r.first:], r.a[2:2+k])
					copy(out[1+2*own+r.first*w:], r.a[2+k:])
				} else {
					fl.ready[r.i] = false
				}
				fl.mu.Unlock()
			}
			select {
			case replies <- out:
			default:
			}
		}()
		return own
	}
	return post, func() {}
}

// helped returns an engine holding file with schema (a fifth held out), and a fakeLink to
// helpers engines that hold it too and help a run of spec, which it sets as the engine's link;
// and, when spec estimates private ranges, the schema as used that the engine answers (seeded).
func helped(t *testing.T, file memFile, schema json.RawMessage, spec *fit.Spec, helpers int, fault func(i int, a []float64) []float64) (*Engine, chan Response, *fakeLink, json.RawMessage) {
	t.Helper()
	dataset := Request{ID: 1, Kind: "dataset", Source: "file", Schema: schema, Holdout: 0.2, SplitSeed: 3}
	e, posted := newEngine()
	if r := e.Handle(dataset, file); r.Kind != "dataset" {
		t.Fatalf("dataset: %+v", r)
	}
	var scaled json.RawMessage
	if spec.ScaleShare > 0 {
		seed := uint64(5)
		r := e.Handle(Request{ID: 3, Kind: "scale", Spec: spec, Seed: &seed}, nil)
		if r.Kind != "scaled" || r.Scaling.Ranges == nil {
			t.Fatalf("scale: %+v", r)
		}
		scaled = r.Scaling.Schema
	}
	fl := &fakeLink{fault: fault}
	for i := range helpers {
		h, _ := newEngine()
		h.Handle(dataset, file)
		if r := h.Handle(Request{ID: 100 + i, Kind: "help", Spec: spec, Scaled: scaled}, nil); r.Kind != "helping" {
			t.Fatalf("help: %+v", r)
		}
		fl.helpers = append(fl.helpers, h)
	}
	e.link = fl.link
	return e, posted, fl, scaled
}

// farmRun runs spec seeded on an engine with helpers (see helped) and returns the release's
// weights and its training loss (a full pass, all its bits: the weights lie on the noise's
// grid), and how many ranges were posted to helpers.
func farmRun(t *testing.T, file memFile, schema json.RawMessage, spec *fit.Spec, helpers int, fault func(i int, a []float64) []float64) ([]float64, int64) {
	t.Helper()
	e, posted, fl, scaled := helped(t, file, schema, spec, helpers, fault)
	seed := uint64(11)
	if r := e.Handle(Request{ID: 2, Kind: "run", Spec: spec, Seed: &seed, Scaled: scaled, Helpers: make([]int, helpers)}, nil); r.Kind != "started" {
		t.Fatalf("run: %+v", r)
	}
	r, _ := await(t, posted, 2)
	if r.Kind != "release" {
		t.Fatalf("run with %d helpers: %+v", helpers, r)
	}
	return append(r.Result.Release.Model.Weights, r.Result.Release.Diagnostics.TrainLoss), fl.ranges.Load()
}

// TestFarmedPasses checks that the passes of a run's loss farmed out to 1, 2 and 3 helpers
// have the bits of the passes computed in one worker (a farm that put a helper's chunks in
// another order or place would change them; a release's weights, rounded to the noise's grid,
// might not show it).
func TestFarmedPasses(t *testing.T) {
	defer loss.SetRunner(nil)
	file, schema := farmData(50000)
	spec := farmSpec()
	for helpers := range 4 {
		e, _, fl, _ := helped(t, file, schema, spec, helpers, nil)
		d, err := e.data.scaledFor(*spec, nil)
		if err != nil {
			t.Fatal(err)
		}
		l, err := runLoss(*spec, e.data.summary.Facts, d)
		if err != nil {
			t.Fatal(err)
		}
		lin := l.(*loss.Linear)
		w := []float64{0.3, -0.2, 0.1, 0.05}[:l.Dim()]
		g := make([]float64, l.Dim())
		passes := func() []float64 {
			v := lin.Mean(g, w)
			out := append([]float64{v}, g...)
			lin.MeanClippedGrad(g, w, 0.2)
			return append(append(out, g...), lin.Mean(nil, w))
		}
		want := passes()
		if helpers == 0 {
			continue
		}
		f := &farm{ref: l, replies: make(chan []float64, 16)}
		f.post, _ = e.link(Request{}, f.replies)
		loss.SetRunner(f)
		got := passes()
		loss.SetRunner(nil)
		if fl.ranges.Load() != int64(3*helpers) {
			t.Errorf("%d helpers: %d ranges posted, want %d", helpers, fl.ranges.Load(), 3*helpers)
		}
		for j := range want {
			if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
				t.Fatalf("%d helpers: result %d is %v, in one worker %v", helpers, j, got[j], want[j])
			}
		}
	}
}

// TestFarmedRunsIgnoreHelpers checks that a seeded noisy-gd release has the same bits with 0,
// 1 and 3 helpers computing ranges of its passes (0 and 2 with private ranges), and when
// helpers fail: answer that they cannot, answer garbage, or never answer; and so does its
// training loss, a full pass (the weights lie on the noise's grid, which can hide another
// order of the chunks).
func TestFarmedRunsIgnoreHelpers(t *testing.T) {
	defer func(w time.Duration) { helperWait = w }(helperWait)
	helperWait = 200 * time.Millisecond
	file, schema := farmData(50000)
	spec := farmSpec()
	want, _ := farmRun(t, file, schema, spec, 0, nil)
	cannot := func(i int, a []float64) []float64 {
		if i == 0 {
			return []float64{a[0], 0}
		}
		return a
	}
	garbage := func(i int, a []float64) []float64 {
		if i == 1 {
			return a[:len(a)-1]
		}
		return a
	}
	silent := func(i int, a []float64) []float64 {
		if i == 2 {
			return nil
		}
		return a
	}
	ranges := farmSpec()
	ranges.ScaleShare = fit.DefaultScaleShare
	wantRanges, _ := farmRun(t, file, schema, ranges, 0, nil)
	for _, tc := range []struct {
		name    string
		spec    *fit.Spec
		helpers int
		fault   func(int, []float64) []float64
	}{
		{"private ranges, two helpers", ranges, 2, nil},
		{"one helper", spec, 1, nil},
		{"three helpers", spec, 3, nil},
		{"a helper that cannot", spec, 3, cannot},
		{"a helper that answers garbage", spec, 3, garbage},
		{"a helper that never answers", spec, 3, silent},
	} {
		got, posted := farmRun(t, file, schema, tc.spec, tc.helpers, tc.fault)
		if posted == 0 {
			t.Errorf("%s: no range was posted to a helper", tc.name)
		}
		want := want
		if tc.spec == ranges {
			want = wantRanges
		}
		for j := range want {
			if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
				t.Fatalf("%s: weight %d (the last: the training loss) is %v, on one worker %v", tc.name, j, got[j], want[j])
			}
		}
	}
}

// TestFarmedRunCancels checks that a run whose helper never answers (and whose link would wait
// for it an hour) still ends soon after a cancel: "cancelled", or noisy-gd's release of the
// steps taken.
func TestFarmedRunCancels(t *testing.T) {
	defer func(w time.Duration) { helperWait = w }(helperWait)
	helperWait = time.Hour
	file, schema := farmData(50000)
	e, posted, fl, _ := helped(t, file, schema, farmSpec(), 1, func(int, []float64) []float64 { return nil })
	if r := e.Handle(Request{ID: 2, Kind: "run", Spec: farmSpec(), Helpers: []int{100}}, nil); r.Kind != "started" {
		t.Fatalf("run: %+v", r)
	}
	for fl.ranges.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	e.Handle(Request{ID: 3, Kind: "cancel", Target: 2}, nil)
	if r, _ := await(t, posted, 2); r.Kind != "cancelled" && r.Kind != "release" {
		t.Errorf("after cancel: %+v", r)
	}
}
