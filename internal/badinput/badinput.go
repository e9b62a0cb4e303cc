// Package badinput is the table of bad inputs privopt must answer with a clear error or a
// defined, documented behaviour: never a panic, a NaN model or a silently dropped row. The
// command line's tests (cmd/privopt) and the engine's (wasm/engine) run every case through
// their own entry points, so the page and the command line behave alike.
package badinput

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Schema is the schema of the table's files unless a case has its own: two numeric columns in
// [0, 10] and a yes/no label, rows scaled into the unit ℓ2 ball with a bias of 0.5.
const Schema = `{"privopt_schema": 1, "norm": {"p": 2, "radius": 1, "bias": 0.5, "fit": "scale"},
 "columns": [
  {"name": "a", "kind": "numeric", "min": 0, "max": 10},
  {"name": "b", "kind": "numeric", "min": 0, "max": 10},
  {"name": "y", "kind": "binary-label", "positive": ["yes"], "negative": ["no"]}]}`

// Case is one bad input: a training file, its schema and a fit's settings, and what must come
// of them.
type Case struct {
	// Name says what is bad.
	Name string
	// CSV is the training file, unless Stream > 0: then the file is Stream(Rows) generated rows.
	CSV  string
	Rows int
	// Schema is the file's schema (JSON); empty for the package's Schema.
	Schema string
	// Mechanism, Epsilon and Delta are the fit's settings.
	Mechanism      string
	Epsilon, Delta float64
	// Error is a phrase the error must contain, and Line the line it must name (0 for none);
	// Error is empty when the input has a defined behaviour instead of an error.
	Error string
	Line  int
	// Behaviour describes the outcome in words (the table in docs/schemas.md).
	Behaviour string
	// Clipped is the number of values outside the declared ranges that the diagnostics must
	// report clipped; the fit must use every row.
	Clipped int
}

// SchemaText returns the case's schema.
func (c Case) SchemaText() string {
	if c.Schema == "" {
		return Schema
	}
	return c.Schema
}

// Open returns the case's training file.
func (c Case) Open() io.Reader {
	if c.Rows > 0 {
		return Stream(c.Rows)
	}
	return strings.NewReader(c.CSV)
}

// Size returns the length in bytes of the case's training file.
func (c Case) Size() int64 {
	if c.Rows > 0 {
		n, _ := io.Copy(io.Discard, Stream(c.Rows))
		return n
	}
	return int64(len(c.CSV))
}

// CheckRelease checks a case's defined behaviour: a model with weights, all finite, from every
// row of the file (rows read), with the declared number of values clipped.
func (c Case) CheckRelease(weights []float64, rows, clipped int) error {
	for _, w := range weights {
		if math.IsNaN(w) || math.IsInf(w, 0) {
			return fmt.Errorf("badinput: %s: the model %v is not finite", c.Name, weights)
		}
	}
	want := c.Rows
	if want == 0 {
		want = strings.Count(c.CSV, "\n") - 1
	}
	if len(weights) == 0 || rows != want || clipped != c.Clipped {
		return fmt.Errorf("badinput: %s: %d weights, %d rows, %d clipped; want %d rows and %d clipped", c.Name, len(weights), rows, clipped, want, c.Clipped)
	}
	return nil
}

// StreamedRows is the number of rows of the streamed case: ten million.
const StreamedRows = 10_000_000

// ShortStreamedRows is the number of rows of the streamed case under go test -short.
const ShortStreamedRows = 100_000

// Short returns the case as the tests run it under go test -short: the streamed case with
// ShortStreamedRows rows (ten million take seconds to read and fit), every other case as it is.
func (c Case) Short() Case {
	if c.Rows == StreamedRows {
		c.Name, c.Rows = "a hundred thousand rows, streamed", ShortStreamedRows
	}
	return c
}

// wideSchema has 20 numeric features, for d larger than n.
var wideSchema = func() string {
	var b strings.Builder
	b.WriteString(`{"privopt_schema": 1, "norm": {"p": 2, "radius": 1, "bias": 0.5, "fit": "scale"}, "columns": [`)
	for k := range 20 {
		fmt.Fprintf(&b, `{"name": "f%d", "kind": "numeric", "min": 0, "max": 1}, `, k)
	}
	b.WriteString(`{"name": "y", "kind": "binary-label", "positive": ["yes"], "negative": ["no"]}]}`)
	return b.String()
}()

// wideCSV has the 20 features of wideSchema and 3 rows.
func wideCSV() string {
	var b strings.Builder
	for k := range 20 {
		fmt.Fprintf(&b, "f%d,", k)
	}
	b.WriteString("y\n")
	for i := range 3 {
		for k := range 20 {
			fmt.Fprintf(&b, "%g,", float64((i+k)%3)/2)
		}
		b.WriteString([]string{"yes\n", "no\n"}[i%2])
	}
	return b.String()
}

// Cases returns the table.
func Cases() []Case {
	ok := func(c Case) Case {
		if c.Mechanism == "" {
			c.Mechanism, c.Epsilon = "outpert", 1
		}
		return c
	}
	return []Case{
		ok(Case{Name: "empty file", CSV: "", Error: "empty input: no header line", Line: 1,
			Behaviour: "error: empty input, no header line"}),
		ok(Case{Name: "header only", CSV: "a,b,y\n", Error: "no data rows after the header", Line: 2,
			Behaviour: "error: no data rows after the header"}),
		ok(Case{Name: "one row", CSV: "a,b,y\n1,2,yes\n",
			Behaviour: "a release: n = 1 is valid, and the noise, scaled by 1/n, dominates the model (the utility bound says so)"}),
		ok(Case{Name: "ragged rows", CSV: "a,b,y\n1,2,yes\n3,no\n", Error: "2 fields, but the header has 3", Line: 3,
			Behaviour: "error naming the line and the field counts"}),
		ok(Case{Name: "non-numeric value", CSV: "a,b,y\n1,2,yes\nx,3,no\n", Error: `"x" is not a number`, Line: 3,
			Behaviour: "error naming the line, the column and the value"}),
		ok(Case{Name: "NaN", CSV: "a,b,y\n1,2,yes\nNaN,3,no\n", Error: `missing value "NaN", and the column's missing policy is "error"`, Line: 3,
			Behaviour: "a missing number (as NA or NULL are): an error naming the line, the column and the value, unless the schema replaces missing values"}),
		ok(Case{Name: "Inf", CSV: "a,b,y\n1,2,yes\n3,-Inf,no\n", Error: `"-Inf" is not a finite number`, Line: 3,
			Behaviour: "error naming the line, the column and the value"}),
		ok(Case{Name: "values outside the declared bounds", CSV: "a,b,y\n1,2,yes\n30,-3,no\n4,4,no\n", Clipped: 2,
			Behaviour: "clipped to the declared range (privacy needs the declared bound, not the data's), counted per column in the local diagnostics and reported on stderr / in the data step"}),
		ok(Case{Name: "label outside the declared set", CSV: "a,b,y\n1,2,yes\n3,3,maybe\n", Error: `"maybe" is neither a positive nor a negative label value`, Line: 3,
			Behaviour: "error naming the line, the column and the value (unless the schema reads every other value as negative)"}),
		{Name: "ε = 0", CSV: "a,b,y\n1,2,yes\n3,3,no\n", Mechanism: "outpert", Epsilon: 0, Error: "ε must be finite and positive",
			Behaviour: "error before the mechanism touches the data"},
		{Name: "ε < 0", CSV: "a,b,y\n1,2,yes\n3,3,no\n", Mechanism: "outpert", Epsilon: -1, Error: "ε must be finite and positive",
			Behaviour: "error before the mechanism touches the data"},
		{Name: "δ ≥ 1", CSV: "a,b,y\n1,2,yes\n3,3,no\n", Mechanism: "outpert-gauss", Epsilon: 1, Delta: 1, Error: "δ must be in [0, 1)",
			Behaviour: "error before the mechanism touches the data"},
		{Name: "δ = 0 for a mechanism that needs δ > 0", CSV: "a,b,y\n1,2,yes\n3,3,no\n", Mechanism: "outpert-gauss", Epsilon: 1, Error: "needs δ > 0",
			Behaviour: "error naming the mechanism's need"},
		{Name: "ε = 10³⁰⁸", CSV: "a,b,y\n1,2,yes\n3,3,no\n", Mechanism: "noisy-gd", Epsilon: 1e308, Delta: 1e-6, Error: "says nothing about privacy",
			Behaviour: "error before the mechanism touches the data: ε above 10⁶ says nothing about privacy"},
		ok(Case{Name: "a gzip-compressed file", CSV: "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03", Error: "the file is gzip-compressed, not CSV text", Line: 1,
			Behaviour: "error: the file is compressed (gzip, zip, bzip2, xz or zstd) or binary, not CSV text"}),
		ok(Case{Name: "a schema member given twice", CSV: "a,b,y\n1,2,yes\n", Schema: strings.Replace(Schema, `"max": 10}`, `"max": 10, "MAX": 5}`, 1),
			Error: `duplicate member "MAX"`, Behaviour: "error naming the member and its line, also when only the case differs"}),
		ok(Case{Name: "a number out of range in the schema", CSV: "a,b,y\n1,2,yes\n", Schema: strings.Replace(Schema, `"max": 10}`, `"max": 1e999}`, 1),
			Error: "is out of range", Behaviour: "error naming the member: numbers must be finite"}),
		{Name: "ε = 10⁻¹⁶", CSV: "a,b,y\n1,2,yes\n3,3,no\n", Mechanism: "noisy-gd", Epsilon: 1e-16, Delta: 1e-6,
			Behaviour: "a release: every calibration terminates on every budget (this one used to hang), and the noise dominates the model"},
		ok(Case{Name: "ten million rows, streamed", Rows: StreamedRows,
			Behaviour: "a release: the file is read in one streaming pass holding only the encoded rows and labels (32 bytes per row here), showing its progress"}),
		ok(Case{Name: "d larger than n", CSV: wideCSV(), Schema: wideSchema,
			Behaviour: "a release: the regularised problem is strongly convex whatever d and n"}),
		ok(Case{Name: "all-zero features", CSV: "a,b,y\n0,0,yes\n0,0,no\n0,0,yes\n",
			Behaviour: "a release: only the bias carries signal; the other weights are the mechanism's noise"}),
	}
}

// Stream returns a CSV file of n rows of the package's Schema, generated as it is read (a few
// hundred bytes of memory whatever n): a = i mod 11, b = i mod 7, y = yes when a > b.
func Stream(n int) io.Reader {
	return &stream{n: n}
}

type stream struct {
	i, n    int
	buf     []byte
	pending []byte
}

func (s *stream) Read(p []byte) (int, error) {
	total := 0
	for total < len(p) {
		if len(s.pending) == 0 && !s.next() {
			break
		}
		k := copy(p[total:], s.pending)
		s.pending = s.pending[k:]
		total += k
	}
	if total == 0 {
		return 0, io.EOF
	}
	return total, nil
}

// next generates the next line into pending, and reports false after the last.
func (s *stream) next() bool {
	if s.i > s.n {
		return false
	}
	b := s.buf[:0]
	if s.i == 0 {
		b = append(b, "a,b,y\n"...)
	} else {
		a, c := (s.i-1)%11, (s.i-1)%7
		b = strconv.AppendInt(b, int64(a), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(c), 10)
		if a > c {
			b = append(b, ",yes\n"...)
		} else {
			b = append(b, ",no\n"...)
		}
	}
	s.buf, s.pending = b, b
	s.i++
	return true
}
