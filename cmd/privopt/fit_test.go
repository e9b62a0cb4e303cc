package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/privopt/privopt/internal/adultdata"
	"github.com/privopt/privopt/internal/demo"
	"github.com/privopt/privopt/internal/release"
	"github.com/privopt/privopt/pkg/core/cost"
	"github.com/privopt/privopt/pkg/core/mech"
	"github.com/privopt/privopt/pkg/rng"
)

const toySchema = `{
  "privopt_schema": 1,
  "delimiter": ",",
  "norm": {"p": 2, "radius": 1, "bias": 0.5, "fit": "scale"},
  "columns": [
    {"name": "a", "kind": "numeric", "min": 0, "max": 10},
    {"name": "b", "kind": "numeric", "min": 0, "max": 10},
    {"name": "y", "kind": "binary-label", "positive": ["yes"], "negative": ["no"]}
  ]
}`

// toyFiles writes a small CSV file (label "yes" when a > b, with a few exceptions) and its
// schema, and returns their paths.
func toyFiles(t *testing.T) (csv, schema string) {
	t.Helper()
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("a,b,y\n")
	for i := range 300 {
		a, c := float64((i*7)%11), float64((i*5)%10)
		y := "no"
		if (a > c) != (i%13 == 0) {
			y = "yes"
		}
		fmt.Fprintf(&b, "%g,%g,%s\n", a, c, y)
	}
	csv, schema = filepath.Join(dir, "toy.csv"), filepath.Join(dir, "toy.schema.json")
	if err := os.WriteFile(csv, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(schema, []byte(toySchema), 0o644); err != nil {
		t.Fatal(err)
	}
	return csv, schema
}

// TestFitUsage: invalid options exit with status 2 and one line naming the problem; a missing
// file is a run-time error (status 1).
func TestFitUsage(t *testing.T) {
	csv, schema := toyFiles(t)
	ok := []string{"--data", csv, "--schema", schema}
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"fit"}, 2, "--data is required"},
		{[]string{"fit", "--data", csv, "--schema", schema, "--eps", "1"}, 2, "--mech is required"},
		{append([]string{"fit", "--mech", "outpert"}, ok...), 2, "--eps is required"},
		{append([]string{"fit", "--mech", "frob", "--eps", "1"}, ok...), 2, `unknown mechanism "frob"`},
		{append([]string{"fit", "--mech", "outpert", "--eps", "nan"}, ok...), 2, "ε must be finite and positive"},
		{append([]string{"fit", "--mech", "outpert", "--eps", "x"}, ok...), 2, `invalid value "x" for flag -eps`},
		{append([]string{"fit", "--mech", "outpert", "--eps", "1", "--delta", "2"}, ok...), 2, "δ must be in [0, 1)"},
		{append([]string{"fit", "--mech", "noisy-gd", "--eps", "1e308", "--delta", "1e-6"}, ok...), 2, "ε = 1e+308 is above 1e+06: a guarantee with ε that large says nothing about privacy"},
		{append([]string{"fit", "--mech", "outpert", "--eps", "1", "--radius", "0"}, ok...), 2, "--radius must be finite and positive"},
		{append([]string{"fit", "--mech", "outpert", "--eps", "1", "--workers", "0"}, ok...), 2, "--workers must be at least 1"},
		{append([]string{"fit", "--mech", "outpert", "--eps", "1", "--tilt", "-1"}, ok...), 2, "--tilt must be a finite number ≥ 0"},
		{append([]string{"fit", "--mech", "outpert", "--eps", "1", "--robust-norm", "0.5"}, ok...), 2, "--robust-norm must be in [1, ∞]"},
		{append([]string{"fit", "--mech", "outpert", "--eps", "1", "--neighbouring", "swap"}, ok...), 2, "unknown neighbouring relation"},
		{append([]string{"fit", "--mech", "outpert-gauss", "--eps", "1"}, ok...), 2, "needs δ > 0"},
		{append([]string{"fit", "--mech", "langevin", "--eps", "1", "--delta", "1e-6", "--loss", "hinge"}, ok...), 2, "needs a smooth loss"},
		{append([]string{"fit", "--mech", "outpert", "--eps", "1", "--loss", "frob"}, ok...), 2, `unknown loss "frob"`},
		{append([]string{"fit", "--mech", "outpert", "--eps", "1", "--bogus"}, ok...), 2, "flag provided but not defined: -bogus"},
		{append([]string{"fit", "--mech", "outpert", "--eps", "1", "extra"}, ok...), 2, `unexpected argument "extra"`},
		{[]string{"fit", "--mech", "outpert", "--eps", "1", "--schema", schema, "--data", csv + ".missing"}, 1, "no such file"},
		{[]string{"fit", "--help"}, 0, ""},
	} {
		code, out, errOut := runCLI(tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.msg) {
			t.Errorf("privopt %q: code %d, stderr %q; want code %d and %q", tc.args, code, errOut, tc.code, tc.msg)
		}
		if code == 2 && strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
			t.Errorf("privopt %q: a usage error must be one line, got %q", tc.args, errOut)
		}
		if code == 0 && !strings.Contains(out, "--radius") {
			t.Errorf("privopt fit --help: %q", out)
		}
	}
}

// fitJSON runs privopt fit and decodes its JSON output.
func fitJSON(t *testing.T, args ...string) (map[string]any, string) {
	t.Helper()
	code, out, errOut := runCLI(append([]string{"fit"}, args...)...)
	if code != 0 {
		t.Fatalf("privopt fit %q: code %d, stderr %q", args, code, errOut)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("privopt fit %q: %v in %q", args, err, out)
	}
	return v, errOut
}

// TestFitToy runs every mechanism of this package's issue on the toy file and checks the JSON:
// its sections, a seeded run labelled not private, held-out figures, the same model from the
// same seed, progress lines on stderr, and --out holding the release file without diagnostics.
func TestFitToy(t *testing.T) {
	csv, schema := toyFiles(t)
	for _, tc := range []struct{ mech, delta string }{{"outpert", "0"}, {"outpert-gauss", "1e-6"}, {"langevin", "1e-6"}} {
		out := filepath.Join(t.TempDir(), "model.json")
		args := []string{"--data", csv, "--schema", schema, "--mech", tc.mech, "--eps", "2", "--delta", tc.delta,
			"--test", csv, "--seed", "7", "--out", out, "--progress"}
		v, stderr := fitJSON(t, args...)
		for _, key := range []string{"model", "report", "utility", "parameters", "diagnostics", "test"} {
			if v[key] == nil {
				t.Errorf("%s: no %q in the output", tc.mech, key)
			}
		}
		report := v["report"].(map[string]any)
		if report["randomness"] != "seeded: not private" || report["private"] != false {
			t.Errorf("%s: a seeded run's report says %v, %v", tc.mech, report["randomness"], report["private"])
		}
		test := v["test"].(map[string]any)
		if acc, _ := test["accuracy"].(float64); !(acc > 0.5 && acc <= 1) || test["rows"] != 300.0 {
			t.Errorf("%s: test section %v", tc.mech, test)
		}
		if b, _ := v["utility"].(map[string]any)["bound"].(float64); !(b > 0) {
			t.Errorf("%s: utility %v", tc.mech, v["utility"])
		}
		if !strings.Contains(stderr, "privopt fit: ") || !strings.Contains(stderr, "100%") {
			t.Errorf("%s: progress %q", tc.mech, stderr)
		}
		again, _ := fitJSON(t, args...)
		w1, _ := json.Marshal(v["model"])
		w2, _ := json.Marshal(again["model"])
		if string(w1) != string(w2) {
			t.Errorf("%s: the same seed gave two models", tc.mech)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		saved, err := release.Read(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: --out wrote a file release.Read refuses: %v", tc.mech, err)
		}
		var raw struct {
			Test   any              `json:"test"`
			Models []map[string]any `json:"models"`
		}
		if err := json.Unmarshal(b, &raw); err != nil {
			t.Fatal(err)
		}
		if len(saved.Models) != 1 || len(saved.Schema.Columns) != 3 || raw.Test != nil || raw.Models[0]["diagnostics"] != nil {
			t.Errorf("%s: --out wrote %s", tc.mech, b)
		}
	}
}

// TestFitAdult runs each of output perturbation (pure and Gaussian) and Langevin end to end on
// adult-lr at ε = 4, δ = 1e-6 with a fixed seed and the default private ranges: the model's
// report stays within the budget, its composition with the ranges meets it, and the held-out
// accuracy on adult.test beats 76%, about the majority class (a broken model lands near 24%
// or 50%). A few seconds in all.
func TestFitAdult(t *testing.T) {
	train, err := adultdata.File("adult.data")
	if err != nil {
		t.Fatalf("the adult-lr test needs the shared data: %v", err)
	}
	test, err := adultdata.File("adult.test")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ mech, delta string }{{"outpert", "0"}, {"outpert-gauss", "1e-6"}, {"langevin", "1e-6"}} {
		v, _ := fitJSON(t, "--data", train, "--schema", "../../examples/adult-lr.schema.json", "--mech", tc.mech,
			"--eps", "4", "--delta", tc.delta, "--test", test, "--seed", "1")
		achieved := v["report"].(map[string]any)["achieved"].(map[string]any)
		if e, d := achieved["epsilon"].(float64), achieved["delta"].(float64); !(e > 3 && e < 4) || d > 1e-6 {
			t.Errorf("%s: achieved %v", tc.mech, achieved)
		}
		ranges, _ := v["private_ranges"].(map[string]any)
		if ranges == nil || len(ranges["intervals"].([]any)) != 5 || ranges["report"].(map[string]any)["target"].(map[string]any)["epsilon"] != 0.8 {
			t.Errorf("%s: private ranges %v, want 5 with a fifth of ε", tc.mech, ranges)
		}
		if acc := v["test"].(map[string]any)["accuracy"].(float64); acc < 0.76 {
			t.Errorf("%s: test accuracy %.4f", tc.mech, acc)
		}
		if n := len(v["model"].(map[string]any)["weights"].([]any)); n != 92 {
			t.Errorf("%s: %d weights", tc.mech, n)
		}
	}
}

// TestFitWorkers fits noisy-gd on adult-lr (32,561 rows, several chunks of the losses' passes)
// with one and with two workers and the same seed: the release files are the same bytes.
func TestFitWorkers(t *testing.T) {
	train, err := adultdata.File("adult.data")
	if err != nil {
		t.Fatal(err)
	}
	var files [][]byte
	for _, workers := range []string{"1", "2"} {
		out := filepath.Join(t.TempDir(), "release.json")
		fitJSON(t, "--data", train, "--schema", "../../examples/adult-lr.schema.json", "--mech", "noisy-gd",
			"--eps", "1", "--delta", "1e-6", "--seed", "3", "--workers", workers, "--out", out)
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, b)
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Error("the release files with one and two workers differ")
	}
}

// TestFitFloat32: --float32 holds the toy file's rows (held dense) as float32; the release's
// facts say so, with the FitScale factor rounded toward zero (the bias 0.5 is a float32), and
// its statement states it; one and two workers give the same bytes, and another model than the
// rows as float64 (the seeded noise is the same, the rows are not).
func TestFitFloat32(t *testing.T) {
	csv, schema := toyFiles(t)
	var files [][]byte
	for _, args := range [][]string{{"--float32", "--workers", "1"}, {"--float32", "--workers", "2"}, {}} {
		out := filepath.Join(t.TempDir(), "release.json")
		fitJSON(t, append([]string{"--data", csv, "--schema", schema, "--mech", "noisy-gd", "--eps", "1", "--delta", "1e-6",
			"--seed", "3", "--out", out}, args...)...)
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, b)
	}
	if !bytes.Equal(files[0], files[1]) || bytes.Equal(files[0], files[2]) {
		t.Fatalf("float32 with one and two workers the same: %v; float32 and float64 the same: %v", bytes.Equal(files[0], files[1]), bytes.Equal(files[0], files[2]))
	}
	var f32, f64 *release.File
	var err error
	if f32, err = release.Read(bytes.NewReader(files[0])); err != nil {
		t.Fatal(err)
	}
	if f64, err = release.Read(bytes.NewReader(files[2])); err != nil {
		t.Fatal(err)
	}
	if !f32.Facts.Float32 || f64.Facts.Float32 || f32.Facts.Bias != 0.5 || f32.Facts.Scale != float64(float32(f64.Facts.Scale)) && f32.Facts.Scale != float64(math.Nextafter32(float32(f64.Facts.Scale), 0)) ||
		!(f32.Facts.Scale < f64.Facts.Scale) {
		t.Errorf("facts: float32 %v (bias %v, scale %v); float64 %v (scale %v)", f32.Facts.Float32, f32.Facts.Bias, f32.Facts.Scale, f64.Facts.Float32, f64.Facts.Scale)
	}
	if !strings.Contains(f32.Statements.Plain, "every value held as a float32, rounded toward zero") || strings.Contains(f64.Statements.Plain, "float32") {
		t.Errorf("the statements do not say how the values were held: %q", f32.Statements.Plain)
	}
}

// TestFitEveryMechanism runs every registered mechanism through privopt fit on the toy file in
// the box |wᵢ| ≤ 2 (expmech and rem-lp in ℓ1 need a bounded domain), each with the δ it needs:
// a report whose target is the budget and a model in the box. rem-lp runs its fast sampler
// (--opt), as its certified one needs millions of steps here, and then claims no privacy.
func TestFitEveryMechanism(t *testing.T) {
	csv, schema := toyFiles(t)
	for _, name := range mech.Names() {
		delta := "1e-6"
		if name == "outpert" || name == "expmech" {
			delta = "0"
		}
		args := []string{"--data", csv, "--schema", schema, "--mech", name, "--eps", "2", "--delta", delta,
			"--domain", "box", "--radius", "2", "--seed", "5"}
		if name == "rem-lp" {
			args = append(args, "--opt", "Sampler=mala", "--opt", "FastSteps=200")
		}
		v, _ := fitJSON(t, args...)
		report := v["report"].(map[string]any)
		target := report["target"].(map[string]any)
		if target["epsilon"] != 2.0 || fmt.Sprint(target["delta"]) != map[string]string{"0": "0", "1e-6": "1e-06"}[delta] {
			t.Errorf("%s: target %v", name, target)
		}
		for _, w := range v["model"].(map[string]any)["weights"].([]any) {
			if x := w.(float64); !(x >= -2 && x <= 2) {
				t.Errorf("%s: weight %g outside the box", name, x)
			}
		}
		if name == "rem-lp" && !strings.Contains(fmt.Sprint(report["statement"]), "not") {
			t.Errorf("rem-lp with a fast sampler: %v", report["statement"])
		}
	}
	// A bad setting is a usage error naming it.
	code, _, errOut := runCLI("fit", "--data", csv, "--schema", schema, "--mech", "rem-lp", "--eps", "1", "--delta", "1e-6", "--opt", "Norm=abc")
	if code != 2 || !strings.Contains(errOut, "Norm") {
		t.Errorf("--opt Norm=abc: code %d, %q", code, errOut)
	}
	code, _, errOut = runCLI("fit", "--data", csv, "--schema", schema, "--mech", "expmech", "--eps", "1")
	if code != 2 || !strings.Contains(errOut, "bounded domain") {
		t.Errorf("expmech on the whole space: code %d, %q", code, errOut)
	}
}

// demoHead writes the header and the first n rows of the demo's training file, and the demo's
// schema, and returns their paths.
func demoHead(t *testing.T, n int) (csv, schema string) {
	t.Helper()
	dir := t.TempDir()
	b, err := io.ReadAll(demo.Train())
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	csv, schema = filepath.Join(dir, fmt.Sprintf("head%d.csv", n)), filepath.Join(dir, "adult-lr.schema.json")
	if err := os.WriteFile(csv, []byte(strings.Join(lines[:n+1], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := io.ReadAll(demo.Schema())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(schema, s, 0o644); err != nil {
		t.Fatal(err)
	}
	return csv, schema
}

// TestFitAddRemove: under add/remove, fits of the first 1,000 and the first 1,001 rows of the
// demo's adult data with the same seed and the same declared N print byte-identical reports,
// parameters and utility bounds, for every mechanism that runs on the problem; the report
// names the relation and N, never the observed number of rows. A missing N, an N below the
// number of rows, and --public-n without add/remove are refused with a message. Under -short
// REM's MALA fits, which take seconds, are left out (its certified fits stay).
func TestFitAddRemove(t *testing.T) {
	csv1000, schema := demoHead(t, 1000)
	csv1001, _ := demoHead(t, 1001)
	type fitCase struct {
		mech  string
		extra []string
	}
	cases := []fitCase{
		{"noisy-gd", nil}, {"langevin", nil}, {"outpert", []string{"--delta", "0"}}, {"outpert-gauss", nil},
		{"rem", nil}, {"rem", []string{"--opt", "Sampler=mala"}}, {"rashomon", nil},
		{"rem-lp", []string{"--domain", "box", "--radius", "1", "--opt", "Sampler=mala"}},
	}
	if testing.Short() {
		cases = slices.DeleteFunc(cases, func(c fitCase) bool { return c.mech == "rem" && len(c.extra) > 0 })
	}
	for _, tc := range cases {
		var public [2]string
		for k, csv := range []string{csv1000, csv1001} {
			args := append([]string{"--data", csv, "--schema", schema, "--mech", tc.mech, "--eps", "1", "--delta", "1e-6",
				"--neighbouring", "add-remove", "--public-n", "1500", "--seed", "3"}, tc.extra...)
			v, _ := fitJSON(t, args...)
			b, err := json.Marshal([]any{v["report"], v["parameters"], v["utility"]})
			if err != nil {
				t.Fatal(err)
			}
			public[k] = string(b)
		}
		if public[0] != public[1] {
			t.Errorf("%s %v: the releases of 1,000 and 1,001 rows differ outside the model:\n%s\n%s", tc.mech, tc.extra, public[0], public[1])
		}
		if !strings.Contains(public[0], "add-remove") || !strings.Contains(public[0], "N = 1500") {
			t.Errorf("%s: the report does not state the relation and N: %s", tc.mech, public[0])
		}
		if strings.Contains(public[0], "1000") || strings.Contains(public[0], "1,000") {
			t.Errorf("%s: the report states the observed number of rows: %s", tc.mech, public[0])
		}
	}
	ok := []string{"fit", "--data", csv1001, "--schema", schema, "--mech", "noisy-gd", "--eps", "1", "--delta", "1e-6"}
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{append(ok, "--neighbouring", "add-remove"), 2, "divide by a declared public number of rows N: declare one"},
		{append(ok, "--neighbouring", "add-remove", "--public-n", "999"), 2, "the data has 1001 rows, more than the declared public number of rows N = 999"},
		{append(ok, "--neighbouring", "add-remove", "--public-n", "0"), 2, "--public-n must be at least 1"},
		{append(ok, "--public-n", "2000"), 2, "--public-n applies to --neighbouring add-remove"},
	} {
		code, _, errOut := runCLI(tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.msg) {
			t.Errorf("privopt %q: code %d, stderr %q; want code %d and %q", tc.args[8:], code, errOut, tc.code, tc.msg)
		}
	}
}

// TestFitProtectsFiles: --out naming an input file (by the same or another spelling) is refused
// before anything is read, and the input is intact; a --test file that cannot be opened is
// reported before the fit starts (no progress line is written).
func TestFitProtectsFiles(t *testing.T) {
	csv, schema := toyFiles(t)
	before, err := os.ReadFile(csv)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(csv)
	link := filepath.Join(dir, "link.csv")
	if err := os.Symlink(csv, link); err != nil {
		t.Fatal(err)
	}
	base := []string{"fit", "--data", csv, "--schema", schema, "--mech", "outpert", "--eps", "1", "--progress"}
	for _, out := range []string{csv, schema, filepath.Join(dir, ".", filepath.Base(csv)), link} {
		code, _, errOut := runCLI(append(base, "--out", out)...)
		if code != 2 || !strings.Contains(errOut, "is also an input file") || strings.Contains(errOut, "reading") {
			t.Errorf("--out %s: code %d, stderr %q", out, code, errOut)
		}
	}
	code, _, errOut := runCLI(append(base, "--test", csv, "--out", csv)...)
	if code != 2 || !strings.Contains(errOut, "is also an input file") {
		t.Errorf("--out the --test file: code %d, stderr %q", code, errOut)
	}
	if after, _ := os.ReadFile(csv); string(after) != string(before) {
		t.Error("the training file changed")
	}
	code, _, errOut = runCLI(append(base, "--test", filepath.Join(dir, "missing.csv"))...)
	if code != 1 || !strings.Contains(errOut, "missing.csv") || strings.Contains(errOut, "reading") {
		t.Errorf("a missing --test file: code %d, stderr %q; want an error before the training file is read", code, errOut)
	}
	// An --out whose folder does not exist is refused before anything is read, naming the
	// person's path, not a temporary file's.
	missing := filepath.Join(dir, "no-such-folder", "model.json")
	code, _, errOut = runCLI(append(base, "--out", missing)...)
	if code != 1 || !strings.Contains(errOut, "--out "+missing+": cannot write a file there") || strings.Contains(errOut, ".tmp") || strings.Contains(errOut, "reading") {
		t.Errorf("--out in a missing folder: code %d, stderr %q", code, errOut)
	}
	// A --test file whose header is not the schema's is refused before the fit (no step of it).
	bad := filepath.Join(dir, "bad-header.csv")
	if err := os.WriteFile(bad, []byte("x,y\n1,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runCLI(append(base, "--test", bad)...)
	if code != 1 || !strings.Contains(errOut, "bad-header.csv") || strings.Contains(errOut, "solving") || strings.Contains(errOut, "sampling") {
		t.Errorf("a --test file with another header: code %d, stderr %q; want an error before the fit", code, errOut)
	}
}

// TestWriteAtomically: the file is replaced whole and no temporary file is left; a write that
// fails leaves nothing behind.
func TestWriteAtomically(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "model.json")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := writeAtomically(path, []byte("new content\n")); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	entries, _ := os.ReadDir(dir)
	if string(b) != "new content\n" || len(entries) != 1 {
		t.Errorf("content %q, %d files in the folder", b, len(entries))
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", st.Mode())
	}
	if err := writeAtomically(filepath.Join(dir, "no-such-folder", "x.json"), []byte("x")); err == nil {
		t.Error("a write into a missing folder succeeded")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d files left after a failed write", len(entries))
	}
}

// TestFitExtremeSettings: settings so extreme that the noise cannot be released (a radius of
// 10⁻³⁰⁸ or a ridge scale of 10³⁰⁸ on the demo's categorical features) are refused with a
// message naming the settings, not an internal one.
func TestFitExtremeSettings(t *testing.T) {
	csv, schema := demoHead(t, 300)
	for _, extra := range [][]string{{"--radius", "1e-308"}, {"--opt", "RidgeScale=1e308"}, {"--opt", "Clip=1e-300"}} {
		args := append([]string{"fit", "--data", csv, "--schema", schema, "--mech", "noisy-gd", "--eps", "1", "--delta", "1e-6"}, extra...)
		code, _, errOut := runCLI(args...)
		if code != 2 || !strings.Contains(errOut, "a setting is extreme (the radius, ε, or a mechanism option") || strings.Contains(errOut, "internal error") || strings.Contains(errOut, "NewGrid") {
			t.Errorf("%v: code %d, stderr %q", extra, code, errOut)
		}
	}
}

// TestFitReportsTestFileChanges: values clipped in the --test file are reported, on stderr and
// in the output's test section, as they are for the training file.
func TestFitReportsTestFileChanges(t *testing.T) {
	csv, schema := toyFiles(t)
	test := filepath.Join(filepath.Dir(csv), "test.csv")
	if err := os.WriteFile(test, []byte("a,b,y\n30,2,yes\n1,-4,no\n3,3,no\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	v, stderr := fitJSON(t, "--data", csv, "--schema", schema, "--mech", "outpert", "--eps", "1", "--test", test)
	if !strings.Contains(stderr, "test.csv: column \"a\": 1 values outside the declared range clipped to it") ||
		!strings.Contains(stderr, "test.csv: column \"b\": 1 values outside the declared range clipped to it") {
		t.Errorf("stderr %q does not report the test file's clipped values", stderr)
	}
	data, _ := v["test"].(map[string]any)["data"].(map[string]any)
	cols, _ := data["columns"].([]any)
	if data["rows"] != 3.0 || len(cols) != 2 {
		t.Errorf("the test section's data: %v", data)
	}
}

// TestFitRegressionRanges fits a regression whose feature lives in 0.1 % of its declared range
// and whose label in 3 % of its own: the fit estimates both ranges, suggests log1p for the
// feature (on stderr and in the output), maps the label to [−1, 1], and reports the held-out
// RMSE in the label's units, close to the noise's 1 (the label is 100 + 3·v + N(0, 1)). It
// reports, for the training and the held-out file, how many values of each column fell outside
// its private range and were clipped to it (local diagnostics), as counted from the file.
func TestFitRegressionRanges(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("v,y\n")
	r := rng.Seeded(3)
	var vs []float64
	for range 4000 {
		v := 10 * r.Float64()
		fmt.Fprintf(&b, "%.6f,%.4f\n", v, 100+3*v+r.Normal())
		vs = append(vs, v)
	}
	csv, test, schema := filepath.Join(dir, "d.csv"), filepath.Join(dir, "t.csv"), filepath.Join(dir, "s.json")
	for path, text := range map[string]string{csv: b.String(), test: b.String(),
		schema: `{"privopt_schema": 1, "norm": {"p": 2, "radius": 1, "bias": 0.7071067811865476, "fit": "scale"},
		 "columns": [{"name": "v", "kind": "numeric", "min": 0, "max": 10000}, {"name": "y", "kind": "numeric-label", "min": 0, "max": 1000}]}`} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	v, errOut := fitJSON(t, "--data", csv, "--schema", schema, "--test", test, "--mech", "noisy-gd", "--loss", "squared", "--eps", "8", "--delta", "1e-6", "--seed", "1")
	sugg, _ := v["suggestions"].([]any)
	if len(sugg) != 1 || !strings.Contains(sugg[0].(string), "log1p") || !strings.Contains(errOut, "log1p") {
		t.Errorf("suggestions %v, stderr %q", sugg, errOut)
	}
	ranges, _ := v["private_ranges"].(map[string]any)
	if ranges == nil || len(ranges["intervals"].([]any)) != 2 {
		t.Fatalf("private ranges %v", v["private_ranges"])
	}
	// v's interval is on its declared scale z = v/10,000; its values are printed to 6 decimals.
	in := ranges["intervals"].([]any)[0].(map[string]any)
	clipped := 0
	for _, x := range vs {
		if z := math.Round(x*1e6) / 1e6 / 10000; z < in["lo"].(float64) || z > in["hi"].(float64) {
			clipped++
		}
	}
	want := fmt.Sprintf(`[map[clipped_to_private_range:%d name:v]]`, clipped)
	for _, part := range []map[string]any{v["data"].(map[string]any), v["test"].(map[string]any)["data"].(map[string]any)} {
		if got := fmt.Sprint(part["columns"]); clipped == 0 || got != want {
			t.Errorf("values clipped to the private ranges: %s, want %s", got, want)
		}
	}
	if !strings.Contains(errOut, fmt.Sprintf(`column "v": %d values outside the private range clipped to it`, clipped)) {
		t.Errorf("stderr %q does not report the values clipped to the private range", errOut)
	}
	if rmse, _ := v["test"].(map[string]any)["rmse"].(float64); !(rmse > 0.5 && rmse < 3) {
		t.Errorf("held-out RMSE %g in the label's units, want about 1", rmse)
	}
}

// TestFitDefaultLoss checks that without --loss the fit uses the label's default loss
// (fit.DefaultLoss) and that loss's default domain, as the release file's settings record them:
// multinomial on the whole space for classes, squared on a ball for a numeric label.
func TestFitDefaultLoss(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		label, value, loss, domain string
	}{
		{`{"name": "y", "kind": "class-label", "classes": ["a", "b", "c"]}`, "abc", "multinomial", "whole"},
		{`{"name": "y", "kind": "numeric-label", "min": 0, "max": 10}`, "", "squared", "ball"},
	} {
		var b strings.Builder
		b.WriteString("v,y\n")
		for i := range 300 {
			y := fmt.Sprint(i % 10)
			if tc.value != "" {
				y = tc.value[i%3 : i%3+1]
			}
			fmt.Fprintf(&b, "%d,%s\n", i%7, y)
		}
		csv, schema, out := filepath.Join(dir, tc.loss+".csv"), filepath.Join(dir, tc.loss+".json"), filepath.Join(dir, tc.loss+"-release.json")
		for path, text := range map[string]string{csv: b.String(),
			schema: `{"privopt_schema": 1, "norm": {"p": 2, "radius": 1, "bias": 0.7071067811865476, "fit": "scale"},
			 "columns": [{"name": "v", "kind": "numeric", "min": 0, "max": 10}, ` + tc.label + `]}`} {
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		fitJSON(t, "--data", csv, "--schema", schema, "--mech", "noisy-gd", "--eps", "1", "--delta", "1e-6", "--seed", "1", "--out", out)
		raw, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		var rel struct {
			Settings struct{ Loss, Domain string }
		}
		if err := json.Unmarshal(raw, &rel); err != nil {
			t.Fatal(err)
		}
		if rel.Settings.Loss != tc.loss || rel.Settings.Domain != tc.domain {
			t.Errorf("%s: fitted with the %q loss on the %q domain, want %q on %q", tc.label, rel.Settings.Loss, rel.Settings.Domain, tc.loss, tc.domain)
		}
	}
}

// TestFitWarnsOfWeakBudget: a budget that says little (δ not far below 1/n, ε above 10) is
// fitted, with the page's warnings on stderr.
func TestFitWarnsOfWeakBudget(t *testing.T) {
	dir := t.TempDir()
	csv, schema := filepath.Join(dir, "d.csv"), filepath.Join(dir, "s.json")
	for path, text := range map[string]string{csv: "a,y\n1,1\n7,0\n5,1\n2,0\n",
		schema: `{"privopt_schema": 1, "norm": {"p": 2, "radius": 1, "bias": 0.7071067811865476, "fit": "scale"},
		 "columns": [{"name": "a", "kind": "numeric", "min": 0, "max": 10}, {"name": "y", "kind": "binary-label", "positive": ["1"], "negative": ["0"]}]}`} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, errOut := fitJSON(t, "--data", csv, "--schema", schema, "--mech", "noisy-gd", "--eps", "20", "--delta", "0.5", "--seed", "1")
	for _, want := range []string{"warning: δ = 0.5 is not small next to 1/n = 1/4", "warning: ε = 20 says little"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr %q lacks %q", errOut, want)
		}
	}
}

// TestSlowWarning: a plan predicted to run over 10 minutes at reference speeds is announced.
func TestSlowWarning(t *testing.T) {
	if w := slowWarning("expmech", cost.Cost{Queries: 1e12}); !strings.Contains(w, "expmech is predicted to take about 1e+05 s") {
		t.Errorf("10¹² queries: %q", w)
	}
	if w := slowWarning("noisy-gd", cost.Cost{Queries: 1e9, Gradients: 1e9}); w != "" {
		t.Errorf("10⁹ queries and gradients: %q", w)
	}
}
