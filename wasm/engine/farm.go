package engine

import (
	"errors"
	"time"

	"github.com/privopt/privopt/internal/fit"
	"github.com/privopt/privopt/pkg/core/loss"
	"github.com/privopt/privopt/pkg/core/mech"
)

// A run farms its full passes out to helpers: other workers that hold the same data, asked by a
// "help" request to build the loss the run fits, over their own copy of the rows encoded as the
// run encodes them (runLoss). The running worker splits the chunks of each pass (loss.Pass)
// into contiguous ranges, posts one range to each helper, computes the last range itself, and
// waits for the helpers' chunks' sums; the pass then adds every chunk's sums in chunk order, so
// the release has the bits of a run on one worker.
//
// The messages between a run and a helper are arrays of float64 (Float64Arrays in the page,
// posted over a MessagePort that the page hands to both, never through the page's thread):
//
//	helper → run, once it holds the loss:  [0, 1]; or [0, 0] when it cannot help
//	run → helper, a range of a pass:       [seq, op, clip, first, last, rows, θ...]
//	helper → run, the range's sums:        [seq, 1, scalars (last − first)..., vectors (last − first)·width...]; or [seq, 0]
//
// seq (from 1) numbers the run's passes; rows is the loss's Len, which the helper checks
// against its own. A helper that answers [·, 0], a malformed answer, or no answer within
// helperWait (or waitFactor times what the running worker took for its own range, if longer)
// is dropped for the rest of the run, and its range computed by the running worker: the release
// is then the same, only slower; so is a range whose answer a cancelled run stops waiting
// for. A helper that is not ready yet when a pass starts gets no range of it.

// helperWait and waitFactor bound how long a pass waits for a helper (see above).
var helperWait = 5 * time.Second

const waitFactor = 50

// A helper's states, in a farm.
const (
	helperStarting = iota // not ready yet
	helperReady
	helperDropped
)

// farm is a run's loss.Runner: it computes the passes of the run's loss with its helpers.
type farm struct {
	ref     loss.Loss          // the run's loss: the passes of any other loss run here
	post    []func([]float64)  // post[i] posts a message to helper i
	state   []int8             // helper i's state
	span    [][2]int           // helper i's range of chunks in the pass under way
	pending []bool             // whether the pass under way still needs helper i's range
	replies chan helperMessage // the helpers' messages (deliver)
	done    <-chan struct{}    // closed when the run is cancelled
	seq     float64            // the number of the last pass farmed out
}

// helperMessage is a message from helper i.
type helperMessage struct {
	i   int
	msg []float64
}

// newFarm returns a farm of the loss ref with n helpers, whose messages deliver hands it, for
// a run that done ends (a pass then stops waiting for its helpers); its post functions are set
// next.
func newFarm(ref loss.Loss, n int, done <-chan struct{}) *farm {
	return &farm{ref: ref, state: make([]int8, n), span: make([][2]int, n), pending: make([]bool, n),
		replies: make(chan helperMessage, 16*n), done: done}
}

// deliver hands the farm a message from helper i. It never blocks: a message that finds the
// queue full is dropped (the pass then computes that range itself).
func (f *farm) deliver(i int, msg []float64) {
	select {
	case f.replies <- helperMessage{i, msg}:
	default:
	}
}

// Sums computes the chunks of the passes of f's loss with the ready helpers (loss.Runner).
func (f *farm) Sums(p *loss.Pass, scalars, vectors []float64) bool {
	if !loss.Same(p.Loss, f.ref) {
		return false
	}
	for len(f.replies) > 0 {
		f.take(<-f.replies)
	}
	parts := 1
	for _, s := range f.state {
		if s == helperReady {
			parts++
		}
	}
	if parts == 1 {
		return false
	}
	n, w := p.Chunks(), p.Width()
	f.seq++
	msg := append([]float64{f.seq, float64(p.Op), p.Clip, 0, 0, float64(p.Loss.Len())}, p.W...)
	k := 0
	for i, s := range f.state {
		if s == helperReady {
			f.span[i] = [2]int{k * n / parts, (k + 1) * n / parts}
			f.pending[i] = true
			msg[3], msg[4] = float64(f.span[i][0]), float64(f.span[i][1])
			f.post[i](msg)
			k++
		}
	}
	own := k * n / parts
	start := time.Now()
	p.Sums(own, n, scalars[own:], vectors[own*w:])
	timeout := time.After(max(helperWait, waitFactor*time.Since(start)))
	for waiting := k; waiting > 0; {
		var m helperMessage
		select {
		case m = <-f.replies:
		case <-timeout: // no answer in time: the ranges still pending are computed here
			waiting = 0
			continue
		case <-f.done: // the run was cancelled: likewise
			waiting = 0
			continue
		}
		if f.take(m) != f.seq || !f.pending[m.i] {
			continue // a helper's first message, or the answer to an earlier pass
		}
		waiting--
		first, last := f.span[m.i][0], f.span[m.i][1]
		if m.msg[1] == 1 && len(m.msg) == 2+(last-first)*(w+1) {
			copy(scalars[first:last], m.msg[2:])
			copy(vectors[first*w:last*w], m.msg[2+last-first:])
			f.pending[m.i] = false
		}
	}
	for i, pending := range f.pending {
		if pending { // no answer, or a malformed one: helper i is dropped
			first, last := f.span[i][0], f.span[i][1]
			p.Sums(first, last, scalars[first:last], vectors[first*w:last*w])
			f.state[i], f.pending[i] = helperDropped, false
		}
	}
	return true
}

// take notes a helper's message and returns its first number (−1 when it is malformed): a
// helper's first message ([0, 1] or [0, 0]) sets its state.
func (f *farm) take(m helperMessage) float64 {
	if len(m.msg) < 2 {
		return -1
	}
	if m.msg[0] == 0 && f.state[m.i] == helperStarting {
		f.state[m.i] = helperDropped
		if m.msg[1] == 1 {
			f.state[m.i] = helperReady
		}
	}
	return m.msg[0]
}

// runLoss builds the loss that a run of spec s fits on d's rows, as the run's mechanism builds
// it (mech.LossOver), for the data facts held.
func runLoss(s fit.Spec, facts fit.Facts, d *dataset) (loss.Loss, error) {
	p, err := fit.Problem(s, facts)
	if err != nil {
		return nil, err
	}
	b, err := fit.Budget(s)
	if err != nil {
		return nil, err
	}
	return mech.LossOver(b, p, d.train)
}

// help answers a "help" request: this worker builds the loss of a run of the request's spec
// (with the run's schema as used, Scaled) over the data it holds, and answers the run's ranges
// of passes with Answer.
func (e *Engine) help(req Request) (Response, error) {
	if req.Spec == nil {
		return Response{}, errors.New("engine: help needs a spec")
	}
	e.mu.Lock()
	e.helping = nil
	held, err := e.data, errNoData
	var l loss.Loss
	if held != nil {
		var d *dataset
		if d, err = held.scaledFor(*req.Spec, req.Scaled); err == nil {
			l, err = runLoss(*req.Spec, held.summary.Facts, d)
		}
	}
	e.helping = l
	e.mu.Unlock()
	return Response{Kind: "helping"}, err
}

// Answer answers a message of the run this worker helps: a range of a pass ([seq, op, clip,
// first, last, rows, θ...]) with the range's chunks' sums ([seq, 1, scalars..., vectors...]),
// or [seq, 0] when this worker helps no run or the message is not a pass of the loss it holds;
// an empty message with [0, 1] when this worker helps a run, [0, 0] when it does not.
func (e *Engine) Answer(msg []float64) []float64 {
	e.mu.Lock()
	l := e.helping
	e.mu.Unlock()
	out := []float64{0, 0}
	if len(msg) > 0 {
		out[0] = msg[0]
	}
	if l == nil {
		return out
	}
	if len(msg) == 0 {
		out[1] = 1
		return out
	}
	if len(msg) < 6 {
		return out
	}
	p := &loss.Pass{Loss: l, Op: loss.Op(msg[1]), Clip: msg[2], W: msg[6:]}
	first, last := int(msg[3]), int(msg[4])
	if p.Check() != nil || msg[5] != float64(l.Len()) || msg[1] != float64(p.Op) || !(0 <= first && first <= last && last <= p.Chunks()) || msg[3] != float64(first) || msg[4] != float64(last) {
		return out
	}
	k := last - first
	out = append(out, make([]float64, k*(p.Width()+1))...)
	out[1] = 1
	p.Sums(first, last, out[2:2+k], out[2+k:])
	return out
}
