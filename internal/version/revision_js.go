//go:build js

package version

// rev is the revision, set by the build (build.sh: -ldflags -X): reading the toolchain's
// record, as other builds do, would link its parser into the page's WebAssembly (3 kB gzip).
var rev string

// revision returns rev.
func revision() string { return rev }
