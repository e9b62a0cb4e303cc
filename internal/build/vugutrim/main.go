// Command vugutrim copies the page's Vugu templates without the whitespace that only lays out
// their source: a run of spaces with a line break between two tags, one of them an element
// that starts a block (a div, a paragraph, a table's cells …), where CSS shows no space anyway.
// Vugu's generator turns each such run into a text node built at every render, and 528 of
// them took 10 kB of the page's compressed WebAssembly. build.sh generates ui/*_gen.go from
// the trimmed copies, so the templates keep their layout:
//
//	go run ./internal/build/vugutrim ui OUTDIR
//
// Whitespace beside inline elements (a span, a label, a button, an input, the plots' svg) is
// kept, since it can show as a space. A template with a comment, a script or a style element
// is refused: their text is not markup, and this is not an HTML parser.
package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: vugutrim INDIR OUTDIR")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "vugutrim:", err)
		os.Exit(1)
	}
}

// run writes the trimmed copy of every .vugu file of in into out.
func run(in, out string) error {
	files, err := filepath.Glob(filepath.Join(in, "*.vugu"))
	if err != nil {
		return err
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		t, err := trim(string(src))
		if err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		if err := os.WriteFile(filepath.Join(out, filepath.Base(f)), []byte(t), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// blocks are the elements whose start and end are line boundaries, by CSS's defaults and the
// page's own styles, so that whitespace beside them shows nothing; the option elements of a
// select hold no text, and the components' roots (a section, a div, a details) are blocks, but
// for PlotView's svg.
var blocks = map[string]bool{
	"div": true, "p": true, "h1": true, "h2": true, "h3": true, "h4": true, "ul": true, "ol": true, "li": true,
	"table": true, "caption": true, "thead": true, "tbody": true, "tr": true, "th": true, "td": true,
	"section": true, "details": true, "summary": true, "fieldset": true, "legend": true, "main": true,
	"header": true, "footer": true, "option": true,
}

// block reports whether the tag named name starts or ends a block.
func block(name string) bool {
	if c, ok := strings.CutPrefix(name, "ui:"); ok {
		return c != "PlotView"
	}
	return blocks[strings.ToLower(name)]
}

// trim returns src without the whitespace runs with a line break between two tags of which one
// is a block's.
func trim(src string) (string, error) {
	var out strings.Builder
	prev := ""    // the name of the last tag
	pending := "" // whitespace after it, kept or dropped at the next tag
	for i := 0; i < len(src); {
		if src[i] != '<' {
			j := strings.IndexByte(src[i:], '<')
			if j < 0 {
				j = len(src) - i
			}
			text := src[i : i+j]
			if strings.TrimSpace(text) == "" && prev != "" {
				pending += text
			} else {
				out.WriteString(pending + text)
				pending, prev = "", "" // text: no tag just before the next one
			}
			i += j
			continue
		}
		end, name, err := tagAt(src, i)
		if err != nil {
			return "", err
		}
		if !(strings.Contains(pending, "\n") && (block(prev) || block(name))) {
			out.WriteString(pending)
		}
		out.WriteString(src[i:end])
		pending, prev = "", name
		i = end
	}
	out.WriteString(pending)
	return out.String(), nil
}

// tagAt returns the end of the tag that starts at src[i] ('<'), past its '>' (a '>' within a
// quoted attribute value does not end it), and its element's name.
func tagAt(src string, i int) (end int, name string, err error) {
	rest := src[i+1:]
	for _, bad := range []string{"!--", "script", "style", "/script", "/style"} {
		if len(rest) >= len(bad) && strings.EqualFold(rest[:len(bad)], bad) {
			return 0, "", fmt.Errorf("offset %d: a comment, script or style element: not trimmed", i)
		}
	}
	n := strings.IndexAny(rest, " \t\r\n/>")
	if n == 0 && rest[0] == '/' {
		n = 1 + strings.IndexAny(rest[1:], " \t\r\n>")
	}
	if n <= 0 {
		return 0, "", fmt.Errorf("offset %d: a tag with no name", i)
	}
	name = strings.TrimPrefix(rest[:n], "/")
	var quote byte
	for k := i + 1; k < len(src); k++ {
		switch c := src[k]; {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '>':
			return k + 1, name, nil
		}
	}
	return 0, "", errors.New("a tag that does not end")
}
