//go:build js && wasm

// Command app is privopt's WebAssembly module (app.wasm). It has two roles:
//
//   - on the page, it renders the Vugu components of package ui into index.html and starts
//     the compute engine in a Web Worker;
//   - in that worker (web/engine-worker.js), it is the engine (package wasm/engine).
//
// One module for both roles means the browser downloads and compiles it once: the page hands
// its compiled module to the worker.
package main

import (
	"encoding/json"
	"syscall/js"

	"github.com/vugu/vugu"
	"github.com/vugu/vugu/domrender"

	"github.com/privopt/privopt/ui"
	"github.com/privopt/privopt/wasm/engine"
)

func main() {
	if js.Global().Get("document").IsUndefined() {
		engine.Serve()
		return
	}
	renderer, err := domrender.New("#app")
	if err != nil {
		panic(err)
	}
	defer renderer.Release()
	buildEnv, err := vugu.NewBuildEnv(renderer.EventEnv())
	if err != nil {
		panic(err)
	}
	root := ui.NewRootFromQuery(pageQuery())
	startEngine(renderer.EventEnv(), root)
	for ok := true; ok; ok = renderer.EventWait() {
		if err := renderer.Render(buildEnv.RunBuild(root)); err != nil {
			panic(err)
		}
	}
}

// pageQuery returns the parameters of the page's URL (?embed=curve&mu=1 shows the
// privacy-curve widget alone), decoded by the browser's URLSearchParams; of a repeated name
// the first value counts, as with URLSearchParams.get.
func pageQuery() map[string]string {
	params := js.Global().Get("URLSearchParams").New(js.Global().Get("location").Get("search"))
	entries := js.Global().Get("Array").Call("from", params)
	q := make(map[string]string, entries.Length())
	for i := entries.Length() - 1; i >= 0; i-- {
		q[entries.Index(i).Index(0).String()] = entries.Index(i).Index(1).String()
	}
	return q
}

// startEngine starts the engine's Web Worker, hands it the compiled module and pings it; the
// answer sets root.EngineStatus and marks the page ready (data-ready on <html>), which the
// browser tests wait for.
func startEngine(env vugu.EventEnv, root *ui.Root) {
	worker := js.Global().Get("Worker").New("engine-worker.js")
	setStatus := func(status string) {
		env.Lock()
		root.EngineStatus = status
		env.UnlockRender()
	}
	worker.Set("onmessage", js.FuncOf(func(_ js.Value, args []js.Value) any {
		var resp engine.Response
		data := args[0].Get("data")
		if data.Type() != js.TypeString || json.Unmarshal([]byte(data.String()), &resp) != nil {
			resp = engine.Response{Kind: "error", Error: "unreadable message from the engine"}
		}
		if resp.Kind == "pong" {
			setStatus("ready (version " + resp.Version + "; it answers ping only for now)")
		} else {
			setStatus("failed: " + resp.Error)
		}
		js.Global().Get("document").Get("documentElement").Call("setAttribute", "data-ready", "true")
		return nil
	}))
	worker.Set("onerror", js.FuncOf(func(_ js.Value, args []js.Value) any {
		setStatus("failed to start: " + args[0].Get("message").String())
		return nil
	}))
	worker.Call("postMessage", js.Global().Get("privoptWasmModule"))
	ping, _ := json.Marshal(engine.Request{ID: 1, Kind: "ping"})
	worker.Call("postMessage", string(ping))
}
