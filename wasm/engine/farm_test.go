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
	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/loss"
	"github.com/privopt/privopt/pkg/core/privacy"
)

// helperWait is how long the fakeLink waits for the helpers' sums of a pass.
var helperWait = 5 * time.Second

// farmData returns a CSV file of n rows of three numeric columns and a binary label, and its
// schema; with levels > 0, also a categorical column of that many levels (17 or more make the
// rows held sparse, which a helper then holds only its range of). The rows come in blocks of
// 8,192 that alternate: rows of magnitude 1 whose label follows their features, and rows of
// magnitude 10⁻³ with a random label, so that the chunks' sums differ in size and adding them in
// another order changes their bits.
func farmData(n, levels int) (memFile, json.RawMessage) {
	rng := rand.New(rand.NewPCG(5, 6))
	var csv strings.Builder
	csv.WriteString("a,b,c,y")
	if levels > 0 {
		csv.WriteString(",k")
	}
	csv.WriteString("\n")
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
		fmt.Fprintf(&csv, "%.6g,%.6g,%.6g,%s", a, b, c, y)
		if levels > 0 {
			fmt.Fprintf(&csv, ",L%d", rng.IntN(levels))
		}
		csv.WriteString("\n")
	}
	category := ""
	if levels > 0 {
		names := make([]string, levels)
		for k := range names {
			names[k] = fmt.Sprintf("%q", fmt.Sprintf("L%d", k))
		}
		category = `{"name":"k","kind":"categorical","categories":[` + strings.Join(names, ",") + `]},`
	}
	return memFile{"farm.csv", []byte(csv.String())}, json.RawMessage(`{"privopt_schema":1,"norm":{"p":2,"radius":1,"fit":"scale"},"columns":[` +
		`{"name":"a","kind":"numeric","min":-1,"max":1},{"name":"b","kind":"numeric","min":-1,"max":1},{"name":"c","kind":"numeric","min":-1,"max":1},` + category +
		`{"name":"y","kind":"binary-label","positive":["yes"],"negative":["no"]}]}`)
}

// farmSpec is a noisy-gd fit, whose time goes to full passes.
func farmSpec() *fit.Spec {
	return &fit.Spec{Loss: "logistic", Domain: fit.Whole, Radius: 10, Mechanism: "noisy-gd",
		Budget: privacy.Budget{Epsilon: 1, Delta: 1e-6}}
}

// fakeLink is the in-process stand-in of engine-worker.js's side of a farm: it asks each
// helper engine that is ready (its first answer, which names its range) and idle for its range
// of a pass's chunks on a goroutine of its own (through fault(i, answer) when fault is not nil;
// a nil answer is never delivered), and delivers the pass's sums once every helper asked has
// answered, or helperWait after the pass. ranges counts the ranges asked for.
type fakeLink struct {
	helpers     []*Engine
	fault       func(i int, a []float64) []float64
	steal       int // the chunks at the back of each helper's range that the run takes (steal)
	ranges      atomic.Int64
	stolen      atomic.Int64 // the chunks the run took
	mu          sync.Mutex
	ready, busy []bool
	part        []int
}

func (fl *fakeLink) link(_ Request, replies chan<- []float64) farmLink {
	parts := len(fl.helpers) + 1
	fl.ready, fl.busy, fl.part = make([]bool, len(fl.helpers)), make([]bool, len(fl.helpers)), make([]int, len(fl.helpers))
	for i, h := range fl.helpers {
		a := h.Answer(nil)
		fl.ready[i] = a[1] == 1 && int(a[3]) == parts
		if fl.ready[i] {
			fl.part[i] = int(a[2])
		}
	}
	var stealable []int // the chunks the run may take from the back of the helpers' ranges
	steal := func() int {
		fl.mu.Lock()
		defer fl.mu.Unlock()
		if len(stealable) == 0 {
			return -1
		}
		c := stealable[0]
		stealable = stealable[1:]
		fl.stolen.Add(1)
		return c
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
		n, w := int(msg[4]), int(msg[3])
		own := (parts - 1) * n / parts
		out := make([]float64, 1+own*(w+2))
		out[0] = msg[0]
		type answer struct {
			i, first, last int
			a              []float64
		}
		answers := make(chan answer, len(idle))
		for _, i := range idle {
			fl.busy[i] = true
			m := slices.Clone(msg) // a message is copied to another worker
			k := fl.part[i]
			m[3], m[4] = float64(k*n/parts), float64((k+1)*n/parts)
			for c := int(m[4]) - 1; c >= max(int(m[4])-fl.steal, int(m[3])); c-- {
				stealable = append(stealable, c)
			}
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
					for c := max(r.last-fl.steal, r.first); c < r.last; c++ {
						out[1+own+c] = math.NaN() // the run took these chunks: their sums are not read
					}
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
	return farmLink{post: post, steal: steal, end: func() {}}
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
	sum := e.Handle(Request{ID: 4, Kind: "dataset", Source: "file", Schema: schema, Holdout: 0.2, SplitSeed: 3, Check: true}, file).Dataset
	for i := range helpers {
		h, _ := newEngine()
		part := dataset
		part.Part, part.Parts, part.TrainRows, part.TestRows = i, helpers+1, sum.Facts.N, sum.Test
		if r := h.Handle(part, file); r.Kind != "dataset" {
			t.Fatalf("a helper's dataset: %+v", r)
		}
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

// TestFarmedPasses checks that the passes of a run's loss (values and gradients, clipped
// gradients, values alone and the mapped rows' squares) farmed out to 1, 2 and 3 helpers have
// the bits of the passes computed in one worker (a farm that put a helper's chunks in
// another order or place would change them; a release's weights, rounded to the noise's grid,
// might not show it), with rows held dense and sparse; each helper holds the training rows of
// its range only.
func TestFarmedPasses(t *testing.T) {
	defer loss.SetRunner(nil)
	for _, levels := range []int{0, 20} {
		file, schema := farmData(50000, levels)
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
			if sparse := !d.train.Sparse.Dense; sparse != (levels > 0) {
				t.Fatalf("%d levels: rows held sparse %t", levels, sparse)
			}
			lin := l.(*loss.Linear)
			w := make([]float64, l.Dim())
			for j := range w {
				w[j] = 0.3 - 0.1*float64(j%7)
			}
			g := make([]float64, l.Dim())
			a, c := make([]float64, d.train.D), make([]float64, d.train.D)
			for j := range a {
				a[j], c[j] = float64(1+j%2), float64(j%2)*0.1
			}
			passes := func() []float64 {
				v := lin.Mean(g, w)
				out := append([]float64{v}, g...)
				lin.MeanClippedGrad(g, w, 0.2)
				out = append(append(out, g...), lin.Mean(nil, w))
				squares, over, err := loss.Squares(l, a, c, 1)
				if err != nil {
					t.Fatal(err)
				}
				return append(append(out, float64(over)), squares...)
			}
			want := passes()
			if helpers == 0 {
				continue
			}
			chunks := (l.Len() + data.BlockRows - 1) / data.BlockRows
			for k, h := range fl.helpers {
				first, last := k*chunks/(helpers+1), (k+1)*chunks/(helpers+1)
				for c := range chunks {
					if held, want := h.data.train.Holds(c*data.BlockRows), c >= first && c < last; held != want {
						t.Fatalf("%d levels, helper %d of %d: holds chunk %d %t, want %t", levels, k, helpers, c, held, want)
					}
				}
			}
			// With steal = 2 the run takes the last two chunks of each helper's range, as it
			// does from the shared queues (farmLink.steal), and the link's answer holds NaN for
			// their sums.
			for _, steal := range []int{0, 2} {
				fl.steal = steal
				fl.ranges.Store(0)
				fl.stolen.Store(0)
				f := &farm{ref: l, replies: make(chan []float64, 16)}
				f.farmLink = e.link(Request{}, f.replies)
				loss.SetRunner(f)
				got := passes()
				loss.SetRunner(nil)
				if fl.ranges.Load() != int64(4*helpers) {
					t.Errorf("%d levels, %d helpers: %d ranges posted, want %d", levels, helpers, fl.ranges.Load(), 4*helpers)
				}
				stolen := 0
				for k := range helpers {
					stolen += 4 * min(steal, (k+1)*chunks/(helpers+1)-k*chunks/(helpers+1))
				}
				if fl.stolen.Load() != int64(stolen) {
					t.Errorf("%d levels, %d helpers, steal %d: the run took %d chunks, want %d", levels, helpers, steal, fl.stolen.Load(), stolen)
				}
				for j := range want {
					if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
						t.Fatalf("%d levels, %d helpers, steal %d: result %d is %v, in one worker %v", levels, helpers, steal, j, got[j], want[j])
					}
				}
			}
		}
	}
}

// TestFarmedRunsIgnoreHelpers checks that a seeded noisy-gd release has the same bits with 0,
// 1 and 3 helpers computing ranges of its passes (0 and 2 with private ranges; 0 and 3 with rows
// held sparse, of which each helper holds its range only), and when
// helpers fail: answer that they cannot, answer garbage, or never answer; and so does its
// training loss, a full pass (the weights lie on the noise's grid, which can hide another
// order of the chunks).
func TestFarmedRunsIgnoreHelpers(t *testing.T) {
	defer func(w time.Duration) { helperWait = w }(helperWait)
	helperWait = 200 * time.Millisecond
	file, schema := farmData(50000, 0)
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
	sparseFile, sparseSchema := farmData(50000, 20)
	wantSparse, _ := farmRun(t, sparseFile, sparseSchema, ranges, 0, nil)
	for _, tc := range []struct {
		name    string
		spec    *fit.Spec
		helpers int
		fault   func(int, []float64) []float64
		sparse  bool
	}{
		{"private ranges, two helpers", ranges, 2, nil, false},
		{"one helper", spec, 1, nil, false},
		{"three helpers", spec, 3, nil, false},
		{"a helper that cannot", spec, 3, cannot, false},
		{"a helper that answers garbage", spec, 3, garbage, false},
		{"a helper that never answers", spec, 3, silent, false},
		{"rows held sparse, private ranges, three helpers holding their ranges", ranges, 3, nil, true},
		{"rows held sparse, a helper that never answers", ranges, 3, silent, true},
	} {
		file, schema, want := file, schema, want
		switch {
		case tc.sparse:
			file, schema, want = sparseFile, sparseSchema, wantSparse
		case tc.spec == ranges:
			want = wantRanges
		}
		got, posted := farmRun(t, file, schema, tc.spec, tc.helpers, tc.fault)
		if posted == 0 {
			t.Errorf("%s: no range was posted to a helper", tc.name)
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
	file, schema := farmData(50000, 0)
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

// TestHelperData checks the data of helpers: a worker holding a helper's part refuses to scale
// or run (its rows may be incomplete), one holding a run's data refuses to help, a range that
// does not exist is refused, and so is a file whose rows are not those the check counted.
func TestHelperData(t *testing.T) {
	file, schema := farmData(20000, 20)
	dataset := Request{ID: 1, Kind: "dataset", Source: "file", Schema: schema, Holdout: 0.2, SplitSeed: 3}
	e, _ := newEngine()
	check := dataset
	check.Check = true
	sum := e.Handle(check, file).Dataset
	part := dataset
	part.Part, part.Parts, part.TrainRows, part.TestRows = 0, 2, sum.Facts.N, sum.Test
	if r := e.Handle(part, file); r.Kind != "dataset" {
		t.Fatalf("a helper's dataset: %+v", r)
	}
	if !e.data.train.Holds(0) || e.data.train.Holds(sum.Facts.N-1) || e.data.test != nil {
		t.Error("the helper holds other rows than the first of two ranges")
	}
	for _, kind := range []string{"scale", "run"} {
		if r := e.Handle(Request{ID: 2, Kind: kind, Spec: farmSpec()}, nil); r.Kind != "error" || !strings.Contains(r.Error, "helper's part") {
			t.Errorf("%s on a helper's data: %+v", kind, r)
		}
	}
	if r := e.Handle(Request{ID: 3, Kind: "help", Spec: farmSpec()}, nil); r.Kind != "helping" {
		t.Errorf("help: %+v", r)
	}
	if a := e.Answer(nil); !slices.Equal(a, []float64{0, 1, 0, 2}) {
		t.Errorf("a helper's first answer %v, want [0 1 0 2]", a)
	}
	if r := e.Handle(dataset, file); r.Kind != "dataset" {
		t.Fatalf("dataset: %+v", r)
	}
	if r := e.Handle(Request{ID: 4, Kind: "help", Spec: farmSpec()}, nil); r.Kind != "error" {
		t.Errorf("help on a run's data: %+v", r)
	}
	for _, bad := range []struct{ part, parts, train, test int }{{1, 2, sum.Facts.N, sum.Test}, {-1, 3, sum.Facts.N, sum.Test}, {0, 1, sum.Facts.N, sum.Test},
		{0, 2, sum.Facts.N + 1, sum.Test - 1}, {0, 2, sum.Facts.N - 1, sum.Test}} {
		req := dataset
		req.Part, req.Parts, req.TrainRows, req.TestRows = bad.part, bad.parts, bad.train, bad.test
		if r := e.Handle(req, file); r.Kind != "error" {
			t.Errorf("range %d of %d, %d training and %d held-out rows: %+v", bad.part, bad.parts, bad.train, bad.test, r.Kind)
		}
	}
}
