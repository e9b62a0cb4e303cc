package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/privopt/privopt/internal/fit"
	"github.com/privopt/privopt/internal/release"
	"github.com/privopt/privopt/pkg/core/cost"
	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/loss"
	"github.com/privopt/privopt/pkg/core/mech"
	"github.com/privopt/privopt/pkg/core/privacy"
	"github.com/privopt/privopt/pkg/rng"
)

const fitSynopsis = `Fits a differentially private linear model to a CSV file on this machine and prints JSON:
{model, report, utility, parameters, diagnostics, private_ranges, evaluation, suggestions,
together, data, test} (see docs/cli.md). The schema declares the public bounds
(the norm bound of the encoded rows becomes the losses' constants); every parameter of the
mechanism is then fixed from public quantities before the data is read. The report states what
is certified; diagnostics and test are local facts computed from the data, not private.

--radius D declares the comparison class of the utility bound (models with ‖w‖₂ ≤ D) and is
what output perturbation's λ and Langevin's regularisation are chosen against; it does not
constrain the model. --seed makes the run reproducible and the release NOT private. Ctrl-C
stops the noisy gradient methods (noisy-gd, langevin, rashomon's Langevin chain) early and
releases the steps taken, with their (smaller) privacy cost; auto releases when stopped in its
final fit; the others stop without a release.`

// fitOutput is what privopt fit prints: the release, its private evaluation and the
// guarantee of both, what reading the training file changed, and the held-out diagnostics.
type fitOutput struct {
	*mech.Release
	// Ranges are the private ranges of the scaled columns, when the fit estimated them.
	Ranges     *mech.Ranges     `json:"private_ranges,omitempty"`
	Evaluation *mech.Evaluation `json:"evaluation,omitempty"`
	// Suggestions are what the private ranges suggest declaring: a transform, or a column's
	// declared scale (data.RangeSuggestion).
	Suggestions []string         `json:"suggestions,omitempty"`
	Together    string           `json:"together"`
	Data        *dataDiagnostics `json:"data"`
	Test        *testDiagnostics `json:"test,omitempty"`
}

// dataDiagnostics say what encoding the training file changed: the rows shrunk onto the
// declared norm bound and, per column, the missing values replaced, the values clipped to the
// declared range or to the column's private range and the values put in an other bucket.
// Computed from data: local, not private.
type dataDiagnostics struct {
	NotPrivate  string          `json:"not_private"`
	Rows        int             `json:"rows"`
	ClippedRows int             `json:"clipped_rows"`
	Columns     []columnChanges `json:"columns,omitempty"`
}

// columnChanges counts the values of one column not encoded as they stood (only columns with
// any are listed).
type columnChanges struct {
	Name           string `json:"name"`
	Missing        int    `json:"missing_replaced,omitempty"`
	Clipped        int    `json:"clipped,omitempty"`
	ClippedToRange int    `json:"clipped_to_private_range,omitempty"`
	Other          int    `json:"other,omitempty"`
}

// newDataDiagnostics summarises an encoding's diagnostics.
func newDataDiagnostics(d *data.Diagnostics) *dataDiagnostics {
	out := &dataDiagnostics{NotPrivate: "local diagnostics computed from the data: not private",
		Rows: d.Rows, ClippedRows: d.ClippedRows}
	for _, c := range d.Columns {
		if c.Missing+c.Clipped+c.ClippedToRange+c.Other > 0 {
			out.Columns = append(out.Columns, columnChanges{c.Name, c.Missing, c.Clipped, c.ClippedToRange, c.Other})
		}
	}
	return out
}

// slowWarning says that a plan of the named mechanism may run long, or "": when its predicted
// work takes over 10 minutes at cost.Reference's native speeds (the page shows its prediction
// before Run; here the run would otherwise start with no word, as expmech's can run for ever).
func slowWarning(mechanism string, c cost.Cost) string {
	secs := c.Seconds(cost.Reference)
	if !(secs > 600) {
		return ""
	}
	return fmt.Sprintf("%s is predicted to take about %.3g s at reference speeds (its worst case for the declared bounds; rows wider than 92 features take longer): --progress shows it, Ctrl-C stops it", mechanism, secs)
}

// countRangeClips adds to d, column by column, the values of ds (encoded with the declared
// schema) outside the private ranges that the schema as used adds: data.Rescale clipped them
// to those ranges. (A file encoded with a schema that holds ranges counts them itself.)
func countRangeClips(d *data.Diagnostics, ds *data.Dataset, declared, used *data.Schema) error {
	for i, c := range used.Columns {
		if c.Range == nil || declared.Columns[i].Range != nil {
			continue
		}
		z, err := data.ColumnValues(ds, declared, c.Name)
		if err != nil {
			return err
		}
		k := slices.IndexFunc(d.Columns, func(cd data.ColumnDiagnostics) bool { return cd.Name == c.Name })
		if k < 0 {
			return fmt.Errorf("privopt: internal error: no diagnostics for column %q", c.Name)
		}
		for _, v := range z {
			if v < c.Range.Lo || v > c.Range.Hi {
				d.Columns[k].ClippedToRange++
			}
		}
	}
	return nil
}

// warnings returns one line for each kind of change, for stderr: nothing is changed silently.
func (d *dataDiagnostics) warnings() []string {
	var out []string
	if d.ClippedRows > 0 {
		out = append(out, fmt.Sprintf("%d of %d rows had a norm above the declared bound and were shrunk onto it", d.ClippedRows, d.Rows))
	}
	for _, c := range d.Columns {
		for _, k := range []struct {
			n    int
			what string
		}{{c.Missing, "missing values replaced by the declared constant"}, {c.Clipped, "values outside the declared range clipped to it"},
			{c.ClippedToRange, "values outside the private range clipped to it"}, {c.Other, "values outside the declared lists put in the other bucket (or read as negative)"}} {
			if k.n > 0 {
				out = append(out, fmt.Sprintf("column %q: %d %s", c.Name, k.n, k.what))
			}
		}
	}
	return out
}

// testDiagnostics are the model's evaluation on a held-out file (the page's, fit.EvaluateLocally):
// computed from data, so local and not private.
type testDiagnostics struct {
	NotPrivate string `json:"not_private"`
	*fit.LocalEvaluation
	// Data says what encoding the held-out file changed, as the output's data section does
	// for the training file.
	Data *dataDiagnostics `json:"data"`
}

// fitOptions are the parsed options of privopt fit: the files, and the fit's Spec, which is
// what the page's engine plans from (internal/fit), so both plan the same problem.
type fitOptions struct {
	data, schema, test, out string
	spec                    fit.Spec
	seed                    *uint64
	progress                bool
	workers                 int  // 0: one per core
	float32                 bool // hold the rows' values as float32 (data.Options.Float32)
}

// interruptible returns a context that the first Ctrl-C (SIGINT) cancels, after which the
// default handling is restored, so that a second Ctrl-C ends the program even if the work does
// not watch the context; stop releases the signal handling.
func interruptible() (ctx context.Context, stop context.CancelFunc) {
	ctx, stop = signal.NotifyContext(context.Background(), os.Interrupt)
	go func() {
		<-ctx.Done()
		stop()
	}()
	return ctx, stop
}

// checkFiles checks, before anything is read or fitted, that every input file can be opened
// and that the output file is none of them (which it would overwrite).
func (o *fitOptions) checkFiles() error {
	inputs := []string{o.data, o.schema}
	if o.test != "" {
		inputs = append(inputs, o.test)
	}
	return checkFiles("--out", o.out, inputs)
}

// checkFiles checks that every input file can be opened and that the output file (named by
// the flag flag; "" for none) is none of them, which it would overwrite, and can be written
// (its folder exists and takes a new file), so that no long run ends unable to save its result.
func checkFiles(flag, output string, inputs []string) error {
	if output != "" {
		tmp, err := os.CreateTemp(filepath.Dir(output), "."+filepath.Base(output)+".*.tmp")
		if err != nil {
			return fmt.Errorf("%s %s: cannot write a file there: %w", flag, output, pathless(err))
		}
		tmp.Close()
		os.Remove(tmp.Name())
	}
	for _, path := range inputs {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		f.Close()
		if output == "" {
			continue
		}
		in, errIn := os.Stat(path)
		out, errOut := os.Stat(output)
		if absIn, absOut := absPath(path), absPath(output); absIn == absOut || (errIn == nil && errOut == nil && os.SameFile(in, out)) {
			return usageError{fmt.Sprintf("%s %s is also an input file (%s): it would be overwritten; choose another file", flag, output, path)}
		}
	}
	return nil
}

// pathless returns the reason of a file system error without the path it names (a temporary
// file's, which the person never chose), or err itself.
func pathless(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// absPath returns path made absolute and clean, or path itself when that fails.
func absPath(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}

// writeAtomically writes b to path through a temporary file in the same folder, synced and
// renamed into place: path holds either its old content or all of b, never part of it (a full
// disk leaves the old file, and no temporary file).
func writeAtomically(path string, b []byte) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, pathless(err))
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(b); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = tmp.Chmod(0o644); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return os.Rename(tmp.Name(), path)
}

// settings collects repeated --opt NAME=VALUE flags: a mechanism's settings by field name.
type settings map[string]string

func (s settings) String() string { return fmt.Sprint(map[string]string(s)) }

func (s settings) Set(v string) error {
	name, value, ok := strings.Cut(v, "=")
	if !ok || name == "" {
		return fmt.Errorf("want NAME=VALUE, got %q", v)
	}
	s[name] = value
	return nil
}

func runFit(args []string, stdout, stderr io.Writer) error {
	opts, err := parseFit(args, stdout)
	if err != nil {
		return err
	}
	if err := opts.checkFiles(); err != nil {
		return err
	}
	if opts.workers > 0 {
		defer loss.SetWorkers(loss.SetWorkers(opts.workers))
	}
	schema, err := loadSchema(opts.schema)
	if err != nil {
		return err
	}
	var reading func(fraction float64)
	if opts.progress {
		reading = func(f float64) { fmt.Fprintf(stderr, "privopt fit: reading %.0f%%\n", 100*f) }
	}
	encoding := data.Options{Float32: opts.float32}
	train, diag, err := encodeFile(opts.data, schema, encoding, reading)
	if err != nil {
		return err
	}
	facts, err := fit.FactsOf(train, schema)
	if err != nil {
		return err
	}
	opts.spec.Loss = cmp.Or(opts.spec.Loss, fit.DefaultLoss(facts.Label))
	opts.spec.Domain = cmp.Or(opts.spec.Domain, fit.DefaultDomain(opts.spec.Loss))
	plan, err := fit.Plan(opts.spec, facts)
	if err != nil {
		return usageError{err.Error()}
	}
	if n, err := fit.ProblemSize(opts.spec, facts); err == nil { // what the page warns of in its step 3
		for _, w := range opts.spec.Budget.Weak(n) {
			fmt.Fprintf(stderr, "privopt fit: warning: %s\n", w)
		}
	}
	if w := slowWarning(opts.spec.Mechanism, plan.Cost()); w != "" {
		fmt.Fprintf(stderr, "privopt fit: warning: %s\n", w)
	}
	r := rng.New()
	if opts.seed != nil {
		r = rng.Seeded(*opts.seed)
	}
	var progress func(mech.Progress)
	if opts.progress {
		progress = func(p mech.Progress) { fmt.Fprintf(stderr, "privopt fit: %s %.0f%%\n", p.Stage, 100*p.Fraction) }
	}
	// The held-out file is read before the fit, so that a mistake in it (a header that is not
	// the schema's) shows before the long part, not after.
	var declared *data.Dataset
	var testDiag *data.Diagnostics
	if opts.test != "" {
		if declared, testDiag, err = encodeFile(opts.test, schema, encoding, nil); err != nil {
			return err
		}
	}
	if why := fit.RangesSkipped(opts.spec, facts); why != "" {
		fmt.Fprintf(stderr, "privopt fit: %s\n", why)
	}
	scaled, err := fit.Scale(opts.spec, facts, schema, train, nil, r)
	if err != nil {
		return err
	}
	if err := countRangeClips(diag, train, schema, scaled.Schema); err != nil {
		return err
	}
	dataDiag := newDataDiagnostics(diag)
	for _, w := range dataDiag.warnings() {
		fmt.Fprintf(stderr, "privopt fit: %s: %s\n", opts.data, w)
	}
	ctx, stop := interruptible()
	defer stop()
	rel, err := plan.Run(ctx, scaled.Train, r, progress)
	if err != nil {
		return err
	}
	out := fitOutput{Release: rel, Ranges: scaled.Ranges, Data: dataDiag, Suggestions: suggestions(scaled.Schema)}
	for _, line := range out.Suggestions {
		fmt.Fprintf(stderr, "privopt fit: %s\n", line)
	}
	model := release.Model{Model: rel.Model, Report: rel.Report, Utility: rel.Utility, Parameters: rel.Parameters}
	if opts.test != "" {
		test, err := data.Rescale(declared, schema, scaled.Schema)
		if err == nil {
			err = countRangeClips(testDiag, declared, schema, scaled.Schema)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", opts.test, err)
		}
		local, err := fit.EvaluateLocally(opts.spec, facts, train.Y, test, declared.Y, rel.Model.Weights)
		if err != nil {
			return fmt.Errorf("%s: %w", opts.test, err)
		}
		out.Test = &testDiagnostics{NotPrivate: "local diagnostics computed from the held-out data: not private", LocalEvaluation: local, Data: newDataDiagnostics(testDiag)}
		for _, w := range out.Test.Data.warnings() {
			fmt.Fprintf(stderr, "privopt fit: %s: %s\n", opts.test, w)
		}
		if opts.spec.EvalShare > 0 {
			if model.Evaluation, model.HeldOut, err = release.Evaluate(opts.spec, facts, test, rel.Model.Weights, r); err != nil {
				return fmt.Errorf("%s: %w", opts.test, err)
			}
			out.Evaluation = model.Evaluation
		}
	}
	file, err := release.New(scaled.Schema, opts.spec, facts, scaled.Ranges, []release.Model{model})
	if err != nil {
		return err
	}
	out.Together = file.Together
	if opts.out != "" {
		var b bytes.Buffer
		if err := file.Write(&b); err != nil {
			return err
		}
		if err := writeAtomically(opts.out, b.Bytes()); err != nil {
			return err
		}
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// parseFit parses and checks the options; every problem is a usage error.
func parseFit(args []string, stdout io.Writer) (*fitOptions, error) {
	fs := newFlags("fit --data FILE --schema SCHEMA.json --mech NAME --eps E [options]", fitSynopsis, stdout)
	o := &fitOptions{spec: fit.Spec{Options: settings{}}}
	sp := &o.spec
	fs.StringVar(&o.data, "data", "", "the training CSV file (required)")
	fs.StringVar(&o.schema, "schema", "", "the schema of the CSV files, JSON (required)")
	fs.StringVar(&o.test, "test", "", "a held-out CSV file with the same schema: report its accuracy and loss (local, not private)")
	fs.StringVar(&o.out, "out", "", "also write the release file (privopt-release/2: the schema, encoding, settings, model, report; no diagnostics) to this JSON file, for privopt predict and export")
	fs.StringVar(&sp.Mechanism, "mech", "", "the mechanism (required): "+strings.Join(mech.Names(), ", "))
	fs.Var(settings(sp.Options), "opt", "a setting of the mechanism, NAME=VALUE (repeatable; e.g. Sampler=mala, Norm=1.5)")
	fs.StringVar(&sp.Loss, "loss", "", "the loss: "+strings.Join(allLosses(), ", ")+" (default: the label's: logistic for a binary label, squared for a numeric one, multinomial for classes)")
	fs.Float64Var(&sp.LossParam, "param", 0, "the smoothing width of smooth-hinge or the threshold of huber")
	fs.Float64Var(&sp.Tilt, "tilt", 0, "tilted ERM with tilt t > 0 (outpert)")
	fs.Float64Var(&sp.Robust, "robust-radius", 0, "adversarial training against feature perturbations of this ℓ_q norm (outpert)")
	robustNorm := fs.Float64("robust-norm", 2, "the exponent q of the perturbations' norm")
	fs.StringVar(&sp.Domain, "domain", "", "the parameter domain: whole, ball (‖w‖₂ ≤ radius) or box (|wᵢ| ≤ radius) (default: ball for the squared loss, whole otherwise)")
	eps := fs.Float64("eps", 0, "the privacy parameter ε > 0 (required)")
	fs.Float64Var(&sp.Budget.Delta, "delta", 0, "the privacy parameter δ in [0, 1); 0 asks for pure ε-DP")
	neighbouring := fs.String("neighbouring", string(privacy.ReplaceOne), "the neighbouring relation: replace-one or add-remove")
	fs.Float64Var(&sp.EvalShare, "eval-share", 0, "with --test: spend this share of the budget (in (0, 1)) on a private evaluation of the model on the --test rows (noisy accuracy and confusion matrix, or error sums), composed into the release's guarantee")
	fs.Float64Var(&sp.ScaleShare, "scale-share", fit.DefaultScaleShare, "spend this share of the budget (in [0, 1)) on private ranges of the numeric columns (and a numeric label) not declared \"scale\": \"declared\": each is clipped to its estimated range and rescaled, composed into the release's guarantee; 0 scales by the declared bounds")
	fs.IntVar(&sp.PublicN, "public-n", 0, "with add-remove: the declared public number of rows N that every mean divides by (default: the schema's \"public_rows\"); the data may not have more")
	fs.Float64Var(&sp.Radius, "radius", 10, "the domain's radius, or on the whole space the radius D of the utility bound's comparison class ‖w‖₂ ≤ D")
	seed := fs.Uint64("seed", 0, "seed the random numbers: reproducible, and NOT private")
	fs.BoolVar(&o.progress, "progress", false, "write progress lines to stderr")
	fs.BoolVar(&o.float32, "float32", false, "hold the values of rows held dense (files of numeric columns) as float32, each rounded toward zero: half their memory, every bound kept; the release is that of the rows so rounded (its facts say so)")
	workers := fs.Int("workers", 0, "the goroutines a pass over the rows uses (default: one per core); the release is the same bits with any number")
	if err := fs.parse(args); err != nil {
		return nil, err
	}
	set, err := fs.given("data", "schema", "mech", "eps")
	if err != nil {
		return nil, err
	}
	if _, err := fit.Mechanism(sp.Mechanism, sp.Options); err != nil {
		return nil, usageError{err.Error()}
	}
	if set["seed"] {
		o.seed = seed
	}
	if set["workers"] && *workers < 1 {
		return nil, usageError{fmt.Sprintf("--workers must be at least 1, got %d", *workers)}
	}
	o.workers = *workers
	if set["eval-share"] && (!(sp.EvalShare > 0 && sp.EvalShare < 1) || !set["test"]) {
		return nil, usageError{fmt.Sprintf("--eval-share must be in (0, 1) and needs --test (the held-out rows it evaluates on), got %g", sp.EvalShare)}
	}
	sp.Budget.Epsilon = *eps
	sp.Budget.Neighbouring = privacy.Neighbouring(*neighbouring)
	if _, err := fit.Budget(*sp); err != nil {
		return nil, usageError{err.Error()}
	}
	switch {
	case set["public-n"] && sp.Budget.Neighbouring != privacy.AddRemove:
		return nil, usageError{"--public-n applies to --neighbouring add-remove (under replace-one the number of rows is public)"}
	case set["public-n"] && sp.PublicN < 1:
		return nil, usageError{fmt.Sprintf("--public-n must be at least 1, got %d", sp.PublicN)}
	}
	if sp.Loss != "" && !slices.Contains(allLosses(), sp.Loss) {
		return nil, usageError{fmt.Sprintf("unknown loss %q (%s)", sp.Loss, strings.Join(allLosses(), ", "))}
	}
	for name, v := range map[string]float64{"param": sp.LossParam, "tilt": sp.Tilt, "robust-radius": sp.Robust} {
		if !(v >= 0) || math.IsInf(v, 1) {
			return nil, usageError{fmt.Sprintf("--%s must be a finite number ≥ 0, got %g", name, v)}
		}
	}
	if !(*robustNorm >= 1) {
		return nil, usageError{fmt.Sprintf("--robust-norm must be in [1, ∞], got %g", *robustNorm)}
	}
	if sp.Robust > 0 {
		sp.RobustNorm = fit.Exponent(*robustNorm)
	}
	if !(sp.Radius > 0) || math.IsInf(sp.Radius, 1) {
		return nil, usageError{fmt.Sprintf("--radius must be finite and positive, got %g", sp.Radius)}
	}
	return o, nil
}

// allLosses lists every loss of internal/fit, for every label kind.
func allLosses() []string {
	var out []string
	for _, kind := range []data.LabelKind{data.LabelBinary, data.LabelNumeric, data.LabelClass} {
		out = append(out, fit.Losses(kind)...)
	}
	return out
}

// suggestions returns a line for each privately scaled column of the schema as used whose
// range suggests a change of the schema (data.RangeSuggestion).
func suggestions(s *data.Schema) []string {
	var out []string
	for _, c := range s.Columns {
		if c.Range != nil && c.Kind == data.Numeric {
			if line := data.RangeSuggestion(c, *c.Range); line != "" {
				out = append(out, line)
			}
		}
	}
	return out
}

func loadSchema(path string) (*data.Schema, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s, err := data.LoadSchema(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// encodeFile reads and encodes a CSV file with a schema and options, calling progress (when not
// nil) with the fraction read about once a second.
func encodeFile(path string, s *data.Schema, o data.Options, progress func(fraction float64)) (*data.Dataset, *data.Diagnostics, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if progress != nil {
		if st, err := f.Stat(); err == nil {
			r = data.ProgressReader(f, st.Size(), time.Second, progress)
		}
	}
	ds, diag, err := data.EncodeWith(r, s, o)
	if err != nil {
		return nil, diag, fmt.Errorf("%s: %w", path, err)
	}
	if ds.N == 0 {
		return nil, diag, errors.New(path + ": no data rows")
	}
	if progress != nil {
		progress(1)
	}
	return ds, diag, nil
}
