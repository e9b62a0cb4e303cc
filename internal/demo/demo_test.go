package demo

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/privopt/privopt/internal/adultdata"
	"github.com/privopt/privopt/pkg/core/data"
)

// The demo files encode with the shipped schema into the documented sizes, with no unconfirmed
// bound, and the training labels hold both classes.
func TestDemoEncodes(t *testing.T) {
	s, err := data.LoadSchema(Schema())
	if err != nil {
		t.Fatal(err)
	}
	if u := s.Unconfirmed(); len(u) != 0 {
		t.Fatalf("the demo schema has unconfirmed fields: %v", u)
	}
	for _, tc := range []struct {
		name string
		r    io.Reader
		rows int
	}{{"train", Train(), 4000}, {"test", Test(), 1000}} {
		ds, diag, err := data.Encode(tc.r, s)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if ds.N != tc.rows || ds.D != 92 || diag.ClippedRows != 0 {
			t.Errorf("%s: N = %d, D = %d, clipped %d; want %d rows, 92 features, none clipped", tc.name, ds.N, ds.D, diag.ClippedRows, tc.rows)
		}
		pos := 0
		for _, y := range ds.Y {
			if y > 0 {
				pos++
			}
		}
		if pos == 0 || pos == ds.N {
			t.Errorf("%s: %d positive labels of %d", tc.name, pos, ds.N)
		}
	}
	if TrainSize() != int64(len(files().train)) || Available() != nil {
		t.Errorf("TrainSize = %d, Available: %v", TrainSize(), Available())
	}
}

// droppedColumns are the columns of the UCI files that adult-lr ignores and the demo leaves
// out (fnlwgt is a census weight whose digits gzip cannot compress: dropping it keeps the
// page's download about 12 kB smaller).
var droppedColumns = []string{"fnlwgt", "education"}

// The demo schema is the repository's adult-lr schema without the lines of the dropped
// (ignored) columns, and the demo files are the first rows of the shared UCI files, byte for
// byte, with those columns removed.
func TestDemoProvenance(t *testing.T) {
	example, err := os.ReadFile(filepath.Join("..", "..", "examples", "adult-lr.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := example
	for _, c := range droppedColumns {
		start := bytes.Index(want, []byte(`    {"name": "`+c+`", "kind": "ignore"`))
		if start < 0 {
			t.Fatalf("the example schema does not ignore %s", c)
		}
		end := start + bytes.IndexByte(want[start:], '\n') + 1
		want = append(want[:start:start], want[end:]...)
	}
	if !bytes.Equal(want, files().schema) {
		t.Error("adult-lr.schema.json is not examples/adult-lr.schema.json without the dropped columns")
	}
	for _, tc := range []struct {
		file string
		demo []byte
	}{{"adult.data", files().train}, {"adult.test", files().test}} {
		path, err := adultdata.File(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		full, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lines := bytes.SplitAfter(tc.demo, []byte("\n"))
		lines = lines[:len(lines)-1] // after the last newline
		fullLines := bytes.SplitAfterN(full, []byte("\n"), len(lines)+1)
		if tc.demo[len(tc.demo)-1] != '\n' || len(fullLines) <= len(lines) {
			t.Fatalf("%s: the demo is not whole lines of the shared file", tc.file)
		}
		for i, l := range lines {
			fields := bytes.Split(fullLines[i], []byte(","))
			if len(fields) != 15 {
				t.Fatalf("%s line %d: %d fields", tc.file, i+1, len(fields))
			}
			kept := bytes.Join(append(fields[:2:2], fields[4:]...), []byte(","))
			if !bytes.Equal(kept, l) {
				t.Fatalf("%s line %d: %q, want %q (the shared line without fields 3 and 4)", tc.file, i+1, l, kept)
			}
		}
		if h := string(bytes.Split(fullLines[0], []byte(","))[2]); h != " "+droppedColumns[0] {
			t.Errorf("%s: field 3 of the header is %q", tc.file, h)
		}
	}
}
