package main

import (
	"reflect"
	"strings"
	"testing"
)

// section returns a section of the id with the given contents.
func section(id byte, contents ...byte) []byte {
	return append([]byte{id, byte(len(contents))}, contents...)
}

// TestFunctions reads a module of one imported function and two defined ones, the first named
// by the name section (whose index counts the import) and the second not.
func TestFunctions(t *testing.T) {
	m := []byte("\x00asm\x01\x00\x00\x00")
	m = append(m, section(1, 1, 0x60, 0, 0)...)                       // a type: func()
	m = append(m, section(2, 1, 1, 'm', 1, 'f', 0, 0)...)             // import m.f
	m = append(m, section(3, 2, 0, 0)...)                             // two functions
	m = append(m, section(10, 2, 2, 0, 0x0b, 5, 0, 1, 1, 1, 0x0b)...) // their bodies: 2 and 5 bytes
	m = append(m, section(0, 4, 'n', 'a', 'm', 'e', 1, 6, 1, 1, 3, 'o', 'n', 'e')...)
	got, err := functions(m)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got["one"].raw != 2 || got["#2"].raw != 5 || got["one"].packed < 2 {
		t.Errorf("functions: %v", got)
	}
	if _, err := functions(m[:len(m)-3]); err == nil {
		t.Error("a truncated module: no error")
	}
	if _, err := functions(m[:len(m)-15]); err == nil || !strings.Contains(err.Error(), "names") {
		t.Errorf("a module without names: %v", err)
	}
}

// TestDiff lists the functions that changed, the largest change of compressed size first.
func TestDiff(t *testing.T) {
	a := map[string]size{"gone": {50, 30}, "same": {7, 5}, "grew": {10, 8}}
	b := map[string]size{"same": {7, 5}, "grew": {14, 9}, "new": {40, 20}}
	want := []row{{"gone", size{-50, -30}}, {"new", size{40, 20}}, {"grew", size{4, 1}}}
	if got := diff(a, b); !reflect.DeepEqual(got, want) {
		t.Errorf("diff: %v, want %v", got, want)
	}
	if got := total(want); got != (size{-6, -9}) {
		t.Errorf("total: %v", got)
	}
}
