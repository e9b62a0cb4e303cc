package data

// rowStore holds the encoded values of the rows read so far, width values a row, in chunks
// of fixed size, so that storing a row never copies the rows before it.
type rowStore struct {
	width, perChunk, n int
	chunks             [][]float64
}

// chunkValues is the size of a rowStore chunk, in float64 values (32 KiB).
const chunkValues = 1 << 12

// newRowStore returns an empty store of rows of width values.
func newRowStore(width int) *rowStore {
	return &rowStore{width: width, perChunk: max(1, chunkValues/width)}
}

// next returns the storage of a new row.
func (s *rowStore) next() []float64 {
	k := s.n % s.perChunk
	if k == 0 {
		s.chunks = append(s.chunks, make([]float64, s.perChunk*s.width))
	}
	s.n++
	c := s.chunks[len(s.chunks)-1]
	return c[k*s.width : (k+1)*s.width]
}

// row returns the values of row i.
func (s *rowStore) row(i int) []float64 {
	k := i % s.perChunk
	return s.chunks[i/s.perChunk][k*s.width : (k+1)*s.width]
}

// release lets the garbage collector take the chunk of row i once i is its last row.
func (s *rowStore) release(i int) {
	if (i+1)%s.perChunk == 0 || i+1 == s.n {
		s.chunks[i/s.perChunk] = nil
	}
}
