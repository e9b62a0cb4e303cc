package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/privopt/privopt/internal/adultdata"
	"github.com/privopt/privopt/pkg/core/data"
)

// TestPredictAdult fits noisy-gd on the first 5,000 rows of adult.data (ε = 4) with --out, scores the
// first 2,000 rows of adult.test with privopt predict, and checks every line against the model's
// definition (the probability σ(w·x) of the row as privopt encodes it, and its label), and
// that the rows' accuracy is that of a model (above the majority class's 76 %).
func TestPredictAdult(t *testing.T) {
	dir := t.TempDir()
	head := func(name string, rows int) string {
		path, err := adultdata.File(name)
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, name)
		if err := os.WriteFile(out, []byte(strings.Join(strings.SplitAfter(string(b), "\n")[:rows+1], "")), 0o644); err != nil {
			t.Fatal(err)
		}
		return out
	}
	train, test := head("adult.data", 5000), head("adult.test", 2000)
	model, preds := filepath.Join(dir, "release.json"), filepath.Join(dir, "predictions.csv")
	if code, _, errOut := runCLI("fit", "--data", train, "--schema", "../../examples/adult-lr.schema.json", "--mech", "noisy-gd",
		"--eps", "4", "--delta", "1e-6", "--seed", "5", "--out", model); code != 0 {
		t.Fatalf("fit: %s", errOut)
	}
	if code, _, errOut := runCLI("predict", "--model", model, "--data", test, "--out", preds); code != 0 {
		t.Fatalf("predict: %s", errOut)
	}
	// --out - is standard output: the same predictions, and no file named "-".
	code, out, errOut := runCLI("predict", "--model", model, "--data", test, "--out", "-")
	if written, err := os.ReadFile(preds); code != 0 || err != nil || out != string(written) {
		t.Errorf("predict --out -: %d, %d bytes on stdout against %d written, %v, %s", code, len(out), len(written), err, errOut)
	}
	if _, err := os.Stat("-"); err == nil {
		t.Error(`predict --out - wrote a file named "-"`)
	}
	file, err := readRelease(model)
	if err != nil {
		t.Fatal(err)
	}
	ds, rows := encodedAndPredicted(t, file.Schema, test, preds, data.Encode)
	if rows[0] != "prediction,p(<=50K),p(>50K)" || len(rows) != ds.N+1 {
		t.Fatalf("predictions: header %q and %d lines for %d rows", rows[0], len(rows)-1, ds.N)
	}
	w := file.Models[0].Model.Weights
	right := 0
	for i, row := range rows[1:] {
		fields := strings.Split(row, ",")
		var s float64
		for j, v := range ds.Row(i, nil) {
			s += w[j] * v
		}
		p, err := strconv.ParseFloat(fields[2], 64)
		if err != nil || math.Abs(p-1/(1+math.Exp(-s))) > 1e-15 || (fields[0] == ">50K") != (s >= 0) {
			t.Fatalf("row %d: %q for the score %g", i+1, row, s)
		}
		if (s >= 0) == (ds.Y[i] > 0) {
			right++
		}
	}
	if acc := float64(right) / float64(ds.N); acc < 0.78 {
		t.Errorf("accuracy of the predictions %.4f, want above the majority class", acc)
	}
}

// TestPredictLabelRange fits a regression on a schema with a log1p column and private ranges on
// a feature and on the label (a schema as used), predicts with the release and exports it: each
// prediction is in the label's units, offset + unit·clip(w·x, −1, 1) for the label's range
// [5, 60] (offset 32.5, unit 27.5), for the row as the release's schema encodes it.
func TestPredictLabelRange(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("gain,x,price\n")
	for i := range 400 {
		gain, x := math.Pow(10, float64(i%50)/10)-1, float64((i*7)%11)
		fmt.Fprintf(&b, "%.2f,%g,%.2f\n", gain, x, 5+3*math.Log1p(gain)+2*x+float64(i%5))
	}
	csv, schema, model, preds := filepath.Join(dir, "data.csv"), filepath.Join(dir, "schema.json"), filepath.Join(dir, "release.json"), filepath.Join(dir, "predictions.csv")
	for path, text := range map[string]string{csv: b.String(), schema: `{"privopt_schema": 1, "norm": {"p": 2, "radius": 1, "bias": 0.5, "fit": "scale"}, "columns": [
	  {"name": "gain", "kind": "numeric", "min": 0, "max": 99999, "transform": "log1p"},
	  {"name": "x", "kind": "numeric", "min": 0, "max": 20, "private_range": {"lo": 0, "hi": 0.5}},
	  {"name": "price", "kind": "numeric-label", "min": 0, "max": 100, "private_range": {"lo": 0.05, "hi": 0.6}}]}`} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if code, _, errOut := runCLI("fit", "--data", csv, "--schema", schema, "--mech", "noisy-gd", "--loss", "squared", "--domain", "ball", "--radius", "20",
		"--eps", "4", "--delta", "1e-6", "--seed", "3", "--out", model); code != 0 {
		t.Fatalf("fit: %s", errOut)
	}
	if code, _, errOut := runCLI("predict", "--model", model, "--data", csv, "--out", preds); code != 0 {
		t.Fatalf("predict: %s", errOut)
	}
	file, err := readRelease(model)
	if err != nil {
		t.Fatal(err)
	}
	if file.Label.Offset != 32.5 || file.Label.Unit != 27.5 || file.Schema.Columns[0].Transform != data.Log1p || file.Schema.Columns[1].Range == nil {
		t.Fatalf("the release's label %+v and schema %+v", file.Label, file.Schema.Columns)
	}
	ds, rows := encodedAndPredicted(t, file.Schema, csv, preds, data.EncodeForPrediction)
	if rows[0] != "prediction" || len(rows) != ds.N+1 {
		t.Fatalf("predictions: header %q and %d lines for %d rows", rows[0], len(rows)-1, ds.N)
	}
	w := file.Models[0].Model.Weights
	distinct := map[string]bool{}
	for i, row := range rows[1:] {
		var s float64
		for j, v := range ds.Row(i, nil) {
			s += w[j] * v
		}
		want := 32.5 + float64(27.5*min(max(s, -1), 1))
		if got, err := strconv.ParseFloat(row, 64); err != nil || got != want || got < 5 || got > 60 {
			t.Fatalf("row %d: %q, want %v (score %v)", i+1, row, want, s)
		}
		distinct[row] = true
	}
	if len(distinct) < 10 {
		t.Errorf("%d distinct predictions: the model predicts nearly a constant", len(distinct))
	}
	if code, msg := exportCLI("--model", model, "--onnx", filepath.Join(dir, "model.onnx")); code != 0 {
		t.Errorf("export: %s", msg)
	}
}

// TestPredictUsage: bad options, a first-format file, a bad row (named by file, line and
// column, with nothing written) and an output that is an input are refused.
func TestPredictUsage(t *testing.T) {
	csv, schema := toyFiles(t)
	dir := t.TempDir()
	model := filepath.Join(dir, "release.json")
	if code, _, errOut := runCLI("fit", "--data", csv, "--schema", schema, "--mech", "outpert", "--eps", "1", "--seed", "1", "--out", model); code != 0 {
		t.Fatal(errOut)
	}
	v1 := filepath.Join(dir, "v1.json")
	bad := filepath.Join(dir, "bad.csv")
	for path, text := range map[string]string{v1: `{"format": "privopt-release/1", "settings": {}, "releases": []}`, bad: "a,b\n1,2\n3,x\n"} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "out.csv")
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--data", csv}, 2, "--model is required"},
		{[]string{"--model", model}, 2, "--data is required"},
		{[]string{"--model", model, "--data", csv, "--run", "0"}, 2, "--run counts from 1"},
		{[]string{"--model", model, "--data", csv, "--run", "2"}, 2, "holds 1 model(s)"},
		{[]string{"--model", model, "--data", csv, "--out", csv}, 2, "is also an input file"},
		{[]string{"--model", v1, "--data", csv}, 1, "first format"},
		{[]string{"--model", model, "--data", bad, "--out", out}, 1, `bad.csv: data: line 3, column "b"`},
	} {
		code, _, errOut := runCLI(append([]string{"predict"}, tc.args...)...)
		if code != tc.code || !strings.Contains(errOut, tc.msg) {
			t.Errorf("privopt predict %q: code %d, stderr %q; want %d and %q", tc.args, code, errOut, tc.code, tc.msg)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a bad row left a predictions file")
	}
	code, stdout, _ := runCLI("predict", "--model", model, "--data", csv)
	if code != 0 || !strings.HasPrefix(stdout, "prediction,p(no),p(yes)\n") || strings.Count(stdout, "\n") != 301 {
		t.Errorf("predict to standard output: code %d, %d lines", code, strings.Count(stdout, "\n"))
	}
}

// TestFitPrivateEvaluation: --eval-share spends its share of the budget on the --test rows: the
// evaluation's report is for the share, the model's for what the exact composition leaves
// (more than basic composition's rest), the release file states both composed (within the
// whole budget), and the noisy accuracy is near the local one. Bad
// shares and a share without --test are usage errors.
func TestFitPrivateEvaluation(t *testing.T) {
	csv, schema := toyFiles(t)
	out := filepath.Join(t.TempDir(), "release.json")
	v, _ := fitJSON(t, "--data", csv, "--schema", schema, "--mech", "outpert-gauss", "--eps", "4", "--delta", "1e-6",
		"--test", csv, "--eval-share", "0.25", "--seed", "2", "--out", out)
	target := v["report"].(map[string]any)["target"].(map[string]any)
	ev := v["evaluation"].(map[string]any)
	evTarget := ev["report"].(map[string]any)["target"].(map[string]any)
	if e := target["epsilon"].(float64); !(e > 3 && e < 4) || evTarget["epsilon"] != 1.0 || math.Abs(evTarget["delta"].(float64)-0.25e-6) > 1e-18 {
		t.Errorf("targets: model %v, evaluation %v; want ε in (3, 4) (more than basic composition's 3) and ε = 1", target, evTarget)
	}
	acc := ev["accuracy"].(map[string]any)
	local := v["test"].(map[string]any)["accuracy"].(float64)
	if got := acc["value"].(float64); math.Abs(got-local) > 0.05 || !(acc["low"].(float64) <= got && got <= acc["high"].(float64)) {
		t.Errorf("private accuracy %v, local %g", acc, local)
	}
	file, err := readRelease(out)
	if err != nil {
		t.Fatal(err)
	}
	c, err := file.Guarantee()
	if err != nil {
		t.Fatal(err)
	}
	if d := c.Delta(4); !(d <= 1e-6) || file.Models[0].Evaluation == nil || file.Models[0].HeldOut.Rows != 300 {
		t.Errorf("the file's composed guarantee gives δ(4) = %g; evaluation %v", d, file.Models[0].Evaluation)
	}
	// Without a seed (the statements do not depend on the noise), they state the evaluation.
	fitJSON(t, "--data", csv, "--schema", schema, "--mech", "outpert-gauss", "--eps", "4", "--delta", "1e-6",
		"--test", csv, "--eval-share", "0.25", "--out", out)
	if file, err = readRelease(out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(file.Statements.Plain, "private evaluation") || !strings.Contains(file.Together, "the model and its private evaluation") {
		t.Errorf("the statements do not state the evaluation: %s\n%s", file.Together, file.Statements.Plain)
	}
	for _, args := range [][]string{{"--eval-share", "0.2"}, {"--test", csv, "--eval-share", "1"}, {"--test", csv, "--eval-share", "-0.1"}} {
		code, _, errOut := runCLI(append([]string{"fit", "--data", csv, "--schema", schema, "--mech", "outpert", "--eps", "1"}, args...)...)
		if code != 2 || !strings.Contains(errOut, "--eval-share must be in (0, 1) and needs --test") {
			t.Errorf("%q: code %d, %q", args, code, errOut)
		}
	}
}

// encodedAndPredicted returns the rows of the CSV file csv encoded by encode with the schema,
// and the lines of the predictions file preds.
func encodedAndPredicted(t *testing.T, s *data.Schema, csv, preds string, encode func(io.Reader, *data.Schema) (*data.Dataset, *data.Diagnostics, error)) (*data.Dataset, []string) {
	t.Helper()
	f, err := os.Open(csv)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ds, _, err := encode(f, s)
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.ReadFile(preds)
	if err != nil {
		t.Fatal(err)
	}
	return ds, strings.Split(strings.TrimSpace(string(out)), "\n")
}
