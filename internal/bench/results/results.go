// Package results holds the adult-lr benchmark's latest results, written by ./build.sh bench
// (native.json, wasm.json, results.md, accuracy.svg) and embedded in the page's About view.
package results

import (
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/privopt/privopt/internal/bench"
)

var (
	//go:embed native.json
	nativeJSON []byte
	//go:embed wasm.json
	wasmJSON []byte
)

// Load returns the native and the WebAssembly results.
func Load() (native, wasm bench.Result, err error) {
	if err := json.Unmarshal(nativeJSON, &native); err != nil {
		return native, wasm, fmt.Errorf("results: native.json: %w", err)
	}
	if err := json.Unmarshal(wasmJSON, &wasm); err != nil {
		return native, wasm, fmt.Errorf("results: wasm.json: %w", err)
	}
	return native, wasm, nil
}
