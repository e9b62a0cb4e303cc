// Package demo holds the page's built-in demo dataset: a subset of UCI Adult (Becker and
// Kohavi 1996, CC BY 4.0), its public adult-lr schema and a held-out part, compiled into the
// module so that the demo needs no request. README.md beside this file gives the source and
// the licence.
package demo

import (
	"bytes"
	_ "embed"
	"io"
)

var (
	//go:embed adult-train.csv
	train []byte
	//go:embed adult-test.csv
	test []byte
	//go:embed adult-lr.schema.json
	schema []byte
)

// Name is the demo's file name as the page shows it.
const Name = "adult-train.csv"

// Attribution credits the dataset, as the page and the README show it.
const Attribution = "Demo data: a subset of the UCI Adult dataset (Barry Becker and Ronny Kohavi, 1996, " +
	"UCI Machine Learning Repository, doi:10.24432/C5XW20), licensed CC BY 4.0: the first 4,000 rows " +
	"of adult.data for training and the first 1,000 rows of adult.test held out, without the columns " +
	"fnlwgt and education, which adult-lr ignores."

// Train returns a reader of the training file: the header and 4,000 rows of adult.data
// (without fnlwgt and education, which adult-lr ignores).
func Train() io.Reader { return bytes.NewReader(train) }

// Test returns a reader of the held-out file: the header and 1,000 rows of adult.test.
func Test() io.Reader { return bytes.NewReader(test) }

// TrainSize is the size of the training file in bytes.
func TrainSize() int64 { return int64(len(train)) }

// Schema returns a reader of the adult-lr schema (examples/adult-lr.schema.json, without the
// two ignored columns the demo leaves out): public bounds and category lists from adult.names,
// nothing read from the rows.
func Schema() io.Reader { return bytes.NewReader(schema) }
