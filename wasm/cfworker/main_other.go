//go:build !(js && wasm)

// Command cfworker is privopt's Cloudflare Worker. It runs in Cloudflare's runtime (or
// locally in wrangler's); natively it says so and exits. The API it serves is internal/api.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "cfworker runs in Cloudflare's runtime: ./build.sh worker runs it locally with wrangler")
	os.Exit(2)
}
