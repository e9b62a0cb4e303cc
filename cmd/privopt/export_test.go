package main

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/privopt/privopt/internal/onnx"
)

// exportCLI runs privopt export and returns its exit status as run gives it (2 for a usage
// error) and its error's text.
func exportCLI(args ...string) (code int, msg string) {
	err := runExport(args, io.Discard, io.Discard)
	var ue usageError
	switch {
	case err == nil:
		return 0, ""
	case errors.As(err, &ue):
		return 2, err.Error()
	}
	return 1, err.Error()
}

// TestExport fits the toy data with --out, exports the model and checks that the file holds
// what internal/onnx writes for it; with two models, --run chooses one.
func TestExport(t *testing.T) {
	csv, schema := toyFiles(t)
	dir := t.TempDir()
	model := filepath.Join(dir, "release.json")
	if code, _, errOut := runCLI("fit", "--data", csv, "--schema", schema, "--mech", "noisy-gd", "--eps", "1", "--delta", "1e-6",
		"--seed", "1", "--out", model); code != 0 {
		t.Fatal(errOut)
	}
	out := filepath.Join(dir, "model.onnx")
	if code, msg := exportCLI("--model", model, "--onnx", out); code != 0 {
		t.Fatal(msg)
	}
	file, err := readRelease(model)
	if err != nil {
		t.Fatal(err)
	}
	wantExport := func(k int) []byte {
		var b bytes.Buffer
		if err := onnx.Export(file, k, &b); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	if got, err := os.ReadFile(out); err != nil || !bytes.Equal(got, wantExport(1)) || len(got) == 0 {
		t.Errorf("model.onnx (%d bytes, %v) is not the export of the release's model", len(got), err)
	}

	// A file with two models: --run chooses, and without it the command says how many there are.
	second := file.Models[0]
	second.Model.Weights = append([]float64(nil), second.Model.Weights...)
	for i := range second.Model.Weights {
		second.Model.Weights[i] *= -1
	}
	file.Models = append(file.Models, second)
	var b bytes.Buffer
	if err := file.Write(&b); err != nil {
		t.Fatal(err)
	}
	two := filepath.Join(dir, "two.json")
	if err := os.WriteFile(two, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, msg := exportCLI("--model", two, "--onnx", out); code != 2 || !strings.Contains(msg, "holds 2 models: choose one with --run K") {
		t.Errorf("two models without --run: code %d, %q", code, msg)
	}
	if code, msg := exportCLI("--model", two, "--onnx", out, "--run", "2"); code != 0 {
		t.Fatal(msg)
	}
	if got, err := os.ReadFile(out); err != nil || !bytes.Equal(got, wantExport(2)) {
		t.Errorf("--run 2 did not write the second model (%v)", err)
	}
}

// TestExportUsage: bad options and an --onnx file that is the input are usage errors; a file
// that is not a release file of this format, or an output that cannot be written, is an error
// that writes nothing.
func TestExportUsage(t *testing.T) {
	csv, schema := toyFiles(t)
	dir := t.TempDir()
	model := filepath.Join(dir, "release.json")
	if code, _, errOut := runCLI("fit", "--data", csv, "--schema", schema, "--mech", "outpert", "--eps", "1", "--seed", "1", "--out", model); code != 0 {
		t.Fatal(errOut)
	}
	v1 := filepath.Join(dir, "v1.json")
	if err := os.WriteFile(v1, []byte(`{"format": "privopt-release/1", "settings": {}, "releases": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "model.onnx")
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--onnx", out}, 2, "--model is required"},
		{[]string{"--model", model}, 2, "--onnx is required"},
		{[]string{"--model", model, "--onnx", ""}, 2, "--onnx needs a file name"},
		{[]string{"--model", model, "--onnx", out, "--run", "0"}, 2, "--run counts from 1"},
		{[]string{"--model", model, "--onnx", out, "--run", "2"}, 2, "holds 1 model(s)"},
		{[]string{"--model", model, "--onnx", model}, 2, "is also an input file"},
		{[]string{"--model", model, "--onnx", out, "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"--model", filepath.Join(dir, "missing.json"), "--onnx", out}, 1, "no such file"},
		{[]string{"--model", v1, "--onnx", out}, 1, "first format"},
		{[]string{"--model", csv, "--onnx", out}, 1, "not a privopt release file"},
		{[]string{"--model", model, "--onnx", filepath.Join(dir, "no", "such", "dir", "m.onnx")}, 1, "no such file"},
	} {
		code, msg := exportCLI(tc.args...)
		if code != tc.code || !strings.Contains(msg, tc.msg) {
			t.Errorf("privopt export %q: code %d, %q; want %d and %q", tc.args, code, msg, tc.code, tc.msg)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a failed export left a file")
	}
	if b, err := os.ReadFile(model); err != nil || !bytes.HasPrefix(b, []byte("{")) {
		t.Error("the release file was changed")
	}
	var help bytes.Buffer
	if err := runExport([]string{"--help"}, &help, io.Discard); !errors.Is(err, flag.ErrHelp) || !strings.Contains(help.String(), "ONNX") {
		t.Errorf("--help: %v, %q", err, help.String())
	}
}
