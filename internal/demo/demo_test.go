package demo

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/privopt/privopt/internal/shared"
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
	if TrainSize() != int64(len(train)) {
		t.Errorf("TrainSize = %d", TrainSize())
	}
}

// The demo schema is the repository's adult-lr schema, and the demo files are the first rows
// of the shared UCI files, byte for byte.
func TestDemoProvenance(t *testing.T) {
	example, err := os.ReadFile(filepath.Join("..", "..", "examples", "adult-lr.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(example, schema) {
		t.Error("adult-lr.schema.json differs from examples/adult-lr.schema.json")
	}
	for _, tc := range []struct {
		file string
		demo []byte
	}{{"adult.data", train}, {"adult.test", test}} {
		path, err := shared.AdultFile(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		full, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(full, tc.demo) || tc.demo[len(tc.demo)-1] != '\n' {
			t.Errorf("the demo's %s is not a prefix of whole lines of the shared file", tc.file)
		}
	}
}
