package ui

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/privopt/privopt/internal/fit"
	"github.com/privopt/privopt/pkg/core/mech"
	"github.com/privopt/privopt/pkg/core/privacy"
	"github.com/privopt/privopt/wasm/engine"
)

// HasResults reports whether a run has finished with a release.
func (a *App) HasResults() bool { return !a.Running && a.firstDone() >= 0 }

// Result is the selected run's result (nil when it has none).
func (a *App) Result() *engine.Result {
	if a.Selected < 0 || a.Selected >= len(a.RunList) {
		return nil
	}
	return a.RunList[a.Selected].Result
}

// DoneRuns lists the runs that finished with a release.
func (a *App) DoneRuns() []*RunStatus {
	var out []*RunStatus
	for _, r := range a.RunList {
		if r.State == "done" {
			out = append(out, r)
		}
	}
	return out
}

// Select shows run i's model and report, and uses its model in the "Use the model" panel.
func (a *App) Select(i int) {
	if i >= 0 && i < len(a.RunList) && a.RunList[i].Result != nil {
		a.Selected = i
		a.modelChanged()
	}
}

// SetSort sorts the weights by magnitude (true) or in feature order (false).
func (a *App) SetSort(byWeight bool) { a.SortByWeight = byWeight }

// WeightRow is one weight of the model.
type WeightRow struct {
	// Class is the weight's class (multinomial loss only), Feature its feature, Weight its
	// value formatted.
	Class, Feature, Weight string
	value                  float64
}

// Weights lists the selected model's weights with their features (and classes for the
// multinomial loss), in feature order or by decreasing magnitude.
func (a *App) Weights() []WeightRow {
	res := a.Result()
	if res == nil {
		return nil
	}
	m := res.Release.Model
	var rows []WeightRow
	d := len(m.Features)
	for k, w := range m.Weights {
		row := WeightRow{Feature: m.Features[k%d], Weight: strconv.FormatFloat(w, 'f', 4, 64), value: w}
		if len(m.Classes) > 0 {
			row.Class = m.Classes[k/d]
		}
		rows = append(rows, row)
	}
	if !a.SortByWeight {
		return rows
	}
	sorted := make([]WeightRow, 0, len(rows))
	for _, k := range largestFirst(len(rows), func(k int) float64 { return math.Abs(rows[k].value) }) {
		sorted = append(sorted, rows[k])
	}
	return sorted
}

// Multiclass reports whether the selected model has one weight vector per class.
func (a *App) Multiclass() bool {
	res := a.Result()
	return res != nil && len(res.Release.Model.Classes) > 0
}

// ReportRow is one line of the privacy report's table.
type ReportRow struct {
	// Name names a part of the report and Value states it.
	Name, Value string
}

// ReportRows states the selected release's privacy report in numbers.
func (a *App) ReportRows() []ReportRow {
	res := a.Result()
	if res == nil {
		return nil
	}
	r := res.Release.Report
	sampler := "exact (no sampler error)"
	switch {
	case r.Sampler.Certified:
		sampler = fmt.Sprintf("certified: total variation ≤ %s, included in δ", shortText(r.Sampler.TV))
	case !r.Sampler.Exact:
		sampler = "mixing not certified"
	}
	if st := r.Sampler.Statement; st != "" && !strings.HasPrefix(st, sampler) {
		sampler += " — " + st
	} else if st != "" {
		sampler = st
	}
	randomness := "the browser's cryptographic generator (private)"
	if r.Randomness == privacy.SeededNotPrivate {
		randomness = "seeded: not private (anyone with the seed can reproduce the noise)"
	}
	relation := string(r.Neighbouring)
	if n, ok := a.declaredN(); ok {
		relation += fmt.Sprintf(" (declared public number of rows N = %d)", n)
	}
	rows := []ReportRow{
		{"Mechanism", r.Mechanism},
		{"Paper", r.Paper},
		{"Guarantee", r.Guarantee.Description},
		{"Target (ε, δ)", fmt.Sprintf("(%s, %s)", shortText(r.Target.Epsilon), shortText(r.Target.Delta))},
		{"Certified δ at the target ε", upText(r.Achieved.Delta)},
		{"Neighbouring relation", relation},
		{"Sensitivity", upText(r.Sensitivity.Value) + " — " + r.Sensitivity.Of + "; " + r.Sensitivity.Derivation},
		{"Sampler", sampler},
		{"Randomness", randomness},
		{"Utility bound (excess training loss)", boundText(res.Release.Utility.Bound) + " — " + res.Release.Utility.Statement},
		{"Report format", r.Version},
	}
	if ev := res.Private; ev != nil {
		rows = append(rows, ReportRow{"Private evaluation (part of the release)", ev.Statement + " " + ev.Report.Statement})
	}
	return rows
}

// Private reports whether the selected release claims privacy: its report, and the release file
// of the runs (the private ranges they were fitted with and the private evaluations too).
func (a *App) Private() bool {
	res := a.Result()
	return res != nil && res.Release.Report.Private && (a.rel == nil || a.rel.Private())
}

// Verdict is the results' verdict on the selected run's privacy, and its class: "ok" for a
// release that carries its guarantee, "warn" when that guarantee is weak (weakBudget), "bad"
// for one that claims no privacy.
func (a *App) Verdict() (text, class string) {
	res := a.Result()
	switch {
	case !a.Private():
		return "Not private: this release claims no privacy (see the statement).", "bad"
	case len(privacy.Budget{Epsilon: res.Release.Report.Target.Epsilon, Delta: res.Release.Report.Target.Delta}.Weak(a.rowsOfRun())) > 0:
		return "Private, but weakly: the release carries the certified guarantee below, which says little at this budget (see the warnings of step 3).", "warn"
	}
	return "Private: the release carries the certified guarantee below.", "ok"
}

// ReportSummary says in plain words, before any formula, what the release of the finished
// runs protects, how strongly (its ε and δ, and the attacker's reading of its tradeoff curve
// from the release file's statements) and what it does not cover; nil when it claims no
// privacy (the verdict and the statement say so).
func (a *App) ReportSummary() []string {
	res := a.Result()
	if res == nil || a.rel == nil || !a.Private() {
		return nil
	}
	r := res.Release.Report
	change := "replacing any one row by any other"
	if r.Neighbouring == privacy.AddRemove {
		change = "adding or removing any one row"
	}
	// The model's fit may have a share of the budget typed (the private ranges and evaluation
	// take the rest): said so, beside the whole release's guarantee (ReleasedText).
	whose := "For one model"
	if r.Target.Epsilon < a.runSpec.Budget.Epsilon {
		whose = "For one model's fit, on its share of the budget (ε = " + upText(r.Target.Epsilon) + "; the whole release's guarantee is stated below)"
	}
	out := []string{fmt.Sprintf("Protected: each row of the training file, taken as one person's record. %s, %s changes the chance of "+
		"any outcome, and of anything concluded from it, by at most a factor e^ε = %s, plus δ = %s.",
		whose, change, upText(math.Exp(r.Target.Epsilon)), upText(r.Achieved.Delta))}
	for _, b := range a.rel.Statements.Attacker {
		if b.FalsePositiveRate == 0.05 {
			out = append(out, fmt.Sprintf("Strength: someone who knows every other row and tries to tell whether a person's row was used, "+
				"wrongly accusing at most 5 %% of the others, finds at most %s of the people in the data from everything released here "+
				"(guessing finds 5 %%).", percent(b.TruePositiveRateBound)))
		}
	}
	public := "the number of rows, "
	if r.Neighbouring == privacy.AddRemove {
		public = "the declared public number of rows N, "
	}
	return append(out, "Not covered: what the schema declares ("+public+"the columns and their bounds), other releases from the same data "+
		"(their privacy losses add up), and the local diagnostics below, which are not private and must not be published.")
}

// VerdictText and VerdictClass are Verdict's parts, for the results view.
func (a *App) VerdictText() string  { t, _ := a.Verdict(); return t }
func (a *App) VerdictClass() string { _, c := a.Verdict(); return c }

// rowsOfRun is the public number of rows the runs were planned for (0 when unknown): from the
// settings and facts of the last Run, not the settings as they stand.
func (a *App) rowsOfRun() int {
	n, _ := fit.ProblemSize(a.runSpec, a.runFacts)
	return n
}

// DiagnosticRow is one local diagnostic: computed from the data, not private.
type DiagnosticRow struct {
	// Name names the diagnostic and Value is its value, formatted.
	Name, Value string
}

// Diagnostics lists the selected run's local diagnostics and the data's: shown to the data's
// owner, never part of a release.
func (a *App) Diagnostics() []DiagnosticRow {
	res := a.Result()
	if res == nil {
		return nil
	}
	d := res.Release.Diagnostics
	var rows []DiagnosticRow
	if d.TrainAccuracy != nil {
		rows = append(rows, DiagnosticRow{"Training accuracy", percent(*d.TrainAccuracy)})
	}
	if t := res.Test; t != nil {
		if t.Accuracy != nil {
			acc := percent(*t.Accuracy)
			if t.Majority != nil {
				acc += " (always the majority class: " + percent(*t.Majority) + ")"
				if *t.Accuracy <= *t.Majority {
					acc += ": no better than always predicting it; a larger ε, more rows or fewer features may help"
				}
			}
			rows = append(rows, DiagnosticRow{fmt.Sprintf("Held-out accuracy (%d rows)", t.Rows), acc})
		}
		rows = append(rows, DiagnosticRow{"Held-out mean loss", shortText(t.Loss)})
	}
	rows = append(rows, DiagnosticRow{"Training mean loss", shortText(d.TrainLoss)},
		DiagnosticRow{"Run time", formatDuration(d.Seconds)})
	if a.Dataset != nil {
		rows = append(rows, DiagnosticRow{"Rows clipped to the norm bound", fmt.Sprintf("%d of %d", a.Dataset.ClippedRows, a.Dataset.Rows)})
	}
	keys := make([]string, 0, len(d.Details))
	for k := range d.Details {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		rows = append(rows, DiagnosticRow{words(k), shortText(d.Details[k])})
	}
	return rows
}

// HasPrivateEvaluation reports whether the finished runs carry private evaluations of their
// models on the held-out rows.
func (a *App) HasPrivateEvaluation() bool {
	runs := a.DoneRuns()
	return len(runs) > 0 && runs[0].Result.Private != nil
}

// EvaluationRow is one finished run's evaluations on the held-out rows.
type EvaluationRow struct {
	// Run names the run; Local is its exact figure, computed on this machine and not private;
	// Private the figure released with noise, with its 95 % interval for the noise.
	Run, Local, Private string
}

// EvaluationRows lists each finished run's local and private evaluation on the held-out rows
// (when HasPrivateEvaluation): the accuracy for a classifier; for a regression the mean loss,
// locally, and the mean absolute error and R², privately.
func (a *App) EvaluationRows() []EvaluationRow {
	var rows []EvaluationRow
	for _, r := range a.DoneRuns() {
		row := EvaluationRow{Run: "run " + itoa(r.Index+1), Local: "no held-out rows"}
		switch t := r.Result.Test; {
		case t != nil && t.Accuracy != nil:
			row.Local = percent(*t.Accuracy)
		case t != nil:
			row.Local = shortText(t.Loss)
		}
		switch ev := r.Result.Private; {
		case ev.Accuracy != nil:
			row.Private = estimateText(ev.Accuracy, percent)
		default:
			r2 := "R² not stated (the noisy sums leave no spread of the labels)"
			if ev.R2 != nil {
				r2 = "R² " + estimateText(ev.R2, shortText)
				if ev.R2.Value <= 0 {
					r2 += ": no better than predicting the mean label"
				}
			}
			row.Private = "mean absolute error " + estimateText(ev.MAE, shortText) + "; " + r2
		}
		rows = append(rows, row)
	}
	return rows
}

// estimateText writes an estimate with its interval, each number formatted by format.
func estimateText(e *mech.Estimate, format func(float64) string) string {
	return format(e.Value) + " (95 % interval for the noise: " + format(e.Low) + " to " + format(e.High) + ")"
}

// classifierEvaluated reports whether the runs' private evaluations are a classifier's.
func (a *App) classifierEvaluated() bool { return a.DoneRuns()[0].Result.Private.Accuracy != nil }

// LocalHead and PrivateHead head the columns of the runs' evaluations.
func (a *App) LocalHead() string {
	if a.classifierEvaluated() {
		return "Local held-out accuracy: exact, for you only"
	}
	return "Local held-out mean loss: exact, for you only"
}

// PrivateHead: see LocalHead.
func (a *App) PrivateHead() string {
	what := "accuracy"
	if !a.classifierEvaluated() {
		what = "error"
	}
	return "Private held-out " + what + ": part of the release"
}

// EvaluationText says which evaluation of the held-out rows is which, and states the guarantee
// of the release that holds the private ones (release.File.Together).
func (a *App) EvaluationText() string {
	share := shareText(a.runSpec.EvalShare)
	return "Each model is evaluated twice on the held-out rows. The local figure is exact: computed on this machine from " +
		"your held-out rows, it is not private, is shown to you only and is never part of the release. The private figure was " +
		"released with noise, spending " + share + " of each run's budget: it is part of the release file and covered by its " +
		"guarantee, and its interval covers the noise only, not the sampling of the held-out rows. " + a.ReleasedText()
}

// percent formats a fraction as a percentage.
func percent(f float64) string { return strconv.FormatFloat(100*f, 'f', 1, 64) + " %" }

// Spread summarises the held-out accuracy (or, without held-out rows, the training accuracy)
// over the finished runs: "" for fewer than two.
func (a *App) Spread() string {
	var accs []float64
	what := "held-out"
	for _, r := range a.DoneRuns() {
		switch {
		case r.Result.Test != nil && r.Result.Test.Accuracy != nil:
			accs = append(accs, *r.Result.Test.Accuracy)
		case r.Result.Release.Diagnostics.TrainAccuracy != nil:
			accs, what = append(accs, *r.Result.Release.Diagnostics.TrainAccuracy), "training"
		}
	}
	if len(accs) < 2 {
		return ""
	}
	mean, lo, hi := 0.0, accs[0], accs[0]
	for _, v := range accs {
		mean += v / float64(len(accs))
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	sd := 0.0
	for _, v := range accs {
		sd += (v - mean) * (v - mean) / float64(len(accs)-1)
	}
	return fmt.Sprintf("%s accuracy over %d runs: mean %s, standard deviation %s, from %s to %s (not private)",
		what, len(accs), percent(mean), strconv.FormatFloat(100*math.Sqrt(sd), 'f', 1, 64)+" points", percent(lo), percent(hi))
}

// declaredN is the runs' public number of rows N under add/remove (fit.ProblemSize of the
// spec and facts they were planned with), which is public; the observed number of rows is
// private there and never stated. ok is false under replace-one.
func (a *App) declaredN() (n int, ok bool) {
	if a.runSpec.Budget.Neighbouring != privacy.AddRemove {
		return 0, false
	}
	n, err := fit.ProblemSize(a.runSpec, a.runFacts)
	return n, err == nil
}
