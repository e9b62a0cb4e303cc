package plot

import (
	"math"
	"strings"
	"testing"
)

func TestTicksLinear(t *testing.T) {
	for _, tc := range []struct {
		min, max float64
		want     string
	}{
		{0, 10, "0 2 4 6 8 10"},
		{0, 1, "0 0.2 0.4 0.6 0.8 1"},
		{-3, 7, "-2 0 2 4 6"},
		{0, 35, "0 5 10 15 20 25 30 35"},
		{0.5, 2.5, "0.5 1 1.5 2 2.5"},
	} {
		var labels []string
		for _, tk := range Ticks(Axis{Min: tc.min, Max: tc.max}) {
			labels = append(labels, tk.Label)
		}
		if got := strings.Join(labels, " "); got != tc.want {
			t.Errorf("Ticks[%g, %g] = %s, want %s", tc.min, tc.max, got, tc.want)
		}
	}
}

func TestTicksLog(t *testing.T) {
	var labels []string
	for _, tk := range Ticks(Axis{Min: 1e-6, Max: 1, Scale: Log10}) {
		labels = append(labels, tk.Label)
	}
	if got := strings.Join(labels, " "); got != "10⁻⁶ 10⁻⁵ 10⁻⁴ 10⁻³ 10⁻² 10⁻¹ 1" {
		t.Errorf("log ticks: %s", got)
	}
	if n := len(Ticks(Axis{Min: 1e-300, Max: 1, Scale: Log10})); n > 9 || n < 5 {
		t.Errorf("300 decades give %d ticks, want at most 9", n)
	}
}

func TestDrawMapsDataToPixels(t *testing.T) {
	fig := Figure{
		Width: 400, Height: 300,
		X:      Axis{Label: "x", Min: 0, Max: 10},
		Y:      Axis{Label: "y", Min: 0, Max: 1},
		Series: []Series{{Name: "s", Class: "series-0", X: []float64{0, 10, math.NaN(), 5}, Y: []float64{0, 1, 0, 2}}},
	}
	d, err := fig.Draw()
	if err != nil {
		t.Fatal(err)
	}
	// (0,0) is the bottom-left corner of the plot area, (10,1) its top-right corner; the NaN
	// point starts a new subpath, and y = 2 is clamped to the top.
	left, right := float64(marginLeft), 400.0-marginRight
	top, bottom := float64(marginTop), 300.0-marginBottom
	want := "M" + px(left) + " " + px(bottom) + "L" + px(right) + " " + px(top) + "M" + px((left+right)/2) + " " + px(top)
	if d.Paths[0].D != want {
		t.Errorf("path %q, want %q", d.Paths[0].D, want)
	}
}

func TestDrawLogAxis(t *testing.T) {
	fig := Figure{
		Width: 300, Height: 200,
		X:      Axis{Min: 0, Max: 1},
		Y:      Axis{Min: 1e-4, Max: 1, Scale: Log10},
		Series: []Series{{X: []float64{0, 1}, Y: []float64{1e-2, 0}}},
	}
	d, err := fig.Draw()
	if err != nil {
		t.Fatal(err)
	}
	// 1e-2 is halfway up a log axis from 1e-4 to 1; 0 is clamped to the bottom.
	top, bottom := float64(marginTop), 200.0-marginBottom
	want := "M" + px(marginLeft) + " " + px((top+bottom)/2) + "L" + px(300-marginRight) + " " + px(bottom)
	if d.Paths[0].D != want {
		t.Errorf("path %q, want %q", d.Paths[0].D, want)
	}
}

func TestDrawRejectsBadFigures(t *testing.T) {
	for name, fig := range map[string]Figure{
		"zero size":    {Width: 0, Height: 100, X: Axis{Max: 1}, Y: Axis{Max: 1}},
		"empty x":      {Width: 100, Height: 100, X: Axis{Min: 1, Max: 1}, Y: Axis{Max: 1}},
		"inverted y":   {Width: 100, Height: 100, X: Axis{Max: 1}, Y: Axis{Min: 1, Max: 0}},
		"log from 0":   {Width: 100, Height: 100, X: Axis{Max: 1}, Y: Axis{Min: 0, Max: 1, Scale: Log10}},
		"infinite max": {Width: 100, Height: 100, X: Axis{Max: math.Inf(1)}, Y: Axis{Max: 1}},
	} {
		if _, err := fig.Draw(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestPowerLabel(t *testing.T) {
	for e, want := range map[int]string{0: "1", 1: "10", 2: "10²", -12: "10⁻¹²", -300: "10⁻³⁰⁰"} {
		if got := powerLabel(e); got != want {
			t.Errorf("powerLabel(%d) = %s, want %s", e, got, want)
		}
	}
}

func TestFormatNumber(t *testing.T) {
	for v, want := range map[float64]string{
		0: "0", 0.12693673750664395: "0.1269", 1: "1", 1e-5: "1 × 10⁻⁵", 1.75463e-8: "1.755 × 10⁻⁸",
		-2.5e-300: "-2.5 × 10⁻³⁰⁰", 123456: "123456", 2e6: "2 × 10⁶", 0.001: "0.001",
	} {
		if got := FormatNumber(v); got != want {
			t.Errorf("FormatNumber(%g) = %q, want %q", v, got, want)
		}
	}
}

// TestLonePointAndLegendBelow: a series of one point is drawn as a dot (a path through one
// point draws nothing), and a legend below the plot takes its room from the plotting area.
func TestLonePointAndLegendBelow(t *testing.T) {
	fig := Figure{Width: 400, Height: 300, X: Axis{Min: 0, Max: 1}, Y: Axis{Min: 0, Max: 1}, Series: []Series{
		{Name: "one", Class: "series-0", X: []float64{0.5}, Y: []float64{0.5}},
		{Name: "two", Class: "series-1", X: []float64{0, 1}, Y: []float64{0, 1}},
		{Name: "three", Class: "series-2", X: []float64{0, 1}, Y: []float64{1, 0}},
	}}
	over, err := fig.Draw()
	if err != nil {
		t.Fatal(err)
	}
	if len(over.Circles) != 1 || over.Circles[0].Class != "point series-0" {
		t.Fatalf("circles %+v", over.Circles)
	}
	fig.LegendBelow = true
	below, err := fig.Draw()
	if err != nil {
		t.Fatal(err)
	}
	// Two rows of legend (16 px each) and 6 px: the x axis moves up by 38 px.
	if over.Lines[0].Y1 != "254.00" || below.Lines[0].Y1 != "216.00" {
		t.Errorf("the x axis at y = %s, and %s with the legend below", over.Lines[0].Y1, below.Lines[0].Y1)
	}
	last := below.Texts[len(below.Texts)-1]
	if last.Text != "three" || last.Y != "288.00" {
		t.Errorf("the last legend entry %+v", last)
	}
	fig.Height = 100
	if _, err := fig.Draw(); err == nil {
		t.Error("a figure with no room for its plot was drawn")
	}
}
