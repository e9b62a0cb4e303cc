//go:build js && wasm

// Command cfworker is privopt's Cloudflare Worker, compiled with GOOS=js GOARCH=wasm and run
// by syumai/workers. Cloudflare's asset layer serves the static site (../../dist, built by
// ./build.sh site, with the security headers of its _headers file) before the Worker runs;
// every other request reaches the Worker, which answers the data-free JSON API of
// internal/api (/api/curve, /api/calibrate, /api/account) and 404 for anything else.
//
// The Worker links neither Vugu nor the page: it stays small (see ./build.sh worker-size).
package main

import (
	"github.com/syumai/workers"

	"github.com/privopt/privopt/internal/api"
)

func main() {
	workers.Serve(api.Handler{})
}
