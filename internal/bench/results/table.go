package results

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/privopt/privopt/pkg/plot"
)

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
	// reference rates for the training rows' width (cost.ReferenceFor: the non-zeros of
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
		return base, fmt.Errorf("results: cannot replace rows of a %s run with radius %g by those of a %s run with radius %g",
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
		return plot.Drawing{}, fmt.Errorf("results: nothing to plot")
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
