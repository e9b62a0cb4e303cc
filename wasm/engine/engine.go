// Package engine is privopt's compute engine: the code that runs in a Web Worker so that long
// computations never freeze the page.
//
// It is linked into app.wasm: wasm/app starts it when the module is run inside a worker
// (web/engine-worker.js), so the browser downloads and compiles one module for both roles.
// The page and the engine exchange JSON messages, a Request in and a Response out. Handle,
// the message handler, is plain Go and tested natively; Serve (js/wasm only) connects it to
// the worker. Today the engine answers "ping" only (the page uses it to know the worker is
// up); fitting models arrives with the mechanisms.
package engine

import (
	"encoding/json"
	"strconv"

	"github.com/privopt/privopt/internal/version"
)

// Request is a message from the page to the engine.
type Request struct {
	// ID is chosen by the page and echoed in the response.
	ID int `json:"id"`
	// Kind names the operation; the only one today is "ping".
	Kind string `json:"kind"`
}

// Response is the engine's answer to one Request.
type Response struct {
	ID   int    `json:"id"`
	Kind string `json:"kind"`
	// Version is the engine's version (in "pong").
	Version string `json:"version,omitempty"`
	// Capabilities lists the request kinds this engine handles (in "pong").
	Capabilities []string `json:"capabilities,omitempty"`
	// Error explains why the request failed (kind "error").
	Error string `json:"error,omitempty"`
}

// Capabilities are the request kinds Handle understands.
var Capabilities = []string{"ping"}

// Handle answers one request.
func Handle(req Request) Response {
	switch req.Kind {
	case "ping":
		return Response{ID: req.ID, Kind: "pong", Version: version.String(), Capabilities: Capabilities}
	default:
		return Response{ID: req.ID, Kind: "error", Error: "engine: unknown request kind " + strconv.Quote(req.Kind)}
	}
}

// HandleJSON answers one request encoded as JSON with the JSON encoding of the response;
// a message that is not a valid Request gets an "error" response.
func HandleJSON(message string) string {
	var req Request
	var resp Response
	if err := json.Unmarshal([]byte(message), &req); err != nil {
		resp = Response{Kind: "error", Error: "engine: malformed request: " + err.Error()}
	} else {
		resp = Handle(req)
	}
	out, err := json.Marshal(resp)
	if err != nil { // a Response holds only strings and ints
		panic(err)
	}
	return string(out)
}
