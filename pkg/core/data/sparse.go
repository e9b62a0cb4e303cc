package data

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// BlockRows is the number of rows of a block of Sparse rows (the last block may hold fewer):
// the rows of one chunk of the losses' full passes (package loss), so that every chunk of a
// pass reads one block.
const BlockRows = 1 << 12

// SparseRows reports whether n rows of d entries, nnz of them stored, are held sparse: when at
// most a quarter of the entries are stored and d fits an int32. Encode holds rows sparse when
// SparseRows(1, D, m + 1) for rows made from m numeric and categorical columns (and the bias);
// a linear-model loss reads a block of rows held dense sparse when its non-zero entries pass it
// (loss.SparseRows), which every block of Encode's rows held sparse would too: the loss reads the
// rows of a file as it read them when Encode held every row dense.
func SparseRows(n, d, nnz int) bool {
	return d <= 1<<30 && 4*nnz <= n*d
}

// Sparse holds the rows of a dataset by their stored entries, in blocks of BlockRows
// consecutive rows, so that a dataset grows one block at a time (never copying the rows before)
// and no slice is larger than a block. A row stores every entry whose bits are not +0 (a one-hot
// row stores one entry per column of the schema, not one per category), and may store entries
// that are +0 (Rescale keeps a row's entries where it writes a zero): the row's value in every
// other column is +0. Dataset.Row gives back the dense rows, bit for bit.
//
// Every row stores exactly Hots one-hot entries (Encode's rows: one per categorical column)
// apart from its other entries, by their columns only: all of a row's one-hot entries have one
// value, the features' scale (times the row's shrink under FitClip), which the row stores once.
//
// Rows that Dense holds store every one of their D entries, in column order, and a block then
// holds their values only: Val holds the block's rows row-major, D values a row, and Start,
// Col, HotCol and HotVal are nil (Hots is 0). Encode holds rows so when it holds them dense.
// With Float32 too, Val32 holds those values instead of Val, as float32: each the float32
// nearest the value that Encode computed among those no larger in magnitude (rounded toward
// zero, so that no row's norm grows), read back exactly (float64(v)); Val is nil.
type Sparse struct {
	Blocks  []SparseBlock
	Hots    int
	Dense   bool
	Float32 bool
	cols    []int32 // the columns 0, 1, …, D−1 of every row that Dense holds
}

// SparseBlock holds the entries of up to BlockRows rows. Row r of the block (r < len(Start)−1)
// has the value Val[k] in column Col[k] for k in [Start[r], Start[r+1]), and the value HotVal[r]
// in the columns HotCol[r·Hots : (r+1)·Hots] (its one-hot entries); each set of columns is
// increasing, and the two are disjoint. Start[0] = 0, Start is non-decreasing and its last entry
// is len(Col) = len(Val); len(HotCol) is rows·Hots, and HotVal has rows values when Hots > 0 and
// none otherwise. The losses' kernels (package loss) read these slices without checking bounds,
// after Check.
type SparseBlock struct {
	Start  []int
	Col    []int32
	Val    []float64
	HotCol []int32
	HotVal []float64
	Val32  []float32 // the values of rows held dense as float32 (Sparse.Float32)
}

// absent reports whether the block is one the rows leave out (Part).
func (b *SparseBlock) absent() bool {
	return b.Start == nil && b.Col == nil && b.Val == nil && b.HotCol == nil && b.HotVal == nil && b.Val32 == nil
}

// Check returns an error unless s holds n rows of d columns as SparseBlock says: BlockRows
// rows in every block but the last, which holds the rest, and every block's slices consistent,
// with Hots one-hot entries in each row and its columns increasing, disjoint and in [0, d). A
// block whose slices are all nil is absent (see Holds) and passes.
func (s *Sparse) Check(n, d int) error {
	if d > math.MaxInt32 || s.Hots < 0 || len(s.Blocks) != (n+BlockRows-1)/BlockRows ||
		s.Dense && (s.Hots != 0 || len(s.cols) != d) || s.Float32 && !s.Dense {
		return fmt.Errorf("%d blocks of sparse rows of %d columns, %d of them one-hot, for %d rows", len(s.Blocks), d, s.Hots, n)
	}
	for b := range s.Blocks {
		blk := &s.Blocks[b]
		if blk.absent() {
			continue
		}
		rows := min(BlockRows, n-b*BlockRows)
		if s.Dense {
			values := len(blk.Val) + len(blk.Val32)
			if values != rows*d || s.Float32 != (blk.Val == nil) || blk.Start != nil || blk.Col != nil || blk.HotCol != nil || blk.HotVal != nil {
				return fmt.Errorf("block %d of the rows held dense: its slices are not those of %d rows of %d values", b, rows, d)
			}
			continue
		}
		hot := 0
		if s.Hots > 0 {
			hot = rows
		}
		ok := len(blk.Start) == rows+1 && blk.Start[0] == 0 && blk.Start[rows] == len(blk.Col) &&
			len(blk.Col) == len(blk.Val) && len(blk.HotCol) == rows*s.Hots && len(blk.HotVal) == hot
		for r := 0; ok && r < rows; r++ {
			if ok = blk.Start[r] <= blk.Start[r+1] && blk.Start[r+1] <= len(blk.Col); !ok {
				break
			}
			cols, _, hotCol, _ := s.stored(b*BlockRows + r)
			ok = entriesIncreasing(cols, hotCol, d)
		}
		if !ok || blk.Val32 != nil {
			return fmt.Errorf("block %d of the sparse rows: its slices are not those of %d rows with %d one-hot entries each, or a row's columns are not increasing in [0, %d) or repeat", b, rows, s.Hots, d)
		}
	}
	return nil
}

// entriesIncreasing reports whether a row's numeric and one-hot columns, merged, are
// increasing in [0, d): each set increasing in [0, d), and no column in both.
func entriesIncreasing(cols, hotCol []int32, d int) bool {
	return increasing(cols, d) && increasing(hotCol, d) && disjoint(cols, hotCol)
}

// increasing reports whether cols is increasing in [0, d).
func increasing(cols []int32, d int) bool {
	prev := int32(-1)
	for _, c := range cols {
		if c <= prev {
			return false
		}
		prev = c
	}
	return int(prev) < d
}

// disjoint reports whether the increasing a and b have no column in common.
func disjoint(a, b []int32) bool {
	k := 0
	for _, h := range b {
		for k < len(a) && a[k] < h {
			k++
		}
		if k < len(a) && a[k] == h {
			return false
		}
	}
	return true
}

// Holds reports whether s holds row i: false when its block is absent, which only a part of the
// rows (Part) leaves; reading such a row panics.
func (s *Sparse) Holds(i int) bool { return !s.Blocks[i/BlockRows].absent() }

// Entries returns the columns and values of the entries that row i stores (see Sparse), in
// increasing columns, written over col[:0] and val[:0] (which grow when they are short).
func (s *Sparse) Entries(i int, col []int32, val []float64) ([]int32, []float64) {
	return s.appendEntries(i, col[:0], val[:0], 0)
}

// appendEntries appends the columns and values of row i's entries to col and val, in column
// order, the columns of its one-hot entries xor mark (^0 marks them as sparseBuilder.add takes
// them).
func (s *Sparse) appendEntries(i int, col []int32, val []float64, mark int32) ([]int32, []float64) {
	if s.Float32 {
		at := len(val)
		val = slices.Grow(val, len(s.cols))[:at+len(s.cols)]
		widen(val[at:], s.row32(i))
		return append(col, s.cols...), val
	}
	cols, vals, hotCol, hot := s.stored(i)
	at, n := len(col), len(cols)+len(hotCol)
	col, val = slices.Grow(col, n)[:at+n], slices.Grow(val, n)[:at+n]
	k := 0
	for _, h := range hotCol {
		for ; k < len(cols) && cols[k] < h; k++ {
			col[at], val[at] = cols[k], vals[k]
			at++
		}
		col[at], val[at] = h^mark, hot
		at++
	}
	copy(col[at:], cols[k:])
	copy(val[at:], vals[k:])
	return col, val
}

// Row writes row i into x, dense: its value in every one of the len(x) = D columns.
func (s *Sparse) Row(i int, x []float64) {
	if s.Float32 {
		widen(x, s.row32(i))
		return
	}
	clear(x)
	cols, vals, hotCol, hot := s.stored(i)
	for k, c := range cols {
		x[c] = vals[k]
	}
	for _, c := range hotCol {
		x[c] = hot
	}
}

// row32 returns the values of row i of rows held dense as float32, a slice of its block.
func (s *Sparse) row32(i int) []float32 {
	d := len(s.cols)
	return s.Blocks[i/BlockRows].Val32[i%BlockRows*d:][:d]
}

// widen writes the values of x into dst (at least as long), each as the float64 it is, and
// returns dst[:len(x)].
func widen(dst []float64, x []float32) []float64 {
	dst = dst[:len(x)]
	for j, v := range x {
		dst[j] = float64(v)
	}
	return dst
}

// narrow returns v rounded toward zero to a float32: the float32 nearest v among those whose
// magnitude is at most |v| (±MaxFloat32 beyond it; a NaN stays a NaN).
func narrow(v float64) float32 {
	f := float32(v)
	if math.Abs(float64(f)) > math.Abs(v) {
		f = math.Float32frombits(math.Float32bits(f) - 1) // one step toward zero (f is not 0)
	}
	return f
}

// stored returns row i's entries: the columns and values of those not one-hot, the columns of
// its one-hot entries, and their value (0 when it has none). Rows held as float32 have no
// float64 values to return (row32).
func (s *Sparse) stored(i int) (col []int32, val []float64, hotCol []int32, hot float64) {
	blk := &s.Blocks[i/BlockRows]
	r := i % BlockRows
	if s.Dense {
		d := len(s.cols)
		return s.cols, blk.Val[r*d : (r+1)*d : (r+1)*d], nil, 0
	}
	lo, hi := blk.Start[r], blk.Start[r+1]
	if s.Hots > 0 {
		hotCol, hot = blk.HotCol[r*s.Hots:(r+1)*s.Hots], blk.HotVal[r]
	}
	return blk.Col[lo:hi], blk.Val[lo:hi], hotCol, hot
}

// entryReader reads the entries of a row in increasing columns: each next gives col and val
// the next one's.
type entryReader struct {
	cols   []int32
	vals   []float64
	hotCol []int32
	hot    float64
	k, h   int // the next entries of cols and hotCol
	col    int32
	val    float64
}

// entries returns a reader of row i's entries.
func (s *Sparse) entries(i int) entryReader {
	var e entryReader
	e.cols, e.vals, e.hotCol, e.hot = s.stored(i)
	return e
}

// next moves to the next entry and reports whether there is one.
func (e *entryReader) next() bool {
	k, h := e.k, e.h
	switch {
	case k < len(e.cols) && (h == len(e.hotCol) || e.cols[k] < e.hotCol[h]):
		e.col, e.val, e.k = e.cols[k], e.vals[k], k+1
	case h < len(e.hotCol):
		e.col, e.val, e.h = e.hotCol[h], e.hot, h+1
	default:
		return false
	}
	return true
}

// setValues makes the values of row i's entries val, in the order of Entries: the one-hot
// ones must be equal (they are when a row's features are all scaled by one factor).
func (s *Sparse) setValues(i int, val []float64) {
	if s.Float32 {
		x := s.row32(i)
		for j, v := range val {
			x[j] = narrow(v)
		}
		return
	}
	cols, vals, hotCol, _ := s.stored(i)
	k := 0
	for e, v := range val {
		if e-k < len(hotCol) && (k == len(cols) || hotCol[e-k] < cols[k]) {
			s.Blocks[i/BlockRows].HotVal[i%BlockRows] = v
		} else {
			vals[k] = v
			k++
		}
	}
}

// compare compares rows i and j, held by their entries (not Dense), as the sequences of the bits of their dense entries
// (math.Float64bits), lexicographically, without writing either out.
func (s *Sparse) compare(i, j int) int {
	a, b := s.entries(i), s.entries(j)
	moreA, moreB := a.next(), b.next()
	for moreA || moreB {
		var x, y float64 // +0 where a row stores no entry
		switch {
		case !moreB || moreA && a.col < b.col:
			x = a.val
			moreA = a.next()
		case !moreA || b.col < a.col:
			y = b.val
			moreB = b.next()
		default:
			x, y = a.val, b.val
			moreA, moreB = a.next(), b.next()
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

// newSparseBuilder returns a builder of rows of at most width entries, hots of them one-hot.
func newSparseBuilder(width, hots int) *sparseBuilder {
	return &sparseBuilder{s: &Sparse{Hots: hots}, width: width, rows: BlockRows}
}

// newDenseBuilder returns a builder of rows of d entries that it holds dense (Sparse.Dense),
// as float32 when f32 is set (Sparse.Float32).
func newDenseBuilder(d int, f32 bool) *sparseBuilder {
	cols := make([]int32, d)
	for j := range cols {
		cols[j] = int32(j)
	}
	return &sparseBuilder{s: &Sparse{Dense: true, Float32: f32, cols: cols}, width: d, rows: BlockRows}
}

// builderLike returns a builder of rows held as s holds them, of at most width entries.
func builderLike(s *Sparse, width int) *sparseBuilder {
	if s.Dense {
		return newDenseBuilder(len(s.cols), s.Float32)
	}
	return newSparseBuilder(width, s.Hots)
}

// add appends a row of the entries val in the columns col (increasing, at most width of them),
// of which the builder's hots entries marked one-hot (col[k] < 0, of column ^col[k]) have one
// value.
func (b *sparseBuilder) add(col []int32, val []float64) {
	hots := b.s.Hots
	if b.rows == BlockRows {
		b.trim()
		var blk SparseBlock
		switch {
		case b.s.Float32:
			blk.Val32 = make([]float32, 0, BlockRows*b.width)
		case b.s.Dense:
			blk.Val = make([]float64, 0, BlockRows*b.width)
		default:
			blk = SparseBlock{Start: make([]int, 1, BlockRows+1),
				Col: make([]int32, 0, BlockRows*(b.width-hots)), Val: make([]float64, 0, BlockRows*(b.width-hots))}
		}
		if hots > 0 {
			blk.HotCol, blk.HotVal = make([]int32, 0, BlockRows*hots), make([]float64, 0, BlockRows)
		}
		b.s.Blocks = append(b.s.Blocks, blk)
		b.rows = 0
	}
	blk := &b.s.Blocks[len(b.s.Blocks)-1]
	b.rows++
	if b.s.Float32 {
		at := len(blk.Val32)
		blk.Val32 = blk.Val32[:at+b.width] // within the block's room
		clear(blk.Val32[at:])
		for k, c := range col {
			blk.Val32[at+int(max(c, ^c))] = narrow(val[k])
		}
		return
	}
	if b.s.Dense {
		at := len(blk.Val)
		blk.Val = blk.Val[:at+b.width] // within the block's room
		clear(blk.Val[at:])
		for k, c := range col {
			blk.Val[at+int(max(c, ^c))] = val[k] // a one-hot entry's column is ^c
		}
		return
	}
	hot := 0.0
	for k, c := range col {
		if c < 0 {
			blk.HotCol, hot = append(blk.HotCol, ^c), val[k]
		} else {
			blk.Col, blk.Val = append(blk.Col, c), append(blk.Val, val[k])
		}
	}
	if hots > 0 {
		blk.HotVal = append(blk.HotVal, hot)
	}
	blk.Start = append(blk.Start, len(blk.Col))
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

// trim gives the last block the room its rows and entries take (up to an allocation's
// rounding), when they take less than seven eighths of the room made for them (a last block of
// fewer rows, rows of fewer entries): copying every block whose rows left out a few +0 entries
// would double the memory that encoding allocates, for an eighth of the room at most.
func (b *sparseBuilder) trim() {
	if len(b.s.Blocks) == 0 {
		return
	}
	blk := &b.s.Blocks[len(b.s.Blocks)-1]
	if len(blk.Val) < cap(blk.Val)/8*7 || len(blk.Val32) < cap(blk.Val32)/8*7 || len(blk.Start) < cap(blk.Start) {
		*blk = blk.clone()
	}
}

// done returns the rows added.
func (b *sparseBuilder) done() *Sparse {
	b.trim()
	return b.s
}

// clone returns a copy of b that shares no memory with it.
func (b *SparseBlock) clone() SparseBlock {
	return SparseBlock{Start: slices.Clone(b.Start), Col: slices.Clone(b.Col), Val: slices.Clone(b.Val),
		HotCol: slices.Clone(b.HotCol), HotVal: slices.Clone(b.HotVal), Val32: slices.Clone(b.Val32)}
}
