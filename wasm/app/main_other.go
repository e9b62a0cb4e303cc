//go:build !(js && wasm)

// Command app is privopt's page, compiled to app.wasm. It only runs in a browser; natively
// it says so and exits.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "app runs in a browser: build it with GOOS=js GOARCH=wasm (./build.sh build), then ./build.sh serve")
	os.Exit(2)
}
