package data

import (
	"bytes"
	"compress/gzip"
	"errors"
	"strings"
	"testing"
)

// malformedSchema is the schema of most malformed inputs: header a,b,c,y.
const malformedSchema = `{"privopt_schema": 1, "norm": {"p": 2, "radius": 1, "fit": "clip"},
 "columns": [
  {"name": "a", "kind": "numeric", "min": 0, "max": 10},
  {"name": "b", "kind": "categorical", "categories": ["x", "y"]},
  {"name": "c", "kind": "ignore"},
  {"name": "y", "kind": "binary-label", "positive": ["1"], "negative": ["0"]}]}`

const classSchema = `{"privopt_schema": 1, "norm": {"p": 2, "radius": 1, "fit": "clip"},
 "columns": [{"name": "a", "kind": "numeric", "min": 0, "max": 10},
  {"name": "y", "kind": "class-label", "classes": ["cat", "dog"]}]}`

const targetSchema = `{"privopt_schema": 1, "norm": {"p": 2, "radius": 1, "fit": "clip"},
 "columns": [{"name": "a", "kind": "numeric", "min": 0, "max": 10},
  {"name": "y", "kind": "numeric-label", "min": -5, "max": 5}]}`

const commaSchema = `{"privopt_schema": 1, "decimal": ",", "norm": {"p": 2, "radius": 1, "fit": "clip"},
 "columns": [{"name": "a", "kind": "numeric", "min": 0, "max": 10},
  {"name": "y", "kind": "numeric-label", "min": -5, "max": 5}]}`

// TestEncodeMalformed checks that each malformed input is refused with exactly the expected
// message, naming the line, the column and the reason.
func TestEncodeMalformed(t *testing.T) {
	const header = "a,b,c,y\n"
	long := strings.Repeat("1", maxRecord+1)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	if _, err := zw.Write([]byte(header + "1,x,z,1\n")); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		schema string // malformedSchema when empty
		input  string
		want   string
	}{
		{"empty input", "", "",
			`data: line 1: empty input: no header line`},
		{"only a byte-order mark", "", "\xEF\xBB\xBF",
			`data: line 1: empty input: no header line`},
		{"only empty lines", "", "\n\r\n",
			`data: line 3: empty input: no header line`},
		{"header only", "", header,
			`data: line 2: no data rows after the header`},
		{"header only, no line ending", "", "a,b,c,y",
			`data: line 2: no data rows after the header`},
		{"short row", "", header + "1,x,z,1\n1,x,z\n",
			`data: line 3: 3 fields, but the header has 4 (the delimiter is a comma)`},
		{"long row", "", header + "1,x,z,1,5\n",
			`data: line 2: 5 fields, but the header has 4 (the delimiter is a comma)`},
		{"row counted after a quoted line break", "", header + "1,x,\"p\nq\",1\n1,x\n",
			`data: line 4: 2 fields, but the header has 4 (the delimiter is a comma)`},
		{"unclosed quote", "", header + "1,\"x,z,1\n2,x,z,1\n",
			`data: line 2, column "b": quoted field never closes: the input ends inside it`},
		{"quote inside an unquoted field", "", header + "1,x\"y,z,1\n",
			`data: line 2, column "b": quote character inside an unquoted field (quote the whole field and double the quotes inside it)`},
		{"text after a closing quote", "", header + "1,\"x\"y,z,1\n",
			`data: line 2, column "b": unexpected "y" after the closing quote`},
		{"invalid UTF-8 in a field", "", header + "1,x,\xff\xfe,1\n",
			`data: line 2, column "c": invalid UTF-8 "\xff\xfe"`},
		{"invalid UTF-8 in the header", "", "a,b\xff,c,y\n1,x,z,1\n",
			`data: line 1, column 2: invalid UTF-8 "b\xff"`},
		{"NaN", "", header + "NaN,x,z,1\n",
			`data: line 2, column "a": missing value "NaN", and the column's missing policy is "error"`},
		{"NA in a category", "", header + "1,NA,z,1\n",
			`data: line 2, column "b": "NA" is not a declared category (the column has no "other" bucket)`},
		{"infinity", "", header + "-Inf,x,z,1\n",
			`data: line 2, column "a": "-Inf" is not a finite number`},
		{"beyond float64", "", header + "1e400,x,z,1\n",
			`data: line 2, column "a": "1e400" is beyond the range of float64`},
		{"text in a numeric column", "", header + "1,x,z,1\n2,y,z,0\nabc,x,z,1\n",
			`data: line 4, column "a": "abc" is not a number`},
		{"hexadecimal", "", header + "0x1A,x,z,1\n",
			`data: line 2, column "a": "0x1A" is not a number`},
		{"decimal comma", "", "a;b;c;y\n1,5;x;z;1\n",
			`data: line 2, column "a": "1,5" is not a number (if the file's decimal mark is a comma, declare "decimal": "," in the schema)`},
		{"decimal point where the schema declares a comma", commaSchema, "a;y\n1.5;1\n",
			`data: line 2, column "a": "1.5" is not a number with a decimal comma, as the schema declares`},
		{"thousands separator", commaSchema, "a;y\n1.234,5;1\n",
			`data: line 2, column "a": "1.234,5" is not a number with a decimal comma, as the schema declares`},
		{"missing value, policy error", "", header + "?,x,z,1\n",
			`data: line 2, column "a": missing value "?", and the column's missing policy is "error"`},
		{"empty value, policy error", "", header + "1, ,z,1\n",
			`data: line 2, column "b": missing value "", and the column's missing policy is "error"`},
		{"missing label", "", header + "1,x,z,?\n",
			`data: line 2, column "y": missing label "?": every row needs the value to predict (remove the rows without one from the file)`},
		{"unknown category", "", header + "1,w,z,1\n",
			`data: line 2, column "b": "w" is not a declared category (the column has no "other" bucket)`},
		{"unknown binary label", "", header + "1,x,z,2\n",
			`data: line 2, column "y": "2" is neither a positive nor a negative label value`},
		{"unknown class", classSchema, "a,y\n1,cow\n",
			`data: line 2, column "y": "cow" is not a declared class`},
		{"NaN target", targetSchema, "a,y\n1,nan\n",
			`data: line 2, column "y": missing label "nan": every row needs the value to predict (remove the rows without one from the file)`},
		{"infinite target", targetSchema, "a,y\n1,inf\n",
			`data: line 2, column "y": "inf" is not a finite number`},
		{"category after a multi-line field", "", header + "1,x,\"multi\nline\",1\n2,q,z,1\n",
			`data: line 4, column "b": "q" is not a declared category (the column has no "other" bucket)`},
		{"duplicate column name", "", "a,b,a,y\n1,x,1,1\n",
			`data: line 1, column 3: duplicate column name "a" (also column 1)`},
		{"empty column name", "", "a,,c,y\n1,x,z,1\n",
			`data: line 1, column 2: empty column name`},
		{"schema column not in the file", "", "a,b,y\n1,x,1\n",
			`data: line 1: the schema's column "c" is not in the header`},
		{"file column not in the schema", "", "a,b,c,y,e\n1,x,z,1,2\n",
			`data: line 1, column "e": the column is not in the schema (declare it, with kind "ignore" to skip it)`},
		{"ambiguous delimiter", "", "a,b;c;d,y\n",
			`data: line 1: cannot tell the delimiter: the header line has 2 commas, 2 semicolons and 0 tabs (declare "delimiter" in the schema)`},
		{"unsupported delimiter", "", "a|b|c|y\n1|x|z|1\n",
			`data: line 1: the schema's column "a" is not in the header (the header has a single column: is the delimiter right?)`},
		{"carriage returns alone end the lines", "", "a,b,c,y\r1,x,z,1\r",
			`data: line 1, column 4: carriage return inside a field (lines must end with LF or CRLF)`},
		{"line longer than 1 MiB", "", header + long + "\n",
			`data: line 2: line longer than 1048576 bytes`},
		{"quote left open in a long input", "", header + "1,\"" + strings.Repeat("x\n", maxRecord/2+1),
			`data: line 2: record longer than 1048576 bytes (is a quote left open?)`},
		{"line 1 byte over 1 MiB, no line ending", "", header + long,
			`data: line 2: line longer than 1048576 bytes`},
		{"line 1 byte over 1 MiB, CRLF", "", header + long + "\r\n",
			`data: line 2: line longer than 1048576 bytes`},
		{"gzip file", "", gz.String(),
			`data: line 1: the file is gzip-compressed, not CSV text: decompress it first`},
		{"zip file", "", "PK\x03\x04\x14\x00\x00\x00\x08\x00",
			`data: line 1: the file is a zip archive, not CSV text: extract the CSV file from it first`},
		{"bzip2 file", "", "BZh91AY&SY\x9a\x1b",
			`data: line 1: the file is bzip2-compressed, not CSV text: decompress it first`},
		{"xz file", "", "\xfd7zXZ\x00\x00\x04\xe6\xd6\xb4F",
			`data: line 1: the file is xz-compressed, not CSV text: decompress it first`},
		{"zstd file", "", "\x28\xb5\x2f\xfd\x04\x58",
			`data: line 1: the file is zstd-compressed, not CSV text: decompress it first`},
		{"NUL byte in the first line (UTF-16 text)", "", "a\x00,\x00b\x00,\x00c\x00,\x00y\x00\n\x001\x00",
			`data: line 1: the first line has a NUL byte: the file is binary, or UTF-16 text, not CSV text`},
		{"NUL byte after a byte-order mark", "", "\xEF\xBB\xBFa,b,c,y\x00\n1,x,z,1\n",
			`data: line 1: the first line has a NUL byte: the file is binary, or UTF-16 text, not CSV text`},
	}
	if len(tests) < 20 {
		t.Fatalf("only %d malformed inputs; the issue asks for at least 20", len(tests))
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			js := tc.schema
			if js == "" {
				js = malformedSchema
			}
			ds, _, err := Encode(strings.NewReader(tc.input), mustSchema(t, js))
			if err == nil {
				t.Fatalf("Encode succeeded with %d rows; want the error %s", ds.N, tc.want)
			}
			if err.Error() != tc.want {
				t.Fatalf("error\n got: %s\nwant: %s", err, tc.want)
			}
			var e *Error
			if !errors.As(err, &e) || e.Line < 1 {
				t.Fatalf("error %v is not an *Error with a line", err)
			}
		})
	}
}
