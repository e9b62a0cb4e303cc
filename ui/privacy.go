package ui

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/privopt/privopt/internal/curves"
	"github.com/privopt/privopt/internal/fit"
	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/loss"
	"github.com/privopt/privopt/pkg/core/mech"
	"github.com/privopt/privopt/pkg/core/privacy"
	"github.com/privopt/privopt/pkg/plot"
	"github.com/privopt/privopt/wasm/engine"
)

// privacyState is the app's mechanism and privacy step: the mechanism and its settings, the
// budget, the number of runs and the seed, and the engine's plans for them.
type privacyState struct {
	// Mechanism names the chosen mechanism; OptionText holds its settings as typed, by
	// field name ("" or absent: the default, computed by its plan).
	Mechanism  string
	OptionText map[string]string
	// Eps and Delta are the budget of each run; Neighbouring its relation.
	Eps, Delta   Field
	Neighbouring string
	// PublicN is the public number of rows N that add/remove needs, as typed: empty declares
	// none here (the schema's "public_rows" applies, if it declares one). publicNFromSchema is
	// true while its text is the loaded schema's "public_rows", filled in by the page.
	PublicN           Field
	publicNFromSchema bool
	// Runs is the number of independent runs; Seed, when not empty, seeds them (not private).
	Runs Field
	Seed Field
	// EvalShare is the percentage of each run's budget spent on a private evaluation of its
	// model on the held-out rows, as typed (0: none); it applies when EvalOffered.
	EvalShare Field
	// ScaleShare is the percentage of the budget spent on private ranges of the numeric
	// columns, estimated once and shared by every run, as typed (0: none); it applies when
	// ScaleOffered.
	ScaleShare Field
	// Plans are the engine's plans for the current choices; PlanErr says why there are none.
	Plans   *engine.Plans
	PlanErr string
	planID  int
	// CurvePlot and TradeoffPlot are the chosen plan's curves, laid out.
	CurvePlot, TradeoffPlot plot.Drawing
	// holdPlans defers planning while a configuration is applied field by field (ApplyQuery).
	holdPlans bool
	// advancedOpen is true once the person opened the mechanism's settings (AdvancedOpen).
	advancedOpen bool
}

// Recommended is the mechanism the page opens on and marks: noisy-gd, the most accurate on the
// benchmark and the development suite (docs/auto.md says why not auto).
const Recommended = "noisy-gd"

func (a *App) initPrivacy() {
	a.Mechanism = Recommended
	a.OptionText = map[string]string{}
	a.Eps.Set(curves.DefaultEps, curves.CheckEps)
	a.Delta.Set(curves.DefaultDelta, checkBudgetDelta)
	a.Neighbouring = string(privacy.ReplaceOne)
	a.Runs.Set("1", checkRuns)
	a.EvalShare.Set("0", checkEvalShare)
	a.ScaleShare.Set(exactText(100*fit.DefaultScaleShare), checkScaleShare)
}

// relations lists the neighbouring relations with their explanations.
var relations = []struct {
	Value privacy.Neighbouring
	Label string
}{
	{privacy.ReplaceOne, "replace one row (the dataset's size is public)"},
	{privacy.AddRemove, "add or remove one row (the number of rows stays private: declare a public N)"},
}

func checkPublicN(v float64) string {
	if v != math.Trunc(v) || v < 1 || v > fit.MaxPublicN {
		return "N is a whole number of rows, from 1 to 10¹⁵."
	}
	return ""
}

func checkBudgetDelta(v float64) string {
	if !(v >= 0 && v < 1) {
		return "δ must be at least 0 (0 asks for pure ε-DP) and below 1."
	}
	if v > 0 && v < 1e-300 {
		return "δ below 10⁻³⁰⁰ is not supported."
	}
	return ""
}

func checkRuns(v float64) string {
	if v != math.Trunc(v) || v < 1 || v > engine.MaxRuns {
		return fmt.Sprintf("Enter a whole number of runs from 1 to %d.", engine.MaxRuns)
	}
	return ""
}

var (
	checkEvalShare  = checkShare("no private evaluation")
	checkScaleShare = checkShare("no private ranges")
)

// checkShare returns the check of a percentage of the budget, 0 meaning none.
func checkShare(none string) func(float64) string {
	return func(v float64) string {
		if !(v >= 0 && v < 100) {
			return "Enter a percentage of the budget from 0 (" + none + ") to below 100."
		}
		return ""
	}
}

// SetMechanism chooses the mechanism; its settings start at their defaults.
func (a *App) SetMechanism(name string) {
	if name == a.Mechanism {
		return
	}
	a.Mechanism, a.OptionText = name, map[string]string{}
	a.specChanged()
}

// SetOption sets one of the chosen mechanism's settings as typed ("" for its default).
func (a *App) SetOption(field, text string) {
	a.OptionText[field] = strings.TrimSpace(text)
	a.specChanged()
}

// SetEps, SetDelta, SetNeighbouring, SetRuns and SetSeed set the budget and the runs.
func (a *App) SetEps(text string) { a.Eps.Set(text, curves.CheckEps); a.specChanged() }

// SetDelta: see SetEps.
func (a *App) SetDelta(text string) { a.Delta.Set(text, checkBudgetDelta); a.specChanged() }

// SetNeighbouring sets the relation (see SetEps). When the data was checked with held-out rows
// chosen the other relation's way (datasetRequest), it is checked again.
func (a *App) SetNeighbouring(n string) {
	a.Neighbouring = n
	if a.Dataset != nil && a.checkKey() != a.checked {
		a.Dataset, a.Plans = nil, nil
		a.CheckData()
		return
	}
	a.specChanged()
}

// AddRemove reports whether the chosen relation is add/remove, which needs a public number of
// rows N.
func (a *App) AddRemove() bool { return a.Neighbouring == string(privacy.AddRemove) }

// SetPublicN sets the public number of rows N as typed: a whole number from 1 to 10¹⁵, or
// empty to declare none on the page (the schema's then applies).
func (a *App) SetPublicN(text string) {
	a.publicNFromSchema = false
	a.setPublicN(text)
	a.specChanged()
}

// setPublicN parses the N field; an empty text is valid and declares none (Value 0).
func (a *App) setPublicN(text string) {
	if strings.TrimSpace(text) == "" {
		a.PublicN = Field{Text: text}
		return
	}
	a.PublicN.Set(text, checkPublicN)
}

// prefillPublicN fills the N field from a loaded schema's "public_rows" (0: none) unless the
// person typed an N: a value the page filled from an earlier schema is replaced, or cleared
// when this schema declares none.
func (a *App) prefillPublicN(rows int) {
	if strings.TrimSpace(a.PublicN.Text) != "" && !a.publicNFromSchema {
		return
	}
	a.publicNFromSchema = rows > 0
	text := ""
	if rows > 0 {
		text = strconv.Itoa(rows)
	}
	a.setPublicN(text)
}

// PublicNPlaceholder is the N field's placeholder: the schema's "public_rows", which applies
// while the field is empty, or "" when the schema declares none.
func (a *App) PublicNPlaceholder() string {
	if a.Schema == nil || a.Schema.PublicRows == 0 {
		return ""
	}
	return strconv.Itoa(a.Schema.PublicRows) + " (the schema's)"
}

// publicN is the spec's public number of rows: under add/remove, the N field's last valid
// value (0 when it is empty: the schema's applies); 0 under replace-one, which has no use
// for it.
func (a *App) publicN() int {
	if !a.AddRemove() {
		return 0
	}
	return int(a.PublicN.Value)
}

// PublicNProblem says, in plain words, why the checked data cannot be planned for the
// relation chosen: under add/remove, no public number of rows N is declared, or the data has
// more training rows than N (fit.ProblemSize refuses both). It is "" when the size fits, under
// replace-one and before the data is checked.
func (a *App) PublicNProblem() string {
	if a.Dataset == nil {
		return ""
	}
	f, s := a.Dataset.Facts, a.spec()
	if _, err := fit.ProblemSize(s, f); err == nil {
		return ""
	}
	n := s.PublicN
	if n == 0 {
		n = f.PublicN
	}
	if n == 0 {
		return "With add or remove neighbours the number of rows stays private, so every average is taken over a declared " +
			"public number of rows N instead: enter N, at least the number of rows of any dataset the guarantee should cover."
	}
	// Both the field and the schema declare N ≥ 1, so the only other refusal is a dataset
	// larger than N.
	return fmt.Sprintf("The data has %d training rows, more than the public number of rows N = %d: enter a larger N "+
		"(at least %d). Rows are never dropped to fit N.", f.N, n, f.N)
}

// SetRuns: see SetEps.
func (a *App) SetRuns(text string) { a.Runs.Set(text, checkRuns); a.specChanged() }

// SetSeed: see SetEps. An empty seed means randomness from the browser's CSPRNG.
func (a *App) SetSeed(text string) {
	a.Seed.Text = text
	a.Seed.Err = ""
	if t := strings.TrimSpace(text); t != "" {
		if _, err := strconv.ParseUint(t, 10, 64); err != nil {
			a.Seed.Err = "A seed is a whole number from 0 to 18446744073709551615, or empty for private randomness."
		}
	}
}

// seed is the valid seed, or nil for private randomness.
func (a *App) seed() *uint64 {
	t := strings.TrimSpace(a.Seed.Text)
	if t == "" || a.Seed.Err != "" {
		return nil
	}
	v, _ := strconv.ParseUint(t, 10, 64)
	return &v
}

// Seeded reports whether the runs will be seeded (and so not private).
func (a *App) Seeded() bool { return a.seed() != nil }

// SetEvalShare sets the percentage of each run's budget spent on a private evaluation of its
// model on the held-out rows (see SetEps).
func (a *App) SetEvalShare(text string) { a.EvalShare.Set(text, checkEvalShare); a.specChanged() }

// EvalOffered reports whether the page offers a private evaluation: when there are held-out
// rows to evaluate on, the demo's own or a file's held-out share. It depends on the person's
// choices only, never on what the data holds.
func (a *App) EvalOffered() bool { return a.demoData() || a.Holdout.Value > 0 }

// evalShare is the spec's share of the budget spent on a private evaluation: the field's last
// valid value as a fraction when the evaluation is offered, 0 otherwise.
func (a *App) evalShare() float64 {
	if !a.EvalOffered() {
		return 0
	}
	return a.EvalShare.Value / 100
}

// EvalText explains the private evaluation's share, and says what it leaves the mechanism.
func (a *App) EvalText() string {
	text := "The held-out rows are private data too: a private evaluation releases the model's accuracy on them (or, for a " +
		"regression, its errors) with noise, as part of the release and within the budget above. Without it, the held-out figures " +
		"in the results are local: shown to you only, never released."
	if a.evalShare() > 0 {
		text += " The mechanisms are planned for what the exact composition with the evaluation leaves of (ε, δ): the table " +
			"shows each mechanism's own guarantee, and the curves those of each run with its evaluation."
	}
	return text
}

// SetScaleShare sets the percentage of the budget spent on private ranges (see SetEps).
func (a *App) SetScaleShare(text string) { a.ScaleShare.Set(text, checkScaleShare); a.specChanged() }

// ScaleOffered reports whether the page offers private ranges: before a schema is loaded, and
// when the schema leaves a numeric column to scale privately under the norm's fit "scale" (a
// column's values are read back from rows scaled by one common factor). It depends on the
// schema, which is public, never on what the data holds.
func (a *App) ScaleOffered() bool {
	return a.Schema == nil || a.Schema.Norm.Fit == data.FitScale && len(a.Schema.PrivatelyScaled()) > 0
}

// scaleShare is the spec's share of the budget spent on private ranges: the field's last valid
// value as a fraction when private ranges are offered, 0 otherwise.
func (a *App) scaleShare() float64 {
	if !a.ScaleOffered() {
		return 0
	}
	return a.ScaleShare.Value / 100
}

// ScaleNote says when the checked data has too few rows for the private ranges' noise at this
// budget (fit.ScalesPrivately): then none are estimated, and their share stays with the
// mechanism. It is "" otherwise.
func (a *App) ScaleNote() string {
	if a.Dataset == nil || fit.RangesSkipped(a.spec(), a.Dataset.Facts) == "" {
		return ""
	}
	return "At this budget the data has too few rows for the noise of private ranges: the columns keep their declared bounds, and the share stays with the mechanism."
}

// options are the chosen mechanism's settings that are not left at their defaults.
func (a *App) options() map[string]string {
	out := map[string]string{}
	for k, v := range a.OptionText {
		if v != "" {
			out[k] = v
		}
	}
	return out
}

// spec is the fit the page's current valid values describe.
func (a *App) spec() fit.Spec {
	s := fit.Spec{Mechanism: a.Mechanism, Options: a.options(),
		Budget:  privacy.Budget{Epsilon: a.Eps.Value, Delta: a.Delta.Value, Neighbouring: privacy.Neighbouring(a.Neighbouring)},
		PublicN: a.publicN(), EvalShare: a.evalShare(), ScaleShare: a.scaleShare()}
	a.modelSpec(&s)
	return s
}

// specChanged plans again for the current choices when the data is checked (and no
// configuration is being applied). When the problem has no size (PublicNProblem), nothing is
// planned until it has one.
func (a *App) specChanged() {
	if a.Dataset == nil || a.holdPlans {
		return
	}
	if a.PublicNProblem() != "" {
		a.Plans, a.PlanErr, a.planID = nil, "", 0 // an answer to an earlier request is ignored
		return
	}
	facts := a.Dataset.Facts
	spec := a.spec()
	a.planID = a.send(0, engine.Request{Kind: "plan", Spec: &spec, Facts: &facts, Runs: int(a.Runs.Value), EpsMax: curves.EpsMax(a.Eps.Value)})
}

// receivePlan takes the engine's plans, when they answer the latest request.
func (a *App) receivePlan(r engine.Response) {
	if r.ID != a.planID {
		return
	}
	if r.Kind != "plans" {
		a.Plans, a.PlanErr = nil, r.Error
		return
	}
	a.Plans, a.PlanErr = r.Plans, ""
	a.redraw()
}

// PlanID is the ID of the latest plan request (0 before the first, and while the choices
// cannot be planned), for the page's tests.
func (a *App) PlanID() int { return a.planID }

// Planning reports whether a plan for the current choices is awaited.
func (a *App) Planning() bool {
	_, waiting := a.pending[a.planID]
	return a.planID != 0 && waiting
}

// HasCurves reports whether the chosen mechanism planned, so its curves can be drawn.
func (a *App) HasCurves() bool { return a.Plans != nil && a.Plans.Curves != nil }

// redraw lays out the chosen plan's curves.
func (a *App) redraw() {
	if !a.HasCurves() {
		return
	}
	c := a.Plans.Curves
	deltas := []curves.Series{{Name: "one run", Class: "series-0", Ys: c.Delta}}
	tradeoffs := []curves.Series{{Name: "T(α), one run", Class: "series-0", Ys: c.Tradeoff}}
	if c.Runs > 1 {
		deltas = append(deltas, curves.Series{Name: fmt.Sprintf("%d runs composed", c.Runs), Class: "series-2", Ys: c.ComposedDelta})
		tradeoffs = append(tradeoffs, curves.Series{Name: fmt.Sprintf("T(α), %d runs", c.Runs), Class: "series-2", Ys: c.ComposedTradeoff})
	}
	title := a.MechanismTitle(a.Mechanism)
	a.CurvePlot = curves.PrivacyCurvePlot(pagePlots, "Privacy curve δ(ε): "+shorten(title), c.Eps, deltas, a.Eps.Value, a.Delta.Value)
	a.TradeoffPlot = curves.TradeoffPlot(pagePlots, "Tradeoff T(α): "+shorten(title), c.Alpha, tradeoffs, a.Eps.Value, a.Delta.Value)
}

// shorten cuts a title to fit a plot's title line.
func shorten(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:39]) + "…"
	}
	return s
}

// PlanRow is one mechanism in the page's comparison for the current budget.
type PlanRow struct {
	// Name and Title name the mechanism; Chosen marks the chosen one.
	Name, Title string
	Chosen      bool
	// Unplanned is true while there is no plan (App.UnplannedText says why).
	Unplanned bool
	// Error says why the mechanism does not plan; the other fields are then empty.
	Error string
	// Guarantee, Utility and Time are the planned guarantee, the utility bound and the
	// predicted time per run; Note flags what the guarantee does not cover.
	Guarantee, Utility, Time, Note string
}

// PlanRows compares every mechanism for the current choices; while there is no plan, the rows
// name the mechanisms only.
func (a *App) PlanRows() []PlanRow {
	if a.Plans == nil {
		var rows []PlanRow
		for _, name := range mech.Names() {
			rows = append(rows, PlanRow{Name: name, Title: a.MechanismTitle(name), Chosen: name == a.Mechanism, Unplanned: true})
		}
		return rows
	}
	var rows []PlanRow
	for _, p := range a.Plans.Mechanisms {
		row := PlanRow{Name: p.Name, Title: a.MechanismTitle(p.Name), Chosen: p.Name == a.Mechanism, Error: plainError(p.Error)}
		if p.Error == "" {
			row.Guarantee = p.Guarantee
			row.Utility = boundText(float64(p.Utility))
			row.Time = a.predictedTime(p)
			row.Note = a.planNote(p)
		}
		rows = append(rows, row)
	}
	return rows
}

// UnplannedText says why the mechanisms have no plan: the data is not checked, the choices
// cannot be planned (the message above the table says why), or the plan is awaited.
func (a *App) UnplannedText() string {
	switch {
	case a.Dataset == nil:
		return "planned once the data is checked"
	case a.PublicNProblem() != "" || a.PlanErr != "":
		return "not planned: see the message above"
	}
	return "planning…"
}

// MechanismPaper names the paper a mechanism follows.
func (a *App) MechanismPaper(name string) string {
	m, err := mech.ByName(name)
	if err != nil {
		return ""
	}
	return m.Paper()
}

// planNote says what a plan's guarantee does not cover.
func (a *App) planNote(p engine.PlanSummary) string {
	if p.Name == a.Mechanism {
		for field, value := range a.options() {
			for _, c := range optionOf(p.Name, field).choices {
				if c.Value == value && c.Uncertified {
					return "mixing not certified: the run claims no privacy"
				}
			}
		}
	}
	if a.Seeded() {
		return "seeded: not private"
	}
	return ""
}

// ChosenPlan is the chosen mechanism's plan summary, or nil.
func (a *App) ChosenPlan() *engine.PlanSummary {
	if a.Plans == nil {
		return nil
	}
	for i := range a.Plans.Mechanisms {
		if a.Plans.Mechanisms[i].Name == a.Mechanism {
			return &a.Plans.Mechanisms[i]
		}
	}
	return nil
}

// queryWidth is what one per-example query of the chosen loss reads of a row of the checked
// data (the engine measured its rows' width, on this machine only), for predicted times.
func (a *App) queryWidth() loss.Width {
	if a.Dataset == nil {
		return loss.Width{}
	}
	p, err := fit.Problem(a.spec(), a.Dataset.Facts)
	if err != nil { // no plan either: a rough width will do
		return loss.Width{Entries: float64(a.Dataset.Facts.D)}
	}
	return p.QueryWidth(a.Dataset.RowWidth)
}

// predictedSeconds predicts a plan's time per run: its planning, as long as it took the
// planning worker, and its fit, from the engine's measured query rate.
func (a *App) predictedSeconds(p engine.PlanSummary) (float64, bool) {
	if a.Rate == nil {
		return 0, false
	}
	return float64(p.PlanSeconds) + a.Rate.Seconds(float64(p.Queries), float64(p.Draws), a.queryWidth()), true
}

// predictedTime formats predictedSeconds.
func (a *App) predictedTime(p engine.PlanSummary) string {
	s, ok := a.predictedSeconds(p)
	if !ok {
		return "measuring this machine…"
	}
	return "≈ " + formatDuration(s)
}

// RateText describes the engine's measured query rate ("" until it is known): on its largest
// dense rows and, when measured, on sparse ones.
func (a *App) RateText() string {
	if a.Rate == nil {
		return ""
	}
	var dense, sparse string
	for _, m := range a.Rate.Measured {
		rate := strconv.FormatFloat(m.QueriesPerSecond/1e6, 'f', 1, 64)
		if m.NonZeros > 0 {
			sparse = fmt.Sprintf(", %s million on sparse rows with %d non-zero entries", rate, m.NonZeros)
		} else {
			dense = fmt.Sprintf("%s million per-example loss queries per second at d = %d", rate, m.Dim)
		}
	}
	if dense == "" {
		return ""
	}
	return "This machine: " + dense + sparse + " (measured on synthetic data; predicted times use them)."
}

// formatDuration writes a duration in seconds in the largest fitting unit.
func formatDuration(s float64) string {
	switch {
	case math.IsInf(s, 1) || math.IsNaN(s):
		return "unbounded"
	case s < 1:
		return strconv.FormatFloat(s, 'f', 2, 64) + " s"
	case s < 90:
		return strconv.FormatFloat(s, 'f', 0, 64) + " s"
	case s < 90*60:
		return strconv.FormatFloat(s/60, 'f', 0, 64) + " min"
	case s < 48*3600:
		return strconv.FormatFloat(s/3600, 'f', 1, 64) + " h"
	case s < 2*365*86400:
		return strconv.FormatFloat(s/86400, 'f', 0, 64) + " days"
	}
	return strconv.FormatFloat(s/(365*86400), 'g', 2, 64) + " years"
}

// OptionView is one of the chosen mechanism's settings, for the page.
type OptionView struct {
	// Name and Kind are the setting's field name and kind (fit.Option), Help explains it,
	// Text is its value as typed ("" for the default) and Choices its values, when known.
	Name, Kind, Help, Text string
	Choices                []OptionChoice
	// Err is the plan's error about this setting, if any.
	Err string
}

// Options lists the chosen mechanism's settings.
func (a *App) Options() []OptionView {
	opts, err := fit.Options(a.Mechanism)
	if err != nil {
		return nil
	}
	planErr := ""
	if p := a.ChosenPlan(); p != nil {
		planErr = p.Error
	}
	var out []OptionView
	for _, o := range opts {
		d := optionOf(a.Mechanism, o.Name)
		v := OptionView{Name: o.Name, Kind: o.Kind, Help: d.help, Text: a.OptionText[o.Name], Choices: d.choices}
		if strings.Contains(planErr, "setting "+o.Name+":") { // fit.Mechanism's errors name the setting
			v.Err = planErr
		}
		out = append(out, v)
	}
	return out
}

// AdvancedOpen reports whether the chosen mechanism's settings are shown: once the person
// opened them, and whenever one is set or in error, so that no setting in use or error is hidden.
// Folded, they leave the mechanism's choice to the plans and the budget.
func (a *App) AdvancedOpen() bool {
	if a.advancedOpen {
		return true
	}
	for _, o := range a.Options() {
		if o.Text != "" || o.Err != "" {
			return true
		}
	}
	return false
}

// SetAdvancedOpen records the person opening or folding the mechanism's settings.
func (a *App) SetAdvancedOpen(open bool) { a.advancedOpen = open }

// AdvancedSummary says, folded, how many settings the chosen mechanism has and how many are set.
func (a *App) AdvancedSummary() string {
	opts, set := a.Options(), 0
	for _, o := range opts {
		if o.Text != "" {
			set++
		}
	}
	if set == 0 {
		return strconv.Itoa(len(opts)) + ", each computed by the plan"
	}
	return strconv.Itoa(len(opts)) + ", " + strconv.Itoa(set) + " of them set"
}

// PlannedParameters lists the chosen plan's parameters, formatted.
func (a *App) PlannedParameters() []string {
	p := a.ChosenPlan()
	if p == nil || p.Error != "" {
		return nil
	}
	var out []string
	for _, q := range p.Parameters {
		out = append(out, words(q.Name)+" = "+shortText(float64(q.Value)))
	}
	return out
}

// ComposedText states the guarantee of releasing every run's model (and its private
// evaluation) together, both as its ε at the target δ and as its δ at the target ε (the
// results' statement of the release file gives the first).
func (a *App) ComposedText() string {
	if !a.HasCurves() || a.Plans.Curves.Runs < 2 {
		return ""
	}
	c := a.Plans.Curves
	what := fmt.Sprintf("all %d models", c.Runs)
	if a.evalShare() > 0 {
		what += " and their private evaluations"
	}
	if a.Dataset != nil && fit.ScalesPrivately(a.spec(), a.Dataset.Facts) {
		what += ", with the private ranges they share,"
	}
	atEps := fmt.Sprintf("(ε = %s, δ = %s)", shortText(a.Eps.Value), upText(float64(c.ComposedDeltaAtEps)))
	switch e := float64(c.ComposedEps); {
	case a.Delta.Value == 0:
		return fmt.Sprintf("Releasing %s together is %s-differentially private (%s).", what, atEps, c.Composed)
	case math.IsInf(e, 1):
		return fmt.Sprintf("Releasing %s together is %s-differentially private; no ε reaches δ = %s (%s).", what, atEps, shortText(a.Delta.Value), c.Composed)
	default:
		return fmt.Sprintf("Releasing %s together is (ε = %s, δ = %s)-differentially private, and %s-differentially private (%s).",
			what, upText(e), shortText(a.Delta.Value), atEps, c.Composed)
	}
}

// plainError words an error of the planning packages for the page: without the package's
// prefix, with the domain types named in words, capitalised.
func plainError(s string) string {
	for _, prefix := range []string{"mech: ", "fit: ", "privacy: ", "geom: ", "engine: ", "loss: "} {
		s = strings.ReplaceAll(s, prefix, "")
	}
	s = strings.NewReplacer("*geom.Ball", "a ball", "*geom.Box", "a box", "geom.Whole", "the whole space").Replace(s)
	if s != "" {
		s = strings.ToUpper(s[:1]) + s[1:]
	}
	return s
}

// words writes a parameter's or a count's identifier as words ("steps_planned": "steps
// planned").
func words(name string) string { return strings.ReplaceAll(name, "_", " ") }

// BudgetHelp explains ε and δ in plain words and, once the chosen mechanism is planned, reads
// its tradeoff curve (of the runs together, when there are several) as an attack.
func (a *App) BudgetHelp() string {
	s := "ε and δ bound what the release can reveal about any one person: the chance of any outcome, and of anything " +
		"concluded from it, is at most e^ε times what it would be without that person's row, plus δ. Smaller is " +
		"stronger: ε from 0.1 to a few, and δ far below one over the number of rows, are usual."
	if !a.HasCurves() {
		return s
	}
	c, what, found := a.Plans.Curves, "the release", float64(a.Plans.Curves.Found)
	if c.Runs > 1 {
		what, found = fmt.Sprintf("the %d runs together", c.Runs), float64(c.ComposedFound)
	}
	return s + fmt.Sprintf(" Read as an attack on %s: whoever tries to tell whether a person's row was used, and wrongly "+
		"accuses at most 5 %% of the people not in the data, finds at most %s of those in it (guessing finds 5 %%).", what, percent(found))
}

// BudgetWarnings says, before a run, why the budget guarantees little: δ not far below 1/n,
// a large ε, or a tradeoff curve (of the runs together) that lets an attacker find more than
// half of the people in the data at 5 % false accusations.
func (a *App) BudgetWarnings() []string {
	if a.Eps.Err != "" || a.Delta.Err != "" {
		return nil
	}
	n := 0
	if a.Dataset != nil {
		n, _ = fit.ProblemSize(a.spec(), a.Dataset.Facts)
	}
	out := privacy.Budget{Epsilon: a.Eps.Value, Delta: a.Delta.Value}.Weak(n)
	if a.HasCurves() && len(out) == 0 {
		c, found := a.Plans.Curves, float64(a.Plans.Curves.Found)
		if c.Runs > 1 {
			found = float64(c.ComposedFound)
		}
		if found > 0.5 {
			out = append(out, fmt.Sprintf("An attacker could find %s of the people in the data while wrongly accusing 5 %% of the others: "+
				"the guarantee says little. Lower ε, or make fewer runs.", percent(found)))
		}
	}
	return out
}

// budgetErrors lists the privacy step's invalid fields.
func (a *App) budgetErrors() []string {
	var out []string
	for _, f := range []struct {
		used  bool
		field *Field
		name  string
	}{{true, &a.Eps, "ε"}, {true, &a.Delta, "δ"}, {a.AddRemove(), &a.PublicN, "the public number of rows N"},
		{true, &a.Runs, "the number of runs"}, {true, &a.Seed, "the seed"}, {a.EvalOffered(), &a.EvalShare, "the private evaluation's share"},
		{a.ScaleOffered(), &a.ScaleShare, "the private ranges' share"}} {
		if f.used && f.field.Err != "" {
			out = append(out, f.name)
		}
	}
	return out
}
