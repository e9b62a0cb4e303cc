// Package demo holds the page's built-in demo dataset: a subset of UCI Adult (Becker and
// Kohavi 1996, CC BY 4.0), its public adult-lr schema and a held-out part. It is compiled into
// the program (embed.go), except in the page's build (tag demofetched, fetched.go), where the
// page fetches the files while it loads, so that the demo needs no request later and app.wasm
// stays small. README.md beside this file gives the source and the licence.
package demo

import (
	"bytes"
	"io"
)

// Name is the demo's file name as the page shows it.
const Name = "adult-train.csv"

// Attribution credits the dataset, as the page and docs/app.md show it.
const Attribution = "Demo data: a subset of the UCI Adult dataset (Barry Becker and Ronny Kohavi, 1996, " +
	"UCI Machine Learning Repository, doi:10.24432/C5XW20), licensed CC BY 4.0: the first 4,000 rows " +
	"of adult.data for training and the first 1,000 rows of adult.test held out, without the columns " +
	"fnlwgt and education, which adult-lr ignores."

// Train returns a reader of the training file: the header and 4,000 rows of adult.data
// (without fnlwgt and education, which adult-lr ignores).
func Train() io.Reader { return bytes.NewReader(files().train) }

// Test returns a reader of the held-out file: the header and 1,000 rows of adult.test.
func Test() io.Reader { return bytes.NewReader(files().test) }

// TrainSize is the size of the training file in bytes.
func TrainSize() int64 { return int64(len(files().train)) }

// Schema returns a reader of the adult-lr schema (examples/adult-lr.schema.json, without the
// two ignored columns the demo leaves out): public bounds and category lists from adult.names,
// nothing read from the rows.
func Schema() io.Reader { return bytes.NewReader(files().schema) }

// Available returns an error when the demo's files are missing (a page whose host did not
// serve them).
func Available() error {
	f := files()
	if len(f.train) == 0 || len(f.test) == 0 || len(f.schema) == 0 {
		return errMissing
	}
	return nil
}

// demoFiles are the demo's three files.
type demoFiles struct{ train, test, schema []byte }
