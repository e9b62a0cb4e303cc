package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/privopt/privopt/internal/bench/results"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/privopt/privopt/internal/bench"
	"github.com/privopt/privopt/internal/devsuite"
	"github.com/privopt/privopt/internal/fit"
	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/mech"
	"github.com/privopt/privopt/pkg/plot/svgfile"
)

const benchSynopsis = `Runs the adult-lr benchmark (docs/benchmarks.md): every mechanism at every ε, several runs each
with fresh randomness, and prints the table (markdown) with test accuracy, log-loss, the
certified guarantee and the time per private fit, plus the non-private and majority-class
baselines. --json writes the results; --merge NATIVE.json WASM.json [CHROMIUM.json] instead
combines a native run with a WebAssembly one (and one in Chromium through the page's engine,
from tests/bench-chromium.mjs) into one table with the time ratios (./build.sh bench does all of
it). --replace BASE.json NEW.json writes BASE's results with NEW's cells (mechanism and ε) in
place of its own to the --json file, so that a run of some cells refreshes a whole table.
--cell-seconds bounds the time spent per mechanism and ε.
Every setting (--radius, the mechanisms' defaults) is fixed before any result is seen.

--suite devsuite runs the development suite instead (the --devsuite folder's README.md): for
each of its tasks (--tasks: a comma-separated list of their names), privopt's default fit
(noisy-gd, or the one --mech NAME[:SETTING=VALUE…] with the other settings at their defaults)
at each ε with δ = --delta, --runs runs each (default 10) with fresh randomness, measured on
validation rows split once from the task's training file (the test files are never read),
beside the majority class or the mean label and a non-private fit on standardised features. It
prints the table (markdown); --json and --svg write the results and the plot (one panel per
task). --eps defaults to 0.5,1,2,8.`

func runBench(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("bench [options]", benchSynopsis, stdout)
	train := fs.String("data", "testdata/adult/adult.data", "training CSV")
	test := fs.String("test", "testdata/adult/adult.test", "test CSV")
	schemaPath := fs.String("schema", "examples/adult-lr.schema.json", "schema of both files")
	mechs := fs.String("mech", strings.Join(benchMechanisms, ","), "comma-separated mechanisms, each NAME or NAME:SETTING=VALUE[:SETTING=VALUE…] (settings as in fit's --opt)")
	epsList := fs.String("eps", "", "comma-separated ε values (default 0.1,0.25,0.5,1,2,4,8; with --suite devsuite, 0.5,1,2,8)")
	delta := fs.Float64("delta", 1e-6, "δ of the approximate-DP mechanisms")
	runs := fs.Int("runs", 0, "runs per mechanism and ε (at most; default 20); with --suite devsuite, runs per task and ε (default 10)")
	cellSeconds := fs.Float64("cell-seconds", 60, "time limit per mechanism and ε: fewer runs, or none when one run is predicted to exceed it (0: no limit)")
	radius := fs.Float64("radius", 10, "declared radius D of the comparison class (fixed a priori)")
	jsonOut := fs.String("json", "", "write the results as JSON to this file")
	svgOut := fs.String("svg", "", "write the accuracy plot (SVG) to this file")
	merge := fs.Bool("merge", false, "combine NATIVE.json and WASM.json [CHROMIUM.json] (arguments) into one table")
	replace := fs.Bool("replace", false, "write BASE.json (first argument) with the cells of NEW.json (second) to the --json file")
	suite := fs.String("suite", "adult-lr", "the benchmark: adult-lr or devsuite")
	devsuiteDir := fs.String("devsuite", defaultDevsuiteDir, "with --suite devsuite: the development suite's folder")
	unscaled := fs.Bool("unscaled", false, "with --suite devsuite: also run every cell without private ranges, for comparison")
	tasks := fs.String("tasks", "", "with --suite devsuite: comma-separated task names to run (default all)")
	if err := fs.parseArgs(args, 3); err != nil {
		return err
	}
	set, _ := fs.given()
	switch *suite {
	case "devsuite":
		o := devsuiteOptions{dir: *devsuiteDir, eps: *epsList, delta: *delta, runs: *runs, jsonOut: *jsonOut, svgOut: *svgOut, unscaled: *unscaled, tasks: *tasks}
		if set["mech"] {
			o.mech = *mechs
		}
		return runDevsuite(set, o, fs.Args(), stdout, stderr)
	case "adult-lr":
		if set["devsuite"] || set["unscaled"] || set["tasks"] {
			return usageError{"--devsuite, --unscaled and --tasks go with --suite devsuite"}
		}
	default:
		return usageError{fmt.Sprintf("--suite: unknown benchmark %q (adult-lr or devsuite)", *suite)}
	}
	if *replace {
		if fs.NArg() != 2 || *jsonOut == "" || *merge {
			return usageError{"--replace needs two arguments, BASE.json NEW.json, and --json OUT.json (and no --merge)"}
		}
		return replaceBench(fs.Arg(0), fs.Arg(1), *jsonOut)
	}
	if *merge {
		if fs.NArg() < 2 || fs.NArg() > 3 {
			return usageError{"--merge needs two or three arguments: NATIVE.json WASM.json [CHROMIUM.json]"}
		}
		return mergeBench(fs.Args(), *svgOut, stdout)
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q (arguments go with --merge or --replace)", fs.Arg(0))}
	}
	if !set["runs"] {
		*runs = 20
	}
	if !set["eps"] {
		*epsList = "0.1,0.25,0.5,1,2,4,8"
	}
	if *runs < 1 {
		return usageError{fmt.Sprintf("--runs must be at least 1, got %d", *runs)}
	}
	if !(*cellSeconds >= 0) || math.IsInf(*cellSeconds, 1) {
		return usageError{fmt.Sprintf("--cell-seconds must be a finite number ≥ 0, got %g", *cellSeconds)}
	}
	epss, err := parseEpsilons(*epsList)
	if err != nil {
		return err
	}
	if *svgOut != "" && len(epss) < 2 {
		return usageError{"--svg plots accuracy against ε: give --eps at least two values"}
	}
	var entries []bench.Entry
	for _, item := range strings.Split(*mechs, ",") {
		e, err := benchEntry(strings.TrimSpace(item))
		if err != nil {
			return usageError{err.Error()}
		}
		entries = append(entries, e)
	}
	schema, err := loadSchema(*schemaPath)
	if err != nil {
		return err
	}
	trainDS, _, err := encodeFile(*train, schema, data.Options{}, nil)
	if err != nil {
		return err
	}
	testDS, _, err := encodeFile(*test, schema, data.Options{}, nil)
	if err != nil {
		return err
	}
	res, err := bench.Run(context.Background(), bench.Config{
		Train: trainDS, Test: testDS, Mechanisms: entries, Epsilons: epss, Delta: *delta, Runs: *runs, Radius: *radius, CellSeconds: *cellSeconds,
		Progress: func(line string) { fmt.Fprintln(stderr, line) },
	})
	if err != nil {
		return err
	}
	if *jsonOut != "" {
		if err := writeFileWith(*jsonOut, func(w io.Writer) error { return bench.WriteJSON(w, res) }); err != nil {
			return err
		}
	}
	if *svgOut != "" {
		if err := writePlot(*svgOut, res); err != nil {
			return err
		}
	}
	fmt.Fprint(stdout, results.Markdown(res))
	return nil
}

// parseEpsilons parses --eps, a comma-separated list of positive numbers.
func parseEpsilons(list string) ([]float64, error) {
	var epss []float64
	for _, s := range strings.Split(list, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || !(v > 0) {
			return nil, usageError{fmt.Sprintf("--eps: %q is not a positive number", s)}
		}
		epss = append(epss, v)
	}
	return epss, nil
}

// defaultDevsuiteDir is where the development suite lies, relative to the repository's root
// (where ./build.sh runs).
const defaultDevsuiteDir = "../shared/data/devsuite"

// devsuiteFlags are the bench flags of the adult-lr benchmark alone, refused with --suite
// devsuite.
var devsuiteFlags = []string{"data", "test", "schema", "cell-seconds", "radius", "merge", "replace"}

// devsuiteOptions are the bench flags that --suite devsuite reads.
type devsuiteOptions struct {
	dir, eps        string
	delta           float64
	runs            int
	jsonOut, svgOut string
	unscaled        bool
	mech, tasks     string // one --mech entry, "" for the default; task names, "" for all
}

// runDevsuite runs the development suite with the bench flags o (set: the flags given on the
// command line; --runs and --eps default to 10 and 0.5,1,2,8 unless given) and prints its
// table.
func runDevsuite(set map[string]bool, o devsuiteOptions, args []string, stdout, stderr io.Writer) error {
	for _, name := range devsuiteFlags {
		if set[name] {
			return usageError{fmt.Sprintf("--%s applies to the adult-lr benchmark, not to --suite devsuite", name)}
		}
	}
	cfg := devsuite.Config{Dir: o.dir, Tasks: devsuite.Tasks, Delta: o.delta, Unscaled: o.unscaled}
	if o.mech != "" {
		e, err := benchEntry(o.mech)
		if err != nil || strings.Contains(o.mech, ",") {
			return usageError{fmt.Sprintf("--mech with --suite devsuite is one mechanism, NAME or NAME:SETTING=VALUE[:SETTING=VALUE…], got %q", o.mech)}
		}
		cfg.Mechanism, cfg.Options = e.Name, e.Options
	}
	if o.tasks != "" {
		cfg.Tasks = nil
		for _, name := range strings.Split(o.tasks, ",") {
			i := slices.IndexFunc(devsuite.Tasks, func(t devsuite.Task) bool { return t.Name == name })
			if i < 0 {
				return usageError{fmt.Sprintf("--tasks: unknown task %q", name)}
			}
			cfg.Tasks = append(cfg.Tasks, devsuite.Tasks[i])
		}
	}
	if len(args) > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", args[0])}
	}
	if !set["runs"] {
		o.runs = 10
	}
	if o.runs < 1 {
		return usageError{fmt.Sprintf("--runs must be at least 1, got %d", o.runs)}
	}
	if !set["eps"] {
		o.eps = "0.5,1,2,8"
	}
	epss, err := parseEpsilons(o.eps)
	if err != nil {
		return err
	}
	if o.svgOut != "" && len(epss) < 2 {
		return usageError{"--svg plots accuracy against ε: give --eps at least two values"}
	}
	if !(o.delta >= 0 && o.delta < 1) {
		return usageError{fmt.Sprintf("--delta must be in [0, 1), got %g", o.delta)}
	}
	if st, err := os.Stat(o.dir); err != nil || !st.IsDir() {
		return usageError{fmt.Sprintf("--devsuite %s: not a folder; the development suite's data (train.csv and schemas per task) is expected there: pass its folder with --devsuite DIR", o.dir)}
	}
	ctx, stop := interruptible()
	defer stop()
	cfg.Epsilons, cfg.Runs, cfg.Progress = epss, o.runs, func(line string) { fmt.Fprintln(stderr, line) }
	res, err := devsuite.Run(ctx, cfg)
	if err != nil {
		return err
	}
	if o.jsonOut != "" {
		if err := writeFileWith(o.jsonOut, func(w io.Writer) error { return bench.WriteJSON(w, res) }); err != nil {
			return err
		}
	}
	if o.svgOut != "" {
		if err := writeFileWith(o.svgOut, func(w io.Writer) error { return devsuite.WriteSVG(w, res) }); err != nil {
			return err
		}
	}
	fmt.Fprint(stdout, devsuite.Markdown(res))
	return nil
}

// benchEntry parses a --mech item, NAME or NAME:SETTING=VALUE[:SETTING=VALUE…] (the settings of
// fit's --opt), into a benchmark entry.
func benchEntry(item string) (bench.Entry, error) {
	name, settings, _ := strings.Cut(item, ":")
	var options map[string]string
	if settings != "" {
		options = map[string]string{}
		for _, kv := range strings.Split(settings, ":") {
			k, v, ok := strings.Cut(kv, "=")
			if !ok || k == "" {
				return bench.Entry{}, fmt.Errorf("--mech: %q: a setting is SETTING=VALUE, got %q", item, kv)
			}
			options[k] = v
		}
	}
	m, err := fit.Mechanism(name, options)
	if err != nil {
		return bench.Entry{}, err
	}
	return bench.Entry{Name: m.Name(), Options: options, Mech: m, Pure: pureMechanisms[m.Name()]}, nil
}

// benchMechanisms are the default --mech: every registered mechanism with its defaults, and
// REM in its fastest sampling mode (whose releases claim no privacy), for docs/benchmarks.md's target
// for REM in a fast mode.
var benchMechanisms = append(mech.Names(), "rem:Sampler=kinetic-langevin")

// pureMechanisms are planned with δ = 0.
var pureMechanisms = map[string]bool{"outpert": true, "expmech": true}

// readResults reads benchmark results written with --json.
func readResults(paths ...string) ([]results.Result, error) {
	out := make([]results.Result, len(paths))
	for i, path := range paths {
		raw, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(raw, &out[i]); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	return out, nil
}

// replaceBench writes the results of base with the cells of update in place of its own to out.
func replaceBench(base, update, out string) error {
	loaded, err := readResults(base, update)
	if err != nil {
		return err
	}
	res, err := results.Replace(loaded[0], loaded[1])
	if err != nil {
		return err
	}
	return writeFileWith(out, func(w io.Writer) error { return bench.WriteJSON(w, res) })
}

// mergeBench prints the table of a native result beside the times of the others.
func mergeBench(paths []string, svgOut string, stdout io.Writer) error {
	loaded, err := readResults(paths...)
	if err != nil {
		return err
	}
	if svgOut != "" {
		if err := writePlot(svgOut, loaded[0]); err != nil {
			return err
		}
	}
	fmt.Fprint(stdout, results.Markdown(loaded[0], loaded[1:]...))
	return nil
}

func writePlot(path string, res results.Result) error {
	d, err := results.Plot(res)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := svgfile.Write(&buf, d); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// writeFileWith writes a file from a writer function.
func writeFileWith(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
