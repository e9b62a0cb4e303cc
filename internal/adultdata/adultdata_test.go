package adultdata

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFile: the files are found below the module root from a package's directory, whatever
// lies beside the repository; a missing file and a directory with no go.mod above are errors
// that say what was tried.
func TestFile(t *testing.T) {
	tmp := t.TempDir()
	repo := filepath.Join(tmp, "repo")
	for _, dir := range []string{filepath.Join(repo, "pkg", "x"), filepath.Join(repo, "testdata", "adult")} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for path, text := range map[string]string{filepath.Join(repo, "go.mod"): "module m\n", filepath.Join(repo, "testdata", "adult", "adult.data"): "x\n"} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name, wd, file, want, wantErr string
	}{
		{"below the module root", filepath.Join(repo, "pkg", "x"), "adult.data", filepath.Join(repo, "testdata", "adult", "adult.data"), ""},
		{"missing file", repo, "adult.test", "", `the UCI Adult file "adult.test"`},
		{"no go.mod above", tmp, "adult.data", "", "no go.mod"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Chdir(tc.wd)
			got, err := File(tc.file)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("File(%q) = %q, %v; want an error containing %q", tc.file, got, err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("File(%q) = %q, %v; want %q", tc.file, got, err, tc.want)
			}
		})
	}
	// The repository's own copies.
	for _, name := range []string{"adult.data", "adult.test", "adult.names"} {
		if _, err := File(name); err != nil {
			t.Error(err)
		}
	}
}
