package data

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"
)

// Schema declares, from public knowledge and never from the data, how each column of a CSV
// file is encoded and which norm bound the encoded rows satisfy. Its JSON form (LoadSchema,
// MarshalJSON) is documented in the repository's docs/schemas.md.
//
// A schema made by SuggestSchema marks every bound and category list it read from the data
// in the columns' Derived lists; Encode refuses a schema while any such mark remains, and a
// person removes a mark (Confirm, or by editing the JSON) only after checking that the value
// is public knowledge, not a property of the private data.
type Schema struct {
	// Delimiter is ',', ';' or '\t', or 0 to detect it from the header line.
	Delimiter byte
	// Decimal is the decimal mark of the file's numbers: 0 for a point, or ',' for a comma, as
	// spreadsheets in many languages write them ("3,5"; such files are mostly delimited by
	// semicolons). Numbers are read with one mark only: with a comma a number holding a '.'
	// is not a number (it could be a thousands separator), and the other way round.
	Decimal byte
	// Norm is the norm bound of the encoded rows and how rows are brought within it.
	Norm Norm
	// PublicRows, when positive, declares a public number of rows N that no dataset of this
	// schema exceeds: the size the add/remove neighbouring relation needs (under it the
	// observed number of rows is private, and every mean divides by N). 0 declares none.
	PublicRows int
	// Columns lists every column of the file, in any order; the encoded features follow
	// this order. Exactly one column is a label.
	Columns []Column
}

// Norm declares the bound ‖x‖_P ≤ Radius that every encoded row x satisfies.
//
// Let z be a row's features as the columns encode them (numeric values in [0, 1], one-hot
// 0/1 blocks) and m the number of numeric and categorical columns, so that ‖z‖_P ≤ m^{1/P}.
// With bias b (0 for none) the encoded row is x = [c·z, b], where c depends on Fit:
//
//	FitScale: c = Radius·((1 − (b/Radius)^P)/m)^{1/P} (c = Radius when P = ∞), a constant
//	          computed from the schema alone, so ‖x‖_P ≤ Radius for every possible row;
//	FitClip:  c = min(1, Rz/‖z‖_P) per row, with Rz = Radius·(1 − (b/Radius)^P)^{1/P}
//	          (Rz = Radius when P = ∞): rows that are too long are shrunk onto the sphere
//	          and counted in Diagnostics.ClippedRows.
//
// In both modes Encode finally checks the computed norm of every row and, should rounding
// make it exceed Radius by a few units in the last place, shrinks the row's features
// slightly and counts the row as clipped, so ‖x‖_P ≤ Radius holds in floating point too.
// No factor is ever computed from a statistic of the data.
type Norm struct {
	// P is the norm's exponent: P ≥ 1, or math.Inf(1).
	P float64
	// Radius is R, in [1e-100, 1e100].
	Radius float64
	// Bias is b, the value of a constant last coordinate named "(bias)": 0 ≤ b < Radius,
	// and b = 0 means no bias coordinate.
	Bias float64
	// Fit says how rows are brought within the bound.
	Fit Fit
}

// Fit is how rows are brought within the declared norm bound (see Norm).
type Fit string

const (
	// FitScale multiplies every row's features by one constant computed from the schema, so
	// that no row can exceed the bound.
	FitScale Fit = "scale"
	// FitClip shrinks each row whose norm exceeds the bound onto the bound, and counts it.
	FitClip Fit = "clip"
)

// Transform is a public transform of a numeric feature's values, part of the schema: the
// value clipped to the declared [Min, Max] is transformed, and the declared scale runs from
// the transformed Min to the transformed Max (see Column.ScaleEnds).
type Transform string

const (
	// NoTransform keeps the values as they are.
	NoTransform Transform = ""
	// Log1p takes log(1 + v), for a column declared with Min > −1: it spreads values that span
	// orders of magnitude (amounts, counts) over the declared scale.
	Log1p Transform = "log1p"
)

// ColumnScale says whether a numeric column may be scaled by a private estimate of its range.
type ColumnScale string

const (
	// ScalePrivate (the default) lets a fit that asks for private scaling clip the column to
	// a private estimate of its range (Column.Range).
	ScalePrivate ColumnScale = ""
	// ScaleDeclared keeps the column on its declared scale in every fit.
	ScaleDeclared ColumnScale = "declared"
)

// Range is a private range of a numeric column: the fractions [Lo, Hi] of the column's
// declared (transformed) scale z ∈ [0, 1], 0 ≤ Lo < Hi ≤ 1, that its values are clipped to
// before they are rescaled to fill the encoding (see Column.Range).
type Range struct{ Lo, Hi float64 }

// Kind is what a column holds and how it is encoded.
type Kind string

const (
	// Numeric: a number, clipped to the declared [Min, Max], transformed (Transform), then
	// scaled to [0, 1] (and rescaled to its private Range, if any); one feature.
	Numeric Kind = "numeric"
	// Categorical: one of the declared Categories, one-hot encoded (one feature per category,
	// plus one for the Other bucket when declared). A value outside the list is an error
	// unless Other is set.
	Categorical Kind = "categorical"
	// Ignore: the column is read (and must be valid UTF-8) but not encoded.
	Ignore Kind = "ignore"
	// BinaryLabel: the label, +1 for a value in Positive, −1 for a value in Negative (or for
	// any other value when RestNegative is set); any other value is an error.
	BinaryLabel Kind = "binary-label"
	// NumericLabel: the label, a number clipped to [Min, Max] and kept in its own units; or,
	// with a private Range, mapped from that range to [−1, 1] (see Label).
	NumericLabel Kind = "numeric-label"
	// ClassLabel: the label, the index of the value in Classes; any other value is an error.
	ClassLabel Kind = "class-label"
)

// Column declares one column of the file.
type Column struct {
	// Name is the column's name in the header, exactly (after the spaces around it are
	// removed).
	Name string
	// Kind is what the column holds.
	Kind Kind
	// Min < Max is the declared range (Numeric, NumericLabel).
	Min, Max float64
	// Transform is applied to the clipped values before they are scaled (Numeric only; Log1p
	// needs Min > −1).
	Transform Transform
	// Scale is ScaleDeclared to keep the column on its declared scale when a fit scales the
	// others privately (Numeric, NumericLabel).
	Scale ColumnScale
	// Range, when not nil, is the column's private range, which privopt writes into the schema
	// as used when a fit scales the column privately (Numeric, NumericLabel; not with
	// ScaleDeclared). A feature's value z on the declared scale becomes
	// (clip(z, Lo, Hi) − Lo)/(Hi − Lo) ∈ [0, 1]; a label's becomes 2·that − 1 ∈ [−1, 1].
	Range *Range
	// Categories are the declared values, each a one-hot feature "Name=value" (Categorical).
	Categories []string
	// Other adds the feature "Name=(other)" that takes every value not in Categories
	// (Categorical).
	Other bool
	// Positive and Negative are the values read as +1 and −1 (BinaryLabel).
	Positive, Negative []string
	// RestNegative reads every value outside Positive and Negative as −1 (BinaryLabel).
	RestNegative bool
	// Classes are the declared classes; a value's label is its index (ClassLabel).
	Classes []string
	// Missing is the policy for a missing value (see missingValue: an empty field or "?", and
	// in a numeric column NA, NaN, NULL and the like).
	Missing Missing
	// Source says where the column's declared values come from (a public document, a code
	// list, a survey's field widths): text for the people who read the schema, shown by the
	// page beside the column. privopt neither reads nor checks it; any kind may have one.
	Source string
	// Derived names the fields of this column that were read from the data ("min", "max",
	// "categories", "positive", "negative", "classes", "missing") and not yet confirmed by
	// a person. Encode refuses the schema while any remain.
	Derived []string
}

// Missing is the policy for a missing value (see missingValue; the spaces around a field are
// removed first).
type Missing struct {
	// Replace is false when a missing value is an error, true when it is read as Value.
	Replace bool
	// Value is the replacement, written as it would be in the file ("0", "?", ">50K") but for
	// a number's decimal mark, always a point; it must be a value the column accepts (for a
	// numeric column, one within [Min, Max]; for a categorical column, a declared category).
	Value string
}

// missingValue reports whether a field's text stands for a missing value: an empty field or
// "?" in any column, and in a numeric column (numeric is set) also one of numericMissing in
// any case, the marks that spreadsheets, statistics packages and databases write for a
// missing number. In a categorical or class column those are texts like any other ("NA" may
// be a category).
func missingValue(text []byte, numeric bool) bool {
	switch {
	case len(text) == 0 || (len(text) == 1 && text[0] == '?'):
		return true
	case !numeric || len(text) > 4 || !(text[0]|0x20 == 'n' || text[0] == '#' || text[0] == '.'):
		return false // a number's field, quickly
	}
	for _, m := range numericMissing {
		if equalFoldASCII(text, m) {
			return true
		}
	}
	return false
}

// equalFoldASCII reports whether text is m, ASCII letters compared ignoring case.
func equalFoldASCII(text []byte, m string) bool {
	if len(text) != len(m) {
		return false
	}
	for i := range len(m) {
		if lowerASCII(text[i]) != lowerASCII(m[i]) {
			return false
		}
	}
	return true
}

// numericMissing lists the texts, in any case, that stand for a missing number beside an
// empty field and "?": R's NA, Excel's #N/A, N/A, NaN, SQL's NULL, Python's None and SAS's ".".
var numericMissing = []string{"NA", "#N/A", "N/A", "NaN", "NULL", "None", "."}

// kindMembers are the members a column of a kind may have besides name and kind, and the
// fields that its Derived list may name.
type kindMembers struct {
	kind               Kind
	members, derivable []string
}

// kinds lists every kind's members. (A list, not maps: a map literal is code in the page's
// WebAssembly, a list of constants is data.)
var kinds = []kindMembers{
	{Numeric, []string{"min", "max", "transform", "scale", "private_range", "missing", "derived"}, []string{"min", "max", "missing"}},
	{NumericLabel, []string{"min", "max", "scale", "private_range", "missing", "derived"}, []string{"min", "max", "missing"}},
	{Categorical, []string{"categories", "other", "missing", "derived"}, []string{"categories", "missing"}},
	{BinaryLabel, []string{"positive", "negative", "rest_negative", "missing", "derived"}, []string{"positive", "negative", "missing"}},
	{ClassLabel, []string{"classes", "missing", "derived"}, []string{"classes", "missing"}},
	{Ignore, nil, nil},
}

// kindIndex returns the index of k in kinds, or −1 for an unknown kind.
func kindIndex(k Kind) int {
	for i := range kinds {
		if kinds[i].kind == k {
			return i
		}
	}
	return -1
}

// memberNames lists the optional members of a column, in the order errors check them.
var memberNames = []string{"min", "max", "transform", "scale", "private_range", "categories", "other", "positive", "negative", "rest_negative", "classes", "missing", "derived"}

// checkMembers returns an error naming the first member in set that does not apply to a
// column of the known kind.
func checkMembers(column string, kind Kind, set map[string]bool) error {
	for _, m := range memberNames {
		if set[m] && !slices.Contains(kinds[kindIndex(kind)].members, m) {
			return schemaError(column, "%q does not apply to a %q column", m, kind)
		}
	}
	return nil
}

// LabelKind returns how a label column of kind k encodes the labels (BinaryLabel:
// LabelBinary, NumericLabel: LabelNumeric, ClassLabel: LabelClass), and LabelUnspecified for
// a column that is not the label.
func (k Kind) LabelKind() LabelKind {
	switch k {
	case BinaryLabel:
		return LabelBinary
	case NumericLabel:
		return LabelNumeric
	case ClassLabel:
		return LabelClass
	}
	return LabelUnspecified
}

// isLabel reports whether k is one of the label kinds.
func (k Kind) isLabel() bool { return k.LabelKind() != LabelUnspecified }

// isFeature reports whether k makes features.
func (k Kind) isFeature() bool {
	return k == Numeric || k == Categorical
}

// schemaError formats an error about the column named name ("" for the whole schema).
func schemaError(name, format string, args ...any) error {
	if name == "" {
		return fmt.Errorf("data: schema: "+format, args...)
	}
	return fmt.Errorf("data: schema: column %q: "+format, append([]any{name}, args...)...)
}

// Validate checks that the schema is complete and consistent: the norm (P ≥ 1 or ∞, Radius
// in [1e-100, 1e100], 0 ≤ Bias < Radius, a known Fit), unique non-empty column names,
// exactly one label column and at least one numeric or categorical column, for each column
// the fields of its kind and no field of another kind, finite ranges with Min < Max, a known
// transform (Log1p with Min > −1), a known scale, a private range with 0 ≤ Lo < Hi ≤ 1 (not on
// a ScaleDeclared column; on a label, one whose ends differ in the label's units), value
// lists that are non-empty, unique, non-empty strings without surrounding spaces, a
// missing-value replacement that the column accepts, Derived entries that name fields of
// the kind, and unique feature names. It does not check that Derived lists are empty
// (Unconfirmed does).
func (s *Schema) Validate() error {
	switch s.Delimiter {
	case 0, ',', ';', '\t':
	default:
		return schemaError("", "delimiter %q is not a comma, a semicolon or a tab", s.Delimiter)
	}
	switch s.Decimal {
	case 0, ',':
	default:
		return schemaError("", "decimal mark %q is not a comma (or 0 for a point)", s.Decimal)
	}
	if s.PublicRows < 0 {
		return schemaError("", "public_rows = %d; it must be at least 1 (or absent)", s.PublicRows)
	}
	if err := s.Norm.validate(); err != nil {
		return err
	}
	if len(s.Columns) == 0 {
		return schemaError("", "no columns")
	}
	names := make(map[string]bool, len(s.Columns))
	labels, features := 0, 0
	for i := range s.Columns {
		c := &s.Columns[i]
		if c.Name == "" {
			return schemaError("", "column %d has no name", i+1)
		}
		if !utf8.ValidString(c.Name) {
			return schemaError("", "column %d: the name %q is not valid UTF-8", i+1, c.Name)
		}
		if strings.TrimSpace(c.Name) != c.Name {
			return schemaError(c.Name, "the name has surrounding spaces, which are removed from the header's names")
		}
		if names[c.Name] {
			return schemaError(c.Name, "declared twice")
		}
		names[c.Name] = true
		if err := c.validate(); err != nil {
			return err
		}
		if c.Kind.isLabel() {
			labels++
		}
		if c.Kind.isFeature() {
			features++
		}
	}
	if labels != 1 {
		return schemaError("", "%d label columns; exactly one column must be a binary-label, numeric-label or class-label", labels)
	}
	if features == 0 {
		return schemaError("", "no numeric or categorical column: the rows would have no features")
	}
	seen := make(map[string]bool)
	for _, f := range s.Features() {
		if seen[f] {
			return schemaError("", "two features are named %q", f)
		}
		seen[f] = true
	}
	return nil
}

// validate checks the norm (see Schema.Validate).
func (n *Norm) validate() error {
	switch {
	case math.IsNaN(n.P) || n.P < 1:
		return schemaError("", "norm: p = %v; it must be at least 1, or \"inf\"", n.P)
	case !(n.Radius >= 1e-100 && n.Radius <= 1e100):
		return schemaError("", "norm: radius = %v; it must be in [1e-100, 1e100]", n.Radius)
	case !(n.Bias >= 0 && n.Bias < n.Radius):
		return schemaError("", "norm: bias = %v; it must be at least 0 and below the radius %v", n.Bias, n.Radius)
	case n.Fit != FitScale && n.Fit != FitClip:
		return schemaError("", "norm: fit %q is neither %q nor %q", n.Fit, FitScale, FitClip)
	}
	return nil
}

// validate checks one column (see Schema.Validate).
func (c *Column) validate() error {
	if kindIndex(c.Kind) < 0 {
		return schemaError(c.Name, "unknown kind %q (numeric, categorical, ignore, binary-label, numeric-label or class-label)", c.Kind)
	}
	set := map[string]bool{
		"min": c.Min != 0, "max": c.Max != 0, "transform": c.Transform != NoTransform, "scale": c.Scale != ScalePrivate,
		"private_range": c.Range != nil, "categories": c.Categories != nil, "other": c.Other,
		"positive": c.Positive != nil, "negative": c.Negative != nil, "rest_negative": c.RestNegative,
		"classes": c.Classes != nil, "missing": c.Missing != (Missing{}), "derived": c.Derived != nil,
	}
	if err := checkMembers(c.Name, c.Kind, set); err != nil {
		return err
	}
	switch c.Kind {
	case Numeric, NumericLabel:
		if math.IsNaN(c.Min) || math.IsNaN(c.Max) || math.IsInf(c.Min, 0) || math.IsInf(c.Max, 0) || !(c.Min < c.Max) {
			return schemaError(c.Name, "the range [%v, %v] must be finite with min < max", c.Min, c.Max)
		}
		if math.IsInf(c.Max-c.Min, 0) {
			return schemaError(c.Name, "the range [%v, %v] is wider than float64 can hold", c.Min, c.Max)
		}
		if err := c.validateScale(); err != nil {
			return err
		}
	case Categorical:
		if err := checkValues(c.Name, "categories", c.Categories, false); err != nil {
			return err
		}
	case BinaryLabel:
		if err := checkValues(c.Name, "positive", c.Positive, false); err != nil {
			return err
		}
		if err := checkValues(c.Name, "negative", c.Negative, c.RestNegative); err != nil {
			return err
		}
		for _, v := range c.Positive {
			if slices.Contains(c.Negative, v) {
				return schemaError(c.Name, "%q is both positive and negative", v)
			}
		}
	case ClassLabel:
		if err := checkValues(c.Name, "classes", c.Classes, false); err != nil {
			return err
		}
	}
	for i, f := range c.Derived {
		if d := kinds[kindIndex(c.Kind)].derivable; !slices.Contains(d, f) {
			return schemaError(c.Name, "derived: %q is not a field of a %q column that can be read from the data (%s)", f, c.Kind, strings.Join(d, ", "))
		}
		if slices.Contains(c.Derived[:i], f) {
			return schemaError(c.Name, "derived: %q is listed twice", f)
		}
	}
	if c.Missing.Replace {
		_, n, err := newColumnPlan(c).encode([]byte(c.Missing.Value))
		switch {
		case err != nil:
			return schemaError(c.Name, "missing: the replacement is not a value of the column: %v", err)
		case n == clipped:
			return schemaError(c.Name, "missing: the replacement %s is outside [%v, %v]", c.Missing.Value, c.Min, c.Max)
		case n == other:
			return schemaError(c.Name, "missing: the replacement %q is not one of the declared values", c.Missing.Value)
		}
	} else if c.Missing.Value != "" {
		return schemaError(c.Name, "missing: a replacement value %q without Replace", c.Missing.Value)
	}
	return nil
}

// checkValues checks a list of declared values: non-empty (unless mayBeEmpty), each value a
// non-empty valid UTF-8 string, not a missing marker, without surrounding spaces, and unique.
func checkValues(column, field string, values []string, mayBeEmpty bool) error {
	if len(values) == 0 && !mayBeEmpty {
		return schemaError(column, "%q is missing or empty", field)
	}
	seen := make(map[string]bool, len(values))
	for _, v := range values {
		switch {
		case !utf8.ValidString(v):
			return schemaError(column, "%s: %q is not valid UTF-8", field, v)
		case v == "":
			return schemaError(column, "%s: an empty value (an empty field is a missing value)", field)
		case strings.TrimSpace(v) != v:
			return schemaError(column, "%s: %q has surrounding spaces, which are removed from every field", field, v)
		case seen[v]:
			return schemaError(column, "%s: %q is listed twice", field, v)
		}
		seen[v] = true
	}
	return nil
}

// Features returns the names of the encoded features, in order: for each column in schema
// order, a numeric column's name, or for a categorical column "name=value" for each declared
// category and then "name=(other)" when it has an other bucket; last "(bias)" when
// Norm.Bias > 0.
func (s *Schema) Features() []string {
	var names []string
	for _, c := range s.Columns {
		switch c.Kind {
		case Numeric:
			names = append(names, c.Name)
		case Categorical:
			for _, v := range c.Categories {
				names = append(names, c.Name+"="+v)
			}
			if c.Other {
				names = append(names, c.Name+"=(other)")
			}
		}
	}
	if s.Norm.Bias > 0 {
		names = append(names, "(bias)")
	}
	return names
}

// Unconfirmed lists the fields that were read from the data and not yet confirmed, as
// `column "age": min`, in schema order; it is empty for a schema that Encode accepts.
func (s *Schema) Unconfirmed() []string {
	var out []string
	for _, c := range s.Columns {
		for _, f := range c.Derived {
			out = append(out, fmt.Sprintf("column %q: %s", c.Name, f))
		}
	}
	return out
}

// Confirm records that a person checked the field (for example "min") of the named column
// and that its value is public knowledge: it removes the field from the column's Derived
// list. It is an error when the column does not exist or the field is not marked derived.
// A user interface calls it when the person confirms the value shown, or types their own.
func (s *Schema) Confirm(column, field string) error {
	for i := range s.Columns {
		c := &s.Columns[i]
		if c.Name != column {
			continue
		}
		k := slices.Index(c.Derived, field)
		if k < 0 {
			return schemaError(column, "%q is not marked as read from the data", field)
		}
		c.Derived = slices.Delete(c.Derived, k, k+1)
		if len(c.Derived) == 0 {
			c.Derived = nil
		}
		return nil
	}
	return schemaError(column, "no such column")
}
