package data

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"

	"github.com/privopt/privopt/pkg/rng"
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

// SplitByContent divides ds into a training and a test set by each row's content alone: a row
// (its encoded features and label) goes to the test set when a keyed 64-bit FNV-1a hash of its
// bits, read as a number in [0, 1), is below testFraction. Both sets keep the rows in their
// order in ds and share no memory with it.
//
// This is the split the add/remove relation needs: adding or removing a row never moves
// another, so the training sets of two neighbouring files are neighbours (or equal), and so
// are their test sets, for every key. Split's fixed-size random subset does not have this
// property under add/remove (the test set's size follows the number of rows, so adding a row
// can move another row between the sets, and the training sets then differ by a replacement);
// under replace-one it does, and it keeps the sets' sizes public, which this split does not
// (they depend on the rows). Identical rows go to the same set. An empty side is an error.
func SplitByContent(ds *Dataset, testFraction float64, key uint64) (train, test *Dataset, err error) {
	if !(testFraction > 0 && testFraction < 1) {
		return nil, nil, fmt.Errorf("data: split: the test fraction %v is not in (0, 1)", testFraction)
	}
	inTest := make([]bool, ds.N)
	nTest := 0
	for i := range ds.N {
		if inTest[i] = rowHash(key, ds.Row(i), ds.Y[i]) < testFraction; inTest[i] {
			nTest++
		}
	}
	if nTest == 0 || nTest == ds.N {
		return nil, nil, fmt.Errorf("data: split: a test fraction of %v of %d rows put %d rows in the test set; each side needs at least one", testFraction, ds.N, nTest)
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

// rowHash returns the keyed FNV-1a hash of a row's bits (the key, then every feature and the
// label as IEEE 754 bits, little-endian), as a number in [0, 1) with 53 bits.
func rowHash(key uint64, x []float64, y float64) float64 {
	h := fnv.New64a()
	var b [8]byte
	for _, v := range append([]uint64{key, math.Float64bits(y)}, bitsOf(x)...) {
		binary.LittleEndian.PutUint64(b[:], v)
		h.Write(b[:])
	}
	return float64(h.Sum64()>>11) * 0x1p-53
}

func bitsOf(x []float64) []uint64 {
	out := make([]uint64, len(x))
	for i, v := range x {
		out[i] = math.Float64bits(v)
	}
	return out
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
