package main

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/privopt/privopt/internal/release"
)

const predictSynopsis = `Scores the rows of a CSV file with a released model, on this machine, and writes one CSV line
per row: the predicted label ("prediction"; for regression the value in the label's units,
clipped to its declared range, or to its private range when the model was fitted with one)
and, for logistic and multinomial models, one column "p(class)" per class. The release file
(privopt fit --out, or the page's Download) holds the schema and the encoding (with any
transforms and private ranges), so the file needs only the feature columns; the label and
ignored columns may be present. A bad row stops the run with its line and column, and nothing
is written.`

// predictOptions are the parsed options of privopt predict.
type predictOptions struct {
	model, data, out string
	run              int
}

func runPredict(args []string, stdout, stderr io.Writer) error {
	o, err := parsePredict(args, stdout)
	if err != nil {
		return err
	}
	if err := checkFiles("--out", o.out, []string{o.model, o.data}); err != nil {
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
	in, err := os.Open(o.data)
	if err != nil {
		return err
	}
	defer in.Close()
	var b bytes.Buffer
	diag, err := file.WriteCSV(k, in, &b)
	if err != nil {
		return fmt.Errorf("%s: %w", o.data, err)
	}
	for _, w := range newDataDiagnostics(diag).warnings() {
		fmt.Fprintf(stderr, "privopt predict: %s: %s\n", o.data, w)
	}
	if o.out == "" || o.out == "-" {
		_, err := stdout.Write(b.Bytes())
		return err
	}
	return writeAtomically(o.out, b.Bytes())
}

func parsePredict(args []string, stdout io.Writer) (*predictOptions, error) {
	fs := newFlags("predict --model RELEASE.json --data FILE [--out FILE] [--run K]", predictSynopsis, stdout)
	o := &predictOptions{}
	fs.StringVar(&o.model, "model", "", "the release file (required)")
	fs.StringVar(&o.data, "data", "", "the CSV file to score (required)")
	fs.StringVar(&o.out, "out", "", "write the predictions to this file instead of standard output (- is standard output)")
	fs.IntVar(&o.run, "run", 0, "which model of the release file, from 1 (required when it holds several)")
	if err := fs.parse(args); err != nil {
		return nil, err
	}
	set, err := fs.given("model", "data")
	if err != nil {
		return nil, err
	}
	if set["run"] && o.run < 1 {
		return nil, usageError{fmt.Sprintf("--run counts from 1, got %d", o.run)}
	}
	return o, nil
}

// readRelease reads a release file, naming it in errors.
func readRelease(path string) (*release.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	file, err := release.Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return file, nil
}

// chooseRun returns which model of the file to use: run when given (0 is not given), the
// only one when there is one, and otherwise a usage error saying how many there are.
func chooseRun(file *release.File, run int) (int, error) {
	switch {
	case run > len(file.Models):
		return 0, usageError{fmt.Sprintf("--run %d: the release file holds %d model(s)", run, len(file.Models))}
	case run > 0:
		return run, nil
	case len(file.Models) > 1:
		return 0, usageError{fmt.Sprintf("the release file holds %d models: choose one with --run K (1 to %d)", len(file.Models), len(file.Models))}
	}
	return 1, nil
}
