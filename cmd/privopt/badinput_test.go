package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/privopt/privopt/internal/badinput"
)

// TestBadInputs runs the table of bad inputs through privopt fit: each gets its error (naming
// the line when it is about one), or its defined behaviour: a release with a finite model
// that used every row, and the clipped values counted in the data diagnostics.
func TestBadInputs(t *testing.T) {
	for _, c := range badinput.Cases() {
		if testing.Short() {
			c = c.Short()
		}
		t.Run(c.Name, func(t *testing.T) {
			dir := t.TempDir()
			csv, schema := filepath.Join(dir, "data.csv"), filepath.Join(dir, "schema.json")
			f, err := os.Create(csv)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := io.Copy(f, c.Open()); err != nil {
				t.Fatal(err)
			}
			f.Close()
			if err := os.WriteFile(schema, []byte(c.SchemaText()), 0o644); err != nil {
				t.Fatal(err)
			}
			code, out, errOut := runCLI("fit", "--data", csv, "--schema", schema, "--mech", c.Mechanism,
				"--eps", fmt.Sprint(c.Epsilon), "--delta", fmt.Sprint(c.Delta), "--seed", "1", "--progress")
			if c.Error != "" {
				if code == 0 || !strings.Contains(errOut, c.Error) || (c.Line > 0 && !strings.Contains(errOut, fmt.Sprintf("line %d", c.Line))) {
					t.Errorf("code %d, stderr %q; want an error containing %q at line %d", code, errOut, c.Error, c.Line)
				}
				return
			}
			if code != 0 {
				t.Fatalf("code %d, stderr %q", code, errOut)
			}
			var v struct {
				Model struct{ Weights []float64 }
				Data  struct {
					Rows    int
					Columns []struct{ Clipped int }
				}
			}
			if err := json.Unmarshal([]byte(out), &v); err != nil {
				t.Fatal(err)
			}
			clipped := 0
			for _, col := range v.Data.Columns {
				clipped += col.Clipped
			}
			if err := c.CheckRelease(v.Model.Weights, v.Data.Rows, clipped); err != nil {
				t.Error(err)
			}
			if !strings.Contains(errOut, "privopt fit: reading 100%") {
				t.Errorf("no progress of the reading on stderr: %q", errOut)
			}
			if c.Clipped > 0 && !strings.Contains(errOut, "clipped") {
				t.Errorf("the clipping was not reported on stderr: %q", errOut)
			}
		})
	}
}
