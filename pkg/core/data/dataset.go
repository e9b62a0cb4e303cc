// Package data turns a CSV file and a schema of public bounds into an encoded dataset that the
// mechanisms can use: rows scaled into a declared norm ball, labels encoded, and nothing
// derived from the data unless it is marked so.
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
}

// Row returns row i of X (a slice of X, not a copy).
func (ds *Dataset) Row(i int) []float64 {
	return ds.X[i*ds.D : (i+1)*ds.D : (i+1)*ds.D]
}
