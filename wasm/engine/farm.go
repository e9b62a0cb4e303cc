package engine

import (
	"errors"
	"slices"

	"github.com/privopt/privopt/pkg/core/data"

	"github.com/privopt/privopt/internal/fit"
	"github.com/privopt/privopt/pkg/core/loss"
	"github.com/privopt/privopt/pkg/core/mech"
)

// A run farms its full passes out to helpers: other workers that hold its data, asked by a
// "help" request to build the loss the run fits over their rows encoded as the run encodes them
// (runLoss). The chunks of the training rows are divided into parts = helpers + 1 contiguous
// ranges, part p being the chunks ⌊p·chunks/parts⌋ to ⌊(p + 1)·chunks/parts⌋ − 1; helper p
// keeps only the rows of its range when it reads the file (Request.Parts, data.Part),
// and the last range is the run's own. For each pass of the run's loss (loss.Pass), the running
// worker hands the pass to its link, which asks each helper that is ready and idle for its
// range and answers own, the first chunk of the run's range; the running worker computes the
// chunks [own, chunks) meanwhile, then takes the helpers' chunks' sums from the link and
// computes any chunk they did not give; the pass adds every chunk's sums in chunk order, so the
// release has the bits of a run on one worker.
//
// Where the page's workers share memory (a cross-origin isolated page: SharedArrayBuffer), the
// helpers' ranges are shared queues of chunks instead of fixed ranges: a helper takes the chunks
// of its range from the front, in batches of a quarter of what is left (helpShared), and the
// run, once it has computed its own range, takes what is left from the back one chunk at a time
// (steal) and computes them itself, so that a slowed helper holds a pass up by one small batch
// at most; the link's answer then holds the chunks the helpers computed. engine-worker.js
// describes the shared memory.
//
// The messages are arrays of float64 (in the page, Uint8Arrays of their bytes, which
// engine-worker.js posts over MessagePorts that the page hands to the run and to each helper,
// never through the page's thread):
//
//	run → link, a pass:                  [seq, op, clip, width, chunks, rows, θ...]
//	link → helper, its range of it:      [seq, op, clip, first, last, rows, θ...]
//	helper → link, the range's sums:     [seq, 1, scalars (last − first)..., vectors ((last − first)·width)...], or [seq, 0]
//	helper → link, first, once it holds the loss (Answer of an empty message): [0, 1, part, parts], or [0, 0]
//	link → run, the sums of the pass:    [seq, got (own), scalars (own), vectors (own·width)], or [seq]
//
// seq (from 1) numbers the run's passes; rows is the loss's Len, which a helper checks against
// its own; got[c] is 1 when the link holds chunk c's sums. A helper that answers [seq, 0], or
// [0, 0] first, or a range of other parts than helpers + 1, or garbage, is never given a range
// again; one that has not answered its last range gets no new one. The link answers every pass,
// with what it holds after 10 s at most (engine-worker.js's helperWait); the run stops waiting
// for it when the run is cancelled. The chunks whose sums the run lacks it computes itself:
// whatever a helper does, the release is the same, at worst slower.

// farmLink is a run's side of its link to its helpers.
type farmLink struct {
	post  func([]float64) int // hands a pass to the link and returns own (0: no helper takes a range)
	steal func() int          // a chunk of a helper's range of the pass that the run computes, or −1 for none left; nil: none ever
	end   func()              // ends the link, after the run
}

// farm is a run's loss.Runner: it computes the passes of the run's loss with its helpers.
type farm struct {
	farmLink
	ref     loss.Loss       // the run's loss: the passes of any other loss run here
	replies chan []float64  // the link's answers, which it sends without blocking
	done    <-chan struct{} // closed when the run is cancelled
	seq     float64         // the number of the last pass farmed out
	stolen  []bool          // the chunks of the pass under way that the run took from its helpers
}

// Sums computes the chunks of the passes of f's loss with the helpers (loss.Runner).
func (f *farm) Sums(p *loss.Pass, scalars, vectors []float64) bool {
	n, w := p.Chunks(), p.Width()
	if !loss.Same(p.Loss, f.ref) {
		return false
	}
	f.seq++
	own := f.post(append([]float64{f.seq, float64(p.Op), p.Clip, float64(w), float64(n), float64(p.Loss.Len())}, p.W...))
	if own <= 0 || own > n {
		return false
	}
	p.Sums(own, n, scalars[own:], vectors[own*w:])
	f.stolen = slices.Grow(f.stolen[:0], own)[:own]
	clear(f.stolen)
	for k := 0; f.steal != nil && k <= own; k++ { // until the link has none left (the link answers then)
		c := f.steal()
		if c < 0 {
			break
		} else if c < own && !f.stolen[c] {
			p.Sums(c, c+1, scalars[c:], vectors[c*w:])
			f.stolen[c] = true
		}
	}
	var m []float64
	for len(m) == 0 || m[0] != f.seq { // skipping the answers to earlier passes
		select {
		case m = <-f.replies:
		case <-f.done:
			m = []float64{f.seq}
		}
	}
	got := len(m) == 1+own*(w+2)
	for c := range own {
		if f.stolen[c] {
			continue
		} else if got && m[1+c] == 1 {
			scalars[c] = m[1+own+c]
			copy(vectors[c*w:(c+1)*w], m[1+2*own+c*w:])
		} else {
			p.Sums(c, c+1, scalars[c:], vectors[c*w:])
		}
	}
	return true
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
	e.helping = helping{}
	held, err := e.data, errNoData
	if held != nil && held.parts == 0 {
		err = errors.New("engine: this worker holds the data of a run, not of a helper (a \"dataset\" request with Parts)")
	} else if held != nil {
		var d *dataset
		var l loss.Loss
		if d, err = held.scaledFor(*req.Spec, req.Scaled); err == nil {
			if l, err = runLoss(*req.Spec, held.summary.Facts, d); err == nil {
				e.helping = helping{loss: l, rows: d.train, part: held.part, parts: held.parts}
			}
		}
	}
	e.mu.Unlock()
	return Response{Kind: "helping"}, err
}

// helping is the run a worker helps: the loss it builds, over rows that may hold only the
// chunks of its range (part of parts), or none.
type helping struct {
	loss        loss.Loss
	rows        *data.Dataset
	part, parts int
}

// holds reports whether the rows hold the chunks first to last − 1.
func (h helping) holds(first, last int) bool {
	for c := first; c < last; c++ {
		if !h.rows.Holds(c * data.BlockRows) {
			return false
		}
	}
	return true
}

// Answer answers a message of the run this worker helps: a range of a pass ([seq, op, clip,
// first, last, rows, θ...]) with the range's chunks' sums ([seq, 1, scalars..., vectors...]),
// or [seq, 0] when this worker helps no run, the message is not a pass of the loss it holds or
// its rows do not hold the range; an empty message with [0, 1, part, parts] when this worker
// helps a run, as the helper of range part of parts (Request.Parts), [0, 0] when it does not.
func (e *Engine) Answer(msg []float64) []float64 {
	e.mu.Lock()
	h := e.helping
	e.mu.Unlock()
	out := []float64{0, 0}
	if len(msg) == 0 {
		if h.loss != nil {
			out = []float64{0, 1, float64(h.part), float64(h.parts)}
		}
		return out
	}
	out[0] = msg[0]
	if h.loss == nil || len(msg) < 6 || msg[5] != float64(h.loss.Len()) {
		return out
	}
	p := &loss.Pass{Loss: h.loss, Op: loss.Op(msg[1]), Clip: msg[2], W: msg[6:]}
	first, last := int(msg[3]), int(msg[4])
	if p.Check(first, last) != nil || !h.holds(first, last) {
		return out
	}
	k := last - first
	out = append(out, make([]float64, k*(p.Width()+1))...)
	out[1] = 1
	p.Sums(first, last, out[2:2+k], out[2+k:])
	return out
}
