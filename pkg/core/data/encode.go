package data

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
)

// MaxCells is the largest number of entries (rows × features) that Encode produces: 2^28
// float64 values, 2 GiB. A larger input is an error at the first row that would pass it.
const MaxCells = 1 << 28

// Diagnostics are local facts about an encoded file for the person who owns the data:
// computed from the private data, they are not private, and never go into a release.
type Diagnostics struct {
	// Rows is the number of data rows read.
	Rows int
	// Delimiter is the field delimiter, declared or detected.
	Delimiter byte
	// ClippedRows counts the rows whose computed norm exceeded the declared radius and whose
	// features were shrunk onto it (see Norm).
	ClippedRows int
	// Columns holds one entry per column that is not ignored, in schema order.
	Columns []ColumnDiagnostics
}

// ColumnDiagnostics counts the values of one column that were not encoded as they stood.
type ColumnDiagnostics struct {
	// Name is the column's name.
	Name string
	// Missing counts the missing values replaced by the declared constant.
	Missing int
	// Clipped counts the numeric values outside the declared range, clipped to it.
	Clipped int
	// Other counts the values outside the declared lists: categorical values put in the
	// other bucket, and binary-label values read as −1 by RestNegative.
	Other int
}

// colPlan encodes the fields of one column: every column that is not ignored turns a field's
// text into one float64 (a numeric value scaled to [0, 1], a category's code, ±1, a target,
// or a class index).
type colPlan struct {
	col      *Column
	lookup   map[string]float64 // categorical codes, binary ±1, class indices
	fallback float64            // the value of a text outside lookup, when hasFall
	hasFall  bool
}

// newColumnPlan prepares the encoding of a valid column that is not ignored.
func newColumnPlan(c *Column) *colPlan {
	p := &colPlan{col: c}
	index := func(values []string) map[string]float64 {
		m := make(map[string]float64, len(values))
		for k, v := range values {
			m[v] = float64(k)
		}
		return m
	}
	switch c.Kind {
	case Categorical:
		p.lookup = index(c.Categories)
		p.fallback, p.hasFall = float64(len(c.Categories)), c.Other
	case ClassLabel:
		p.lookup = index(c.Classes)
	case BinaryLabel:
		p.lookup = make(map[string]float64, len(c.Positive)+len(c.Negative))
		for _, v := range c.Positive {
			p.lookup[v] = 1
		}
		for _, v := range c.Negative {
			p.lookup[v] = -1
		}
		p.fallback, p.hasFall = -1, c.RestNegative
	}
	return p
}

// encode turns the text of a field that is not missing into its value. flagged reports a
// numeric value clipped to the declared range, or a text outside the declared lists that was
// taken by the other bucket or by RestNegative.
func (p *colPlan) encode(text []byte) (v float64, flagged bool, err error) {
	switch p.col.Kind {
	case Numeric, NumericLabel:
		v, err := parseNumber(text)
		if err != nil {
			return 0, false, err
		}
		lo, hi := p.col.Min, p.col.Max
		flagged = v < lo || v > hi
		v = min(max(v, lo), hi)
		if p.col.Kind == Numeric {
			// lo ≤ v ≤ hi, so 0 ≤ v − lo ≤ hi − lo in floating point too, and v ∈ [0, 1].
			v = (v - lo) / (hi - lo)
		}
		return v, flagged, nil
	}
	if v, ok := p.lookup[string(text)]; ok {
		return v, false, nil
	}
	if p.hasFall {
		return p.fallback, true, nil
	}
	switch p.col.Kind {
	case Categorical:
		return 0, false, fmt.Errorf("%s is not a declared category (the column has no \"other\" bucket)", quote(text))
	case BinaryLabel:
		return 0, false, fmt.Errorf("%s is neither a positive nor a negative label value", quote(text))
	default:
		return 0, false, fmt.Errorf("%s is not a declared class", quote(text))
	}
}

// parseNumber parses a decimal number: an optional sign, digits with an optional decimal
// point, and an optional exponent. Hexadecimal, underscores, NaN, infinities and values
// beyond the float64 range are errors.
func parseNumber(text []byte) (float64, error) {
	decimal := true
	for _, c := range text {
		if !('0' <= c && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
			decimal = false
			break
		}
	}
	v, err := strconv.ParseFloat(string(text), 64)
	switch {
	case err == nil && (math.IsNaN(v) || math.IsInf(v, 0)):
		return 0, fmt.Errorf("%s is not a finite number", quote(text))
	case !decimal || (err != nil && !errors.Is(err, strconv.ErrRange)):
		return 0, fmt.Errorf("%s is not a number", quote(text))
	case err != nil:
		return 0, fmt.Errorf("%s is beyond the range of float64", quote(text))
	}
	return v, nil
}

// Encode reads a CSV input in one streaming pass and encodes it with the schema s.
//
// It checks the schema (Validate) and refuses one with unconfirmed data-derived fields
// (Unconfirmed), reads the header, requires its column names to be exactly the schema's
// (in any order), then encodes every row: numeric values clipped to [Min, Max] and scaled to
// [0, 1], categorical values one-hot, missing values (an empty field or "?") replaced as
// declared, the label as its kind says, the features then multiplied by the FitScale constant
// or shrunk by FitClip so that ‖x‖_P ≤ Radius for every row, and the bias appended (see Norm
// for the exact formulas). NaN and infinities never reach the result.
//
// The returned Diagnostics are local: not private, never part of a release.
//
// Every error in the input is an *Error naming the line, the column and the reason; Encode
// stops at the first. The CSV dialect is described in the README.
//
// Memory: Encode keeps at most one record of text (up to 1 MiB) and, while reading, one
// float64 per row and column that is not ignored; it then allocates the N×D matrix and copies
// those values into it. No row is ever held as text, and no growing slice is copied: the
// peak is the matrix plus 8 bytes per row and encoded column.
func Encode(r io.Reader, s *Schema) (*Dataset, *Diagnostics, error) {
	if err := s.Validate(); err != nil {
		return nil, nil, err
	}
	if u := s.Unconfirmed(); len(u) > 0 {
		more := ""
		if len(u) > 1 {
			more = fmt.Sprintf(" (and %d more)", len(u)-1)
		}
		return nil, nil, fmt.Errorf("data: schema: %s was read from the data and is not confirmed%s: check that it is public knowledge, then remove it from \"derived\"", u[0], more)
	}
	rr, names, err := openCSV(r, s.Delimiter)
	if err != nil {
		return nil, nil, err
	}
	headerLine := rr.start

	// Match the header with the schema.
	position := make(map[string]int, len(names))
	for k, name := range names {
		position[name] = k
	}
	declared := make(map[string]bool, len(s.Columns))
	for _, c := range s.Columns {
		declared[c.Name] = true
		if _, ok := position[c.Name]; !ok {
			hint := ""
			if len(names) == 1 {
				hint = " (the header has a single column: is the delimiter right?)"
			}
			return nil, nil, lineError(headerLine, "the schema's column %q is not in the header%s", c.Name, hint)
		}
	}
	for k, name := range names {
		if !declared[name] {
			return nil, nil, &Error{Line: headerLine, Column: name, Index: k + 1,
				Err: errors.New("the column is not in the schema (declare it, with kind \"ignore\" to skip it)")}
		}
	}

	// The plan: the encoded columns in schema order, the label last.
	type planned struct {
		*colPlan
		field int // position in the record
		diag  int // index in diag.Columns
	}
	diag := &Diagnostics{Delimiter: rr.delim}
	var cols []planned
	var label planned
	for i := range s.Columns {
		c := &s.Columns[i]
		if c.Kind == Ignore {
			continue
		}
		p := planned{newColumnPlan(c), position[c.Name], len(diag.Columns)}
		diag.Columns = append(diag.Columns, ColumnDiagnostics{Name: c.Name})
		if c.Kind.isLabel() {
			label = p
		} else {
			cols = append(cols, p)
		}
	}
	cols = append(cols, label)
	replacement := make([]float64, len(cols))
	for j, p := range cols {
		if p.col.Missing.Replace {
			replacement[j], _, _ = p.encode([]byte(p.col.Missing.Value)) // checked by Validate
		}
	}
	features := s.Features()
	d := len(features)

	// The streaming pass.
	store := newRowStore(len(cols))
	n := 0
	for {
		ok, err := rr.next(names)
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			break
		}
		if (n+1)*d > MaxCells {
			return nil, nil, lineError(rr.start, "the encoded matrix would exceed %d entries (%d features a row)", MaxCells, d)
		}
		row := store.next()
		for j, p := range cols {
			text := rr.fields[p.field]
			cd := &diag.Columns[p.diag]
			if missingValue(text) {
				if !p.col.Missing.Replace {
					return nil, nil, &Error{Line: rr.starts[p.field], Column: p.col.Name, Index: p.field + 1,
						Err: fmt.Errorf("missing value %s, and the column's missing policy is \"error\"", quote(text))}
				}
				row[j] = replacement[j]
				cd.Missing++
				continue
			}
			v, flagged, err := p.encode(text)
			if err != nil {
				return nil, nil, &Error{Line: rr.starts[p.field], Column: p.col.Name, Index: p.field + 1, Err: err}
			}
			if flagged {
				if p.col.Kind == Numeric || p.col.Kind == NumericLabel {
					cd.Clipped++
				} else {
					cd.Other++
				}
			}
			row[j] = v
		}
		n++
	}
	if n == 0 {
		return nil, nil, lineError(rr.line+1, "no data rows after the header")
	}
	diag.Rows = n

	// Assemble the matrix.
	ds := &Dataset{
		N: n, D: d, X: make([]float64, n*d), Y: make([]float64, n), Features: features,
		P: s.Norm.P, Radius: s.Norm.Radius, Bias: s.Norm.Bias, Label: datasetLabel(label.col),
	}
	fit := newFitter(s.Norm, len(cols)-1, d)
	offsets := make([]int, len(cols)-1)
	for j, off := 0, 0; j < len(offsets); j++ {
		offsets[j] = off
		if c := cols[j].col; c.Kind == Categorical {
			off += len(c.Categories)
			if c.Other {
				off++
			}
		} else {
			off++
		}
	}
	for i := range n {
		src := store.row(i)
		x := ds.Row(i)
		for j, off := range offsets {
			if cols[j].col.Kind == Numeric {
				x[off] = fit.scale * src[j]
			} else {
				x[off+int(src[j])] = fit.scale
			}
		}
		if s.Norm.Bias > 0 {
			x[d-1] = s.Norm.Bias
		}
		if fit.fit(x) {
			diag.ClippedRows++
		}
		ds.Y[i] = src[len(cols)-1]
		store.release(i)
	}
	return ds, diag, nil
}

// datasetLabel describes the label column c.
func datasetLabel(c *Column) Label {
	l := Label{Name: c.Name}
	switch c.Kind {
	case BinaryLabel:
		l.Kind = LabelBinary
	case NumericLabel:
		l.Kind, l.Min, l.Max = LabelNumeric, c.Min, c.Max
	case ClassLabel:
		l.Kind, l.Classes = LabelClass, append([]string(nil), c.Classes...)
	}
	return l
}

// rowStore holds the encoded values of the rows read so far, width values a row, in chunks
// of fixed size, so that storing a row never copies the rows before it.
type rowStore struct {
	width, perChunk, n int
	chunks             [][]float64
}

// chunkValues is the size of a rowStore chunk, in float64 values (32 KiB).
const chunkValues = 1 << 12

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

// fitter brings rows within the declared norm bound (see Norm).
type fitter struct {
	p, radius     float64
	scale         float64 // the factor of every feature before fitting: c for FitScale, 1 for FitClip
	featureRadius float64 // Rz, the bound of the features' norm
	features      int     // the number of features before the bias coordinate
}

// newFitter prepares the fit for rows of d coordinates made from m numeric and categorical
// columns.
func newFitter(n Norm, m, d int) *fitter {
	f := &fitter{p: n.P, radius: n.Radius, scale: 1, features: d}
	if n.Bias > 0 {
		f.features--
	}
	// share is (1 − (b/R)^P)^{1/P}, the part of the radius left to the features.
	share := 1.0
	switch {
	case math.IsInf(n.P, 1):
	case n.P == 2:
		r := n.Bias / n.Radius
		share = math.Sqrt(1 - r*r)
	default:
		share = math.Pow(1-math.Pow(n.Bias/n.Radius, n.P), 1/n.P)
	}
	f.featureRadius = n.Radius * share
	if n.Fit == FitScale {
		// ‖z‖_P ≤ m^{1/P}, so c = Rz/m^{1/P}.
		switch {
		case math.IsInf(n.P, 1):
			f.scale = f.featureRadius
		case n.P == 2:
			f.scale = f.featureRadius / math.Sqrt(float64(m))
		default:
			f.scale = f.featureRadius / math.Pow(float64(m), 1/n.P)
		}
	}
	return f
}

// fit makes the computed ‖x‖_P at most the radius by shrinking x's features (not the bias)
// when it is exceeded, and reports whether it shrank them.
func (f *fitter) fit(x []float64) bool {
	if pnorm(x, f.p) <= f.radius {
		return false
	}
	z := x[:f.features]
	c := f.featureRadius / pnorm(z, f.p)
	// Rounding can leave the computed norm a few ulps above the radius: shrink by 2^-52,
	// 2^-51, … more until it is not.
	for shrink := 0x1p-52; ; shrink *= 2 {
		for k := range z {
			z[k] *= c
		}
		if pnorm(x, f.p) <= f.radius {
			return true
		}
		c = 1 - shrink
	}
}

// pnorm returns ‖x‖_p for p ≥ 1 or p = +Inf. For p other than 1, 2 and ∞ it divides by the
// largest magnitude first, so that no power overflows or underflows to a wrong result.
func pnorm(x []float64, p float64) float64 {
	switch {
	case p == 1:
		s := 0.0
		for _, v := range x {
			s += math.Abs(v)
		}
		return s
	case p == 2:
		s := 0.0
		for _, v := range x {
			s += v * v
		}
		return math.Sqrt(s)
	}
	m := 0.0
	for _, v := range x {
		m = max(m, math.Abs(v))
	}
	if math.IsInf(p, 1) || m == 0 {
		return m
	}
	s := 0.0
	for _, v := range x {
		s += math.Pow(math.Abs(v)/m, p)
	}
	return m * math.Pow(s, 1/p)
}
