package ui

import (
	"errors"
	"strconv"
	"strings"

	"github.com/vugu/vugu"

	"github.com/privopt/privopt/internal/release"
	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/wasm/engine"
)

// useState is the "Use the model" panel: a row typed column by column with a model's
// prediction, and a CSV file scored in a worker. Everything is computed on the person's
// machine with a released model (release.Predictor), from rows encoded by the same code as
// the training data (data.EncodeForPrediction). The panel uses the models of the release file
// that came last: the finished runs' (shown in the results, with the selected run's model) or
// one the person loaded (shown in its own section, with the model chosen by its number).
type useState struct {
	// useFile is the release file whose models the panel uses (nil for none); ReceivedName is
	// the name of the file it was loaded from, or "" when it is the finished runs' release.
	useFile      *release.File
	ReceivedName string
	// UseModel is the number, from 1, of the model that predicts.
	UseModel int
	// RowText holds the typed row: the value of each feature column of the release's schema,
	// by the column's index, as typed or chosen ("" is a missing value).
	RowText []string
	// Row is the model's prediction for the typed row, and RowChanged names the values outside
	// their declared range, which encoding read at its end, column by column; or
	// RowErr says why there is none, and RowErrColumn names the column at fault, if one is.
	Row                  *release.Prediction
	RowChanged           []string
	RowErr, RowErrColumn string
	// ScoreName names the CSV file scored last; Scoring is true while a worker scores it, and
	// ScoreFraction is how far it has read.
	ScoreName     string
	Scoring       bool
	ScoreFraction float64
	// Scores are its predictions, or ScoreErr says why there are none (with the line and
	// column of a bad row, as for the training data).
	Scores   *engine.Scores
	ScoreErr string
	scoreID  int
}

// useRelease starts the panel afresh with model k of release file f, loaded from the file
// named name ("" for the finished runs' release): each numeric feature at the middle of its
// declared range (six digits, with the file's decimal mark), each categorical one at its first
// category.
func (a *App) useRelease(f *release.File, k int, name string) {
	s := f.Schema
	a.useState = useState{useFile: f, ReceivedName: name, UseModel: k, RowText: make([]string, len(s.Columns))}
	for i, c := range s.Columns {
		switch c.Kind {
		case data.Numeric:
			a.RowText[i] = withMark(strconv.FormatFloat(c.Min/2+c.Max/2, 'g', 6, 64), s.Decimal)
		case data.Categorical:
			a.RowText[i] = c.Categories[0]
		}
	}
	a.predictRow()
}

// modelChanged follows the choice of another run: when the panel uses the finished runs'
// release, it predicts with that run's model.
func (a *App) modelChanged() {
	if a.UsesRuns() {
		a.setUseModel(a.model())
	}
}

// ChooseModel makes model k (from 1) of a loaded release file the panel's model.
func (a *App) ChooseModel(k int) {
	if a.UsesReceived() && k >= 1 && k <= len(a.useFile.Models) {
		a.setUseModel(k)
	}
}

// setUseModel predicts the typed row with model k, and forgets the scores of the previous one.
func (a *App) setUseModel(k int) {
	a.UseModel = k
	a.predictRow()
	a.Scores, a.ScoreErr, a.Scoring, a.scoreID = nil, "", false, 0
}

// UsesRuns reports whether the panel uses the finished runs' release (in the results).
func (a *App) UsesRuns() bool { return a.useFile != nil && a.ReceivedName == "" }

// UsesReceived reports whether the panel uses a release file the person loaded (in its own
// section).
func (a *App) UsesReceived() bool { return a.useFile != nil && a.ReceivedName != "" }

// UseModelChoices lists the numbers of a loaded release file's models when it has several, for
// the panel's choice; the finished runs' models are chosen in the results instead.
func (a *App) UseModelChoices() []int {
	if !a.UsesReceived() || len(a.useFile.Models) < 2 {
		return nil
	}
	out := make([]int, len(a.useFile.Models))
	for i := range out {
		out[i] = i + 1
	}
	return out
}

// UseText introduces the panel: which model predicts, and what stays on the machine.
func (a *App) UseText() string {
	which := "the model of run " + itoa(a.Selected+1)
	if a.UsesReceived() {
		which = "model " + itoa(a.UseModel) + " of " + a.ReceivedName
	}
	return "Type a row to see what " + which + " predicts. The predictions are computed in this " +
		"page, on your machine: nothing is sent anywhere. The model is the private release, safe to share with its report; " +
		"the scores of a CSV file you choose below are computed from your own data and are yours: they are not private."
}

// ReceivedText states what a loaded release file certifies: the guarantee of its models
// together, and the chosen model's private evaluation when it has one.
func (a *App) ReceivedText() string {
	f := a.useFile
	models := itoa(len(f.Models)) + " models"
	if len(f.Models) == 1 {
		models = "one model"
	}
	text := a.ReceivedName + " holds " + models + " and no data. " + f.Together
	if ev := f.Models[a.UseModel-1].Evaluation; ev != nil {
		text += " Private evaluation of model " + itoa(a.UseModel) + ", released with it: " + ev.Statement
	}
	return text
}

// UseField is one input of the panel's form: a feature column of the release's schema.
type UseField struct {
	// Index is the column's index in the schema; Label names the column with its declared
	// range; Text is its value as typed or chosen.
	Index       int
	Label, Text string
	// Options are a categorical column's choices; a numeric column has none.
	Options []UseOption
	// Invalid is the aria-invalid state: "true" when the encoding's error is about this column.
	Invalid string
}

// UseOption is one choice of a categorical column: Value is written in the row, Label shown.
type UseOption struct{ Value, Label string }

// UseFields lists the form's inputs, one per feature column of the release's schema: a
// numeric column with its declared range (and what an empty field becomes, when the schema
// replaces a missing value), a categorical one with its categories, "(other)" when declared,
// and "missing" when the schema replaces a missing value.
func (a *App) UseFields() []UseField {
	var out []UseField
	for i, c := range a.useFile.Schema.Columns {
		f := UseField{Index: i, Text: a.RowText[i], Invalid: boolText(c.Name == a.RowErrColumn)}
		switch c.Kind {
		case data.Numeric:
			f.Label = c.Name + ", from " + exactText(c.Min) + " to " + exactText(c.Max)
			if c.Missing.Replace {
				f.Label += " (empty: missing, read as " + c.Missing.Value + ")"
			}
		case data.Categorical:
			f.Label = c.Name
			for _, v := range c.Categories {
				f.Options = append(f.Options, UseOption{v, v})
			}
			if c.Other {
				f.Options = append(f.Options, UseOption{"(other)", "(other): a value not listed"})
			}
			if c.Missing.Replace {
				f.Options = append(f.Options, UseOption{"", "missing (read as " + c.Missing.Value + ")"})
			}
		default:
			continue
		}
		out = append(out, f)
	}
	return out
}

// SetRowValue sets the typed row's value of column i and predicts the row.
func (a *App) SetRowValue(i int, text string) {
	a.RowText[i] = text
	a.predictRow()
}

// predictRow predicts the typed row with the panel's model: the row is written as a one-row
// CSV file, encoded as privopt encodes every row (data.EncodeForPrediction), and predicted by
// release.Predictor.
func (a *App) predictRow() {
	a.Row, a.RowErr, a.RowErrColumn, a.RowChanged = nil, "", "", nil
	p, err := a.useFile.Predictor(a.UseModel)
	if err == nil {
		var ds *data.Dataset
		var diag *data.Diagnostics
		if ds, diag, err = data.EncodeForPrediction(strings.NewReader(a.rowCSV()), a.useFile.Schema); err == nil {
			pr := p.Predict(ds.Row(0, nil))
			a.Row = &pr
			for _, c := range diag.Columns {
				if c.Clipped > 0 { // a value outside a private range alone is expected: not said
					a.RowChanged = append(a.RowChanged, strconv.Quote(c.Name)+" is outside its declared range and was read at its end")
				}
			}
			return
		}
	}
	var de *data.Error
	if errors.As(err, &de) && de.Column != "" {
		a.RowErr, a.RowErrColumn = de.Err.Error(), de.Column
		return
	}
	a.RowErr = err.Error()
}

// rowCSV writes the typed row as a CSV file with the schema's delimiter (a comma when it
// declares none) and every field quoted: a header of the feature columns, and one record of
// their values with the spaces around them removed, as an unquoted field would be read.
func (a *App) rowCSV() string {
	delim := ","
	if d := a.useFile.Schema.Delimiter; d != 0 {
		delim = string(rune(d))
	}
	var header, record []string
	for i, c := range a.useFile.Schema.Columns {
		if c.Kind == data.Numeric || c.Kind == data.Categorical {
			text := strings.TrimSpace(a.RowText[i])
			if c.Kind == data.Numeric {
				text = withMark(text, a.useFile.Schema.Decimal) // a point typed in a file of commas
			}
			header = append(header, csvQuote(c.Name))
			record = append(record, csvQuote(text))
		}
	}
	return strings.Join(header, delim) + "\n" + strings.Join(record, delim) + "\n"
}

// withMark writes a number written with a point with the decimal mark mark of a schema (0 for a
// point, or ',').
func withMark(number string, mark byte) string {
	if mark == ',' {
		return strings.Replace(number, ".", ",", 1)
	}
	return number
}

// csvQuote writes a CSV field quoted, with its quotes doubled.
func csvQuote(s string) string { return `"` + strings.Join(strings.Split(s, `"`), `""`) + `"` }

// RowResult states the typed row's prediction, naming the label column: the predicted label,
// or for regression the value to six significant digits (a scored file has every digit), with
// the probability of each class for logistic and multinomial models; or the reason there is
// none, naming the column at fault.
func (a *App) RowResult() string {
	if a.Row == nil {
		if a.RowErrColumn != "" {
			return "No prediction: column " + strconv.Quote(a.RowErrColumn) + ": " + a.RowErr
		}
		return "No prediction: " + a.RowErr
	}
	label := a.Row.Label
	p, err := a.useFile.Predictor(a.UseModel)
	if err == nil && p.Classes() == nil {
		label = strconv.FormatFloat(a.Row.Value, 'g', 6, 64)
	}
	text := "Prediction of " + strconv.Quote(a.useFile.Schema.Label().Name) + ": " + label
	if err == nil && len(a.Row.Probabilities) > 0 {
		classes := p.Classes()
		parts := make([]string, len(classes))
		for c, q := range a.Row.Probabilities {
			parts[c] = "p(" + classes[c] + ") = " + percent(q)
		}
		text += " (" + strings.Join(parts, ", ") + ")"
	}
	if len(a.RowChanged) > 0 {
		text += ". " + strings.Join(a.RowChanged, "; ") + "."
	}
	return text
}

// ScoreFile scores the CSV file of a file-input change event with the panel's model, in a
// worker that reads the file: it is never sent anywhere, and the page receives the
// predictions only.
func (a *App) ScoreFile(e vugu.DOMEvent) {
	name, _, ok := a.Host.TakeFile(e, scoreSource)
	if !ok {
		return
	}
	b, err := releaseJSON(a.useFile)
	a.ScoreName, a.Scores, a.ScoreFraction = name, nil, 0
	if err != nil {
		a.ScoreErr = err.Error()
		return
	}
	a.Scoring, a.ScoreErr = true, ""
	a.scoreID = a.send(0, engine.Request{Kind: "score", Source: scoreSource, Release: b, Model: a.UseModel})
}

// receiveScores takes the predictions of the file scored last (or their progress).
func (a *App) receiveScores(r engine.Response) {
	if r.ID != a.scoreID {
		return // the scores of another file, or of another run's model
	}
	switch r.Kind {
	case "progress":
		a.ScoreFraction = r.Progress.Fraction
		return
	case "scores":
		a.Scores = r.Scores
	default:
		a.ScoreErr = r.Error
	}
	a.Scoring = false
}

// ScoreText states the scoring of the file chosen last: its progress, its error (with the
// line and column of a bad row), or the number of rows scored; "" before any.
func (a *App) ScoreText() string {
	switch {
	case a.Scoring:
		return "Scoring " + a.ScoreName + "… " + percent(a.ScoreFraction)
	case a.ScoreErr != "":
		return a.ScoreErr
	case a.Scores != nil:
		return itoa(a.Scores.Rows) + " rows of " + a.ScoreName + " scored."
	}
	return ""
}

// ScoreClass is the class of ScoreText: "status", "error" or "ok".
func (a *App) ScoreClass() string {
	switch {
	case a.Scoring:
		return "status"
	case a.ScoreErr != "":
		return "error"
	}
	return "ok"
}

// ScoresName is the name under which the predictions are saved: the scored file's name with
// "-predictions" before its extension.
func (a *App) ScoresName() string {
	return strings.TrimSuffix(a.ScoreName, ".csv") + "-predictions.csv"
}

// DownloadScores saves the predictions of the file scored last as CSV.
func (a *App) DownloadScores() {
	if a.Scores != nil {
		a.Host.Download(a.ScoresName(), "text/csv", []byte(a.Scores.CSV))
	}
}
