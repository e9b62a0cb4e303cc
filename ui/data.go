package ui

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/vugu/vugu"

	"github.com/privopt/privopt/internal/fit"
	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/rng"
	"github.com/privopt/privopt/wasm/engine"
)

// dataState is the app's data step: the loaded file, its preview, the schema being edited
// and confirmed, and the checked dataset.
type dataState struct {
	// Loaded is the file's preview and starting schema; Loading is true while the engine reads.
	Loaded  *engine.Loaded
	Loading bool
	// LoadErr says why the file could not be read, with its place (line and column) when
	// the engine names one.
	LoadErr string
	// Schema is the schema being edited; Cols holds each column's inputs as typed.
	Schema *data.Schema
	Cols   []ColumnEdit
	// ShowSchema shows the schema editor.
	ShowSchema bool
	// IgnoreAsk lists the columns the suggestion ignores whose fate the person has not chosen
	// yet (Decide, or SetKind): no column is left out without asking.
	IgnoreAsk []data.Ignored
	// NormP, NormRadius and NormBias are the norm bound's inputs.
	NormP, NormRadius, NormBias Field
	// SchemaErr is the schema's first error that names no column.
	SchemaErr string
	// Holdout is the percentage of a file's rows held out for evaluation.
	Holdout Field
	// Float32 holds the values of rows held dense as float32 (engine's Request.Float32).
	Float32 bool
	// Checking is true while the engine encodes the data; CheckFraction is how far it is.
	Checking      bool
	CheckFraction float64
	// DataErr says why the data could not be encoded; DataErrColumn names the column.
	DataErr, DataErrColumn string
	// Dataset is the checked data's facts and local diagnostics, for the schema in checked.
	Dataset *engine.Dataset
	checked string

	splitSeed uint64
	// pendingSchema is a schema from a link or a release file that waits for data whose
	// columns it names (see takeSchema).
	pendingSchema *data.Schema
}

// ColumnEdit holds one schema column's inputs as typed, and its error.
type ColumnEdit struct {
	// Min and Max are a numeric column's declared range, as typed.
	Min, Max Field
	// Values are the categories or classes, Positive and Negative the binary label's values,
	// one per line.
	Values, Positive, Negative string
	// Missing is the replacement of a missing value, as typed.
	Missing string
	// Err is the schema's error about this column.
	Err string
}

func (a *App) initData() {
	a.Holdout.Set("20", checkHoldout)
}

func checkHoldout(v float64) string {
	if v < 0 || v > 50 {
		return "Hold out between 0 and 50 percent of the rows."
	}
	return ""
}

// UseDemo loads the built-in demo dataset (not while runs are in progress).
func (a *App) UseDemo() {
	if !a.Running {
		a.startLoad(engine.Request{Kind: "load", Source: "demo"})
	}
}

// OpenFile loads the file of a file-input change or a drop event: the host keeps the File
// and the engine reads it in its worker; the page never holds its bytes. While runs are in
// progress the file is not taken (their workers may still need the current one).
func (a *App) OpenFile(e vugu.DOMEvent) {
	if a.Running {
		a.LoadErr = "Wait for the runs to end, or cancel them, before opening another file."
		return
	}
	if _, _, ok := a.Host.TakeFile(e, dataSource); !ok {
		return
	}
	a.startLoad(engine.Request{Kind: "load", Source: dataSource})
}

func (a *App) startLoad(req engine.Request) {
	a.dataState = dataState{Loading: true, Holdout: a.Holdout, Float32: a.Float32, pendingSchema: a.pendingSchema}
	a.Plans, a.PlanErr = nil, ""
	a.send(0, req)
}

// receiveLoad takes the engine's preview and starting schema; a schema from a link or a
// release file that names the data's columns replaces the starting one.
func (a *App) receiveLoad(r engine.Response) {
	a.Loading = false
	if r.Kind != "loaded" {
		a.LoadErr = r.Error
		return
	}
	s, err := data.LoadSchema(bytes.NewReader(r.Loaded.Schema))
	if err != nil {
		a.LoadErr = "the engine's schema does not read back: " + err.Error()
		return
	}
	a.Loaded = r.Loaded
	a.splitSeed = rng.New().Uint64()
	ask := r.Loaded.Ignored
	if p := a.pendingSchema; p != nil && a.fitsLoaded(p) {
		s, ask, a.pendingSchema = p, nil, nil
	}
	a.setSchema(s, ask)
}

// setSchema makes s the schema of the loaded data, with its inputs filled in, and asks about
// the ignored columns in ask. A schema with nothing left to confirm or ask (the demo's, which
// is public, or one from settings, public by declaration) checks the data at once, unless
// the data is checked with it already.
func (a *App) setSchema(s *data.Schema, ask []data.Ignored) {
	a.Schema, a.IgnoreAsk = s, ask
	a.prefillPublicN(s.PublicRows)
	a.Cols = make([]ColumnEdit, len(s.Columns))
	for i := range s.Columns {
		a.refreshColumn(i)
	}
	a.NormP = Field{Text: fit.Exponent(s.Norm.P).String(), Value: s.Norm.P}
	a.NormRadius.Set(exactText(s.Norm.Radius), positive)
	a.NormBias.Set(exactText(s.Norm.Bias), func(float64) string { return "" })
	a.ShowSchema = len(s.Unconfirmed()) > 0
	a.schemaChanged()
	if len(s.Unconfirmed()) == 0 && len(ask) == 0 && a.Dataset == nil {
		a.CheckData()
	}
}

// takeSchema takes a schema from a link or a release file. It is public by declaration and
// follows the rules of a typed one: it was checked as it was read (data.LoadSchema), and a
// field it marks as read from the data must still be confirmed. It replaces the loaded
// data's schema when it names the data's columns; otherwise it waits for data that does.
func (a *App) takeSchema(s *data.Schema) {
	if a.Loaded != nil && a.fitsLoaded(s) {
		a.pendingSchema = nil
		a.setSchema(s, nil)
		return
	}
	a.pendingSchema = s
}

// fitsLoaded reports whether schema s names exactly the loaded file's columns (each set's
// names are unique).
func (a *App) fitsLoaded(s *data.Schema) bool {
	if len(s.Columns) != len(a.Loaded.Header) {
		return false
	}
	for _, c := range s.Columns {
		if !slices.Contains(a.Loaded.Header, c.Name) {
			return false
		}
	}
	return true
}

// IsDemo reports whether the demo is loaded.
func (a *App) IsDemo() bool { return a.Loaded != nil && a.Loaded.Source == "demo" }

// refreshColumn sets column i's inputs from the schema.
func (a *App) refreshColumn(i int) {
	c := &a.Schema.Columns[i]
	e := &a.Cols[i]
	e.Min = Field{Text: exactText(c.Min), Value: c.Min}
	e.Max = Field{Text: exactText(c.Max), Value: c.Max}
	switch c.Kind {
	case data.Categorical:
		e.Values = strings.Join(c.Categories, "\n")
	case data.ClassLabel:
		e.Values = strings.Join(c.Classes, "\n")
	default:
		e.Values = ""
	}
	e.Positive, e.Negative = strings.Join(c.Positive, "\n"), strings.Join(c.Negative, "\n")
	e.Missing = c.Missing.Value
}

// Kinds lists the column kinds with their descriptions.
var Kinds = []struct {
	Kind  data.Kind
	Label string
}{
	{data.Numeric, "numeric feature"},
	{data.Categorical, "categorical feature"},
	{data.Ignore, "ignore"},
	{data.BinaryLabel, "label: two classes"},
	{data.NumericLabel, "label: a number (regression)"},
	{data.ClassLabel, "label: several classes"},
}

// SetKind changes column i's kind. Values that fit the new kind are kept with their marks
// (a range read from the data stays marked when a numeric feature becomes a numeric label);
// the others are dropped. A new label column turns the previous label into an ignored column.
func (a *App) SetKind(i int, kind string) {
	old := a.Schema.Columns[i]
	var ask []data.Ignored
	for _, g := range a.IgnoreAsk {
		if g.Column != old.Name {
			ask = append(ask, g)
		}
	}
	a.IgnoreAsk = ask
	nc := data.Column{Name: old.Name, Kind: data.Kind(kind)}
	marked := func(f string) bool { return slices.Contains(old.Derived, f) }
	carry := func(from, to string) {
		if marked(from) {
			nc.Derived = append(nc.Derived, to)
		}
	}
	values, valuesField := old.Categories, "categories"
	if old.Kind == data.ClassLabel {
		values, valuesField = old.Classes, "classes"
	}
	switch nc.Kind {
	case data.Numeric, data.NumericLabel:
		if old.Kind == data.Numeric || old.Kind == data.NumericLabel {
			nc.Min, nc.Max = old.Min, old.Max
			carry("min", "min")
			carry("max", "max")
		}
	case data.Categorical:
		nc.Categories = values
		carry(valuesField, "categories")
	case data.ClassLabel:
		nc.Classes = values
		carry(valuesField, "classes")
	case data.BinaryLabel:
		switch {
		case old.Kind == data.BinaryLabel:
			nc.Positive, nc.Negative, nc.RestNegative = old.Positive, old.Negative, old.RestNegative
			carry("positive", "positive")
			carry("negative", "negative")
		case len(values) == 2:
			nc.Negative, nc.Positive = values[:1], values[1:]
			carry(valuesField, "negative")
			carry(valuesField, "positive")
		}
	}
	if nc.Kind != data.Ignore && old.Kind != data.Ignore && old.Missing.Replace {
		nc.Missing = old.Missing
		carry("missing", "missing")
	}
	a.Schema.Columns[i] = nc
	a.refreshColumn(i)
	if nc.Kind == data.BinaryLabel || nc.Kind == data.NumericLabel || nc.Kind == data.ClassLabel {
		for j := range a.Schema.Columns {
			if k := a.Schema.Columns[j].Kind; j != i && (k == data.BinaryLabel || k == data.NumericLabel || k == data.ClassLabel) {
				a.labelToFeature(j)
			}
		}
	}
	a.schemaChanged()
}

// labelToFeature turns column j, a label another column replaced, into the feature the
// suggestion would have made of it, keeping its values and their marks (a numeric label's range;
// a binary or class label's values as categories, the other bucket taking what RestNegative
// took): no column is left out without asking.
func (a *App) labelToFeature(j int) {
	old := a.Schema.Columns[j]
	nc := data.Column{Name: old.Name, Kind: data.Categorical, Missing: old.Missing}
	marked := func(fields ...string) bool {
		return slices.ContainsFunc(fields, func(f string) bool { return slices.Contains(old.Derived, f) })
	}
	switch old.Kind {
	case data.NumericLabel:
		nc.Kind, nc.Min, nc.Max = data.Numeric, old.Min, old.Max
		for _, f := range []string{"min", "max"} {
			if marked(f) {
				nc.Derived = append(nc.Derived, f)
			}
		}
	case data.ClassLabel:
		nc.Categories = old.Classes
	default:
		nc.Categories, nc.Other = append(slices.Clone(old.Negative), old.Positive...), old.RestNegative
	}
	if nc.Kind == data.Categorical && marked("classes", "positive", "negative") {
		nc.Derived = append(nc.Derived, "categories")
	}
	if marked("missing") {
		nc.Derived = append(nc.Derived, "missing")
	}
	a.Schema.Columns[j] = nc
	a.refreshColumn(j)
}

// Decide records the person's choice for a column the suggestion ignores: kind "ignore" keeps
// it out of the model; another kind (the one data.Ignored suggests instead) uses it, with the
// schema editor open for its public bounds or values.
func (a *App) Decide(column, kind string) {
	for i, c := range a.Schema.Columns {
		if c.Name == column {
			a.SetKind(i, kind)
			a.ShowSchema = a.ShowSchema || kind != string(data.Ignore)
		}
	}
}

// useText names the choice of using an ignored column as a feature of kind k.
func useText(k data.Kind) string {
	if k == data.Numeric {
		return "Use it as a number (type its public range)"
	}
	return "Use it as categories (type the public ones)"
}

// SetMin and SetMax set a numeric column's declared range; typing a value confirms it.
func (a *App) SetMin(i int, text string) {
	a.setBound(i, text, &a.Cols[i].Min, &a.Schema.Columns[i].Min, "min")
}

// SetMax: see SetMin.
func (a *App) SetMax(i int, text string) {
	a.setBound(i, text, &a.Cols[i].Max, &a.Schema.Columns[i].Max, "max")
}

// setBound sets a bound of column i. The suggestion replaces a missing number by the column's
// minimum read from the data: while that replacement is not confirmed, it follows the minimum
// the person types, a public value, instead of staying the data's.
func (a *App) setBound(i int, text string, f *Field, v *float64, name string) {
	f.Set(text, func(float64) string { return "" })
	if f.Err == "" {
		if m := &a.Schema.Columns[i].Missing; name == "min" && m.Replace && a.Derived(i, "missing") && m.Value == exactText(*v) {
			m.Value = exactText(f.Value)
			a.Cols[i].Missing = m.Value
		}
		*v = f.Value
		a.confirm(i, name)
	}
	a.schemaChanged()
}

// SetValues sets a categorical column's categories or a class label's classes, one per
// line; typing confirms them.
func (a *App) SetValues(i int, text string) {
	c := &a.Schema.Columns[i]
	a.Cols[i].Values = text
	if c.Kind == data.ClassLabel {
		c.Classes = lines(text)
		a.confirm(i, "classes")
	} else {
		c.Categories = lines(text)
		a.confirm(i, "categories")
	}
	a.schemaChanged()
}

// SetPositive and SetNegative set a binary label's values, one per line; typing confirms them.
func (a *App) SetPositive(i int, text string) {
	a.Cols[i].Positive = text
	a.Schema.Columns[i].Positive = lines(text)
	a.confirm(i, "positive")
	a.schemaChanged()
}

// SetNegative: see SetPositive.
func (a *App) SetNegative(i int, text string) {
	a.Cols[i].Negative = text
	a.Schema.Columns[i].Negative = lines(text)
	a.confirm(i, "negative")
	a.schemaChanged()
}

// SetOther sets whether a categorical column has an "(other)" bucket.
func (a *App) SetOther(i int, on bool) {
	a.Schema.Columns[i].Other = on
	a.schemaChanged()
}

// SetLog1p sets whether a numeric column's values are read through log(1 + v) (the transform
// "log1p") or as they are.
func (a *App) SetLog1p(i int, on bool) {
	a.Schema.Columns[i].Transform = data.NoTransform
	if on {
		a.Schema.Columns[i].Transform = data.Log1p
	}
	a.schemaChanged()
}

// SetDeclaredScale sets whether a numeric column keeps its declared range when a fit
// estimates private ranges ("scale": "declared"), or may have one.
func (a *App) SetDeclaredScale(i int, on bool) {
	a.Schema.Columns[i].Scale = data.ScalePrivate
	if on {
		a.Schema.Columns[i].Scale = data.ScaleDeclared
	}
	a.schemaChanged()
}

// SetRestNegative sets whether a binary label reads every other value as negative.
func (a *App) SetRestNegative(i int, on bool) {
	a.Schema.Columns[i].RestNegative = on
	a.schemaChanged()
}

// SetMissingPolicy sets what a missing value (an empty field or "?") becomes: "error", or
// "replace" with the replacement typed.
func (a *App) SetMissingPolicy(i int, policy string) {
	c := &a.Schema.Columns[i]
	if policy == "replace" {
		c.Missing = data.Missing{Replace: true, Value: a.Cols[i].Missing}
	} else {
		c.Missing = data.Missing{}
	}
	a.confirm(i, "missing")
	a.schemaChanged()
}

// SetMissing sets the replacement of a missing value; typing confirms it.
func (a *App) SetMissing(i int, text string) {
	a.Cols[i].Missing = text
	a.Schema.Columns[i].Missing = data.Missing{Replace: true, Value: strings.TrimSpace(text)}
	a.confirm(i, "missing")
	a.schemaChanged()
}

// Derived reports whether field of column i was read from the data and is not confirmed.
func (a *App) Derived(i int, field string) bool {
	return slices.Contains(a.Schema.Columns[i].Derived, field)
}

// Confirm records that the person checked that field of column i is public knowledge
// (data.Schema.Confirm).
func (a *App) Confirm(i int, field string) {
	a.confirm(i, field)
	a.schemaChanged()
}

// confirm confirms a field if it is marked derived.
func (a *App) confirm(i int, field string) {
	if a.Derived(i, field) {
		if err := a.Schema.Confirm(a.Schema.Columns[i].Name, field); err != nil {
			a.SchemaErr = err.Error()
		}
	}
}

// derivedFields names, for the page, each field a schema marks as read from the data, and
// says where such a value came from. (A list, not a map: a map literal is code in the page's
// WebAssembly, a list of constants is data.)
var derivedFields = [][3]string{
	{"min", "minimum", "the smallest number read from your file"},
	{"max", "maximum", "the largest number read from your file"},
	{"categories", "categories", "the values read from your file"},
	{"classes", "classes", "the values read from your file"},
	{"positive", "positive values", "of the two values read from your file, the later in byte order"},
	{"negative", "negative values", "of the two values read from your file, the earlier in byte order"},
	{"missing", "missing-value replacement", "your file has missing values in this column (a number's replacement: the column's minimum)"},
}

// derivedField returns the name and the origin of a field read from the data (derivedFields).
func derivedField(field string) (name, from string) {
	for _, f := range derivedFields {
		if f[0] == field {
			return f[1], f[2]
		}
	}
	return field, "the data"
}

// origin says where the value of a field read from the data and not confirmed came from: the
// person confirms each value with this in view (there is no confirming them all at once).
func origin(field string) string {
	_, from := derivedField(field)
	return "from your data: " + from
}

// StillToConfirm names, column by column, the values read from the data that are not
// confirmed yet ("" when none is left).
func (a *App) StillToConfirm() string {
	var cols []string
	for _, c := range a.Schema.Columns {
		var fields []string
		for _, f := range c.Derived {
			name, _ := derivedField(f)
			fields = append(fields, name)
		}
		if len(fields) > 0 {
			cols = append(cols, c.Name+" ("+strings.Join(fields, ", ")+")")
		}
	}
	if len(cols) == 0 {
		return ""
	}
	return "Still to confirm: " + strings.Join(cols, "; ") + "."
}

// Unconfirmed counts the fields read from the data and not yet confirmed.
func (a *App) Unconfirmed() int {
	if a.Schema == nil {
		return 0
	}
	return len(a.Schema.Unconfirmed())
}

// ToggleSchema shows or hides the schema editor.
func (a *App) ToggleSchema() { a.ShowSchema = !a.ShowSchema }

// SetNormP, SetNormRadius and SetNormBias set the declared norm bound of the rows.
func (a *App) SetNormP(text string) {
	a.NormP.Text = text
	v, err := fit.ParseExponent(strings.TrimSpace(text))
	if err != nil {
		a.NormP.Err = "Enter a number at least 1, or inf."
	} else {
		a.NormP.Err, a.NormP.Value = "", float64(v)
		a.Schema.Norm.P = float64(v)
	}
	a.schemaChanged()
}

// SetNormRadius: see SetNormP.
func (a *App) SetNormRadius(text string) {
	a.NormRadius.Set(text, positive)
	if a.NormRadius.Err == "" {
		a.Schema.Norm.Radius = a.NormRadius.Value
	}
	a.schemaChanged()
}

// SetNormBias: see SetNormP.
func (a *App) SetNormBias(text string) {
	a.NormBias.Set(text, func(v float64) string {
		if v < 0 {
			return "The bias is at least 0 (0 for none)."
		}
		return ""
	})
	if a.NormBias.Err == "" {
		a.Schema.Norm.Bias = a.NormBias.Value
	}
	a.schemaChanged()
}

// SetNormFit sets how rows reach the norm bound: "scale" or "clip".
func (a *App) SetNormFit(fit string) {
	a.Schema.Norm.Fit = data.Fit(fit)
	a.schemaChanged()
}

// SetHoldout sets the percentage of a file's rows held out for evaluation.
func (a *App) SetHoldout(text string) {
	a.Holdout.Set(text, checkHoldout)
	a.schemaChanged()
}

// SetFloat32 sets whether the values of rows held dense are held as float32.
func (a *App) SetFloat32(on bool) {
	a.Float32 = on
	a.schemaChanged()
}

// schemaChanged validates the schema and forgets a check made with another schema.
func (a *App) schemaChanged() {
	a.validateSchema()
	if a.Dataset != nil && a.checkKey() != a.checked {
		a.Dataset, a.Plans = nil, nil
	}
}

// validateSchema shows the schema's error next to the column it names, or above the editor.
// Without a schema (no file loaded yet, as when a link sets the held-out share) it does nothing.
func (a *App) validateSchema() {
	a.SchemaErr = ""
	for i := range a.Cols {
		a.Cols[i].Err = ""
	}
	if a.Schema == nil {
		return
	}
	err := a.Schema.Validate()
	if err == nil {
		return
	}
	msg := err.Error()
	if name, ok := errorColumn(msg); ok {
		for i, c := range a.Schema.Columns {
			if c.Name == name {
				a.Cols[i].Err = msg
				return
			}
		}
	}
	a.SchemaErr = msg
}

// errorColumn returns the column a schema error names (`column "age": ...`).
func errorColumn(msg string) (string, bool) {
	_, rest, ok := strings.Cut(msg, "column ")
	if !ok || !strings.HasPrefix(rest, `"`) {
		return "", false
	}
	q, err := strconv.QuotedPrefix(rest)
	if err != nil {
		return "", false
	}
	name, err := strconv.Unquote(q)
	return name, err == nil
}

// schemaJSON is the schema's JSON form, or "" while it is invalid.
func (a *App) schemaJSON() string {
	if a.Schema == nil {
		return ""
	}
	b, err := a.Schema.MarshalJSON()
	if err != nil {
		return ""
	}
	return string(b)
}

// checkKey identifies the data a check encodes: the schema, the held-out share and how the
// held-out rows are chosen (datasetRequest).
func (a *App) checkKey() string {
	return a.schemaJSON() + "\x00" + a.Holdout.Text + "\x00" + strconv.FormatBool(a.splitByContent()) + strconv.FormatBool(a.Float32)
}

// splitByContent reports whether a file's held-out rows are chosen by their content: under
// add/remove, where a fixed-size random subset would let adding a row move another between
// the training and held-out rows (data.SplitByContent says why).
func (a *App) splitByContent() bool { return a.AddRemove() && !a.IsDemo() }

// DataBlockers lists what keeps the data from being checked.
func (a *App) DataBlockers() []string {
	var out []string
	switch {
	case a.Schema == nil:
		return []string{"Open a file or use the demo data."}
	case a.Schema.Validate() != nil:
		out = append(out, "Fix the schema's error.")
	}
	if n := len(a.IgnoreAsk); n > 0 {
		out = append(out, fmt.Sprintf("Choose what to do with the %d columns the suggestion would leave out.", n))
	}
	if n := a.Unconfirmed(); n > 0 {
		out = append(out, fmt.Sprintf("Confirm the %d values read from your data (marked “from your data”), or replace them with public bounds.", n))
	}
	if a.Holdout.Err != "" || a.NormP.Err != "" || a.NormRadius.Err != "" || a.NormBias.Err != "" {
		out = append(out, "Fix the fields marked in red.")
	}
	return out
}

// CheckData encodes the data with the confirmed schema in the engine, which reports the
// data's public facts (its size) and local diagnostics.
func (a *App) CheckData() {
	if len(a.DataBlockers()) > 0 || a.Checking {
		return
	}
	a.Checking, a.CheckFraction, a.DataErr, a.DataErrColumn = true, 0, "", ""
	req := a.datasetRequest()
	req.Check = true
	a.checked = a.checkKey()
	a.send(0, req)
}

// prefetch has worker 1, which runs the first fit, read the checked data while the person
// chooses the model and the budget, so that Run finds it there ("dataset" is answered at once
// by a worker that holds the same data; a large file takes seconds to read). Nothing when the
// check is not current or runs are under way; a failure is the first run's to report.
func (a *App) prefetch() {
	if a.Dataset != nil && a.checked == a.checkKey() && !a.Running {
		a.send(1, a.datasetRequest())
	}
}

// datasetRequest is the "dataset" request for the current data, schema and split.
func (a *App) datasetRequest() engine.Request {
	req := engine.Request{Kind: "dataset", Source: a.Loaded.Source, Schema: []byte(a.schemaJSON()), SplitSeed: a.splitSeed, SplitByContent: a.splitByContent(), Float32: a.Float32}
	if !a.IsDemo() {
		req.Holdout = a.Holdout.Value / 100
	}
	return req
}

// receiveCheck takes the engine's check of the data (or its progress).
func (a *App) receiveCheck(r engine.Response) {
	switch r.Kind {
	case "progress":
		a.CheckFraction = r.Progress.Fraction
		return
	case "dataset":
		a.Checking = false
		a.Dataset = r.Dataset
		a.dataReady()
	default:
		a.Checking = false
		a.DataErr, a.DataErrColumn = r.Error, r.Column
	}
}

// ColumnDataErr is the data error about column i, if any.
func (a *App) ColumnDataErr(i int) string {
	if a.DataErrColumn != "" && a.Schema.Columns[i].Name == a.DataErrColumn {
		return a.DataErr
	}
	return ""
}

// FileSize formats the loaded file's size.
func (a *App) FileSize() string { return formatBytes(a.Loaded.Bytes) }

// formatBytes writes a size in bytes, kB or MB.
func formatBytes(n int64) string {
	switch {
	case n < 1000:
		return strconv.FormatInt(n, 10) + " bytes"
	case n < 1e6:
		return strconv.FormatFloat(float64(n)/1e3, 'f', 1, 64) + " kB"
	}
	return strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64) + " MB"
}

// lines splits text into its non-empty lines, trimmed.
func lines(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// DatasetSummary describes the checked data: its public facts, and the rows clipped (a local
// diagnostic).
func (a *App) DatasetSummary() string {
	d := a.Dataset
	held := "no held-out rows"
	if d.Test > 0 {
		held = fmt.Sprintf("%d held-out rows", d.Test)
	}
	return fmt.Sprintf("Ready: %d training rows and %s, %d features, a %s label (%q, the column to predict). Rows clipped to the norm bound: %d of %d (a local diagnostic, not private).",
		d.Facts.N, held, d.Facts.D, d.Facts.Label, a.LabelName(), d.ClippedRows, d.Rows)
}

// LabelName is the name of the schema's label column, the one the model predicts ("" when
// there is none).
func (a *App) LabelName() string {
	if a.Schema != nil {
		for _, c := range a.Schema.Columns {
			if c.Kind.LabelKind() != data.LabelUnspecified {
				return c.Name
			}
		}
	}
	return ""
}

// DataChanges lists, column by column, what encoding the file changed: values clipped to the
// declared range, missing values replaced, values put in the other bucket (local diagnostics,
// not private; the command line reports the same counts).
func (a *App) DataChanges() []string {
	if a.Dataset == nil {
		return nil
	}
	var out []string
	for _, c := range a.Dataset.Columns {
		var parts []string
		for _, p := range []struct {
			n    int
			what string
		}{{c.Clipped, "clipped to the declared range"}, {c.ClippedToRange, "clipped to the private range"},
			{c.Missing, "missing, replaced by the declared value"}, {c.Other, "outside the declared values (other)"}} {
			if p.n > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", p.n, p.what))
			}
		}
		if len(parts) > 0 {
			out = append(out, c.Name+": "+strings.Join(parts, "; "))
		}
	}
	return out
}

// SuggestedFrom says what part of a file the suggested schema read: its first
// engine.SuggestRows rows, so a value further down may lie outside a suggested range.
func (a *App) SuggestedFrom() string {
	return "The suggestion read the file's first " + itoa(engine.SuggestRows) + " rows only: values further down may lie outside a suggested range (encoding clips them to it and says how many)."
}
