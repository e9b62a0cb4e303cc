package data

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
)

// indexedDataset has n rows of 2 features (i, −i) and Y = i, so each row says where it came from.
func indexedDataset(n int) *Dataset {
	ds := &Dataset{N: n, D: 2, X: make([]float64, 2*n), Y: make([]float64, n), Features: []string{"i", "-i"},
		P: 2, Radius: 1, Label: Label{Name: "y", Kind: LabelClass, Classes: []string{"a"}}, Categorical: []int{1}}
	for i := range n {
		ds.X[2*i], ds.X[2*i+1], ds.Y[i] = float64(i), -float64(i), float64(i)
	}
	return ds
}

func TestSplit(t *testing.T) {
	tests := []struct {
		n        int
		fraction float64
		nTest    int
	}{
		{10, 0.25, 3}, // 2.5 rounds away from zero
		{10, 0.5, 5},
		{2, 0.5, 1},
		{1000, 0.2, 200},
		{7, 0.9, 6}, // 6.3 rounds to 6
	}
	for _, tc := range tests {
		ds := indexedDataset(tc.n)
		train, test, err := Split(ds, tc.fraction, rand.NewPCG(1, 2))
		if err != nil {
			t.Fatalf("Split(%d rows, %v): %v", tc.n, tc.fraction, err)
		}
		if test.N != tc.nTest || train.N != tc.n-tc.nTest || len(test.X) != 2*tc.nTest || len(train.Y) != train.N {
			t.Fatalf("Split(%d rows, %v): %d training and %d test rows; want %d test rows", tc.n, tc.fraction, train.N, test.N, tc.nTest)
		}
		// A partition of the rows, each part in the original order, rows intact.
		all := append(slices.Clone(train.Y), test.Y...)
		slices.Sort(all)
		for i, y := range all {
			if y != float64(i) {
				t.Fatalf("the parts do not partition the rows: %v", all)
			}
		}
		for _, part := range []*Dataset{train, test} {
			if !slices.IsSorted(part.Y) {
				t.Fatalf("a part is not in the original order: %v", part.Y)
			}
			for i := range part.N {
				if r := part.Row(i, nil); r[0] != part.Y[i] || r[1] != -part.Y[i] {
					t.Fatalf("row %d = %v does not match its label %v", i, r, part.Y[i])
				}
			}
			if !slices.Equal(part.Features, ds.Features) || part.P != 2 || part.Radius != 1 || !reflect.DeepEqual(part.Label, ds.Label) ||
				!slices.Equal(part.Categorical, ds.Categorical) {
				t.Fatalf("a part lost the description: %+v", part)
			}
		}
		// No memory shared with ds.
		train.X[0], train.Features[0], test.Label.Classes[0], test.Categorical[0] = 99, "changed", "changed", 0
		if ds.X[0] != 0 || ds.Features[0] != "i" || ds.Label.Classes[0] != "a" || ds.Categorical[0] != 1 {
			t.Fatal("a part shares memory with the input")
		}
	}
}

func TestSplitDeterministic(t *testing.T) {
	ds := indexedDataset(100)
	_, a, _ := Split(ds, 0.3, rand.NewChaCha8([32]byte{1}))
	_, b, _ := Split(ds, 0.3, rand.NewChaCha8([32]byte{1}))
	_, c, _ := Split(ds, 0.3, rand.NewChaCha8([32]byte{2}))
	if !reflect.DeepEqual(a, b) {
		t.Fatal("the same seed gave two different splits")
	}
	if slices.Equal(a.Y, c.Y) {
		t.Fatal("two seeds gave the same split of 100 rows (probability 1/C(100, 30) for a correct split)")
	}
}

func TestSplitErrors(t *testing.T) {
	tests := []struct {
		n        int
		fraction float64
		want     string
	}{
		{10, 0, "the test fraction 0 is not in (0, 1)"},
		{10, 1, "the test fraction 1 is not in (0, 1)"},
		{10, -0.5, "not in (0, 1)"},
		{10, math.NaN(), "the test fraction NaN is not in (0, 1)"},
		{1, 0.5, "leaves 1 test rows and 0 training rows"},
		{10, 0.01, "a test fraction of 0.01 of 10 rows leaves 0 test rows and 10 training rows; each needs at least one"},
	}
	for _, tc := range tests {
		_, _, err := Split(indexedDataset(tc.n), tc.fraction, rand.NewPCG(1, 1))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "data: split: ") {
			t.Errorf("Split(%d rows, %v) error %v; want %q", tc.n, tc.fraction, err, tc.want)
		}
	}
}

// TestSplitUniform draws 50,000 splits of 5 rows into 2 test rows and checks that each of the
// C(5, 2) = 10 test sets is equally likely: Pearson's χ² with 9 degrees of freedom exceeds 45
// with probability 9.2e-7 for a correct split, so the test fails with that probability.
func TestSplitUniform(t *testing.T) {
	const draws = 50_000
	src := rand.NewPCG(7, 11)
	counts := map[[2]float64]int{}
	ds := indexedDataset(5)
	for range draws {
		_, test, err := Split(ds, 0.4, src)
		if err != nil {
			t.Fatal(err)
		}
		counts[[2]float64{test.Y[0], test.Y[1]}]++
	}
	if len(counts) != 10 {
		t.Fatalf("%d distinct test sets, want 10", len(counts))
	}
	chi2, expected := 0.0, draws/10.0
	for _, c := range counts {
		chi2 += (float64(c) - expected) * (float64(c) - expected) / expected
	}
	if chi2 > 45 {
		t.Fatalf("χ² = %v > 45 over the 10 test sets: %v", chi2, counts)
	}
}

// TestSplitByContentKeepsNeighbours adds a row to files of 2 to 400 rows and checks that the
// training sets of the two files are equal or differ by that row only, and so are their test
// sets (the add/remove relation on each side), while Split's fixed-size subsets of the same
// files can differ by a replacement; and that the test share is near the fraction.
func TestSplitByContentKeepsNeighbours(t *testing.T) {
	rowsOf := func(ds *Dataset) []float64 { return append([]float64(nil), ds.Y...) }
	splitFails := false
	for n := 2; n <= 400; n += 7 {
		small, big := indexedDataset(n), indexedDataset(n+1) // big adds the row n
		for key := range uint64(3) {
			train0, test0, err0 := SplitByContent(small, 0.3, key)
			train1, test1, err1 := SplitByContent(big, 0.3, key)
			if err0 != nil || err1 != nil {
				continue // no row to train on: refused, and nothing to compare
			}
			added := func(a, b []float64) bool { // b is a, or a with the value n inserted
				return slices.Equal(a, b) || slices.Equal(a, slices.DeleteFunc(slices.Clone(b), func(v float64) bool { return v == float64(n) }))
			}
			if !added(rowsOf(train0), rowsOf(train1)) || !added(rowsOf(test0), rowsOf(test1)) {
				t.Fatalf("n = %d, key %d: the sets of neighbouring files are not neighbours: train %v / %v, test %v / %v",
					n, key, rowsOf(train0), rowsOf(train1), rowsOf(test0), rowsOf(test1))
			}
		}
		tr0, _, _ := Split(small, 0.3, rand.NewPCG(1, 2))
		tr1, _, _ := Split(big, 0.3, rand.NewPCG(1, 2))
		if tr0.N == tr1.N && !slices.Equal(rowsOf(tr0), rowsOf(tr1)) {
			splitFails = true
		}
	}
	if !splitFails {
		t.Error("Split never gave training sets that differ by a replacement: the test does not show why SplitByContent is needed")
	}
	_, test, err := SplitByContent(indexedDataset(20000), 0.2, 9)
	if err != nil || math.Abs(float64(test.N)/20000-0.2) > 0.02 {
		t.Errorf("20,000 rows at 0.2: %d in the test set, %v (7 standard deviations: a false failure about 1e-11 for a key)", test.N, err)
	}
	// One row, and no rows: never refused (that would tell whether a row is in the file), the
	// row on one side; over 64 keys on each side (a false failure 2^-63 at a fraction 0.5).
	sides := [2]int{}
	for key := range uint64(64) {
		train, test, err := SplitByContent(indexedDataset(1), 0.5, key)
		if err != nil || train.N+test.N != 1 {
			t.Fatalf("one row, key %d: %v, %v, %v", key, train, test, err)
		}
		sides[test.N]++
		if train, test, err := SplitByContent(indexedDataset(0), 0.5, key); err != nil || train.N != 0 || test.N != 0 {
			t.Fatalf("no rows, key %d: %v, %v, %v", key, train, test, err)
		}
	}
	if sides[0] == 0 || sides[1] == 0 {
		t.Errorf("one row over 64 keys: %d times trained on, %d times held out", sides[0], sides[1])
	}
}

// TestSplitByContentWithCopies inserts, at every position of a file of 4 repeated rows (401
// rows), one more copy of a row, and checks that the training and test sets of the two files
// are equal or differ by that row only (as multisets: copies are the same row), and that the
// copies are split like distinct rows (not all on one side).
func TestSplitByContentWithCopies(t *testing.T) {
	mk := func(labels []float64) *Dataset {
		ds := &Dataset{N: len(labels), D: 1, X: make([]float64, len(labels)), Y: labels, Features: []string{"x"}, P: 2, Radius: 1}
		for i, y := range labels {
			ds.X[i] = float64(int(y) % 2)
		}
		return ds
	}
	base := make([]float64, 401)
	for i := range base {
		base[i] = float64(i % 4)
	}
	sorted := func(ds *Dataset) []float64 { return slices.Sorted(slices.Values(ds.Y)) }
	train0, test0, err := SplitByContent(mk(base), 0.25, 5)
	if err != nil || test0.N < 60 || test0.N > 140 {
		t.Fatalf("401 rows of 4 kinds: %v test rows (%v); want about 100", test0, err)
	}
	for pos := 0; pos <= len(base); pos += 13 {
		more := slices.Insert(slices.Clone(base), pos, 2)
		train1, test1, err := SplitByContent(mk(more), 0.25, 5)
		if err != nil {
			t.Fatal(err)
		}
		for _, side := range [][2][]float64{{sorted(train0), sorted(train1)}, {sorted(test0), sorted(test1)}} {
			a, b := side[0], side[1]
			if !slices.Equal(a, b) && !slices.Equal(slices.Insert(slices.Clone(a), sort.SearchFloat64s(a, 2), 2), b) {
				t.Fatalf("a copy inserted at %d: the sets differ by more than that row", pos)
			}
		}
	}
}
