//go:build js

package loss

// forEachChunk calls f(c) for every c in [0, chunks), in order. WebAssembly runs Go on one
// thread, so goroutines would only add their cost (and 7 kB of gzip to the page's module, for
// the scheduler code they link): the bits are those of any number of workers.
func forEachChunk(chunks int, f func(c int)) {
	for c := range chunks {
		f(c)
	}
}
