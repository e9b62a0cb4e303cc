package data

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
)

// MaxCells is the largest number of entries that Encode stores: 2^28 float64 values, 2 GiB,
// each row's D features for rows held dense, each row's stored entries for rows held sparse (see
// Dataset). A larger input is an error at the first row that would pass it.
const MaxCells = 1 << 28

// Diagnostics are local facts about an encoded file for the person who owns the data:
// computed from the private data, they are not private, and never go into a release.
type Diagnostics struct {
	// Rows is the number of data rows read, and NonZero the number of their features that
	// are not zero, all rows together.
	Rows, NonZero int
	// Delimiter is the field delimiter, declared or detected.
	Delimiter byte
	// ClippedRows counts the rows whose computed norm exceeded the declared radius and whose
	// features were shrunk onto it (see Norm).
	ClippedRows int
	// Columns holds one entry per encoded column: the numeric and categorical columns in
	// schema order, then the label.
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
	// ClippedToRange counts the numeric values within the declared range but outside the
	// column's private range (Column.Range), clipped to it: a private range is meant to leave
	// out a small share of the values at each end (mech.RangeLevel), so these are expected,
	// and counted apart from Clipped. Like every count here it is local, never released.
	ClippedToRange int
	// Other counts the values outside the declared lists: categorical values put in the
	// other bucket, and binary-label values read as −1 by RestNegative.
	Other int
}

// colPlan encodes the fields of one column: every column that is not ignored turns a field's
// text into one float64 (a numeric value scaled to [0, 1], a category's code, ±1, a target,
// or a class index).
type colPlan struct {
	col         *Column
	num         numericScale       // the scale of a numeric column
	keys        []string           // the texts of a categorical, binary or class column
	values      []float64          // their values: categorical codes, binary ±1, class indices
	lookup      map[string]float64 // keys to values, when there are more than scanKeys
	fallback    float64            // the value of a text outside keys, when hasFallback
	hasFallback bool
	comma       bool // a numeric column's decimal mark is a comma (Schema.Decimal)
}

// note is what encoding a field did besides reading it.
type note int

const (
	asIs           note = iota
	clipped             // a number outside the declared range, clipped to it
	clippedToRange      // a number within the declared range, clipped to the private range
	other               // a text outside the declared lists, taken by the other bucket or RestNegative
)

// newColumnPlan prepares the encoding of a valid column that is not ignored (for a numeric
// column, one whose range and transform are valid).
func newColumnPlan(c *Column) *colPlan {
	p := &colPlan{col: c}
	add := func(texts []string, value func(k int) float64) {
		for k, t := range texts {
			p.keys, p.values = append(p.keys, t), append(p.values, value(k))
		}
	}
	index := func(k int) float64 { return float64(k) }
	switch c.Kind {
	case Numeric, NumericLabel:
		p.num = c.numericScale()
	case Categorical:
		add(c.Categories, index)
		p.fallback, p.hasFallback = float64(len(c.Categories)), c.Other
	case ClassLabel:
		add(c.Classes, index)
	case BinaryLabel:
		add(c.Positive, func(int) float64 { return 1 })
		add(c.Negative, func(int) float64 { return -1 })
		p.fallback, p.hasFallback = -1, c.RestNegative
	}
	if len(p.keys) > scanKeys {
		p.lookup = make(map[string]float64, len(p.keys))
		for k, t := range p.keys {
			p.lookup[t] = p.values[k]
		}
	}
	return p
}

// encode turns the text of a field that is not missing into its value (a number as its
// numericScale encodes it), and notes what it did besides reading it.
func (p *colPlan) encode(text []byte) (float64, note, error) {
	switch p.col.Kind {
	case Numeric, NumericLabel:
		x, err := parseMarked(text, p.comma)
		if err != nil {
			return 0, asIs, err
		}
		v, n := p.num.encode(x)
		return v, n, nil
	}
	if v, ok := p.find(text); ok {
		return v, asIs, nil
	}
	if p.hasFallback {
		return p.fallback, other, nil
	}
	switch p.col.Kind {
	case Categorical:
		return 0, asIs, fmt.Errorf("%s is not a declared category (the column has no \"other\" bucket)", quote(text))
	case BinaryLabel:
		return 0, asIs, fmt.Errorf("%s is neither a positive nor a negative label value", quote(text))
	default:
		return 0, asIs, fmt.Errorf("%s is not a declared class", quote(text))
	}
}

// scanKeys is the most keys that find compares one by one: a few comparisons of short texts
// cost less than hashing one (in WebAssembly, without a hardware hash, most of all).
const scanKeys = 16

// find returns the value of a text among the column's keys (which a valid column lists once).
func (p *colPlan) find(text []byte) (float64, bool) {
	if p.lookup != nil {
		v, ok := p.lookup[string(text)]
		return v, ok
	}
	for k, key := range p.keys {
		if key == string(text) {
			return p.values[k], true
		}
	}
	return 0, false
}

// parseNumber parses a decimal number: an optional sign, digits with an optional decimal
// point, and an optional exponent. Hexadecimal, underscores, NaN, infinities and values
// beyond the float64 range are errors.
func parseNumber(text []byte) (float64, error) { return parseMarked(text, false) }

// parseMarked is parseNumber for numbers whose decimal mark is a comma when comma is set (a
// '.' is then not a number's).
func parseMarked(text []byte, comma bool) (float64, error) {
	mark, decimal := byte('.'), true
	if comma {
		mark = ','
	}
	for _, c := range text {
		if !('0' <= c && c <= '9' || c == mark || c == 'e' || c == 'E' || c == '+' || c == '-') {
			decimal = false
			break
		}
	}
	number := text
	if comma && decimal {
		var buf [32]byte
		number = append(buf[:0], text...)
		if k := bytes.IndexByte(number, ','); k >= 0 {
			number[k] = '.' // a second comma stays, and is not a number
		}
	}
	v, err := strconv.ParseFloat(string(number), 64)
	switch {
	case err == nil && (math.IsNaN(v) || math.IsInf(v, 0)):
		return 0, fmt.Errorf("%s is not a finite number", quote(text))
	case decimal && err == nil:
		return v, nil
	case decimal && errors.Is(err, strconv.ErrRange):
		return 0, fmt.Errorf("%s is beyond the range of float64", quote(text))
	case comma && bytes.IndexByte(text, '.') >= 0:
		return 0, fmt.Errorf("%s is not a number with a decimal comma, as the schema declares", quote(text))
	}
	if !comma {
		if _, e := parseMarked(text, true); e == nil {
			return 0, fmt.Errorf("%s is not a number (if the file's decimal mark is a comma, declare \"decimal\": \",\" in the schema)", quote(text))
		}
	}
	return 0, fmt.Errorf("%s is not a number", quote(text))
}

// Encode reads a CSV input in one streaming pass and encodes it with the schema s.
//
// It checks the schema (Validate) and refuses one with unconfirmed data-derived fields
// (Unconfirmed), reads the header, requires its column names to be exactly the schema's
// (in any order), then encodes every row: numeric values clipped to [Min, Max], transformed
// and scaled to [0, 1] (then rescaled to a private Range), categorical values one-hot, missing
// values (an empty field or "?") replaced as declared, the label as its kind (and Range) says
// (see Column), the features then multiplied by the FitScale constant or shrunk by FitClip so
// that ‖x‖_P ≤ Radius for every row, and the bias appended (see Norm for the exact formulas).
// NaN and infinities never reach the result.
//
// The returned Diagnostics are local: not private, never part of a release.
//
// Every error in the input is an *Error naming the line, the column and the reason; Encode
// stops at the first. The CSV dialect is described in docs/schemas.md.
//
// Memory: Encode keeps at most one record of text (up to 1 MiB) and stores each row's entries
// as it reads it, one block of rows at a time: held sparse (see Dataset), 4 bytes an entry and
// 8 a value, one for each numeric entry and the bias and one for all the row's one-hot entries,
// and 8 a row; held dense, 8 bytes a feature (4 as float32, EncodeWith); and 8 a label. The blocks are the dataset; the
// peak is the dataset, a block, and the labels once more while they are gathered into Y. No row
// is ever held as text, and no growing slice of rows is copied.
func Encode(r io.Reader, s *Schema) (*Dataset, *Diagnostics, error) {
	return encode(r, s, false, heldBySchema, Options{})
}

// Options are what EncodeWith does beyond Encode.
type Options struct {
	// Float32 holds rows that Encode holds dense as float32 (Sparse.Float32): 4 bytes a value
	// instead of 8, each value rounded toward zero, so that no row's norm grows and every
	// declared bound still holds. The dataset's Bias and Scale are rounded so too: the bias
	// coordinate every row stores, and the bound of its numeric features and the value of its
	// one-hot entries. Rows held sparse keep their values as float64.
	Float32 bool
	// Part, when not nil, keeps only some training rows (see Part).
	Part *Part
}

// Part selects the training rows that a worker keeps while it reads a file (Options.Part): the
// rows not held out (HeldOut[i] false for the file's row i; nil holds out none) and of those
// only the blocks of BlockRows rows First to Last − 1. The dataset then has every training
// row's label and counts every training row in N, and its other blocks are absent
// (Dataset.Holds); each block it keeps has the bits that Encode followed by Divide(HeldOut)
// gives it. A worker that computes some chunks of a run's passes (package wasm/engine) holds
// no more than them. It is an error when HeldOut is not nil and the file has not len(HeldOut)
// rows.
type Part struct {
	HeldOut     []bool
	First, Last int
}

// EncodeWith reads a file as Encode does, with the same checks and Diagnostics, and returns
// its rows as o says.
func EncodeWith(r io.Reader, s *Schema, o Options) (*Dataset, *Diagnostics, error) {
	return encode(r, s, false, heldBySchema, o)
}

// Summarize reads a file and checks it as EncodeWith(r, s, o) does, with the same Diagnostics,
// and keeps no row: the dataset it returns describes N rows (N, D, the features and the
// schema's facts, with Bias and Scale as o.Float32 holds them) and holds none (X, Sparse and Y
// are nil). It takes the memory of reading the file only; o.Part must be nil.
func Summarize(r io.Reader, s *Schema, o Options) (*Dataset, *Diagnostics, error) {
	return encode(r, s, false, heldNone, o)
}

// EncodeForPrediction reads rows to score with a model fitted on data of schema s: as Encode,
// but the label column and the ignored columns may be absent from the header, and the label
// column is not read when present (its values may be empty or anything else): every Y is NaN,
// and Diagnostics.Columns still ends with the label's (zero) entry.
func EncodeForPrediction(r io.Reader, s *Schema) (*Dataset, *Diagnostics, error) {
	return encode(r, s, true, heldBySchema, Options{})
}

// holding says how encode holds the rows: as the schema says (Encode), dense or sparse whatever
// it says (to test that both give the same rows), or not at all (Summarize).
type holding int

const (
	heldBySchema holding = iota
	heldDense
	heldSparse
	heldNone
)

// rows reports whether encode holds rows made from m numeric and categorical columns, of d
// features, sparse, and the entries it stores a row: as Encode would hold them, for Summarize
// too, whose limit on the entries (MaxCells) is then Encode's.
func (held holding) rows(m, d int) (sparse bool, cells int) {
	if held == heldSparse || held != heldDense && SparseRows(1, d, m+1) {
		return true, m + 1
	}
	return false, d
}

// encode is EncodeWith, or EncodeForPrediction when unlabelled is true, holding the rows as held
// says.
func encode(r io.Reader, s *Schema, unlabelled bool, held holding, o Options) (*Dataset, *Diagnostics, error) {
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
	p, err := newPlan(s, names, rr.start, unlabelled)
	if err != nil {
		return nil, nil, err
	}
	p.diag.Delimiter = rr.delim
	ds, err := p.read(rr, names, held, o)
	if err != nil {
		return nil, nil, err
	}
	return ds, p.diag, nil
}

// plan is how Encode encodes the records of one file with one schema.
type plan struct {
	schema      *Schema
	cols        []plannedColumn // the encoded columns in schema order, the label last
	replacement []float64       // the encoded missing-value replacement of each of cols
	features    []string
	offsets     []int // the first feature of each feature column
	diag        *Diagnostics
}

// plannedColumn is a column to encode and where its field is.
type plannedColumn struct {
	*colPlan
	field int                // the position of the column in the file's records, or absent
	diag  *ColumnDiagnostics // its counters
}

// absent is the field of a column that the file does not have (an unlabelled file's label).
const absent = -1

// newPlan matches the header names (on line headerLine) with the schema: the names must be
// exactly the schema's columns, in any order, except that the label and the ignored columns
// may be absent when optional is set, and the label is then not read.
func newPlan(s *Schema, names []string, headerLine int, optional bool) (*plan, error) {
	position := make(map[string]int, len(names))
	for k, name := range names {
		position[name] = k
	}
	declared := make(map[string]bool, len(s.Columns))
	for _, c := range s.Columns {
		declared[c.Name] = true
		if _, ok := position[c.Name]; !ok && !(optional && !c.Kind.isFeature()) {
			hint := ""
			if len(names) == 1 {
				hint = " (the header has a single column: is the delimiter right?)"
			}
			return nil, lineError(headerLine, "the schema's column %q is not in the header%s", c.Name, hint)
		}
	}
	for k, name := range names {
		if !declared[name] {
			return nil, &Error{Line: headerLine, Column: name, Index: k + 1,
				Err: errors.New("the column is not in the schema (declare it, with kind \"ignore\" to skip it)")}
		}
	}

	p := &plan{schema: s, features: s.Features(), diag: &Diagnostics{}}
	var label *Column
	for i := range s.Columns {
		c := &s.Columns[i]
		switch {
		case c.Kind == Ignore:
			continue
		case c.Kind.isLabel():
			label = c
			continue
		}
		p.cols = append(p.cols, plannedColumn{colPlan: newColumnPlan(c), field: position[c.Name]})
	}
	labelField, ok := position[label.Name]
	if !ok || optional { // scoring reads no label: what a file holds there changes nothing
		labelField = absent
	}
	p.cols = append(p.cols, plannedColumn{colPlan: newColumnPlan(label), field: labelField})
	p.diag.Columns = make([]ColumnDiagnostics, len(p.cols))
	p.replacement = make([]float64, len(p.cols))
	p.offsets = make([]int, len(p.cols)-1)
	off := 0
	for j := range p.cols {
		c := p.cols[j].col
		p.cols[j].diag = &p.diag.Columns[j]
		p.diag.Columns[j].Name = c.Name
		if c.Missing.Replace {
			p.replacement[j], _, _ = p.cols[j].encode([]byte(c.Missing.Value)) // checked by Validate
		}
		p.cols[j].comma = s.Decimal == ',' // after the replacement, which has a point
		if j < len(p.offsets) {
			p.offsets[j] = off
			off += c.width()
		}
	}
	return p, nil
}

// width returns the number of features of a feature column.
func (c *Column) width() int {
	if c.Kind != Categorical {
		return 1
	}
	if c.Other {
		return len(c.Categories) + 1
	}
	return len(c.Categories)
}

// read encodes the records of rr into a dataset: each record's values (one per planned
// column) as the row's entries, stored one block at a time (every entry of rows held dense),
// and its label. With a part, the rows it holds out are read and left out, and so are the
// blocks of rows that it does not keep.
func (p *plan) read(rr *recordReader, names []string, held holding, o Options) (*Dataset, error) {
	s, d, m, part := p.schema, len(p.features), len(p.offsets), o.Part
	sparse, cells := held.rows(m, d)
	fit := newFitter(s.Norm, m)
	hots := 0
	for _, c := range p.cols[:m] {
		if c.col.Kind == Categorical {
			hots++
		}
	}
	rows := newSparseBuilder(m+1, hots)
	if !sparse {
		rows = newDenseBuilder(d, o.Float32)
	}
	row, col, val := make([]float64, len(p.cols)), make([]int32, m+1), make([]float64, m+1)
	var labels [][]float64 // by block
	n, kept := 0, 0        // the rows read, and those of the dataset
	for {
		ok, err := rr.next(names)
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		if (n+1)*cells > MaxCells {
			return nil, lineError(rr.start, "the encoded rows would exceed %d entries (%d a row)", MaxCells, cells)
		}
		if err := p.encodeRecord(rr, row); err != nil {
			return nil, err
		}
		k := p.entries(fit, row, col, val)
		for _, v := range val[:k] {
			if v != 0 {
				p.diag.NonZero++
			}
		}
		n++
		if held == heldNone {
			continue
		}
		if part != nil && part.HeldOut != nil {
			if n > len(part.HeldOut) {
				return nil, lineError(rr.start, "the file has more than the %d rows it had when it was first read", len(part.HeldOut))
			}
			if part.HeldOut[n-1] {
				continue
			}
		}
		if b := kept / BlockRows; part != nil && (b < part.First || b >= part.Last) {
			rows.skip()
		} else {
			rows.add(col[:k], val[:k])
		}
		if kept%BlockRows == 0 {
			labels = append(labels, make([]float64, 0, BlockRows))
		}
		labels[len(labels)-1] = append(labels[len(labels)-1], row[len(p.cols)-1])
		kept++
	}
	if n == 0 {
		return nil, lineError(rr.line+1, "no data rows after the header")
	}
	if part != nil && part.HeldOut != nil && n != len(part.HeldOut) {
		return nil, fmt.Errorf("data: the file has %d rows, not the %d it had when it was first read", n, len(part.HeldOut))
	}
	p.diag.Rows = n
	ds := &Dataset{N: kept, D: d, Features: p.features, P: s.Norm.P, Radius: s.Norm.Radius, Bias: s.Norm.Bias,
		PublicRows: s.PublicRows, Label: p.cols[len(p.cols)-1].col.datasetLabel()}
	if held == heldNone {
		ds.N = n
	}
	if s.Norm.Fit == FitScale {
		ds.Scale = fit.scale
	}
	if ds.Float32 = rows.s.Float32; ds.Float32 {
		ds.Bias, ds.Scale = float64(narrow(ds.Bias)), float64(narrow(ds.Scale))
	}
	for j, off := range p.offsets {
		if c := p.cols[j].col; c.Kind == Categorical {
			for k := range c.width() {
				ds.Categorical = append(ds.Categorical, off+k)
			}
		}
	}
	if held == heldNone {
		return ds, nil
	}
	ds.Y = make([]float64, kept)
	for b, y := range labels {
		copy(ds.Y[b*BlockRows:], y)
		labels[b] = nil
	}
	ds.Sparse = rows.done()
	return ds, nil
}

// encodeRecord encodes the fields of the record rr holds into row, one value per planned
// column.
func (p *plan) encodeRecord(rr *recordReader, row []float64) error {
	for j, c := range p.cols {
		if c.field == absent {
			row[j] = math.NaN()
			continue
		}
		text := rr.fields[c.field]
		if missingValue(text, c.col.Kind == Numeric || c.col.Kind == NumericLabel) {
			switch {
			case !c.col.Missing.Replace && c.col.Kind.isLabel():
				return &Error{Line: rr.starts[c.field], Column: c.col.Name, Index: c.field + 1,
					Err: fmt.Errorf("missing label %s: every row needs the value to predict (remove the rows without one from the file)", quote(text))}
			case !c.col.Missing.Replace:
				return &Error{Line: rr.starts[c.field], Column: c.col.Name, Index: c.field + 1,
					Err: fmt.Errorf("missing value %s, and the column's missing policy is \"error\"", quote(text))}
			}
			row[j] = p.replacement[j]
			c.diag.Missing++
			continue
		}
		v, n, err := c.encode(text)
		if err != nil {
			return &Error{Line: rr.starts[c.field], Column: c.col.Name, Index: c.field + 1, Err: err}
		}
		switch n {
		case clipped:
			c.diag.Clipped++
		case clippedToRange:
			c.diag.ClippedToRange++
		case other:
			c.diag.Other++
		}
		row[j] = v
	}
	return nil
}

// entries writes the entries of the row whose planned columns' values are src into col and val
// (room for every feature column and the bias) and returns their number: the features scaled,
// a one-hot block as its one entry (of column ^c for the category's column c: marked one-hot,
// see Sparse), the bias, the row fitted within the norm bound (fitter.fit gives a row's entries
// the bits it gives the dense row); the numeric features whose value is +0 are left out.
func (p *plan) entries(fit *fitter, src []float64, col []int32, val []float64) int {
	k := 0
	for j, off := range p.offsets {
		v, c := fit.scale, int32(off)
		if p.cols[j].col.Kind == Numeric {
			v = fit.scale * src[j]
		} else {
			c = ^(c + int32(src[j]))
		}
		if math.Float64bits(v) != 0 {
			col[k], val[k] = c, v
			k++
		}
	}
	if b := p.schema.Norm.Bias; b > 0 {
		col[k], val[k] = int32(len(p.features)-1), b
		k++
	}
	if fit.fit(val[:k]) {
		p.diag.ClippedRows++
	}
	return k
}

// Label returns the description of the label that Encode gives a dataset of the valid
// schema s.
func (s *Schema) Label() Label {
	for i := range s.Columns {
		if c := &s.Columns[i]; c.Kind.isLabel() {
			return c.datasetLabel()
		}
	}
	return Label{} // unreachable for a valid schema
}

// datasetLabel describes the label column c.
func (c *Column) datasetLabel() Label {
	l := Label{Name: c.Name, Kind: c.Kind.LabelKind()}
	switch l.Kind {
	case LabelNumeric:
		l.Min, l.Max, l.Unit = c.Min, c.Max, 1
		if c.Range != nil {
			l.Min, l.Max = -1, 1
			l.Offset, l.Unit = c.labelMap()
		}
	case LabelClass:
		l.Classes = append([]string(nil), c.Classes...)
	}
	return l
}

// Footprint is the memory that Encode takes for a file, estimated before reading it from the
// file's size, its lines' length and the schema alone (see Schema.Footprint).
type Footprint struct {
	// Rows is the estimated number of rows.
	Rows int64
	// Bytes is what the encoded rows and their labels take, Peak what Encode takes at most
	// while making them, and Values what the rows' values alone take (a rescaled copy of the
	// rows: Rescale shares the rest).
	Bytes, Peak, Values int64
}

// Footprint estimates the memory that Encode takes for data of dataBytes bytes (the file
// without its header) whose lines take lineBytes bytes on average, encoded with the valid
// schema s: Rows = ⌈dataBytes/lineBytes⌉ rows, each taking, held sparse, 4 bytes an entry (its
// column), 8 a value (one for each numeric column and the bias, one for all the one-hot
// entries), 8 for its start and 8 for its label; held dense, 8 bytes a feature (4 with f32 set,
// as Options.Float32 holds them) and 8 for its label; and while reading, 8 bytes more a row (its
// label, held by block before the labels are gathered). The estimate is as good as the lines'
// length, usually read from the first lines of the file.
func (s *Schema) Footprint(dataBytes int64, lineBytes float64, f32 bool) Footprint {
	m, hots, d := 0, 0, len(s.Features())
	for _, c := range s.Columns {
		if c.Kind.isFeature() {
			m++
		}
		if c.Kind == Categorical {
			hots++
		}
	}
	f := Footprint{Rows: int64(math.Ceil(float64(max(dataBytes, 0)) / max(lineBytes, 1)))}
	values := int64(8 * (m - hots + 1)) // the numeric columns' and the bias
	if hots > 0 {
		values += 8 // the one-hot entries'
	}
	entries := int64(4*(m+1)) + values + 8 + 8 // the entries (at most the columns and the bias), the start and the label
	if SparseRows(1, d, m+1) {
		f.Bytes, f.Peak, f.Values = f.Rows*entries, f.Rows*(entries+8), f.Rows*values
	} else {
		value := int64(8)
		if f32 {
			value = 4
		}
		f.Bytes, f.Peak, f.Values = f.Rows*(value*int64(d)+8), f.Rows*(value*int64(d)+16), f.Rows*value*int64(d)
	}
	return f
}
