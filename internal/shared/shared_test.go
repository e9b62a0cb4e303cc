package shared

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// layout makes tmp/repo/go.mod, tmp/repo/pkg/x/ and, when withShared,
// tmp/shared/data/adult/adult.data, and returns tmp.
func layout(t *testing.T, withShared bool) string {
	t.Helper()
	tmp := t.TempDir()
	mustMkdir(t, filepath.Join(tmp, "repo", "pkg", "x"))
	if err := os.WriteFile(filepath.Join(tmp, "repo", "go.mod"), []byte("module m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if withShared {
		mustMkdir(t, filepath.Join(tmp, "shared", "data", "adult"))
		if err := os.WriteFile(filepath.Join(tmp, "shared", "data", "adult", "adult.data"), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return tmp
}

func mustMkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func TestAdultFile(t *testing.T) {
	withShared := layout(t, true)
	withoutShared := layout(t, false)
	tests := []struct {
		name    string
		env     string // PRIVOPT_SHARED; "" unsets it
		wd      string
		file    string
		want    string // the path AdultFile returns
		wantErr string // a substring of the error
	}{
		{name: "found beside the module root", wd: filepath.Join(withShared, "repo", "pkg", "x"),
			file: "adult.data", want: filepath.Join(withShared, "shared", "data", "adult", "adult.data")},
		{name: "the variable wins", env: filepath.Join(withShared, "shared"), wd: withoutShared,
			file: "adult.data", want: filepath.Join(withShared, "shared", "data", "adult", "adult.data")},
		{name: "no shared directory", wd: filepath.Join(withoutShared, "repo", "pkg", "x"),
			file: "adult.data", wantErr: "set PRIVOPT_SHARED"},
		{name: "no go.mod above", wd: withoutShared, file: "adult.data", wantErr: "no go.mod"},
		{name: "variable names a missing directory", env: filepath.Join(withoutShared, "nope"),
			wd: withoutShared, file: "adult.data", wantErr: "PRIVOPT_SHARED="},
		{name: "missing file", wd: filepath.Join(withShared, "repo"), file: "adult.test",
			wantErr: `the UCI Adult file "adult.test"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(EnvVar, tc.env)
			t.Chdir(tc.wd)
			got, err := AdultFile(tc.file)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("AdultFile(%q) = %q, %v; want an error containing %q", tc.file, got, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("AdultFile(%q): %v", tc.file, err)
			}
			if got != tc.want {
				t.Fatalf("AdultFile(%q) = %q, want %q", tc.file, got, tc.want)
			}
		})
	}
}
