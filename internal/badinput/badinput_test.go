package badinput

import (
	"bufio"
	"math"
	"os"
	"strings"
	"testing"
)

// TestStream: the generated file has a header and n rows of the documented values, and reads
// the same through any buffer size.
func TestStream(t *testing.T) {
	sc := bufio.NewScanner(Stream(30))
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) != 31 || lines[0] != "a,b,y" || lines[1] != "0,0,no" || lines[9] != "8,1,yes" || lines[30] != "7,1,yes" {
		t.Errorf("lines %q", lines)
	}
	var small strings.Builder
	s, buf := Stream(30), make([]byte, 3)
	for {
		k, err := s.Read(buf)
		small.Write(buf[:k])
		if err != nil {
			break
		}
	}
	if small.String() != strings.Join(lines, "\n")+"\n" {
		t.Error("reading in 3-byte pieces gave another file")
	}
	if c := (Case{Rows: 30}); c.Size() != int64(small.Len()) {
		t.Errorf("Size %d, want %d", c.Size(), small.Len())
	}
}

// TestCases: every case either expects an error or has a behaviour, and has a name.
func TestCases(t *testing.T) {
	for _, c := range Cases() {
		if c.Name == "" || c.Behaviour == "" || c.Mechanism == "" {
			t.Errorf("incomplete case %+v", c)
		}
	}
}

// TestREADMETable: the table of bad inputs in docs/schemas.md lists every case with its behaviour.
func TestREADMETable(t *testing.T) {
	readme, err := os.ReadFile("../../docs/schemas.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range Cases() {
		if row := "| " + c.Name + " | " + c.Behaviour + " |"; !strings.Contains(string(readme), row) {
			t.Errorf("docs/schemas.md has no row %q", row)
		}
	}
}

// TestShort: under go test -short only the streamed case changes, to fewer rows.
func TestShort(t *testing.T) {
	changed := 0
	for _, c := range Cases() {
		s := c.Short()
		if c.Rows == 0 && s != c || c.Rows > 0 && (s.Rows != ShortStreamedRows || s.Name == c.Name) {
			t.Errorf("%q under -short: %q, %d rows", c.Name, s.Name, s.Rows)
		}
		if s.Rows != c.Rows {
			changed++
		}
	}
	if changed != 1 {
		t.Errorf("%d cases changed under -short, want the streamed one", changed)
	}
}

// TestCheckRelease: a finite model from every row passes; a NaN weight, a dropped row or an
// uncounted clip fails.
func TestCheckRelease(t *testing.T) {
	c := Case{Name: "x", CSV: "a,b,y\n1,2,yes\n30,3,no\n", Clipped: 1}
	if err := c.CheckRelease([]float64{1, 2, 3}, 2, 1); err != nil {
		t.Error(err)
	}
	for _, bad := range []struct {
		w             []float64
		rows, clipped int
	}{{[]float64{1, math.NaN(), 3}, 2, 1}, {[]float64{1, 2, 3}, 1, 1}, {[]float64{1, 2, 3}, 2, 0}, {nil, 2, 1}} {
		if c.CheckRelease(bad.w, bad.rows, bad.clipped) == nil {
			t.Errorf("%v, %d rows, %d clipped passed", bad.w, bad.rows, bad.clipped)
		}
	}
}
