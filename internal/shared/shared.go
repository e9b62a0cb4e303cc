// Package shared locates the project's shared data directory (the UCI Adult files, the
// benchmark descriptions and the reference tables) for tests and benchmarks.
//
// The directory is named by the environment variable PRIVOPT_SHARED when it is set;
// otherwise it is "../shared" relative to the module root, the directory holding go.mod,
// found by walking up from the working directory (go test runs in the package's directory).
package shared

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// EnvVar is the environment variable that overrides the location of the shared directory.
const EnvVar = "PRIVOPT_SHARED"

// Dir returns the shared directory: $PRIVOPT_SHARED when set, otherwise ../shared beside the
// module root. It returns an error that says where it looked when the directory is missing.
func Dir() (string, error) {
	if dir := os.Getenv(EnvVar); dir != "" {
		if err := isDir(dir); err != nil {
			return "", fmt.Errorf("shared: %s=%q: %w", EnvVar, dir, err)
		}
		return dir, nil
	}
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(filepath.Dir(root), "shared")
	if err := isDir(dir); err != nil {
		return "", fmt.Errorf("shared: the shared directory beside the repository (%s): %w; set %s to its path", dir, err, EnvVar)
	}
	return dir, nil
}

// AdultFile returns the path of data/adult/<name> in the shared directory (name is
// "adult.data", "adult.test" or "adult.names"), and an error naming the path it tried when
// that file does not exist.
func AdultFile(name string) (string, error) {
	dir, err := Dir()
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "data", "adult", name)
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("shared: the UCI Adult file %q: %w", name, err)
	}
	return path, nil
}

// moduleRoot walks up from the working directory to the first directory holding go.mod.
func moduleRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("shared: the working directory: %w", err)
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("shared: no go.mod in %s or any directory above it; set %s to the shared directory", wd, EnvVar)
		}
		dir = parent
	}
}

func isDir(path string) error {
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !info.IsDir() {
		return errors.New("not a directory")
	}
	return nil
}
