package svgfile

import (
	"bytes"
	"encoding/xml"
	"io"
	"strings"
	"testing"

	"github.com/privopt/privopt/pkg/plot"
)

func TestWriteIsWellFormedAndEscaped(t *testing.T) {
	fig := plot.Figure{
		Width: 300, Height: 200, Title: `a <b> & "c"`,
		X:       plot.Axis{Label: "ε", Min: 0, Max: 1},
		Y:       plot.Axis{Label: "δ", Min: 0, Max: 1},
		Series:  []plot.Series{{Name: "<script>", Class: "series-0", X: []float64{0, 1}, Y: []float64{1, 0}}},
		Markers: []plot.Marker{{Label: "p", Class: "marker", X: 0.5, Y: 0.5}},
	}
	d, err := fig.Draw()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, d); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "<style>\n"+Style) || !strings.Contains(Style, ".tick-label") {
		t.Error("the style sheet is not embedded")
	}
	dec := xml.NewDecoder(&buf)
	counts := map[string]int{}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			counts[se.Name.Local]++
		}
	}
	if counts["text"] != len(d.Texts) || counts["line"] != len(d.Lines) || counts["path"] != len(d.Paths) || counts["circle"] != len(d.Circles) {
		t.Errorf("elements %v, want %d texts, %d lines, %d paths, %d circles", counts, len(d.Texts), len(d.Lines), len(d.Paths), len(d.Circles))
	}
	if strings.Contains(buf.String(), "<script>") {
		t.Error("a label was not escaped")
	}
}
