// Package bench runs the adult-lr benchmark of bench/ADULT.md: every mechanism at every budget,
// several runs each with fresh randomness, test accuracy and log-loss on the held-out file, the
// certified privacy, and the wall time of the private fit (not counting CSV parsing), with the
// non-private and majority-class baselines. The same code runs natively and compiled to
// WebAssembly (in node), so the two times can be compared.
package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/geom"
	"github.com/privopt/privopt/pkg/core/loss"
	"github.com/privopt/privopt/pkg/core/mech"
	"github.com/privopt/privopt/pkg/core/solve"
	"github.com/privopt/privopt/pkg/plot"
	"github.com/privopt/privopt/pkg/rng"
	"github.com/privopt/privopt/pkg/sampler"
)

// Config describes a benchmark run. Every setting is fixed before any result is seen.
type Config struct {
	// Train and Test are the encoded adult-lr files (or any binary task with ‖x‖₂ ≤ 1).
	Train, Test *data.Dataset
	// Mechanisms are the mechanisms' names with their settings (see Mechanisms).
	Mechanisms []Entry
	// Epsilons are the budgets' ε; Delta the δ of approximate-DP mechanisms (pure ones use 0).
	Epsilons []float64
	Delta    float64
	// Runs is the number of runs per mechanism and ε, each with fresh OS randomness.
	Runs int
	// Radius is D, the declared radius the mechanisms plan against.
	Radius float64
	// CellSeconds, when positive, bounds the time spent on one cell: a cell whose single run
	// is predicted (Row.Predicted) to take longer is not run, and a cell stops before a run that would take it past the bound
	// (predicted from its runs so far), after at least one run.
	CellSeconds float64
	// Progress, if not nil, receives a line per finished cell.
	Progress func(line string)
}

// Entry is a mechanism as benchmarked: its registered name, the settings that differ from its
// defaults (the --opt settings that built Mech; nil for the defaults) and the mechanism.
type Entry struct {
	Name    string
	Options map[string]string
	Mech    mech.Mechanism
	// Pure marks a pure ε-DP mechanism (planned with δ = 0).
	Pure bool
}

// Row is one cell of the table: a mechanism at one budget.
type Row struct {
	// Mechanism is the registered name; Options the settings that differ from its defaults.
	Mechanism string            `json:"mechanism"`
	Options   map[string]string `json:"options,omitempty"`
	Epsilon   float64           `json:"epsilon"`
	Delta     float64           `json:"delta"`
	// Certified states the guarantee of the releases: the achieved (ε, δ) and the kind of the
	// mechanism's guarantee, or "not certified" (a fast sampler, or seeded randomness).
	Certified string `json:"certified"`
	Private   bool   `json:"private"`
	Runs      int    `json:"runs"`
	// Accuracy and LogLoss are the mean and standard deviation over runs on the test file.
	AccuracyMean float64 `json:"accuracy_mean"`
	AccuracySD   float64 `json:"accuracy_sd"`
	LogLossMean  float64 `json:"log_loss_mean"`
	// Seconds is the mean wall time of one private fit.
	Seconds float64 `json:"seconds"`
	// Predicted is the time of one fit predicted before running it: the plan's cost at native
	// reference rates for the training rows' width (sampler.ReferenceRatesFor: the non-zeros of
	// one-hot rows, which the losses hold sparse). It reads the training data's density, which
	// is fine for a benchmark on the owner's machine: it is never part of a release.
	Predicted float64 `json:"predicted_seconds,omitempty"`
	// Error is set when the mechanism could not run at this budget.
	Error string `json:"error,omitempty"`
}

// Result is a whole benchmark on one platform.
type Result struct {
	Platform  string  `json:"platform"`
	Radius    float64 `json:"radius"`
	Rows      []Row   `json:"rows"`
	Baselines struct {
		NonPrivateAccuracy float64 `json:"non_private_accuracy"`
		NonPrivateLogLoss  float64 `json:"non_private_log_loss"`
		MajorityAccuracy   float64 `json:"majority_accuracy"`
	} `json:"baselines"`
	// PageReady, for the Chromium run, are the seconds from the navigation to the page's being
	// usable (every engine worker started and answering, when the page sets data-ready on its
	// <html>), one per load in a fresh browser context (cold cache) from a local server.
	PageReady []float64 `json:"page_ready_seconds,omitempty"`
}

// Run runs the benchmark.
func Run(ctx context.Context, cfg Config) (Result, error) {
	res := Result{Platform: runtime.GOOS + "/" + runtime.GOARCH, Radius: cfg.Radius}
	if err := baselines(cfg, &res); err != nil {
		return res, err
	}
	p := mech.Problem{Loss: mech.LossSpec{Name: "logistic"}, Dim: cfg.Train.D, N: cfg.Train.N,
		Bounds: loss.Bounds{X: cfg.Train.Radius, XNorm: cfg.Train.P, Y: 1, Bias: cfg.Train.Bias}, Domain: geom.Whole{D: cfg.Train.D}, Radius: cfg.Radius,
		Categorical: cfg.Train.Categorical}
	rates := sampler.ReferenceRatesFor(p.QueryWidth(loss.RowWidth(cfg.Train, nil)))
	for _, e := range cfg.Mechanisms {
		for _, eps := range cfg.Epsilons {
			row, err := cell(ctx, cfg, p, rates, e, eps)
			if err != nil {
				return res, err
			}
			res.Rows = append(res.Rows, row)
			if cfg.Progress != nil {
				cfg.Progress(fmt.Sprintf("%s ε=%g: %s", row.Label(), eps, rowSummary(row)))
			}
		}
	}
	return res, nil
}

// cell benchmarks one mechanism at one ε, predicting its time at rates.
func cell(ctx context.Context, cfg Config, p mech.Problem, rates sampler.Rates, e Entry, eps float64) (Row, error) {
	b := mech.Budget{Epsilon: eps, Delta: cfg.Delta}
	if e.Pure {
		b.Delta = 0
	}
	row := Row{Mechanism: e.Name, Options: e.Options, Epsilon: eps, Delta: b.Delta}
	pl, err := e.Mech.Plan(b, p)
	if err != nil {
		row.Error = err.Error()
		return row, nil
	}
	row.Predicted = pl.Cost().Seconds(rates)
	if cfg.CellSeconds > 0 && row.Predicted > cfg.CellSeconds {
		row.Error = fmt.Sprintf("one run is predicted to take %.3g s natively, over the limit of %g s per cell", row.Predicted, cfg.CellSeconds)
		return row, nil
	}
	var accs, losses, secs []float64
	spent := 0.0
	for i := range cfg.Runs {
		if err := ctx.Err(); err != nil {
			return row, err
		}
		if cfg.CellSeconds > 0 && i > 0 && spent*float64(i+1)/float64(i) > cfg.CellSeconds {
			break
		}
		start := time.Now()
		rel, err := pl.Run(ctx, cfg.Train, rng.New(), nil)
		if err != nil {
			row.Error = err.Error()
			return row, nil
		}
		secs = append(secs, time.Since(start).Seconds())
		spent += secs[len(secs)-1]
		acc, logLoss := evaluate(cfg.Test, rel.Model.Weights)
		accs, losses = append(accs, acc), append(losses, logLoss)
		a := rel.Report.Achieved
		row.Certified = fmt.Sprintf("(%g, %.2g)-DP, %s", a.Epsilon, a.Delta, rel.Report.Guarantee.Kind)
		row.Private = rel.Report.Private
		if !row.Private {
			row.Certified = "not certified (" + rel.Report.Mechanism + ")"
		}
	}
	row.Runs = len(accs)
	row.AccuracyMean, row.AccuracySD = MeanSD(accs)
	row.LogLossMean, _ = MeanSD(losses)
	row.Seconds, _ = MeanSD(secs)
	return row, nil
}

// evaluate returns the test accuracy and mean log-loss of a logistic model with labels ±1.
func evaluate(ds *data.Dataset, w []float64) (acc, logLoss float64) {
	l, err := loss.NewLinear(loss.Logistic{}, ds, loss.Bounds{X: math.Inf(1), XNorm: 2, Y: 1})
	if err != nil {
		return math.NaN(), math.NaN()
	}
	acc, _ = mech.Accuracy(mech.Problem{Loss: mech.LossSpec{Name: "logistic"}}, ds, w)
	return acc, l.Mean(nil, w)
}

// baselines fits non-private ℓ2-regularised logistic regression (λ = 1e-6, certified) and the
// majority class.
func baselines(cfg Config, res *Result) error {
	fit, err := solve.FitLogistic(cfg.Train, 1e-6)
	if err != nil {
		return err
	}
	res.Baselines.NonPrivateAccuracy, res.Baselines.NonPrivateLogLoss = evaluate(cfg.Test, fit.X)
	pos := 0
	for _, y := range cfg.Train.Y {
		if y > 0 {
			pos++
		}
	}
	majority := -1.0
	if 2*pos > cfg.Train.N {
		majority = 1
	}
	right := 0
	for _, y := range cfg.Test.Y {
		if y == majority {
			right++
		}
	}
	res.Baselines.MajorityAccuracy = float64(right) / float64(cfg.Test.N)
	return nil
}

// MeanSD returns the mean of xs and their sample standard deviation (0 for one value; both NaN
// for none).
func MeanSD(xs []float64) (mean, sd float64) {
	if len(xs) == 0 {
		return math.NaN(), math.NaN()
	}
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		sd += (x - mean) * (x - mean)
	}
	if len(xs) > 1 {
		sd = math.Sqrt(sd / float64(len(xs)-1))
	}
	return mean, sd
}

func rowSummary(r Row) string {
	if r.Error != "" {
		return "error: " + r.Error
	}
	return fmt.Sprintf("accuracy %.2f ± %.2f %%, %.3g s per run", 100*r.AccuracyMean, 100*r.AccuracySD, r.Seconds)
}

// WriteJSON writes results as indented JSON.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// Markdown writes the table of a native result with, when its rows record them, the predicted
// native times, and, for each other result (WebAssembly in node, Chromium through the page's
// engine), the time of the same cells there and its ratio to the native time.
func Markdown(native Result, others ...Result) string {
	predicted := slices.ContainsFunc(native.Rows, func(r Row) bool { return r.Predicted > 0 })
	var b strings.Builder
	fmt.Fprintf(&b, "Baselines: non-private logistic regression %.2f %% (log-loss %.4f); majority class %.2f %%. Radius D = %g.\n\n",
		100*native.Baselines.NonPrivateAccuracy, native.Baselines.NonPrivateLogLoss, 100*native.Baselines.MajorityAccuracy, native.Radius)
	fmt.Fprintf(&b, "| mechanism | ε | δ | test accuracy (%%) | log-loss | runs | time %s (s) |", PlatformLabel(native.Platform))
	rule := "|---|---|---|---|---|---|---|"
	if predicted {
		b.WriteString(" predicted native (s) |")
		rule += "---|"
	}
	for _, o := range others {
		fmt.Fprintf(&b, " time %s (s) | ratio |", PlatformLabel(o.Platform))
		rule += "---|---|"
	}
	b.WriteString(" certified |\n" + rule + "---|\n")
	for _, r := range native.Rows {
		prediction := ""
		if predicted {
			prediction = " – |"
			if r.Predicted > 0 {
				prediction = fmt.Sprintf(" %.3g |", r.Predicted)
			}
		}
		if r.Error != "" {
			fmt.Fprintf(&b, "| %s | %g | %g | – | – | 0 | – |%s%s not run: %s |\n", r.Label(), r.Epsilon, r.Delta, prediction,
				strings.Repeat(" – | – |", len(others)), strings.ReplaceAll(r.Error, "|", "/"))
			continue
		}
		fmt.Fprintf(&b, "| %s | %g | %g | %.2f ± %.2f | %.4f | %d | %.3g |%s", r.Label(), r.Epsilon, r.Delta,
			100*r.AccuracyMean, 100*r.AccuracySD, r.LogLossMean, r.Runs, r.Seconds, prediction)
		for _, o := range others {
			if w, ok := Find(o, r.Label(), r.Epsilon); ok && w.Error == "" && w.Runs > 0 {
				fmt.Fprintf(&b, " %.3g | %.2f |", w.Seconds, w.Seconds/r.Seconds)
			} else {
				b.WriteString(" – | – |")
			}
		}
		fmt.Fprintf(&b, " %s |\n", strings.ReplaceAll(r.Certified, "|", "/"))
	}
	for _, o := range others {
		if len(o.PageReady) > 0 {
			s := slices.Sorted(slices.Values(o.PageReady))
			fmt.Fprintf(&b, "\nThe page in %s is usable %.3g s after the navigation (median of %d loads in fresh contexts from a local server; %.3g to %.3g s).\n",
				strings.TrimSuffix(strings.TrimPrefix(PlatformLabel(o.Platform), "wasm ("), ")"), s[len(s)/2], len(s), s[0], s[len(s)-1])
		}
	}
	return b.String()
}

// PlatformLabel names a result's platform for a table: "wasm (node)" for js/wasm, "wasm
// (Chromium)" for the page's engine in Chromium, "native" otherwise.
func PlatformLabel(platform string) string {
	switch platform {
	case "js/wasm":
		return "wasm (node)"
	case "chromium":
		return "wasm (Chromium)"
	}
	return "native"
}

// Replace returns base with the rows of update in place of base's rows of the same mechanism
// and settings (Label) and ε (rows that base lacks are added at the end) and update's baselines: a run of some of
// the cells refreshes a whole table. The two must be of the same platform and radius.
func Replace(base, update Result) (Result, error) {
	if base.Platform != update.Platform || base.Radius != update.Radius {
		return base, fmt.Errorf("bench: cannot replace rows of a %s run with radius %g by those of a %s run with radius %g",
			base.Platform, base.Radius, update.Platform, update.Radius)
	}
	out := base
	out.Rows = append([]Row(nil), base.Rows...)
	out.Baselines = update.Baselines
	if len(update.PageReady) > 0 {
		out.PageReady = update.PageReady
	}
	for _, r := range update.Rows {
		i := slices.IndexFunc(out.Rows, func(b Row) bool { return b.Label() == r.Label() && b.Epsilon == r.Epsilon })
		if i < 0 {
			out.Rows = append(out.Rows, r)
			continue
		}
		out.Rows[i] = r
	}
	return out, nil
}

// Label names a row's mechanism in tables and plots: its registered name, followed by the
// settings that differ from its defaults, sorted, as in "rem (Sampler=kinetic-langevin)".
func (r Row) Label() string {
	if len(r.Options) == 0 {
		return r.Mechanism
	}
	opts := make([]string, 0, len(r.Options))
	for k, v := range r.Options {
		opts = append(opts, k+"="+v)
	}
	slices.Sort(opts)
	return r.Mechanism + " (" + strings.Join(opts, ", ") + ")"
}

// Find returns the row of a mechanism (its Label) at ε.
func Find(res Result, label string, eps float64) (Row, bool) {
	for _, r := range res.Rows {
		if r.Label() == label && r.Epsilon == eps {
			return r, true
		}
	}
	return Row{}, false
}

// Plot lays out test accuracy against ε (log scale) per mechanism (Label; a mechanism whose
// releases claim no privacy says so), with the baselines.
func Plot(res Result) (plot.Drawing, error) {
	var series []plot.Series
	minEps, maxEps := math.Inf(1), math.Inf(-1)
	lo := res.Baselines.MajorityAccuracy
	seen := map[string]int{}
	for _, r := range res.Rows {
		if r.Error != "" {
			continue
		}
		name := r.Label()
		if !r.Private {
			name += ": no privacy claimed"
		}
		k, ok := seen[name]
		if !ok {
			k = len(series)
			seen[name] = k
			series = append(series, plot.Series{Name: name, Class: fmt.Sprintf("series-%d", k%7)})
		}
		series[k].X = append(series[k].X, r.Epsilon)
		series[k].Y = append(series[k].Y, 100*r.AccuracyMean)
		minEps, maxEps = math.Min(minEps, r.Epsilon), math.Max(maxEps, r.Epsilon)
		lo = math.Min(lo, r.AccuracyMean)
	}
	if len(series) == 0 {
		return plot.Drawing{}, fmt.Errorf("bench: nothing to plot")
	}
	base := []float64{minEps, maxEps}
	series = append(series,
		plot.Series{Name: "non-private", Class: "reference", X: base, Y: []float64{100 * res.Baselines.NonPrivateAccuracy, 100 * res.Baselines.NonPrivateAccuracy}},
		plot.Series{Name: "majority class", Class: "reference-2", X: base, Y: []float64{100 * res.Baselines.MajorityAccuracy, 100 * res.Baselines.MajorityAccuracy}})
	fig := plot.Figure{
		Width: 640, Height: 340 + float64(len(series)*16), Title: "adult-lr: test accuracy against ε (δ = 1e-6 where approximate)", LegendBelow: true,
		X:      plot.Axis{Label: "ε", Min: minEps, Max: maxEps, Scale: plot.Log10},
		Y:      plot.Axis{Label: "test accuracy (%)", Min: math.Floor(100*lo) - 1, Max: math.Ceil(100*res.Baselines.NonPrivateAccuracy) + 1},
		Series: series,
	}
	return fig.Draw()
}
