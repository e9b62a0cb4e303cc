package data

import (
	"cmp"
	"fmt"
	"math"
)

// BlockRows is the number of rows of a block of Sparse rows (the last block may hold fewer):
// the rows of one chunk of the losses' full passes (package loss), so that every chunk of a
// pass reads one block.
const BlockRows = 1 << 12

// SparseRows reports whether n rows of d entries, nnz of them stored, are held sparse: when at
// most a quarter of the entries are stored and d fits an int32. Encode holds rows sparse when
// SparseRows(1, D, m + 1) for rows made from m numeric and categorical columns (and the bias);
// a linear-model loss reads rows held dense sparse when their non-zero entries pass it
// (loss.SparseRows), which Encode's rows held sparse would too: the loss reads the rows of a
// file as it read them when Encode held every row dense.
func SparseRows(n, d, nnz int) bool {
	return d <= 1<<30 && 4*nnz <= n*d
}

// Sparse holds the rows of a dataset by their stored entries, in blocks of BlockRows
// consecutive rows, so that a dataset grows one block at a time (never copying the rows before)
// and no slice is larger than a block. A row stores every entry whose bits are not +0 (a one-hot
// row stores one entry per column of the schema, not one per category), and may store entries
// that are +0 (Rescale keeps a row's entries where it writes a zero): the row's value in every
// other column is +0. Dataset.Row gives back the dense rows, bit for bit.
type Sparse struct {
	Blocks []SparseBlock
}

// SparseBlock holds the entries of up to BlockRows rows: row r of the block (r < len(Start)−1)
// has the value Val[k] in column Col[k] for k in [Start[r], Start[r+1]), its columns
// increasing. Start[0] = 0, Start is non-decreasing and its last entry is len(Col) = len(Val).
// The losses' kernels (package loss) read these slices without checking bounds, after Check.
type SparseBlock struct {
	Start []int
	Col   []int32
	Val   []float64
}

// Check returns an error unless s holds n rows of d columns as SparseBlock says: BlockRows
// rows in every block but the last, which holds the rest, and every block's Start, Col and Val
// consistent, with columns increasing within each row and in [0, d). A block whose slices are
// all nil is absent (see Holds) and passes.
func (s *Sparse) Check(n, d int) error {
	if d > math.MaxInt32 || len(s.Blocks) != (n+BlockRows-1)/BlockRows {
		return fmt.Errorf("%d blocks of sparse rows of %d columns, for %d rows", len(s.Blocks), d, n)
	}
	for b, blk := range s.Blocks {
		if blk.Start == nil && blk.Col == nil && blk.Val == nil {
			continue // a block the rows leave out (EncodePart)
		}
		rows := min(BlockRows, n-b*BlockRows)
		ok := len(blk.Start) == rows+1 && blk.Start[0] == 0 && blk.Start[rows] == len(blk.Col) && len(blk.Col) == len(blk.Val)
		for r := 0; ok && r < rows; r++ {
			lo, hi := blk.Start[r], blk.Start[r+1]
			ok = lo <= hi && hi <= len(blk.Col)
			prev := int32(-1)
			for k := lo; ok && k < hi; k++ {
				c := blk.Col[k]
				ok, prev = prev < c && int(c) < d, c
			}
		}
		if !ok {
			return fmt.Errorf("block %d of the sparse rows: its row starts are not those of %d rows, or a row's columns are not increasing in [0, %d)", b, rows, d)
		}
	}
	return nil
}

// Holds reports whether s holds row i: false when its block is absent, which only a part of the
// rows (EncodePart) leaves; reading such a row panics.
func (s *Sparse) Holds(i int) bool { return s.Blocks[i/BlockRows].Start != nil }

// Entries returns the columns and values of the entries that row i stores (see Sparse).
func (s *Sparse) Entries(i int) ([]int32, []float64) {
	blk := &s.Blocks[i/BlockRows]
	r := i % BlockRows
	lo, hi := blk.Start[r], blk.Start[r+1]
	return blk.Col[lo:hi:hi], blk.Val[lo:hi:hi]
}

// Row writes row i into x, dense: its value in every one of the len(x) = D columns.
func (s *Sparse) Row(i int, x []float64) {
	clear(x)
	col, val := s.Entries(i)
	for k, c := range col {
		x[c] = val[k]
	}
}

// dense returns the n rows of d columns of s written out row-major, and releases each block
// of s as soon as its rows are written: s holds no rows afterwards.
func (s *Sparse) dense(n, d int) []float64 {
	x := make([]float64, n*d)
	for b := range s.Blocks {
		for i := b * BlockRows; i < min(n, (b+1)*BlockRows); i++ {
			col, val := s.Entries(i)
			for k, c := range col {
				x[i*d+int(c)] = val[k]
			}
		}
		s.Blocks[b] = SparseBlock{}
	}
	return x
}

// compare compares rows i and j as the sequences of the bits of their dense entries
// (math.Float64bits), lexicographically, without writing either out.
func (s *Sparse) compare(i, j int) int {
	ca, va := s.Entries(i)
	cb, vb := s.Entries(j)
	a, b := 0, 0
	for a < len(ca) || b < len(cb) {
		var x, y float64 // +0 where a row stores no entry
		switch {
		case b == len(cb) || a < len(ca) && ca[a] < cb[b]:
			x = va[a]
			a++
		case a == len(ca) || cb[b] < ca[a]:
			y = vb[b]
			b++
		default:
			x, y = va[a], vb[b]
			a++
			b++
		}
		if c := cmp.Compare(math.Float64bits(x), math.Float64bits(y)); c != 0 {
			return c
		}
	}
	return 0
}

// sparseBuilder appends rows to a Sparse, one block at a time.
type sparseBuilder struct {
	s     *Sparse
	width int // the most entries a row has: a block's room is BlockRows·width
	rows  int // the rows of the last block
}

// newSparseBuilder returns a builder of rows of at most width entries.
func newSparseBuilder(width int) *sparseBuilder {
	return &sparseBuilder{s: &Sparse{}, width: width, rows: BlockRows}
}

// add appends a row of the entries val in columns col (increasing, at most width of them).
func (b *sparseBuilder) add(col []int32, val []float64) {
	if b.rows == BlockRows {
		b.trim()
		b.s.Blocks = append(b.s.Blocks, SparseBlock{Start: make([]int, 1, BlockRows+1),
			Col: make([]int32, 0, BlockRows*b.width), Val: make([]float64, 0, BlockRows*b.width)})
		b.rows = 0
	}
	blk := &b.s.Blocks[len(b.s.Blocks)-1]
	k := len(blk.Col)
	blk.Col, blk.Val = blk.Col[:k+len(col)], blk.Val[:k+len(col)]
	copy(blk.Col[k:], col)
	copy(blk.Val[k:], val)
	blk.Start = blk.Start[:b.rows+2]
	blk.Start[b.rows+1] = len(blk.Col)
	b.rows++
}

// skip appends a row that s leaves out: every row of its block must be skipped, which leaves
// the block absent (Holds).
func (b *sparseBuilder) skip() {
	if b.rows == BlockRows {
		b.trim()
		b.s.Blocks = append(b.s.Blocks, SparseBlock{})
		b.rows = 0
	}
	b.rows++
}

// trim gives the last block exactly the room its rows and entries take, when they take less
// than seven eighths of the room made for them (a last block of fewer rows, rows of fewer
// entries): copying every block whose rows left out a few +0 entries would double the memory
// that encoding allocates, for an eighth of the room at most.
func (b *sparseBuilder) trim() {
	if len(b.s.Blocks) == 0 {
		return
	}
	blk := &b.s.Blocks[len(b.s.Blocks)-1]
	if len(blk.Col) < cap(blk.Col)/8*7 || len(blk.Start) < cap(blk.Start) {
		out := SparseBlock{Start: make([]int, len(blk.Start)), Col: make([]int32, len(blk.Col)), Val: make([]float64, len(blk.Val))}
		copy(out.Start, blk.Start)
		copy(out.Col, blk.Col)
		copy(out.Val, blk.Val)
		*blk = out
	}
}

// done returns the rows added.
func (b *sparseBuilder) done() *Sparse {
	b.trim()
	return b.s
}
