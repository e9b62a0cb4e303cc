package sampler

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/privopt/privopt/pkg/rng"
)

// RunChains runs independent chains of the proximal sampler in parallel goroutines and returns
// one Result per chain. Each chain gets its own target from newTarget (targets may keep scratch
// space, so they are not shared) and its own stream split from r before any chain starts
// (deterministic for a seeded r, so a seeded run is reproducible whatever the scheduling).
// Cancelling ctx stops every chain; the first error is returned. progress, if not nil, is
// called with the fraction done of the least advanced chain.
func RunChains(ctx context.Context, newTarget func() Target, p Plan, r *rng.Rand, chains int, progress func(fraction float64)) ([]Result, error) {
	if chains < 1 {
		return nil, fmt.Errorf("sampler: the number of chains must be at least 1, got %d", chains)
	}
	streams := make([]*rng.Rand, chains)
	for i := range streams {
		streams[i] = r.Split()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var mu sync.Mutex
	fractions := make([]float64, chains)
	results := make([]Result, chains)
	errs := make([]error, chains)
	var wg sync.WaitGroup
	for i := range chains {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = Run(ctx, newTarget(), p, streams[i], func(f float64) {
				if progress == nil {
					return
				}
				mu.Lock()
				defer mu.Unlock()
				fractions[i] = f
				progress(slices.Min(fractions))
			})
			if errs[i] != nil {
				cancel()
			}
		}()
	}
	wg.Wait()
	// Report the error that stopped the run rather than the cancellations it caused.
	var first error
	for _, err := range errs {
		if err != nil && (first == nil || errors.Is(first, context.Canceled) && !errors.Is(err, context.Canceled)) {
			first = err
		}
	}
	return results, first
}
