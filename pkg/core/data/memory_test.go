package data

import (
	"bytes"
	"io"
	"math"
	"runtime"
	"slices"
	"strconv"
	"testing"
)

// generatedRows is an io.Reader that produces a CSV file of n rows on the fly, allocation-free
// after its first row: columns a ∈ {0, …, 100}, b ∈ {−1, −0.5, 0, 0.5}, c ∈ {red, green,
// blue} and y ∈ {0, 1}, each a function of the row's index i.
type generatedRows struct {
	i, n    int
	buf     []byte
	pending []byte
}

var generatedColors = []string{"red", "green", "blue"}

// generatedSchema is the schema of generatedRows: D = 2 + 3 + 1 (bias) = 6.
const generatedSchema = `{"privopt_schema": 1, "norm": {"p": 2, "radius": 1, "bias": 0.5, "fit": "scale"},
 "columns": [
  {"name": "a", "kind": "numeric", "min": 0, "max": 100},
  {"name": "b", "kind": "numeric", "min": -1, "max": 1},
  {"name": "c", "kind": "categorical", "categories": ["red", "green", "blue"]},
  {"name": "y", "kind": "binary-label", "positive": ["1"], "negative": ["0"]}]}`

func (g *generatedRows) Read(p []byte) (int, error) {
	for len(g.pending) == 0 {
		if g.i > g.n {
			return 0, io.EOF
		}
		b := g.buf[:0]
		if g.i == 0 {
			b = append(b, "a,b,c,y\n"...)
		} else {
			r := g.i - 1
			b = strconv.AppendInt(b, int64(r%101), 10)
			b = append(b, ',')
			b = strconv.AppendFloat(b, float64(r%4)/2-1, 'g', -1, 64)
			b = append(b, ',')
			b = append(b, generatedColors[r%3]...)
			b = append(b, ',')
			b = strconv.AppendInt(b, int64(r%2), 10)
			b = append(b, '\n')
		}
		g.buf, g.pending = b, b
		g.i++
	}
	k := copy(p, g.pending)
	g.pending = g.pending[k:]
	return k, nil
}

// TestEncodeMemoryBounded streams 10^6 generated rows, which Encode holds dense, and checks,
// with runtime.MemStats, that it allocates no more than the encoded matrix, the labels twice
// (read, then gathered), the rows' entries as they are read (4 entries a row: 4 bytes each for
// its column, 8 for the numeric columns' 2 values and the bias, 8 for the one-hot value, and 8
// bytes a row for their starts) and 4 MiB for its buffers (1 MiB of which is the
// read buffer), and that after it returns only the dataset stays live. One allocation per row,
// or holding the text, would add at least 16 MB and fail.
func TestEncodeMemoryBounded(t *testing.T) {
	const n = 1_000_000
	s := mustSchema(t, generatedSchema)
	g := &generatedRows{n: n}
	runtime.GC()
	var before, after, live runtime.MemStats
	runtime.ReadMemStats(&before)
	ds, diag, err := Encode(g, s)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&live)
	const slack = 4 << 20
	matrix := uint64(8 * ds.N * ds.D)
	labels := uint64(8 * ds.N)
	entries := uint64((4*4 + 8*3 + 8 + 8) * ds.N)
	if got := after.TotalAlloc - before.TotalAlloc; got > matrix+2*labels+entries+slack {
		t.Errorf("Encode allocated %d bytes; want at most the matrix (%d) + labels twice (%d) + entries (%d) + %d", got, matrix, 2*labels, entries, slack)
	}
	if got := int64(live.HeapAlloc) - int64(before.HeapAlloc); got > int64(matrix+labels+slack) {
		t.Errorf("%d bytes stay live after Encode; want at most the matrix (%d) + labels (%d) + %d", got, matrix, labels, slack)
	}
	t.Logf("allocated %d, live %d, matrix %d", after.TotalAlloc-before.TotalAlloc, int64(live.HeapAlloc)-int64(before.HeapAlloc), matrix)
	if ds.N != n || ds.D != 6 || diag.Rows != n {
		t.Fatalf("N = %d, D = %d, Rows = %d; want %d, 6, %d", ds.N, ds.D, diag.Rows, n, n)
	}
	// Spot-check the values of a few rows against the generator.
	scale := math.Sqrt((1 - 0.5*0.5) / 3) // Norm: c = R·sqrt((1 − (b/R)²)/m) with m = 3 columns

	for _, i := range []int{0, 1, 2, 3, 12345, n - 1} {
		want := make([]float64, 6)
		want[0] = scale * float64(i%101) / 100
		want[1] = scale * (float64(i%4)/2 - 1 + 1) / 2
		want[2+i%3] = scale
		want[5] = 0.5
		for k := range want {
			if !closeTo(ds.Row(i, nil)[k], want[k], 1e-15) {
				t.Fatalf("row %d = %v, want %v", i, ds.Row(i, nil), want)
			}
		}
		if wantY := float64(2*(i%2) - 1); ds.Y[i] != wantY {
			t.Fatalf("Y[%d] = %v, want %v", i, ds.Y[i], wantY)
		}
	}
}

// oneHotSchema is the schema of oneHotGenerated: D = 40 + 1 (bias), 5 entries a row, held
// sparse.
const oneHotSchema = `{"privopt_schema": 1, "norm": {"p": 2, "radius": 1, "bias": 0.5, "fit": "scale"},
 "columns": [
  {"name": "p", "kind": "categorical", "categories": ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"]},
  {"name": "q", "kind": "categorical", "categories": ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"]},
  {"name": "r", "kind": "categorical", "categories": ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"]},
  {"name": "s", "kind": "categorical", "categories": ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"]},
  {"name": "y", "kind": "binary-label", "positive": ["1"], "negative": ["0"]}]}`

// TestEncodeSparseMemoryBounded streams 10^6 generated one-hot rows, which Encode holds sparse,
// and checks with runtime.MemStats that it allocates no more than the rows' entries (4 bytes
// each for its column, the one-hot entries' value and the bias 8 bytes a row each: 36 bytes a
// row, where a value an entry would take 60), their starts (8 bytes a row), the labels twice (read, then gathered) and 4 MiB, and
// that after it returns only the dataset stays live: never the dense matrix (41 entries a row,
// 328 MB here), nor a store of the columns' values beside the entries.
func TestEncodeSparseMemoryBounded(t *testing.T) {
	const n = 1_000_000
	s := mustSchema(t, oneHotSchema)
	g := &oneHotGenerated{generatedRows{n: n}}
	runtime.GC()
	var before, after, live runtime.MemStats
	runtime.ReadMemStats(&before)
	ds, _, err := Encode(g, s)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&live)
	if ds.Sparse == nil || ds.N != n || ds.D != 41 {
		t.Fatalf("%d rows of %d features, held sparse: %v", ds.N, ds.D, ds.Sparse != nil)
	}
	const slack = 4 << 20
	entries := uint64((4*5 + 8 + 8) * n)
	starts := uint64(8 * (n + len(ds.Sparse.Blocks)))
	labels := uint64(8 * n)
	if got := after.TotalAlloc - before.TotalAlloc; got > entries+starts+2*labels+slack {
		t.Errorf("Encode allocated %d bytes; want at most the entries (%d) + starts (%d) + labels twice (%d) + %d", got, entries, starts, 2*labels, slack)
	}
	if got := int64(live.HeapAlloc) - int64(before.HeapAlloc); got > int64(entries+starts+labels+slack) {
		t.Errorf("%d bytes stay live after Encode; want at most the entries (%d) + starts (%d) + labels (%d) + %d", got, entries, starts, labels, slack)
	}
	t.Logf("allocated %d, live %d, entries %d", after.TotalAlloc-before.TotalAlloc, int64(live.HeapAlloc)-int64(before.HeapAlloc), entries)
	scale := math.Sqrt((1 - 0.5*0.5) / 4)
	for _, i := range []int{0, 1, 4095, 4096, 777777, n - 1} {
		want := make([]float64, 41)
		for k := range 4 {
			want[10*k+(i>>k)%10] = scale
		}
		want[40] = 0.5
		if got := ds.Row(i, nil); !slices.Equal(got, want) {
			t.Fatalf("row %d = %v, want %v", i, got, want)
		}
		if wantY := float64(2*(i%2) - 1); ds.Y[i] != wantY {
			t.Fatalf("Y[%d] = %v, want %v", i, ds.Y[i], wantY)
		}
	}
}

// TestFootprint: the estimate of a file's encoding from its size and line length gives the
// number of rows of a file of equal lines exactly, what its rows and labels take (the capacity
// of every slice: for rows held sparse, 4 bytes an entry, 8 a value, 8 a start and 8 a label) within 1 %
// (a block has one more start than rows), and bounds what Encode allocates in all (Peak), for
// rows held sparse, dense, and dense as float32.
func TestFootprint(t *testing.T) {
	const n = 100_000
	for _, tc := range []struct {
		schema string
		rows   io.Reader
		sparse bool
		f32    bool
	}{{oneHotSchema, &oneHotGenerated{generatedRows{n: n}}, true, false}, {generatedSchema, &generatedRows{n: n}, false, false},
		{generatedSchema, &generatedRows{n: n}, false, true}} {
		text, err := io.ReadAll(tc.rows)
		if err != nil {
			t.Fatal(err)
		}
		s := mustSchema(t, tc.schema)
		header := int64(bytes.IndexByte(text, '\n') + 1)
		lineBytes := float64(int64(len(text))-header) / n
		f := s.Footprint(int64(len(text))-header, lineBytes, tc.f32)
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		ds, _, err := EncodeWith(bytes.NewReader(text), s, Options{Float32: tc.f32})
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		if f.Rows != n || ds.Sparse.Dense == tc.sparse || ds.Sparse.Float32 != tc.f32 {
			t.Fatalf("%d rows (encoded sparse: %v), want %d (%v)", f.Rows, !ds.Sparse.Dense, n, tc.sparse)
		}
		held := int64(8 * cap(ds.Y))
		for _, b := range ds.Sparse.Blocks {
			held += int64(8*cap(b.Start) + 4*cap(b.Col) + 8*cap(b.Val) + 4*cap(b.HotCol) + 8*cap(b.HotVal) + 4*cap(b.Val32))
		}
		if math.Abs(float64(held-f.Bytes)) > 0.01*float64(f.Bytes) {
			t.Errorf("sparse %v, float32 %v: the rows take %d bytes, estimated %d", tc.sparse, tc.f32, held, f.Bytes)
		}
		if got := int64(after.TotalAlloc-before.TotalAlloc) - 4<<20; got > f.Peak {
			t.Errorf("sparse %v, float32 %v: Encode allocated %d bytes (beyond its 4 MiB of buffers), more than the estimated peak %d", tc.sparse, tc.f32, got, f.Peak)
		}
	}
}
