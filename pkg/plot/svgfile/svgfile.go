// Package svgfile writes a laid-out plot (a pkg/plot Drawing) as a standalone SVG document,
// with the plots' style sheet embedded so that the file looks as it does in the page.
//
// It is apart from pkg/plot because the embed package brings the initialization of io/fs,
// time and syscall into every program that links it: about 50 kB (gzip) of the light curve
// widget's WebAssembly (wasm/widget), which links pkg/plot but writes no file.
package svgfile

import (
	_ "embed"
	"io"
	"strings"

	"github.com/privopt/privopt/pkg/plot"
)

// Style is the style sheet of the plot classes (plot.css). Write embeds it, and the build
// copies plot.css next to the app so that the page and the files look the same.
//
//go:embed plot.css
var Style string

// Write writes d as a standalone SVG document. Classes are kept, and Style is embedded.
func Write(w io.Writer, d plot.Drawing) error {
	var b strings.Builder
	b.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" width="` + d.Width + `" height="` + d.Height + `" viewBox="` + d.ViewBox + `">` + "\n")
	b.WriteString("<style>\n" + Style + "</style>\n")
	for _, e := range d.Elements() {
		b.WriteString("<" + e.Name)
		for _, a := range e.Attrs {
			b.WriteString(" " + a.Name + `="` + escape(a.Value) + `"`)
		}
		if e.Name == "text" {
			b.WriteString(">" + escape(e.Text) + "</text>\n")
		} else {
			b.WriteString("/>\n")
		}
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

var escaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#39;")

func escape(s string) string { return escaper.Replace(s) }
