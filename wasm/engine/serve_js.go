//go:build js && wasm

package engine

import "syscall/js"

// Serve answers the worker's messages until the worker is terminated. Each message is a JSON
// Request; each answer, posted back to the page, is a JSON Response. It never returns.
func Serve() {
	handler := js.FuncOf(func(_ js.Value, args []js.Value) any {
		js.Global().Call("postMessage", HandleJSON(args[0].String()))
		return nil
	})
	js.Global().Call("privoptEngineStarted", handler)
	select {} // keep the Go runtime alive to serve messages
}
