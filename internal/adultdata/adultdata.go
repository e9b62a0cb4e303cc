// Package adultdata locates the UCI Adult files the tests and benchmarks read. The repository
// holds them in testdata/adult (with their provenance and licence in its README), so a clone
// passes its tests with nothing beside it.
package adultdata

import (
	"fmt"
	"os"
	"path/filepath"
)

// File returns the path of the UCI Adult file name ("adult.data", "adult.test" or
// "adult.names"): testdata/adult/<name> below the module root, the directory holding go.mod,
// found by walking up from the working directory (go test runs in the package's directory).
// The error names the path it tried when that file does not exist.
func File(name string) (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	path := filepath.Join(root, "testdata", "adult", name)
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("adultdata: the UCI Adult file %q: %w", name, err)
	}
	return path, nil
}

// moduleRoot walks up from the working directory to the first directory holding go.mod.
func moduleRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("adultdata: the working directory: %w", err)
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("adultdata: no go.mod in %s or any directory above it", wd)
		}
		dir = parent
	}
}
