// Package data turns a CSV file and a schema of public bounds into an encoded dataset that the
// mechanisms can use: rows scaled into a declared norm ball, labels encoded, and nothing
// derived from the data unless it is marked so.
//
// The flow is LoadSchema (or SuggestSchema, then a person confirms what it read from the
// data), then Encode, which reads the CSV in one streaming pass and returns a Dataset and
// local Diagnostics, then Split for a seeded train/test split. The schema's JSON format is
// documented in the repository's README ("Data and schemas").
package data

// Dataset is an encoded dataset: N rows of D features, row-major, and one label per row.
type Dataset struct {
	// N is the number of rows and D the number of features per row.
	N, D int
	// X holds the features, row-major: row i is X[i*D : (i+1)*D].
	X []float64
	// Y holds one label per row: ±1 for a binary label, the class index 0..K−1 for a
	// categorical label with K classes, or the target value for regression.
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
	// PublicRows is the schema's declared public number of rows (Schema.PublicRows), 0 when
	// it declares none.
	PublicRows int
	// Label says how Y is encoded.
	Label Label
}

// Row returns row i of X (a slice of X, not a copy).
func (ds *Dataset) Row(i int) []float64 {
	return ds.X[i*ds.D : (i+1)*ds.D : (i+1)*ds.D]
}

// LabelKind is the encoding of a dataset's labels.
type LabelKind int

const (
	// LabelUnspecified is the zero value, for a dataset built by hand.
	LabelUnspecified LabelKind = iota
	// LabelBinary: Y ∈ {−1, +1}.
	LabelBinary
	// LabelNumeric: Y ∈ [Label.Min, Label.Max], a regression target in its own units.
	LabelNumeric
	// LabelClass: Y ∈ {0, 1, …, len(Label.Classes)−1}, the index of the class.
	LabelClass
)

// Label describes the label column of a dataset.
type Label struct {
	// Name is the name of the label column in the file.
	Name string
	// Kind says how Y is encoded.
	Kind LabelKind
	// Min and Max are the declared range of a numeric label (LabelNumeric only).
	Min, Max float64
	// Classes are the declared class names of a categorical label, in the order of their
	// indices (LabelClass only).
	Classes []string
}
