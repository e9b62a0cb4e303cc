//go:build !js

package loss

import (
	"sync"
	"sync/atomic"
)

// forEachChunk calls f(c) for every c in [0, chunks), on up to Workers() goroutines.
func forEachChunk(chunks int, f func(c int)) {
	w := min(Workers(), chunks)
	if w <= 1 {
		for c := range chunks {
			f(c)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range w {
		wg.Go(func() {
			for c := int(next.Add(1) - 1); c < chunks; c = int(next.Add(1) - 1) {
				f(c)
			}
		})
	}
	wg.Wait()
}
