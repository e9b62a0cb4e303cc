// Package results holds the adult-lr benchmark's results: their form (Result, Row), their
// table and plot, and the latest ones, written by ./build.sh bench (native.json, wasm.json,
// chromium.json, results.md, accuracy.svg) and embedded in the page's About view, which links
// this package and not the benchmark's harness (package bench).
package results

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
)

//go:embed *.json
var files embed.FS

// timingFiles are the results whose times are compared with the native ones, in table order.
var timingFiles = []string{"wasm.json", "chromium.json"}

// Load returns the native result and the results of the other platforms that were measured
// (WebAssembly in node, Chromium through the page's engine), in that order.
func Load() (native Result, others []Result, err error) {
	if err := read("native.json", &native); err != nil {
		return native, nil, err
	}
	for _, name := range timingFiles {
		var r Result
		err := read(name, &r)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return native, nil, err
		}
		others = append(others, r)
	}
	return native, others, nil
}

func read(name string, into *Result) error {
	raw, err := files.ReadFile(name)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, into); err != nil {
		return fmt.Errorf("results: %s: %w", name, err)
	}
	return nil
}
