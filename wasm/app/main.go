//go:build js && wasm

// Command app is privopt's WebAssembly module (app.wasm). It has two roles:
//
//   - on the page, it renders the Vugu components of package ui into index.html (with
//     wasm/render, which writes only what changed) and runs the compute engine in Web Workers;
//   - in such a worker (web/engine-worker.js), it is the engine (package wasm/engine).
//
// One module for both roles means the browser downloads and compiles it once: the page hands
// its compiled module to each worker.
package main

import (
	"encoding/json"
	"syscall/js"
	"time"

	"github.com/vugu/vugu"

	"github.com/privopt/privopt/ui"
	"github.com/privopt/privopt/wasm/engine"
	"github.com/privopt/privopt/wasm/render"
)

func main() {
	if js.Global().Get("document").IsUndefined() {
		engine.Serve()
		return
	}
	renderer := render.New(render.Browser(), "#app")
	buildEnv, err := vugu.NewBuildEnv(renderer.EventEnv())
	if err != nil {
		panic(err)
	}
	h := &host{env: renderer.EventEnv(), workers: map[int]*worker{}, files: map[string]js.Value{}}
	root := ui.NewRoot(pageQuery(), h)
	h.app = root.App
	h.start()
	loc := js.Global().Get("location")
	root.App.BaseURL = loc.Get("origin").String() + loc.Get("pathname").String()
	root.App.Start()
	go h.tick()
	for ok := true; ok; ok = renderer.EventWait() {
		if err := renderer.Render(buildEnv.RunBuild(root)); err != nil {
			panic(err)
		}
	}
}

// pageQuery returns the parameters of the page's URL, decoded by the browser's
// URLSearchParams; of a repeated name the first value counts, as with URLSearchParams.get.
func pageQuery() map[string]string {
	params := js.Global().Get("URLSearchParams").New(js.Global().Get("location").Get("search"))
	entries := js.Global().Get("Array").Call("from", params)
	q := make(map[string]string, entries.Length())
	for i := entries.Length() - 1; i >= 0; i-- {
		q[entries.Index(i).Index(0).String()] = entries.Index(i).Index(1).String()
	}
	return q
}

// markReady sets data-ready on <html>, which the browser tests wait for.
func markReady() {
	js.Global().Get("document").Get("documentElement").Call("setAttribute", "data-ready", "true")
}

// cancelGrace is how long a cancelled run may take to stop by itself before its worker is
// terminated (a run checks for cancellation between steps, which can be far apart).
const cancelGrace = 3 * time.Second

// maxRunWorkers caps the workers that run fits at once: each holds its own copy of the data.
const maxRunWorkers = 8

// spareWorkers is how many workers beyond the planning worker and the run workers are started
// with the page, to replace workers terminated by a cancel without a request.
const spareWorkers = 1

// host is the ui.Host of the page: engine workers, the chosen files and downloads.
//
// A Web Worker fetches its scripts when it is created, so every worker the page may need is
// created while the page loads (the planning worker, one per run slot, and spares); a worker
// receives the compiled module, and starts the Go engine, only when it is first used. The
// page is ready once every worker has its scripts and the planning engine has answered.
type host struct {
	env     vugu.EventEnv
	app     *ui.App
	workers map[int]*worker // by slot: 0 plans, 1 … Workers() run fits
	spares  []*worker       // created, not yet given a slot
	created int             // workers created
	scripts int             // workers whose scripts have loaded
	pong    bool            // the planning engine has answered its ping
	ready   bool
	files   map[string]js.Value // the File chosen last for each request Source (handles: the bytes stay in the browser)
}

// worker is one engine Web Worker.
type worker struct {
	v                  js.Value
	slot               int // −1 while spare
	onmessage, onerror js.Func
	run                int // the ID of the run in progress, 0 for none
}

// start creates the workers the page will use: the planning worker, one per run slot and the
// spares.
func (h *host) start() {
	for range 1 + h.Workers() + spareWorkers {
		h.spares = append(h.spares, h.spawn())
	}
}

// spawn creates a worker, which loads its scripts and waits for the module.
func (h *host) spawn() *worker {
	wk := &worker{slot: -1, v: js.Global().Get("Worker").New("engine-worker.js")}
	h.created++
	wk.onmessage = js.FuncOf(func(_ js.Value, args []js.Value) any {
		data := args[0].Get("data")
		if data.Type() == js.TypeObject && data.Get("loaded").Truthy() {
			h.scripts++
			h.checkReady()
			return nil
		}
		var resp engine.Response
		if data.Type() != js.TypeString || json.Unmarshal([]byte(data.String()), &resp) != nil {
			resp = engine.Response{Kind: "error", Error: "unreadable message from the engine"}
		}
		if resp.ID != 0 && resp.ID == wk.run && resp.Kind != "progress" && resp.Kind != "started" && resp.Kind != "cancelling" {
			wk.run = 0
		}
		h.deliver(wk.slot, resp)
		if wk.slot == 0 && resp.Kind == "pong" {
			h.pong = true
			h.checkReady()
		}
		return nil
	})
	wk.onerror = js.FuncOf(func(_ js.Value, args []js.Value) any {
		h.env.Lock()
		h.app.EngineStatus = "a worker failed: " + args[0].Get("message").String()
		h.env.UnlockRender()
		return nil
	})
	wk.v.Set("onmessage", wk.onmessage)
	wk.v.Set("onerror", wk.onerror)
	return wk
}

// checkReady marks the page ready once every worker has its scripts and the engine answered.
func (h *host) checkReady() {
	if !h.ready && h.pong && h.scripts == h.created {
		h.ready = true
		markReady()
	}
}

// Send posts a request to the worker of slot w, starting its engine first if needed, with
// boot.js's privoptPost, which gives a "help" request and the run it helps the two ends of a
// MessageChannel.
func (h *host) Send(w int, req engine.Request) {
	wk := h.worker(w)
	msg, err := json.Marshal(req)
	if err != nil {
		panic(err) // a Request holds only encodable values
	}
	if req.Kind == "run" {
		wk.run = req.ID
	}
	help := 0
	if req.Kind == "help" {
		help = req.ID
	}
	helpers := make([]any, len(req.Helpers))
	for i, id := range req.Helpers {
		helpers[i] = id
	}
	js.Global().Call("privoptPost", wk.v, string(msg), h.files[req.Source], help, helpers)
	if req.Kind == "cancel" {
		h.watch(w, req.Target)
	}
}

// worker returns the worker of slot w, giving the slot a spare worker (or, when none is
// left, a new one) and handing it the page's compiled module and the demo's files (fetched
// while the page loaded) when the slot has none.
func (h *host) worker(w int) *worker {
	if wk, ok := h.workers[w]; ok {
		return wk
	}
	var wk *worker
	if len(h.spares) > 0 {
		wk, h.spares = h.spares[0], h.spares[1:]
	} else {
		wk = h.spawn()
	}
	wk.slot = w
	start := js.Global().Get("Object").New()
	start.Set("module", js.Global().Get("privoptWasmModule"))
	start.Set("demo", js.Global().Get("privoptDemo"))
	wk.v.Call("postMessage", start)
	h.workers[w] = wk
	return wk
}

// deliver hands a response to the app and renders, except for progress: runs post progress
// several times a second each, and tick renders it twice a second, however many runs there are.
func (h *host) deliver(w int, resp engine.Response) {
	h.env.Lock()
	h.app.Receive(w, resp)
	if resp.Kind == "progress" {
		h.env.UnlockOnly()
		return
	}
	h.env.UnlockRender()
}

// watch terminates the worker of slot w if run is still in progress there after cancelGrace,
// and answers the run "cancelled"; the slot gets another worker at its next request.
func (h *host) watch(w, run int) {
	var timeout js.Func
	timeout = js.FuncOf(func(js.Value, []js.Value) any {
		timeout.Release()
		wk, ok := h.workers[w]
		if !ok || wk.run != run {
			return nil
		}
		wk.v.Call("terminate")
		wk.onmessage.Release()
		wk.onerror.Release()
		delete(h.workers, w)
		h.deliver(w, engine.Response{ID: run, Kind: "cancelled"})
		return nil
	})
	js.Global().Call("setTimeout", timeout, cancelGrace.Milliseconds())
}

// Workers is the number of the machine's logical cores (navigator.hardwareConcurrency), at
// most maxRunWorkers.
func (h *host) Workers() int {
	n := js.Global().Get("navigator").Get("hardwareConcurrency")
	if n.Type() != js.TypeNumber || n.Int() < 1 {
		return 1
	}
	return min(n.Int(), maxRunWorkers)
}

// TakeFile keeps the first file of a file input's change event or of a drop event for the
// requests whose Source is source.
func (h *host) TakeFile(e vugu.DOMEvent, source string) (string, int64, bool) {
	files := js.Value(e.JSEventTarget()).Get("files") // vugu's js.Value is syscall/js's
	if !files.Truthy() {
		if dt := js.Value(e.JSEvent()).Get("dataTransfer"); dt.Truthy() {
			files = dt.Get("files")
		}
	}
	if !files.Truthy() || files.Get("length").Int() == 0 {
		return "", 0, false
	}
	f := files.Index(0)
	h.files[source] = f
	return f.Get("name").String(), int64(f.Get("size").Float()), true
}

// Download offers content as a file of media type mime to save, through a Blob URL that is
// revoked a minute later.
func (h *host) Download(name, mime string, content []byte) {
	array := js.Global().Get("Uint8Array").New(len(content))
	js.CopyBytesToJS(array, content)
	blob := js.Global().Get("Blob").New([]any{array}, map[string]any{"type": mime})
	url := js.Global().Get("URL").Call("createObjectURL", blob)
	doc := js.Global().Get("document")
	a := doc.Call("createElement", "a")
	a.Set("href", url)
	a.Set("download", name)
	doc.Get("body").Call("appendChild", a)
	a.Call("click")
	a.Call("remove")
	var revoke js.Func
	revoke = js.FuncOf(func(js.Value, []js.Value) any {
		js.Global().Get("URL").Call("revokeObjectURL", url)
		revoke.Release()
		return nil
	})
	js.Global().Call("setTimeout", revoke, 60000)
}

// Now is the current time.
func (h *host) Now() time.Time { return time.Now() }

// tick renders twice a second while the engine works (App.Working), so that progress and the
// elapsed time advance. It sleeps rather than ranging over time.Tick, whose ticker machinery
// costs the page's WebAssembly 1.6 kB compressed.
func (h *host) tick() {
	for {
		time.Sleep(500 * time.Millisecond)
		h.env.RLock()
		working := h.app.Working()
		h.env.RUnlock()
		if working {
			h.env.Lock()
			h.env.UnlockRender()
		}
	}
}
