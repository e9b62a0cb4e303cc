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
	"github.com/privopt/privopt/internal/bench/results"
	"github.com/privopt/privopt/pkg/core/cost"
	"github.com/privopt/privopt/pkg/core/privacy"
	"io"
	"math"
	"runtime"
	"time"

	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/geom"
	"github.com/privopt/privopt/pkg/core/loss"
	"github.com/privopt/privopt/pkg/core/mech"
	"github.com/privopt/privopt/pkg/rng"
	"github.com/privopt/privopt/pkg/solve"
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

// Run runs the benchmark.
func Run(ctx context.Context, cfg Config) (results.Result, error) {
	res := results.Result{Platform: runtime.GOOS + "/" + runtime.GOARCH, Radius: cfg.Radius}
	if err := baselines(cfg, &res); err != nil {
		return res, err
	}
	p := mech.Problem{Loss: mech.LossSpec{Name: mech.LossLogistic}, Dim: cfg.Train.D, N: cfg.Train.N,
		Bounds: loss.Bounds{X: cfg.Train.Radius, XNorm: cfg.Train.P, Y: 1, Bias: cfg.Train.Bias}, Domain: geom.Whole{D: cfg.Train.D}, Radius: cfg.Radius,
		Categorical: cfg.Train.Categorical, Scale: cfg.Train.Scale}
	rates := cost.ReferenceFor(p.QueryWidth(loss.RowWidth(cfg.Train, nil)))
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
func cell(ctx context.Context, cfg Config, p mech.Problem, rates cost.Rates, e Entry, eps float64) (results.Row, error) {
	b := privacy.Budget{Epsilon: eps, Delta: cfg.Delta}
	if e.Pure {
		b.Delta = 0
	}
	row := results.Row{Mechanism: e.Name, Options: e.Options, Epsilon: eps, Delta: b.Delta}
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
	acc, _ = mech.Accuracy(mech.Problem{Loss: mech.LossSpec{Name: mech.LossLogistic}}, ds, w)
	return acc, l.Mean(nil, w)
}

// baselines fits non-private ℓ2-regularised logistic regression (λ = 1e-6, certified) and the
// majority class.
func baselines(cfg Config, res *results.Result) error {
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

func rowSummary(r results.Row) string {
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
