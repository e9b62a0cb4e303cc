package data

import (
	"fmt"
	"github.com/privopt/privopt/pkg/rng"
	"math"
)

// Split divides ds into a training and a test set: the test set is a uniformly random subset
// of round(testFraction·N) rows (halves round away from zero), drawn by a partial
// Fisher–Yates shuffle with unbiased bounded integers from src (Lemire's multiply-and-reject
// method), and the training set is the rest. Both keep the rows in their order in ds and
// share no memory with it. The result is a deterministic function of ds, testFraction and the
// numbers src returns; src is any source of uniform 64-bit words (pkg/rng's sources, or
// math/rand/v2's ChaCha8 and PCG).
//
// testFraction must be in (0, 1) and leave at least one row on each side.
func Split(ds *Dataset, testFraction float64, src rng.Source) (train, test *Dataset, err error) {
	if !(testFraction > 0 && testFraction < 1) {
		return nil, nil, fmt.Errorf("data: split: the test fraction %v is not in (0, 1)", testFraction)
	}
	nTest := int(math.Round(testFraction * float64(ds.N)))
	if nTest < 1 || nTest > ds.N-1 {
		return nil, nil, fmt.Errorf("data: split: a test fraction of %v of %d rows leaves %d test rows and %d training rows; each needs at least one",
			testFraction, ds.N, nTest, ds.N-nTest)
	}
	perm := make([]int, ds.N)
	for i := range perm {
		perm[i] = i
	}
	inTest := make([]bool, ds.N)
	for i := range nTest {
		j := i + int(rng.Uint64N(src, uint64(ds.N-i)))
		perm[i], perm[j] = perm[j], perm[i]
		inTest[perm[i]] = true
	}
	train, test = ds.subset(ds.N-nTest), ds.subset(nTest)
	nTrain, nTest := 0, 0
	for i := range ds.N {
		if inTest[i] {
			copy(test.Row(nTest), ds.Row(i))
			test.Y[nTest] = ds.Y[i]
			nTest++
		} else {
			copy(train.Row(nTrain), ds.Row(i))
			train.Y[nTrain] = ds.Y[i]
			nTrain++
		}
	}
	return train, test, nil
}

// subset returns an empty dataset of n rows with the description of ds (copied).
func (ds *Dataset) subset(n int) *Dataset {
	out := *ds
	out.N = n
	out.X = make([]float64, n*ds.D)
	out.Y = make([]float64, n)
	out.Features = append([]string(nil), ds.Features...)
	out.Categorical = append([]int(nil), ds.Categorical...)
	out.Label.Classes = append([]string(nil), ds.Label.Classes...)
	return &out
}
