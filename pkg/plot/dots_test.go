package plot

import (
	"math"
	"testing"
)

// TestDotChart: each row's label sits above its dots; the axis maps its ends to the margins;
// the marked value is drawn last, over the others; 0 is marked inside the range; the height
// follows from the rows.
func TestDotChart(t *testing.T) {
	c := DotChart{Width: 232, X: Axis{Label: "weight", Min: -2, Max: 2}, Mark: 1, Rows: []DotRow{
		{Label: "age", Values: []float64{-2, 1, 2}, Class: "unreliable"},
		{Label: "hours", Values: []float64{0.5, 1.5, 1}},
	}}
	d, err := c.Draw()
	if err != nil {
		t.Fatal(err)
	}
	if d.ViewBox != "0 0 232.00 110.00" { // 4 + 2 rows of 30 + 46 for the axis
		t.Errorf("view box %q", d.ViewBox)
	}
	// x = −2 is at the left margin (16), 2 at the right one (216), 0 in the middle.
	want := []Circle{
		{CX: "16.00", CY: "22.00", R: "4", Class: "dot unreliable"},
		{CX: "216.00", CY: "22.00", R: "4", Class: "dot unreliable"},
		{CX: "166.00", CY: "22.00", R: "4", Class: "dot unreliable mark"},
		{CX: "141.00", CY: "52.00", R: "4", Class: "dot"},
		{CX: "166.00", CY: "52.00", R: "4", Class: "dot"},
		{CX: "191.00", CY: "52.00", R: "4", Class: "dot mark"},
	}
	if len(d.Circles) != len(want) {
		t.Fatalf("circles %+v", d.Circles)
	}
	for i := range want {
		if d.Circles[i] != want[i] {
			t.Errorf("circle %d: %+v, want %+v", i, d.Circles[i], want[i])
		}
	}
	ranges, zero := 0, false
	for _, l := range d.Lines {
		switch l.Class {
		case "range unreliable":
			ranges++
			if l.X1 != "16.00" || l.X2 != "216.00" {
				t.Errorf("the first row's range %+v", l)
			}
		case "range":
			ranges++
			if l.X1 != "141.00" || l.X2 != "191.00" || l.Y1 != "52.00" {
				t.Errorf("the second row's range %+v", l)
			}
		case "zero":
			zero = l.X1 == "116.00"
		}
	}
	if ranges != 2 || !zero {
		t.Errorf("%d range lines, zero line at 116: %v", ranges, zero)
	}
	labels := map[string]Text{}
	for _, tx := range d.Texts {
		labels[tx.Text] = tx
	}
	if l := labels["hours"]; l.Y != "42.00" || l.X != "16.00" || l.Class != "dot-label" {
		t.Errorf("the second row's label %+v", l)
	}
	if l := labels["weight"]; l.Class != "axis-label" {
		t.Errorf("the axis label %+v", l)
	}

	for name, bad := range map[string]DotChart{
		"narrow":   {Width: 20, X: Axis{Min: 0, Max: 1}},
		"empty x":  {Width: 200, X: Axis{Min: 1, Max: 1}},
		"infinite": {Width: 200, X: Axis{Min: 0, Max: math.Inf(1)}},
	} {
		if _, err := bad.Draw(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
