package main

import (
	"bytes"
	"fmt"
	"io"

	"github.com/privopt/privopt/internal/onnx"
)

const exportSynopsis = `Writes a model of a release file (privopt fit --out, or the page's Download) as an ONNX model,
to run with any ONNX runtime (onnxruntime in Python, C#, Java, the browser). Its graph takes the
raw feature columns, one input per column named as the column ([N, 1]: double for a numeric
column, NaN when missing; string for a categorical one, "" or "?" when missing), applies
privopt's encoding (with the schema's transforms and private ranges), the linear model and its
link, and outputs "label" (classifiers), "probabilities" (logistic and multinomial) or "value"
(regression, in the label's units): the predictions of privopt predict, except that a row
privopt refuses (a missing value whose policy is "error", an undeclared category without an
other bucket) gets all-zero features for that column. The privacy statements of the release
are in the model's metadata. See docs/onnx.md.`

// exportOptions are the parsed options of privopt export.
type exportOptions struct {
	model, onnx string
	run         int
}

func runExport(args []string, stdout, _ io.Writer) error {
	o, err := parseExport(args, stdout)
	if err != nil {
		return err
	}
	if err := checkFiles("--onnx", o.onnx, []string{o.model}); err != nil {
		return err
	}
	file, err := readRelease(o.model)
	if err != nil {
		return err
	}
	k, err := chooseRun(file, o.run)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := onnx.Export(file, k, &b); err != nil {
		return fmt.Errorf("%s: %w", o.model, err)
	}
	return writeAtomically(o.onnx, b.Bytes())
}

// parseExport parses and checks the options; every problem is a usage error.
func parseExport(args []string, stdout io.Writer) (*exportOptions, error) {
	fs := newFlags("export --model RELEASE.json --onnx MODEL.onnx [--run K]", exportSynopsis, stdout)
	o := &exportOptions{}
	fs.StringVar(&o.model, "model", "", "the release file (required)")
	fs.StringVar(&o.onnx, "onnx", "", "write the ONNX model to this file (required)")
	fs.IntVar(&o.run, "run", 0, "which model of the release file, from 1 (required when it holds several)")
	if err := fs.parse(args); err != nil {
		return nil, err
	}
	set, err := fs.given("model", "onnx")
	if err != nil {
		return nil, err
	}
	if o.onnx == "" {
		return nil, usageError{"--onnx needs a file name"}
	}
	if set["run"] && o.run < 1 {
		return nil, usageError{fmt.Sprintf("--run counts from 1, got %d", o.run)}
	}
	return o, nil
}
