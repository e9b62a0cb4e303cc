package main

import (
	"fmt"
	"io"
	"runtime"

	"github.com/privopt/privopt/internal/version"
)

func runVersion(args []string, stdout, _ io.Writer) error {
	fs := newFlags("version", "Prints privopt's version and the Go toolchain it was built with.", stdout)
	if err := fs.parse(args); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "privopt %s %s %s/%s\n", version.String(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return nil
}
