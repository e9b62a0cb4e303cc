package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// generated is a Build method as vugugen writes one: constant attribute lists, a list with a
// value computed at render time, an empty one, and the same constant list twice.
const generated = `package ui

import "github.com/vugu/vugu"

func build(c *C) *vugu.VGNode {
	vgn := &vugu.VGNode{Data: "div", Attr: []vugu.VGAttribute{{Namespace: "", Key: "class", Val: "field check"}}}
	vgn = &vugu.VGNode{Data: "input", Attr: []vugu.VGAttribute{{Namespace: "", Key: "type", Val: "checkbox"}, vugu.VGAttribute{Namespace: "", Key: "id", Val: "float32"}}}
	vgn = &vugu.VGNode{Data: "p", Attr: []vugu.VGAttribute{{Namespace: "", Key: "id", Val: c.ID()}}}
	vgn = &vugu.VGNode{Data: "li", Attr: []vugu.VGAttribute(nil)}
	vgn = &vugu.VGNode{Data: "div", Attr: []vugu.VGAttribute{{Namespace: "", Key: "class", Val: "field check"}}}
	return vgn
}
`

// TestHoist: the constant lists become variables, one per distinct list named by the FNV-1a
// hash of its text, declared in attrs_gen.go with their text; a list with a computed value and
// an empty one stay.
func TestHoist(t *testing.T) {
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
	want := strings.NewReplacer(
		`[]vugu.VGAttribute{{Namespace: "", Key: "class", Val: "field check"}}`, "vgAttrs88b95cd0",
		`[]vugu.VGAttribute{{Namespace: "", Key: "type", Val: "checkbox"}, vugu.VGAttribute{Namespace: "", Key: "id", Val: "float32"}}`, "vgAttrs06187944",
	).Replace(generated)
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
	} {
		if !strings.Contains(string(attrs), line) {
			t.Errorf("attrs_gen.go lacks %q:\n%s", line, attrs)
		}
	}
	if strings.Count(string(attrs), "vgAttrs") != 2 {
		t.Errorf("attrs_gen.go declares other lists:\n%s", attrs)
	}
}
