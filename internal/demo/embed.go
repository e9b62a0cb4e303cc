//go:build !demofetched

package demo

import (
	_ "embed"
	"errors"
)

var (
	//go:embed adult-train.csv
	train []byte
	//go:embed adult-test.csv
	test []byte
	//go:embed adult-lr.schema.json
	schema []byte
)

var errMissing = errors.New("demo: internal error: the embedded files are empty")

// files returns the embedded files.
func files() demoFiles { return demoFiles{train, test, schema} }
