//go:build js && wasm

package engine

import (
	"errors"
	"io"
	"runtime/debug"
	"slices"
	"syscall/js"
	"time"
	"unsafe"
)

// Serve answers the worker's messages until the worker is terminated; it never returns.
// A message is a JSON Request, or an object {request, file} whose file is the File the
// request reads; engine-worker.js takes the MessagePorts of a "help" request (port) and of a
// "run" with helpers (ports), over which the helpers and the run exchange ranges of passes and
// their sums (see farm.go), never through the page. Each response, and each message a run or
// a file read posts later, is posted back to the page as JSON. During a run the engine sleeps
// a millisecond each time it posts the run's progress (at most every quarter of a second),
// which hands the worker's event loop a turn: that is how a "cancel" message reaches a running
// fit. A mechanism that reports progress rarely is stopped by the page instead, which
// terminates the worker.
func Serve() {
	// A WebAssembly memory never shrinks, so a worker keeps the largest heap it ever had: the
	// collector runs when the heap has grown by a quarter since the last collection (Go's
	// default is double), which bounds a worker's memory by about 1.25 times the rows it holds
	// (their blocks hold no pointers, so a collection costs little).
	debug.SetGCPercent(gcPercent)
	e := New(func(r Response) { js.Global().Call("postMessage", Encode(r)) }, func() { time.Sleep(time.Millisecond) })
	// A run's messages to its helpers and theirs go over MessagePorts that engine-worker.js
	// holds, with the helpers' states: privoptFarm(bytes) hands it a pass and returns own,
	// privoptSteal() returns a chunk the run takes from a helper's shared queue (−1: none), and
	// pass(0, bytes) hands Go the helpers' sums of the pass (the link's answer); pass(−1, bytes)
	// answers the run this worker helps, and pass(−2) computes the chunks it takes from its
	// shared queue (helpShared). bytes is a Uint8Array of float64s (see farm.go).
	var replies chan<- []float64 // the farm of the run under way, or nil
	e.link = func(_ Request, r chan<- []float64) farmLink {
		replies = r
		return farmLink{
			post:  func(msg []float64) int { return js.Global().Call("privoptFarm", bytesOf(msg)).Int() },
			steal: func() int { return js.Global().Call("privoptSteal").Int() },
			end:   func() { replies = nil },
		}
	}
	pass := js.FuncOf(func(_ js.Value, args []js.Value) any {
		switch args[0].Int() {
		case -2:
			helpShared(e)
			return nil
		case -1:
			return bytesOf(e.Answer(floatsOf(args[1])))
		}
		msg := floatsOf(args[1])
		select {
		case replies <- msg: // a nil channel: no run takes it
		default:
		}
		return nil
	})
	handler := js.FuncOf(func(_ js.Value, args []js.Value) any {
		msg := args[0]
		var f File
		if msg.Type() == js.TypeObject {
			if file := msg.Get("file"); file.Truthy() {
				f = &jsFile{v: file}
			}
			msg = msg.Get("request")
		}
		if msg.Type() != js.TypeString {
			js.Global().Call("postMessage", Encode(Response{Kind: "error", Error: "engine: a message must be a JSON request"}))
			return nil
		}
		if limit := js.Global().Get("privoptWorkerMemory"); limit.Type() == js.TypeNumber {
			e.memory = int64(limit.Float()) // a lower limit, set by a browser test
		}
		js.Global().Call("postMessage", e.HandleJSON(msg.String(), f))
		return nil
	})
	js.Global().Call("privoptEngineStarted", handler, pass)
	select {} // keep the Go runtime alive to serve messages
}

// helpShared computes the chunks that this worker takes, as a helper, from the front of its
// shared queue (engine-worker.js): privoptTake() takes a batch ([tag, first, count], null
// when none is left), privoptHead() returns the pass of the batch taken (a pass ends only when
// every chunk taken is done: it is read again when the tag changes), and privoptDone(tag,
// first, count, sums) takes the batch's sums (Answer's, or [seq, 0] when it cannot).
func helpShared(e *Engine) {
	g := js.Global()
	var head []float64
	tag := -1
	for {
		t := g.Call("privoptTake")
		if t.IsNull() {
			return
		}
		tg, first, k := t.Index(0).Int(), t.Index(1).Int(), t.Index(2).Int()
		if tg != tag {
			head, tag = floatsOf(g.Call("privoptHead")), tg
		}
		msg := slices.Clone(head)
		if len(msg) > 4 {
			msg[3], msg[4] = float64(first), float64(first+k)
		}
		g.Call("privoptDone", tg, first, k, bytesOf(e.Answer(msg)))
	}
}

// floatsOf returns the float64s whose bytes a Uint8Array holds.
func floatsOf(b js.Value) []float64 {
	v := make([]float64, b.Length()/8)
	if len(v) > 0 {
		js.CopyBytesToGo(unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 8*len(v)), b)
	}
	return v
}

// bytesOf returns a Uint8Array of v's bytes.
func bytesOf(v []float64) js.Value {
	b := js.Global().Get("Uint8Array").New(8 * len(v))
	if len(v) > 0 {
		js.CopyBytesToJS(b, unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 8*len(v)))
	}
	return b
}

// jsFile is a browser File (a Blob), read with the worker's FileReaderSync.
type jsFile struct{ v js.Value }

func (f *jsFile) Name() string { return f.v.Get("name").String() }
func (f *jsFile) Size() int64  { return int64(f.v.Get("size").Float()) }

// Open returns a reader of the file's bytes.
func (f *jsFile) Open() (io.Reader, error) {
	frs := js.Global().Get("FileReaderSync")
	if !frs.Truthy() {
		return nil, errors.New("engine: this browser cannot read files in a worker (no FileReaderSync)")
	}
	return &blobReader{blob: f.v, size: f.Size(), reader: frs.New()}, nil
}

// blobChunk is how many bytes a blobReader reads from the browser at a time.
const blobChunk = 1 << 20

// blobReader reads a Blob in chunks of blobChunk bytes, so a large file is never held whole.
type blobReader struct {
	blob   js.Value
	reader js.Value // a FileReaderSync
	size   int64
	off    int64
	buf    []byte // the unread part of the last chunk
}

func (r *blobReader) Read(p []byte) (int, error) {
	if len(r.buf) == 0 {
		if r.off >= r.size {
			return 0, io.EOF
		}
		end := min(r.off+blobChunk, r.size)
		var err error
		r.buf, err = r.chunk(r.off, end)
		if err != nil {
			return 0, err
		}
		r.off = end
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}

// chunk reads bytes [start, end) of the blob; the browser's errors (a file removed or changed
// since it was chosen) become Go errors.
func (r *blobReader) chunk(start, end int64) (b []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = errors.New("engine: the browser could not read the file (was it changed or removed since it was chosen?)")
		}
	}()
	buf := r.reader.Call("readAsArrayBuffer", r.blob.Call("slice", float64(start), float64(end)))
	arr := js.Global().Get("Uint8Array").New(buf)
	b = make([]byte, arr.Get("length").Int())
	js.CopyBytesToGo(b, arr)
	return b, nil
}
