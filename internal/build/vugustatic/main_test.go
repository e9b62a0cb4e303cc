package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// generated is a Build method as vugugen writes one: elements with constant attribute lists,
// with a value computed at render time and with none, the same constant list twice, a text
// node, an element of another namespace, and a node not appended where it is made.
const generated = `package ui

import "github.com/vugu/vugu"

func build(c *C, vgparent *vugu.VGNode) *vugu.VGNode {
	vgn := &vugu.VGNode{Data: "root"}
	vgn = &vugu.VGNode{Type: vugu.VGNodeType(3), Namespace: "", Data: "div", Attr: []vugu.VGAttribute{{Namespace: "", Key: "class", Val: "field check"}}}
	vgparent.AppendChild(vgn)
	vgn = &vugu.VGNode{Type: vugu.VGNodeType(3), Namespace: "", Data: "input", Attr: []vugu.VGAttribute{{Namespace: "", Key: "type", Val: "checkbox"}, vugu.VGAttribute{Namespace: "", Key: "id", Val: "float32"}}}
	vgparent.AppendChild(vgn)
	vgn = &vugu.VGNode{Type: vugu.VGNodeType(3), Namespace: "", Data: "p", Attr: []vugu.VGAttribute{{Namespace: "", Key: "id", Val: c.ID()}}}
	vgparent.AppendChild(vgn)
	vgn = &vugu.VGNode{Type: vugu.VGNodeType(3), Namespace: "", Data: "li", Attr: []vugu.VGAttribute(nil)}
	vgparent.AppendChild(vgn)
	vgn = &vugu.VGNode{Type: vugu.VGNodeType(1), Data: "\n      "}
	vgparent.AppendChild(vgn)
	vgn = &vugu.VGNode{Type: vugu.VGNodeType(3), Namespace: "svg", Data: "svg", Attr: []vugu.VGAttribute(nil)}
	vgparent.AppendChild(vgn)
	vgn = &vugu.VGNode{Type: vugu.VGNodeType(3), Namespace: "", Data: "div", Attr: []vugu.VGAttribute{{Namespace: "", Key: "class", Val: "field check"}}}
	c.Keep(vgn)
	return vgn
}
`

// want is generated rewritten: the constant lists named by the FNV-1a hash of their text, each
// node made and appended in one call, the svg element, the node kept elsewhere and the root
// as they were.
const want = `package ui

import "github.com/vugu/vugu"

func build(c *C, vgparent *vugu.VGNode) *vugu.VGNode {
	vgn := &vugu.VGNode{Data: "root"}
	vgn = vgElement(vgparent, "div", vgAttrs88b95cd0)
	vgn = vgElement(vgparent, "input", vgAttrs06187944)
	vgn = vgElement(vgparent, "p", []vugu.VGAttribute{{Namespace: "", Key: "id", Val: c.ID()}})
	vgn = vgElement(vgparent, "li", []vugu.VGAttribute(nil))
	vgn = vgText(vgparent, "\n      ")
	vgn = &vugu.VGNode{Type: vugu.VGNodeType(3), Namespace: "svg", Data: "svg", Attr: []vugu.VGAttribute(nil)}
	vgparent.AppendChild(vgn)
	vgn = &vugu.VGNode{Type: vugu.VGNodeType(3), Namespace: "", Data: "div", Attr: vgAttrs88b95cd0}
	c.Keep(vgn)
	return vgn
}
`

// TestRewrite: the constant lists become variables, one per distinct list, declared in
// attrs_gen.go with their text beside vgElement and vgText; a list with a computed value and an
// empty one stay; elements and text nodes appended where they are made become calls.
func TestRewrite(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "step_gen.go"), []byte(generated), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(dir); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "step_gen.go"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("rewritten:\n%s\nwant:\n%s", got, want)
	}
	attrs, err := os.ReadFile(filepath.Join(dir, "attrs_gen.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"\tvgAttrs88b95cd0 = []vugu.VGAttribute{{Namespace: \"\", Key: \"class\", Val: \"field check\"}}\n",
		"\tvgAttrs06187944 = []vugu.VGAttribute{{Namespace: \"\", Key: \"type\", Val: \"checkbox\"}, vugu.VGAttribute{Namespace: \"\", Key: \"id\", Val: \"float32\"}}\n",
		"func vgElement(parent *vugu.VGNode, data string, attr []vugu.VGAttribute) *vugu.VGNode {",
		"func vgText(parent *vugu.VGNode, data string) *vugu.VGNode {",
	} {
		if !strings.Contains(string(attrs), line) {
			t.Errorf("attrs_gen.go lacks %q:\n%s", line, attrs)
		}
	}
	if strings.Count(string(attrs), "vgAttrs") != 2 {
		t.Errorf("attrs_gen.go declares other lists:\n%s", attrs)
	}
}
