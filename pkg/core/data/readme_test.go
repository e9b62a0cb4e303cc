package data

import (
	"os"
	"strings"
	"testing"
)

// TestReadmeSchemaExample loads the complete schema example of the README's "Data and
// schemas" section, so the documentation cannot drift from the format.
func TestReadmeSchemaExample(t *testing.T) {
	readme, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "### The schema format")
	if !ok {
		t.Fatal(`the README has no "### The schema format" section`)
	}
	_, block, ok := strings.Cut(section, "```json\n")
	if !ok {
		t.Fatal("the schema format section has no JSON example")
	}
	example, _, _ := strings.Cut(block, "```")
	s := mustSchema(t, example)
	want := []string{"age", "workclass=Private", "workclass=Self-emp-not-inc", "workclass=Self-emp-inc",
		"workclass=Federal-gov", "workclass=Local-gov", "workclass=State-gov", "workclass=Without-pay",
		"workclass=Never-worked", "workclass=?", "sex=Female", "sex=Male", "sex=(other)", "hours-per-week", "(bias)"}
	if got := s.Features(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("the README example has features %q, want %q", got, want)
	}
}
