package data

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// PrivatelyScaled returns the names of the columns a private scaling would estimate the
// range of, in schema order: the numeric feature columns (under FitScale only: under FitClip
// a feature's values cannot be read back from the rows) and the numeric label that have no
// Range and whose Scale is not ScaleDeclared.
func (s *Schema) PrivatelyScaled() []string {
	var names []string
	for _, c := range s.Columns {
		feature := c.Kind == Numeric && s.Norm.Fit == FitScale
		if (feature || c.Kind == NumericLabel) && c.Range == nil && c.Scale != ScaleDeclared {
			names = append(names, c.Name)
		}
	}
	return names
}

// WithRanges returns a validated copy of s (sharing nothing with it) in which each column
// named in r has that private range. It is an error when a name is not a column of s, or
// names a column that is not numeric or whose scale is ScaleDeclared, or when a range is not
// valid (see Validate).
func (s *Schema) WithRanges(r map[string]Range) (*Schema, error) {
	out := s.clone()
	set := 0
	for i := range out.Columns {
		c := &out.Columns[i]
		rg, ok := r[c.Name]
		if !ok {
			continue
		}
		switch {
		case c.Kind != Numeric && c.Kind != NumericLabel:
			return nil, schemaError(c.Name, "a private range applies to numeric columns only, and the column is %q", c.Kind)
		case c.Scale == ScaleDeclared:
			return nil, schemaError(c.Name, "a private range on a column whose scale is \"declared\"")
		}
		c.Range = &rg
		set++
	}
	if set < len(r) {
		var unknown []string
		for name := range r {
			if !slices.ContainsFunc(out.Columns, func(c Column) bool { return c.Name == name }) {
				unknown = append(unknown, name)
			}
		}
		slices.Sort(unknown)
		return nil, schemaError(unknown[0], "a private range for a column the schema does not have")
	}
	if err := out.Validate(); err != nil {
		return nil, err
	}
	return out, nil
}

// clone returns a deep copy of s.
func (s *Schema) clone() *Schema {
	out := *s
	out.Columns = slices.Clone(s.Columns)
	for i := range out.Columns {
		c := &out.Columns[i]
		c.Categories, c.Positive, c.Negative = slices.Clone(c.Categories), slices.Clone(c.Positive), slices.Clone(c.Negative)
		c.Classes, c.Derived = slices.Clone(c.Classes), slices.Clone(c.Derived)
		if c.Range != nil {
			r := *c.Range
			c.Range = &r
		}
	}
	return &out
}

// errNeedsScale explains why a feature's values cannot be read back from rows fitted by
// FitClip.
var errNeedsScale = errors.New(`private scaling needs "fit": "scale" in the schema's norm (under "clip" each row's factor depends on the row, so a column's values cannot be read back from the encoded rows)`)

// ColumnValues returns each row's value of the named numeric column on its declared scale
// z ∈ [0, 1] (after its transform), read from a dataset that Encode made with the valid schema
// s, in which the column has no private range: for a feature x_j/c clipped to [0, 1], c being
// the FitScale constant (it is an error under FitClip, where each row has its own factor);
// for the label (clip(y, Min, Max) − Min)/(Max − Min). These are the values a private
// scaling estimates the range of.
func ColumnValues(ds *Dataset, s *Schema, name string) ([]float64, error) {
	c, off, err := s.unranged(ds, name)
	if err != nil {
		return nil, err
	}
	out := make([]float64, ds.N)
	if c.Kind == NumericLabel {
		n := c.numericScale()
		for i, y := range ds.Y {
			if math.IsNaN(y) {
				return nil, fmt.Errorf("data: column %q: row %d has no label", name, i+1)
			}
			out[i], _ = n.declared(y)
		}
		return out, nil
	}
	if s.Norm.Fit != FitScale {
		return nil, fmt.Errorf("data: column %q: %w", name, errNeedsScale)
	}
	scale := s.Scaling().Scale
	for i := range out {
		out[i] = onScale(ds.at(i, off), scale)
	}
	return out, nil
}

// unranged returns the numeric column of s named name, which must have no private range, and
// for a feature its index in the rows of ds (encoded with s).
func (s *Schema) unranged(ds *Dataset, name string) (*Column, int, error) {
	if err := s.Validate(); err != nil {
		return nil, 0, err
	}
	if err := encodedWith(ds, s); err != nil {
		return nil, 0, err
	}
	off := 0
	for i := range s.Columns {
		c := &s.Columns[i]
		if c.Name != name {
			if c.Kind.isFeature() {
				off += c.width()
			}
			continue
		}
		switch {
		case c.Kind != Numeric && c.Kind != NumericLabel:
			return nil, 0, fmt.Errorf("data: column %q is %q, not numeric", name, c.Kind)
		case c.Range != nil:
			return nil, 0, fmt.Errorf("data: column %q already has a private range", name)
		case c.Kind == NumericLabel && (ds.Label.Kind != LabelNumeric || ds.Label.Name != name):
			return nil, 0, fmt.Errorf("data: the dataset's label is not the numeric label %q", name)
		}
		return c, off, nil
	}
	return nil, 0, fmt.Errorf("data: the schema has no column %q", name)
}

// encodedWith returns an error when the features of ds are not those of the schema s.
func encodedWith(ds *Dataset, s *Schema) error {
	if ds.D != len(ds.Features) || !slices.Equal(ds.Features, s.Features()) {
		return errors.New("data: the dataset's features are not the schema's: it was not encoded with this schema")
	}
	return nil
}

// at returns the feature j of row i.
func (ds *Dataset) at(i, j int) float64 {
	switch {
	case ds.Sparse == nil:
		return ds.X[i*ds.D+j]
	case ds.Sparse.Float32:
		return float64(ds.Sparse.row32(i)[j])
	}
	cols, vals, hotCol, hot := ds.Sparse.stored(i)
	if k, ok := slices.BinarySearch(cols, int32(j)); ok {
		return vals[k]
	}
	if _, ok := slices.BinarySearch(hotCol, int32(j)); ok {
		return hot
	}
	return 0
}

// onScale returns a feature x = c·z of a FitScale row back on its column's scale: x/c clipped
// to [0, 1] (within a few units of rounding of z).
func onScale(x, c float64) float64 {
	return min(max(x/c, 0), 1)
}

// Rescale returns the dataset that Encode with the schema used would give on the file that
// ds was encoded from with the schema declared, computed from ds in one pass: used must be
// declared with private ranges set on columns that had none (WithRanges), and ds is left
// unchanged. The result shares no memory with ds that either may write: of rows held in blocks it
// shares the columns of their entries (Start, Col and HotCol, which nothing writes after they
// are made) and has its own values, each row keeping the entries it has in ds (a value the rescaling
// makes +0 stays an entry, of value +0; a +0 value left out stays +0, since every range has
// Lo ≥ 0).
//
// A feature with a new range becomes x' = c·rescale(x/c), x/c clipped to [0, 1], with
// rescale(z) = (clip(z, Lo, Hi) − Lo)/(Hi − Lo) and c the FitScale constant (unchanged: it
// depends on the number of columns only), then every row gets Encode's final norm check. A
// feature may differ from a fresh encoding's by a few units of rounding of c/(Hi − Lo): x/c
// rounds, and the subtraction of Lo keeps that error absolute. Features of other columns are
// identical. A label with a new range is recomputed exactly from Y (in its own units), so it
// is bit-identical to a fresh encoding's, and Label gets the range's Offset and Unit.
//
// It is an error when the schemas do not differ that way, when ds was not encoded with
// declared, and when a feature gets a range under FitClip, where rows have no common factor.
func Rescale(ds *Dataset, declared, used *Schema) (*Dataset, error) {
	if err := declared.Validate(); err != nil {
		return nil, err
	}
	if err := used.Validate(); err != nil {
		return nil, err
	}
	if err := rangesAdded(declared, used); err != nil {
		return nil, err
	}
	if err := encodedWith(ds, declared); err != nil {
		return nil, err
	}
	var features []rangedFeature
	var label *numericScale
	j := 0
	for i := range used.Columns {
		c := &used.Columns[i]
		if c.Range != nil && declared.Columns[i].Range == nil {
			switch c.Kind {
			case Numeric:
				features = append(features, rangedFeature{int32(j), c.Range})
			case NumericLabel:
				n := c.numericScale()
				label = &n
			}
		}
		if c.Kind.isFeature() {
			j += c.width()
		}
	}
	if len(features) > 0 && used.Norm.Fit != FitScale {
		return nil, fmt.Errorf("data: rescale: %w", errNeedsScale)
	}
	out := *ds
	out.Y = slices.Clone(ds.Y)
	out.Features, out.Categorical = slices.Clone(ds.Features), slices.Clone(ds.Categorical)
	out.Label = used.Label()
	if ds.Sparse != nil {
		out.Sparse = &Sparse{Blocks: make([]SparseBlock, len(ds.Sparse.Blocks)), Hots: ds.Sparse.Hots, Dense: ds.Sparse.Dense,
			Float32: ds.Sparse.Float32, cols: ds.Sparse.cols}
		for b, blk := range ds.Sparse.Blocks {
			out.Sparse.Blocks[b] = SparseBlock{Start: blk.Start, Col: blk.Col, Val: slices.Clone(blk.Val),
				HotCol: blk.HotCol, HotVal: slices.Clone(blk.HotVal), Val32: slices.Clone(blk.Val32)}
		}
	} else {
		out.X = slices.Clone(ds.X)
	}
	if len(features) > 0 {
		m := 0
		for _, c := range used.Columns {
			if c.Kind.isFeature() {
				m++
			}
		}
		fit := newFitter(used.Norm, m)
		var col []int32
		var x []float64
		for i := range out.N {
			if !out.Holds(i) {
				continue
			}
			col, x = out.Entries(i, col, x) // a row held dense: its values in out, rescaled in place
			rescaleRow(col, x, features, fit)
			fit.fit(x)
			if col != nil || out.Sparse != nil && out.Sparse.Float32 { // a copy of the row's values
				out.Sparse.setValues(i, x)
			}
		}
	}
	if label != nil {
		for i, y := range out.Y {
			out.Y[i], _ = label.encode(y)
		}
	}
	return &out, nil
}

// rangedFeature is a feature that gets a private range, and its column.
type rangedFeature struct {
	j int32
	r *Range
}

// rescaleRow rescales the features of a row whose entries are x, in the columns col (nil for a
// dense row), features being in increasing order of column.
func rescaleRow(col []int32, x []float64, features []rangedFeature, fit *fitter) {
	k := 0
	for _, f := range features {
		j := int(f.j)
		if col != nil {
			for k < len(col) && col[k] < f.j {
				k++
			}
			if k == len(col) || col[k] != f.j {
				continue // a +0 value, which every range keeps +0
			}
			j = k
		}
		z, _ := f.r.rescale(onScale(x[j], fit.scale))
		x[j] = fit.scale * z
	}
}

// sameBesidesRange reports whether two columns are declared alike but for their Range.
func sameBesidesRange(a, b Column) bool {
	return a.Name == b.Name && a.Kind == b.Kind && a.Min == b.Min && a.Max == b.Max && a.Other == b.Other &&
		a.RestNegative == b.RestNegative && a.Missing == b.Missing && a.Transform == b.Transform && a.Scale == b.Scale &&
		slices.Equal(a.Categories, b.Categories) && slices.Equal(a.Positive, b.Positive) && slices.Equal(a.Negative, b.Negative) &&
		slices.Equal(a.Classes, b.Classes) && slices.Equal(a.Derived, b.Derived) && a.Source == b.Source
}

// rangesAdded returns an error unless used is declared with private ranges set on columns
// that have none in declared.
func rangesAdded(declared, used *Schema) error {
	mismatch := errors.New("data: rescale: the schema as used must be the declared schema with private ranges added")
	if used.Delimiter != declared.Delimiter || used.Norm != declared.Norm || used.PublicRows != declared.PublicRows || len(used.Columns) != len(declared.Columns) {
		return mismatch
	}
	for i := range used.Columns {
		d, u := declared.Columns[i], used.Columns[i]
		if d.Range != nil && (u.Range == nil || *u.Range != *d.Range) {
			return fmt.Errorf("data: rescale: column %q: the declared schema already has a private range, and the schema as used another", d.Name)
		}
		if !sameBesidesRange(d, u) {
			return mismatch
		}
	}
	return nil
}
