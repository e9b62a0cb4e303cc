// Package data turns a CSV file and a schema of public bounds into an encoded dataset that the
// mechanisms can use: rows scaled into a declared norm ball, labels encoded, and nothing
// derived from the data unless it is marked so.
//
// The flow is LoadSchema (or SuggestSchema, then a person confirms what it read from the
// data), then Encode, which reads the CSV in one streaming pass and returns a Dataset and
// local Diagnostics, then Split for a seeded train/test split. The schema's JSON format is
// documented in the repository's docs/schemas.md.
package data

import (
	"errors"
	"slices"
	"strconv"
)

// Dataset is an encoded dataset: N rows of D features and one label per row. The rows are
// held in blocks (Sparse): by their stored entries when its schema gives them at most a
// quarter of D entries each (one-hot encoded categories), so that the categories' zeros take
// no memory, and dense otherwise (Sparse.Dense); a dataset built by hand may hold them dense
// in one slice (X). Row gives every row dense either way, with the same bits.
type Dataset struct {
	// N is the number of rows and D the number of features per row.
	N, D int
	// X holds the features of rows held dense in one slice, row-major: row i is
	// X[i*D : (i+1)*D]. It is nil when the rows are held in blocks (Sparse).
	X []float64
	// Sparse holds the rows in blocks when X is nil (see Sparse), and is nil otherwise.
	Sparse *Sparse
	// Y holds one label per row: ±1 for a binary label, the class index 0..K−1 for a
	// categorical label with K classes, or for regression the target value (in [−1, 1] when
	// the label has a private range: Label.Raw maps it back to the label's units).
	Y []float64
	// Features names the D columns of X.
	Features []string

	// P and Radius are the declared norm bound of the rows: ‖x‖_P ≤ Radius for every row x,
	// with P ≥ 1 or P = +Inf. Radius is 0 for a dataset built by hand with no declared bound.
	P, Radius float64
	// Bias is the value of the constant last feature (named "(bias)"), or 0 when the rows
	// have no bias coordinate.
	Bias float64
	// Categorical lists, in increasing order, the features that one-hot encode a categorical
	// column of the schema (every category of every such column, "Name=value"). It is public:
	// it follows from the schema alone.
	Categorical []int
	// Scale is, for rows fitted by FitScale, the factor c of every feature (Scaling.Scale):
	// numeric features lie in [0, c] and a one-hot entry is c. It is 0 under FitClip and for a
	// dataset built by hand.
	Scale float64
	// PublicRows is the schema's declared public number of rows (Schema.PublicRows), 0 when
	// it declares none.
	PublicRows int
	// Float32 says that the values of the rows are float32, rounded toward zero, and so are
	// Bias and Scale (Options.Float32 on rows held dense; Sparse.Float32 holds them so).
	Float32 bool
	// Label says how Y is encoded.
	Label Label
}

// Row returns row i's D features, dense: written into dst when it has room for them
// (cap(dst) ≥ D), into a new slice otherwise. For rows held dense it is a copy of the row.
func (ds *Dataset) Row(i int, dst []float64) []float64 {
	if cap(dst) < ds.D {
		dst = make([]float64, ds.D)
	}
	dst = dst[:ds.D]
	if ds.Sparse != nil {
		ds.Sparse.Row(i, dst)
	} else {
		copy(dst, ds.X[i*ds.D:(i+1)*ds.D])
	}
	return dst
}

// Entries returns the entries row i stores: for rows held sparse their columns and values,
// written over col[:0] and val[:0] (Sparse.Entries); for rows held dense (X, or Sparse.Dense)
// nil and the row's D values, a slice of the rows held, not a copy, or for rows held as
// float32 (Sparse.Float32) written over val[:0].
func (ds *Dataset) Entries(i int, col []int32, val []float64) ([]int32, []float64) {
	switch {
	case ds.Sparse == nil:
		return nil, ds.X[i*ds.D : (i+1)*ds.D : (i+1)*ds.D]
	case ds.Sparse.Float32:
		return nil, widen(slices.Grow(val[:0], ds.D), ds.Sparse.row32(i))
	case ds.Sparse.Dense:
		_, x, _, _ := ds.Sparse.stored(i)
		return nil, x
	}
	return ds.Sparse.Entries(i, col, val)
}

// Holds reports whether ds holds row i: every row, but for the blocks of rows that a part of
// the rows leaves out (Part).
func (ds *Dataset) Holds(i int) bool { return ds.Sparse == nil || ds.Sparse.Holds(i) }

// LabelKind is the encoding of a dataset's labels.
type LabelKind int

const (
	// LabelUnspecified is the zero value, for a dataset built by hand.
	LabelUnspecified LabelKind = iota
	// LabelBinary: Y ∈ {−1, +1}.
	LabelBinary
	// LabelNumeric: Y ∈ [Label.Min, Label.Max], a regression target, in its own units
	// (Label.Raw(Y) = Y) or mapped from a private range to [−1, 1].
	LabelNumeric
	// LabelClass: Y ∈ {0, 1, …, len(Label.Classes)−1}, the index of the class.
	LabelClass
)

// labelKindNames are the names of the label kinds in text (JSON and messages).
var labelKindNames = [...]string{LabelUnspecified: "", LabelBinary: "binary", LabelNumeric: "numeric", LabelClass: "class"}

// String returns the kind's name: "binary", "numeric", "class", or "" when unspecified.
func (k LabelKind) String() string {
	if k < 0 || int(k) >= len(labelKindNames) {
		return "LabelKind(" + strconv.Itoa(int(k)) + ")"
	}
	return labelKindNames[k]
}

// MarshalText writes the kind's name.
func (k LabelKind) MarshalText() ([]byte, error) {
	if k < 0 || int(k) >= len(labelKindNames) {
		return nil, errors.New("data: unknown label kind " + strconv.Itoa(int(k)))
	}
	return []byte(labelKindNames[k]), nil
}

// UnmarshalText reads a kind's name.
func (k *LabelKind) UnmarshalText(b []byte) error {
	for i, name := range labelKindNames {
		if string(b) == name {
			*k = LabelKind(i)
			return nil
		}
	}
	return errors.New("data: unknown label kind " + strconv.Quote(string(b)) + " (want binary, numeric or class)")
}

// Label describes the label column of a dataset.
type Label struct {
	// Name is the name of the label column in the file.
	Name string
	// Kind says how Y is encoded.
	Kind LabelKind
	// Min and Max are the range of a numeric label's Y (LabelNumeric only): its declared range,
	// or −1 and 1 when the label has a private range.
	Min, Max float64
	// Offset and Unit map a numeric label's Y back to its units, raw = Offset + Unit·Y
	// (LabelNumeric only): 0 and 1 without a private range; with one, the midpoint and the
	// half-width of the range in units, [Min + Lo·(Max − Min), Min + Hi·(Max − Min)] for the
	// declared Min and Max. See Raw.
	Offset, Unit float64
	// Classes are the declared class names of a categorical label, in the order of their
	// indices (LabelClass only).
	Classes []string
}

// Identity reports whether Raw is the identity: Unit is 0, or Offset is 0 and Unit 1.
func (l Label) Identity() bool {
	return l.Unit == 0 || (l.Unit == 1 && l.Offset == 0)
}

// Raw returns a numeric label's value y (a label or a prediction on the scale of Y) in the
// label's units: Offset + Unit·y, and exactly y when the map is the identity (no private
// range) or Unit is 0 (the zero Label, a dataset built by hand).
func (l Label) Raw(y float64) float64 {
	if l.Identity() {
		return y
	}
	return l.Offset + float64(l.Unit*y) // float64(): never fused into an FMA, the same bits everywhere
}
