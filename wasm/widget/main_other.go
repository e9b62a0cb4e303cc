//go:build !(js && wasm)

// Command widget is privopt's light privacy-curve widget, compiled to widget.wasm. It only
// runs in a browser (widget.html); natively it says so and exits.
package main

import "os"

func main() {
	os.Stderr.WriteString("widget runs in a browser: build it with GOOS=js GOARCH=wasm (./build.sh build), then open widget.html\n")
	os.Exit(2)
}
