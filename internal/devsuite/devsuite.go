// Package devsuite runs privopt's default fit on the development suite (public data sets with
// public-bound schemas; the suite's README): every task's training file divided once into fit and
// validation rows, the default fit at several budgets beside the majority or mean and a
// non-private model, a markdown table and a plot. The test files are never read.
package devsuite

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/privopt/privopt/internal/bench"
	"github.com/privopt/privopt/internal/fit"
	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/loss"
	"github.com/privopt/privopt/pkg/core/mech"
	"github.com/privopt/privopt/pkg/core/privacy"
	"github.com/privopt/privopt/pkg/rng"
)

// The development suite (the devsuite folder's README.md: seven public data sets, eight tasks)
// measures privopt's default fit beside simple and non-private baselines. Every figure comes
// from the validation rows of a fixed split of each task's training file: the test files are
// never read, so that they stay a held-out check.
const (
	// ValidationShare and SplitSeed fix the split of every training file:
	// data.Split(rows, 0.2, rng.Seeded(20261125)) gives the validation rows, the rest are the
	// fit rows.
	ValidationShare = 0.2
	SplitSeed       = 20261125
)

// Task is one task of the suite.
type Task struct {
	// Name names the task in tables.
	Name string `json:"name"`
	// Folder is the data set's folder in the suite (train.csv, schema files) and Schema the
	// task's schema file there; Train, when set, is the training file there instead of
	// train.csv. An absolute Folder, or one starting with "./", is not in the suite's folder
	// (adult-lr's, in this repository).
	Folder string `json:"folder"`
	Schema string `json:"schema"`
	Train  string `json:"train,omitempty"`
	// Label is the label kind the schema must declare.
	Label data.LabelKind `json:"label"`
	// TopShare, when positive (binary tasks), adds the task's own measure: the positives among
	// the best-scored TopShare of the validation rows (topHits).
	TopShare float64 `json:"top_share,omitempty"`
}

// Tasks are adult-lr (from this repository: run from its root) and the suite's eight tasks. ticdata's own measure is CoIL 2000's, the policy
// owners among the 800 best-scored of 4,000 customers, taken as a share: the best-scored 20 %
// of the validation rows.
var Tasks = []Task{
	{Name: "adult", Folder: "./testdata/adult", Train: "adult.data", Schema: "../../examples/adult-lr.schema.json", Label: data.LabelBinary},
	{Name: "diamonds", Folder: "diamonds", Schema: "schema.json", Label: data.LabelNumeric},
	{Name: "diamonds (binary)", Folder: "diamonds", Schema: "schema-binary.json", Label: data.LabelBinary},
	{Name: "Fertility", Folder: "Fertility", Schema: "schema.json", Label: data.LabelBinary},
	{Name: "ticdata", Folder: "ticdata", Schema: "schema.json", Label: data.LabelBinary, TopShare: 0.2},
	{Name: "DNA", Folder: "DNA", Schema: "schema.json", Label: data.LabelClass},
	{Name: "HMDA", Folder: "HMDA", Schema: "schema.json", Label: data.LabelBinary},
	{Name: "BostonHousing", Folder: "BostonHousing", Schema: "schema.json", Label: data.LabelNumeric},
	{Name: "Vehicle", Folder: "Vehicle", Schema: "schema.json", Label: data.LabelClass},
}

// The measures of Measures: accuracy and mean log-loss (natural logarithm) for a classifier,
// with the top-share hits where the task asks; RMSE and R² for a regression model.
const (
	MeasureAccuracy = "accuracy"
	MeasureLogLoss  = "log_loss"
	MeasureTopHits  = "top_hits"
	MeasureRMSE     = "rmse"
	MeasureR2       = "r2"
)

// Measures are one model's figures on a task's validation rows, by measure name; a measure
// that does not apply to the task is absent.
type Measures map[string]float64

// Config describes a run of the suite. Every setting is fixed before any result is
// seen.
type Config struct {
	// Dir is the suite's folder and Tasks the tasks to run (Tasks for all).
	Dir   string
	Tasks []Task
	// Epsilons are the budgets' ε and Delta their δ.
	Epsilons []float64
	Delta    float64
	// Runs is the number of fits per task and ε, each with fresh OS randomness.
	Runs int
	// Mechanism and Options are the fit's mechanism and its settings (fit.Spec's); "" is
	// DefaultMechanism.
	Mechanism string
	Options   map[string]string
	// Unscaled also runs each cell's spec without private ranges (ScaleShare 0), with as many
	// runs, for comparison.
	Unscaled bool
	// Progress, if not nil, receives a line per finished cell (task and ε).
	Progress func(line string)
}

// Result is a run of the suite.
type Result struct {
	Platform string       `json:"platform"`
	Delta    float64      `json:"delta"`
	Runs     int          `json:"runs"`
	Tasks    []TaskResult `json:"tasks"`
}

// TaskResult is one task's figures.
type TaskResult struct {
	Task Task `json:"task"`
	// FitRows and ValidationRows are the sizes of the split; Features is the encoded width d
	// (the bias included).
	FitRows        int `json:"fit_rows"`
	ValidationRows int `json:"validation_rows"`
	Features       int `json:"features"`
	// Positives counts the validation rows of the positive class (binary tasks) and TopRows
	// the best-scored rows the top-share measure looks at (tasks with a TopShare).
	Positives int `json:"positives,omitempty"`
	TopRows   int `json:"top_rows,omitempty"`
	// Changed counts what encoding the training file changed: values clipped to their declared
	// range, replaced when missing or put in an other bucket, and rows shrunk onto the norm
	// bound.
	Changed int `json:"changed,omitempty"`
	// Trivial is the fit rows' majority class (its top-share hits: the number expected of a
	// random order) or their mean; NonPrivate is non-private logistic (or multinomial)
	// regression with ridge λ = 1/n, or least squares, on standardised features
	// (devsuiteBaselines).
	Trivial    Measures `json:"trivial"`
	NonPrivate Measures `json:"non_private"`
	// Cells are the default fit at each ε.
	Cells []Cell `json:"cells"`
}

// Cell is the default fit of one task at one ε.
type Cell struct {
	Epsilon float64  `json:"epsilon"`
	Spec    fit.Spec `json:"spec"`
	// Runs are the validation measures of each run and Seconds the wall time of each fit
	// (planning and running, the data already encoded).
	Runs    []Measures `json:"runs"`
	Seconds []float64  `json:"seconds"`
	// Unscaled are the measures of the same spec without private ranges (Config.Unscaled).
	Unscaled []Measures `json:"unscaled,omitempty"`
	// Error is set when a fit failed; Runs then holds the runs before it.
	Error string `json:"error,omitempty"`
}

// Stat returns the mean of a measure over the cell's runs and its standard error, sd/√runs
// (NaN for fewer than two runs; the mean is NaN for none).
func (c Cell) Stat(measure string) (mean, se float64) { return stat(c.Runs, measure) }

// UnscaledStat is Stat over the runs without private ranges.
func (c Cell) UnscaledStat(measure string) (mean, se float64) { return stat(c.Unscaled, measure) }

// stat returns the mean of a measure over runs and its standard error.
func stat(runs []Measures, measure string) (mean, se float64) {
	xs := make([]float64, 0, len(runs))
	for _, m := range runs {
		if v, ok := m[measure]; ok {
			xs = append(xs, v)
		}
	}
	return meanSE(xs)
}

// meanSE returns the mean of xs and its standard error (NaN for fewer than two values).
func meanSE(xs []float64) (mean, se float64) {
	mean, sd := bench.MeanSD(xs)
	if len(xs) < 2 {
		return mean, math.NaN()
	}
	return mean, sd / math.Sqrt(float64(len(xs)))
}

// Run runs every task of cfg: for each, the baselines, then cfg.Runs default fits at
// each ε, measured on the validation rows.
func Run(ctx context.Context, cfg Config) (Result, error) {
	res := Result{Platform: runtime.GOOS + "/" + runtime.GOARCH, Delta: cfg.Delta, Runs: cfg.Runs}
	if cfg.Runs < 1 || len(cfg.Epsilons) == 0 || len(cfg.Tasks) == 0 {
		return res, fmt.Errorf("devsuite: nothing to run: %d tasks, %d budgets, %d runs", len(cfg.Tasks), len(cfg.Epsilons), cfg.Runs)
	}
	for _, t := range cfg.Tasks {
		tr, err := runDevsuiteTask(ctx, cfg, t)
		if err != nil {
			return res, fmt.Errorf("devsuite: %s: %w", t.Name, err)
		}
		res.Tasks = append(res.Tasks, tr)
	}
	return res, nil
}

// runDevsuiteTask runs one task.
func runDevsuiteTask(ctx context.Context, cfg Config, t Task) (TaskResult, error) {
	res := TaskResult{Task: t}
	schema, train, valid, changed, err := loadDevsuiteTask(cfg.Dir, t)
	if err != nil {
		return res, err
	}
	res.FitRows, res.ValidationRows, res.Features, res.Changed = train.N, valid.N, train.D, changed
	if t.Label == data.LabelBinary {
		for _, y := range valid.Y {
			if y > 0 {
				res.Positives++
			}
		}
	}
	if t.TopShare > 0 {
		res.TopRows = topRows(valid.N, t.TopShare)
	}
	if res.Trivial, res.NonPrivate, err = devsuiteBaselines(t, train, valid); err != nil {
		return res, err
	}
	fitMean, _ := bench.MeanSD(train.Y)
	for _, eps := range cfg.Epsilons {
		spec := defaultSpec(t, eps, cfg.Delta)
		if cfg.Mechanism != "" {
			spec.Mechanism, spec.Options = cfg.Mechanism, cfg.Options
		}
		cell := Cell{Epsilon: eps, Spec: spec}
		unscaled := spec
		unscaled.ScaleShare = 0
		for range cfg.Runs {
			if err := ctx.Err(); err != nil {
				return res, err
			}
			start := time.Now()
			m, err := measuredFit(ctx, t, spec, train, valid, schema, fitMean)
			if err != nil {
				if ctx.Err() != nil {
					return res, ctx.Err()
				}
				cell.Error = err.Error()
				break
			}
			cell.Seconds = append(cell.Seconds, time.Since(start).Seconds())
			cell.Runs = append(cell.Runs, m)
			if !cfg.Unscaled {
				continue
			}
			if m, err = measuredFit(ctx, t, unscaled, train, valid, schema, fitMean); err != nil {
				if ctx.Err() != nil {
					return res, ctx.Err()
				}
				cell.Error = err.Error()
				break
			}
			cell.Unscaled = append(cell.Unscaled, m)
		}
		res.Cells = append(res.Cells, cell)
		if cfg.Progress != nil {
			cfg.Progress(fmt.Sprintf("devsuite: %s ε=%g: %s", t.Name, eps, cellSummary(res, cell)))
		}
	}
	return res, nil
}

// measuredFit runs the default fit with spec and fresh randomness and returns its validation
// measures.
func measuredFit(ctx context.Context, t Task, spec fit.Spec, train, valid *data.Dataset, schema *data.Schema, fitMean float64) (Measures, error) {
	w, v, err := devsuiteFit(ctx, spec, train, valid, schema, rng.New())
	if err != nil {
		return nil, err
	}
	return privoptMeasures(t, spec, v, w, fitMean)
}

// cellSummary is a cell's progress line after its task and ε, with the task's baselines.
func cellSummary(t TaskResult, c Cell) string {
	if c.Error != "" {
		return fmt.Sprintf("error after %d runs: %s", len(c.Runs), c.Error)
	}
	secs, _ := bench.MeanSD(c.Seconds)
	if t.Task.Label == data.LabelNumeric {
		e, _ := c.Stat(MeasureRMSE)
		r2, _ := c.Stat(MeasureR2)
		return fmt.Sprintf("RMSE %.4g, R² %.3f (mean %.4g; OLS %.4g, R² %.3f), %d runs, %.3g s per fit",
			e, r2, t.Trivial[MeasureRMSE], t.NonPrivate[MeasureRMSE], t.NonPrivate[MeasureR2], len(c.Runs), secs)
	}
	acc, _ := c.Stat(MeasureAccuracy)
	top := ""
	if t.Task.TopShare > 0 {
		hits, _ := c.Stat(MeasureTopHits)
		top = fmt.Sprintf(", top hits %.1f (random %.1f; non-private %.0f)", hits, t.Trivial[MeasureTopHits], t.NonPrivate[MeasureTopHits])
	}
	return fmt.Sprintf("accuracy %.2f %% (majority %.2f; non-private %.2f)%s, %d runs, %.3g s per fit",
		100*acc, 100*t.Trivial[MeasureAccuracy], 100*t.NonPrivate[MeasureAccuracy], top, len(c.Runs), secs)
}

// loadDevsuiteTask reads a task's schema and training file (never its test file), checks the
// label kind, and divides the encoded rows into fit and validation rows with the suite's
// fixed split. changed counts what encoding changed (TaskResult.Changed).
func loadDevsuiteTask(dir string, t Task) (schema *data.Schema, train, valid *data.Dataset, changed int, err error) {
	folder := filepath.Join(dir, t.Folder)
	if filepath.IsAbs(t.Folder) || strings.HasPrefix(t.Folder, "./") {
		folder = t.Folder
	}
	trainFile := t.Train
	if trainFile == "" {
		trainFile = "train.csv"
	}
	f, err := os.Open(filepath.Join(folder, t.Schema))
	if err != nil {
		return nil, nil, nil, 0, err
	}
	schema, err = data.LoadSchema(f)
	f.Close()
	if err != nil {
		return nil, nil, nil, 0, fmt.Errorf("%s: %w", t.Schema, err)
	}
	f, err = os.Open(filepath.Join(folder, trainFile))
	if err != nil {
		return nil, nil, nil, 0, err
	}
	ds, diag, err := data.Encode(f, schema)
	f.Close()
	if err != nil {
		return nil, nil, nil, 0, fmt.Errorf("%s: %w", trainFile, err)
	}
	facts, err := fit.FactsOf(ds, schema)
	if err != nil {
		return nil, nil, nil, 0, err
	}
	if facts.Label != t.Label {
		return nil, nil, nil, 0, fmt.Errorf("%s declares a %s label, the task a %s one", t.Schema, facts.Label, t.Label)
	}
	changed = diag.ClippedRows
	for _, c := range diag.Columns {
		changed += c.Missing + c.Clipped + c.Other
	}
	train, valid, err = data.Split(ds, ValidationShare, rng.Seeded(SplitSeed))
	return schema, train, valid, changed, err
}

// DefaultMechanism is the mechanism of privopt's default fit.
const DefaultMechanism = "noisy-gd"

// defaultSpec returns the spec of privopt's default fit of a task at (ε, δ): what `privopt fit
// --mech noisy-gd --eps ε --delta δ` plans with every other flag at its default (the label's
// default loss fit.DefaultLoss, its default domain fit.DefaultDomain with radius 10, private ranges
// with fit.DefaultScaleShare of the budget, replace-one).
func defaultSpec(t Task, eps, delta float64) fit.Spec {
	loss := fit.DefaultLoss(t.Label)
	return fit.Spec{Loss: loss, Domain: fit.DefaultDomain(loss), Radius: 10, Mechanism: DefaultMechanism, ScaleShare: fit.DefaultScaleShare,
		Budget: privacy.Budget{Epsilon: eps, Delta: delta, Neighbouring: privacy.ReplaceOne}}
}

// devsuiteFit is privopt's default fit exactly as `privopt fit` runs it: the facts of the fit
// rows train (encoded with the declared schema), the plan of spec, the private ranges (when the
// spec asks for them) estimated on train, one run with r on the rescaled rows. It returns the
// released weights and the validation rows as the model reads them (rescaled to the ranges),
// with their labels in the label's units as declared, unclipped by a private range (Label maps
// a prediction to those units). It is the suite's only fit pipeline.
func devsuiteFit(ctx context.Context, spec fit.Spec, train, valid *data.Dataset, schema *data.Schema, r *rng.Rand) (weights []float64, validation *data.Dataset, err error) {
	facts, err := fit.FactsOf(train, schema)
	if err != nil {
		return nil, nil, err
	}
	plan, err := fit.Plan(spec, facts)
	if err != nil {
		return nil, nil, err
	}
	scaled, err := fit.Scale(spec, facts, schema, train, valid, r)
	if err != nil {
		return nil, nil, err
	}
	rel, err := plan.Run(ctx, scaled.Train, r, nil)
	if err != nil {
		return nil, nil, err
	}
	v := *scaled.Test
	v.Y = valid.Y
	return rel.Model.Weights, &v, nil
}

// privoptMeasures returns the validation measures of a released model w, with the problem's
// own accuracy (mech.Accuracy) and loss (its Mean: the log-loss of the logistic and
// multinomial losses); R² is against fitMean, the fit rows' mean label.
func privoptMeasures(t Task, spec fit.Spec, valid *data.Dataset, w []float64, fitMean float64) (Measures, error) {
	facts, err := fit.FactsOf(valid, nil)
	if err != nil {
		return nil, err
	}
	p, err := fit.Problem(spec, facts)
	if err != nil {
		return nil, err
	}
	var l loss.Loss
	if t.Label != data.LabelNumeric {
		if l, err = p.NewLoss(valid); err != nil {
			return nil, err
		}
	}
	return measures(t, p.Loss, l, valid, w, fitMean), nil
}

// measures returns the measures of the linear model w on ds: for a classifier, whose problem
// has loss ls and whose loss over ds is l, the accuracy, l's mean (the log-loss) and the top
// hits when the task asks; for a regression model, RMSE and R² against fitMean.
func measures(t Task, ls mech.LossSpec, l loss.Loss, ds *data.Dataset, w []float64, fitMean float64) Measures {
	if t.Label == data.LabelNumeric {
		pred := scores(ds, w)
		for i, p := range pred {
			pred[i] = ds.Label.Raw(p)
		}
		return Measures{MeasureRMSE: rmse(pred, ds.Y), MeasureR2: rSquared(pred, ds.Y, fitMean)}
	}
	acc, _ := mech.Accuracy(mech.Problem{Loss: ls}, ds, w)
	m := Measures{MeasureAccuracy: acc, MeasureLogLoss: l.Mean(nil, w)}
	if t.TopShare > 0 {
		m[MeasureTopHits] = float64(topHits(scores(ds, w), ds.Y, t.TopShare))
	}
	return m
}

// scores returns ⟨w, x⟩ for every row x of ds.
func scores(ds *data.Dataset, w []float64) []float64 {
	out := make([]float64, ds.N)
	x := make([]float64, ds.D)
	for i := range ds.N {
		x = ds.Row(i, x)
		for j, v := range x {
			out[i] += w[j] * v
		}
	}
	return out
}

// rmse returns the root mean squared error of the predictions pred of labels y.
func rmse(pred, y []float64) float64 {
	s := 0.0
	for i, p := range pred {
		s += (p - y[i]) * (p - y[i])
	}
	return math.Sqrt(s / float64(len(y)))
}

// rSquared returns 1 − MSE/V, V = mean (y − ref)²: the share of the squared error of the
// constant prediction ref (the fit rows' mean, whose R² is then 0) that pred removes; 1 for
// exact predictions, negative for worse than ref.
func rSquared(pred, y []float64, ref float64) float64 {
	sse, v := 0.0, 0.0
	for i, t := range y {
		sse += (pred[i] - t) * (pred[i] - t)
		v += (t - ref) * (t - ref)
	}
	return 1 - sse/v
}

// topRows returns the number of rows of n that the top-share measure looks at: share·n,
// rounded.
func topRows(n int, share float64) int { return int(math.Round(share * float64(n))) }

// topHits returns the positives (y > 0) among the topRows(len(y), share) rows of highest
// score, ties going to the earlier row: CoIL 2000's measure, its 800 of 4,000 customers being
// a share of 0.2.
func topHits(score, y []float64, share float64) int {
	order := make([]int, len(score))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(score[b], score[a]) })
	hits := 0
	for _, i := range order[:topRows(len(y), share)] {
		if y[i] > 0 {
			hits++
		}
	}
	return hits
}
