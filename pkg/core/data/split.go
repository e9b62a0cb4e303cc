package data

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"slices"

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
	inTest, err := RandomHoldout(ds.N, testFraction, src)
	if err != nil {
		return nil, nil, err
	}
	train, test = ds.divide(inTest, false)
	return train, test, nil
}

// RandomHoldout returns the rows that Split holds out of n rows: inTest[i] says whether row i
// is in the test set.
func RandomHoldout(n int, testFraction float64, src rng.Source) (inTest []bool, err error) {
	if !(testFraction > 0 && testFraction < 1) {
		return nil, fmt.Errorf("data: split: the test fraction %v is not in (0, 1)", testFraction)
	}
	nTest := int(math.Round(testFraction * float64(n)))
	if nTest < 1 || nTest > n-1 {
		return nil, fmt.Errorf("data: split: a test fraction of %v of %d rows leaves %d test rows and %d training rows; each needs at least one",
			testFraction, n, nTest, n-nTest)
	}
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	inTest = make([]bool, n)
	for i := range nTest {
		j := i + int(rng.Uint64N(src, uint64(n-i)))
		perm[i], perm[j] = perm[j], perm[i]
		inTest[perm[i]] = true
	}
	return inTest, nil
}

// SplitByContent divides ds into a training and a test set by each row's content: the k-th
// copy of a row (its encoded features and label; k counts the rows with exactly the same bits
// up to it) goes to the test set when a keyed 64-bit FNV-1a hash of its bits and k, read as a
// number in [0, 1), is below testFraction. Both sets keep the rows in their order in ds and
// share no memory with it.
//
// This is the split the add/remove relation needs: adding or removing a row moves no row of
// other content, and among copies of the added row only the count on each side can change,
// by at most one, so the training sets of two neighbouring files are neighbours (or equal),
// and so are their test sets, for every key. Split's fixed-size random subset does not have
// this property under add/remove (the test set's size follows the number of rows, so adding a
// row can move another row between the sets, and the training sets then differ by a
// replacement); under replace-one it does, and it keeps the sets' sizes public, which this
// split does not (they depend on the rows). Counting copies makes repeated rows split like
// distinct ones. Either set may be empty (a few rows may all hash to one side), and that is
// never an error: under add/remove whether a side is empty depends on the rows, so a split
// that refused it would tell whether a row is in the file (the mechanisms run on no rows).
func SplitByContent(ds *Dataset, testFraction float64, key uint64) (train, test *Dataset, err error) {
	inTest, err := ContentHoldout(ds, testFraction, key)
	if err != nil {
		return nil, nil, err
	}
	train, test = ds.divide(inTest, false)
	return train, test, nil
}

// ContentHoldout returns the rows that SplitByContent holds out of ds: inTest[i] says whether
// row i is in the test set.
func ContentHoldout(ds *Dataset, testFraction float64, key uint64) (inTest []bool, err error) {
	if !(testFraction > 0 && testFraction < 1) {
		return nil, fmt.Errorf("data: split: the test fraction %v is not in (0, 1)", testFraction)
	}
	copyIndex := ds.copyIndices()
	inTest = make([]bool, ds.N)
	x := make([]float64, ds.D)
	for i := range ds.N {
		x = ds.Row(i, x)
		inTest[i] = rowHash(key, x, ds.Y[i], copyIndex[i]) < testFraction
	}
	return inTest, nil
}

// Divide moves the rows of ds into a training set (inTest[i] false) and a test set (inTest[i]
// true), each in the rows' order in ds, as Split and SplitByContent copy them after choosing
// inTest (RandomHoldout, ContentHoldout). Rows held in blocks (Sparse) move one block at a
// time, so that dividing them never holds more than ds's rows and a block; ds then holds no
// rows (N = 0).
func (ds *Dataset) Divide(inTest []bool) (train, test *Dataset) {
	return ds.divide(inTest, true)
}

// copyIndices returns, for each row, how many earlier rows have exactly its bits (features and
// label): rows sorted stably by their bits, then counted within each run of equal rows.
func (ds *Dataset) copyIndices() []int {
	order := make([]int, ds.N)
	for i := range order {
		order[i] = i
	}
	var a, b []float64 // rows held dense, written out
	cmpRows := func(i, j int) int {
		if c := cmp.Compare(math.Float64bits(ds.Y[i]), math.Float64bits(ds.Y[j])); c != 0 {
			return c
		}
		if ds.Sparse != nil && !ds.Sparse.Dense {
			return ds.Sparse.compare(i, j)
		}
		a, b = ds.Row(i, a), ds.Row(j, b)
		for k := range a {
			if c := cmp.Compare(math.Float64bits(a[k]), math.Float64bits(b[k])); c != 0 {
				return c
			}
		}
		return 0
	}
	slices.SortStableFunc(order, cmpRows)
	index := make([]int, ds.N)
	for k := 1; k < len(order); k++ {
		if cmpRows(order[k-1], order[k]) == 0 {
			index[order[k]] = index[order[k-1]] + 1
		}
	}
	return index
}

// rowHash returns the keyed FNV-1a hash of a row's bits and its copy index (the key, the
// label, the copy index and every feature, each as 8 little-endian bytes), as a number in
// [0, 1) with 53 bits.
func rowHash(key uint64, x []float64, y float64, copyIndex int) float64 {
	h := fnv.New64a()
	var b [8]byte
	word := func(v uint64) {
		binary.LittleEndian.PutUint64(b[:], v)
		h.Write(b[:])
	}
	word(key)
	word(math.Float64bits(y))
	word(uint64(copyIndex))
	for _, v := range x {
		word(math.Float64bits(v))
	}
	return float64(h.Sum64()>>11) * 0x1p-53
}

// divide copies the rows of ds into a training set (inTest false) and a test set (inTest
// true), each in the rows' order in ds; with move set, ds's blocks of sparse rows are released
// as soon as their rows are copied, and ds is left with no rows.
func (ds *Dataset) divide(inTest []bool, move bool) (train, test *Dataset) {
	nTest := 0
	for _, t := range inTest {
		if t {
			nTest++
		}
	}
	train, test = ds.subset(ds.N-nTest), ds.subset(nTest)
	var trainRows, testRows *sparseBuilder
	if ds.Sparse != nil {
		hots := ds.Sparse.Hots
		width := hots // a row's entries: its one-hot ones and the most others a row has
		for _, blk := range ds.Sparse.Blocks {
			for r := range len(blk.Start) - 1 {
				width = max(width, hots+blk.Start[r+1]-blk.Start[r])
			}
		}
		trainRows, testRows = builderLike(ds.Sparse, width), builderLike(ds.Sparse, width)
	}
	nTrain, nTest := 0, 0
	var col []int32
	var val []float64
	for i := range ds.N {
		set, rows, k := train, trainRows, nTrain
		if inTest[i] {
			set, rows, k = test, testRows, nTest
			nTest++
		} else {
			nTrain++
		}
		set.Y[k] = ds.Y[i]
		if rows == nil {
			copy(set.X[k*ds.D:(k+1)*ds.D], ds.X[i*ds.D:(i+1)*ds.D])
			continue
		}
		col, val = ds.Sparse.appendEntries(i, col[:0], val[:0], ^0)
		rows.add(col, val)
		if move && (i+1)%BlockRows == 0 {
			ds.Sparse.Blocks[i/BlockRows] = SparseBlock{}
		}
	}
	if trainRows != nil {
		train.Sparse, test.Sparse = trainRows.done(), testRows.done()
	}
	if move {
		ds.N, ds.X, ds.Sparse, ds.Y = 0, nil, nil, nil
	}
	return train, test
}

// subset returns an empty dataset of n rows with the description of ds (copied): room for its
// labels, and for its features when ds holds them dense.
func (ds *Dataset) subset(n int) *Dataset {
	out := *ds
	out.N = n
	out.X, out.Sparse = nil, nil
	if ds.Sparse == nil {
		out.X = make([]float64, n*ds.D)
	}
	out.Y = make([]float64, n)
	out.Features = append([]string(nil), ds.Features...)
	out.Categorical = append([]int(nil), ds.Categorical...)
	out.Label.Classes = append([]string(nil), ds.Label.Classes...)
	return &out
}
