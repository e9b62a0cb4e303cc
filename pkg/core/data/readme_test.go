package data

import (
	"os"
	"strings"
	"testing"
)

// readmeExample returns the first JSON example of docs/schemas.md's section with the heading.
func readmeExample(t *testing.T, heading string) string {
	t.Helper()
	readme, err := os.ReadFile("../../../docs/schemas.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), heading+"\n")
	if !ok {
		t.Fatalf("docs/schemas.md has no %q section", heading)
	}
	_, block, ok := strings.Cut(section, "```json\n")
	if !ok {
		t.Fatalf("the section %q has no JSON example", heading)
	}
	example, _, _ := strings.Cut(block, "```")
	return example
}

// TestReadmeSchemaExample loads the complete schema example of docs/schemas.md ("Data and
// schemas"), so the documentation cannot drift from the format.
func TestReadmeSchemaExample(t *testing.T) {
	s := mustSchema(t, readmeExample(t, "## The schema format"))
	want := []string{"age", "workclass=Private", "workclass=Self-emp-not-inc", "workclass=Self-emp-inc",
		"workclass=Federal-gov", "workclass=Local-gov", "workclass=State-gov", "workclass=Without-pay",
		"workclass=Never-worked", "workclass=?", "sex=Female", "sex=Male", "sex=(other)", "hours-per-week", "(bias)"}
	if got := s.Features(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("the docs/schemas.md example has features %q, want %q", got, want)
	}
}

// TestReadmeScaledExample loads docs/schemas.md's example of a schema as used, with a transform,
// private ranges and a column kept on its declared scale.
func TestReadmeScaledExample(t *testing.T) {
	s := mustSchema(t, readmeExample(t, "## Transforms and private ranges"))
	c := s.Columns
	if c[0].Transform != Log1p || c[0].Range == nil || c[1].Range == nil || c[2].Scale != ScaleDeclared || len(s.PrivatelyScaled()) != 0 {
		t.Fatalf("docs/schemas.md's scaled example decodes to %+v", c)
	}
}
