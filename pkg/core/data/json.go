package data

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"
)

// SchemaFormat is the version of the schema's JSON format, the value of its "privopt_schema"
// member.
const SchemaFormat = 1

// maxSchemaBytes is the largest schema file LoadSchema reads.
const maxSchemaBytes = 16 << 20

// The JSON form of a schema. Pointers and raw messages tell a member that is absent from one
// that is zero, so that a missing bound is an error rather than a silent 0.
type jsonSchema struct {
	Format    *int      `json:"privopt_schema"`
	Delimiter *string   `json:"delimiter,omitempty"`
	Decimal   *string   `json:"decimal,omitempty"`
	Norm      *jsonNorm `json:"norm"`
	// PublicRows is Schema.PublicRows.
	PublicRows *int         `json:"public_rows,omitempty"`
	Columns    []jsonColumn `json:"columns"`
}

type jsonNorm struct {
	P      json.RawMessage `json:"p"`
	Radius *float64        `json:"radius"`
	Bias   *float64        `json:"bias,omitempty"`
	Fit    *string         `json:"fit"`
}

type jsonColumn struct {
	Name         *string         `json:"name"`
	Kind         *string         `json:"kind"`
	Min          *float64        `json:"min,omitempty"`
	Max          *float64        `json:"max,omitempty"`
	Transform    *string         `json:"transform,omitempty"`
	Scale        *string         `json:"scale,omitempty"`
	PrivateRange *jsonRange      `json:"private_range,omitempty"`
	Categories   []string        `json:"categories,omitempty"`
	Other        *bool           `json:"other,omitempty"`
	Positive     []string        `json:"positive,omitempty"`
	Negative     []string        `json:"negative,omitempty"`
	RestNegative *bool           `json:"rest_negative,omitempty"`
	Classes      []string        `json:"classes,omitempty"`
	Missing      json.RawMessage `json:"missing,omitempty"`
	Derived      []string        `json:"derived,omitempty"`
	Source       *string         `json:"source,omitempty"`
}

// jsonRange is the JSON form of a Range; both ends are required.
type jsonRange struct {
	Lo *float64 `json:"lo"`
	Hi *float64 `json:"hi"`
}

// LoadSchema reads a schema in its JSON form (at most 16 MiB) and checks it (see
// Schema.UnmarshalJSON).
func LoadSchema(r io.Reader) (*Schema, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxSchemaBytes+1))
	if err != nil {
		return nil, fmt.Errorf("data: schema: reading: %w", err)
	}
	if len(b) > maxSchemaBytes {
		return nil, fmt.Errorf("data: schema: larger than %d bytes", maxSchemaBytes)
	}
	s := new(Schema)
	if err := s.UnmarshalJSON(b); err != nil {
		return nil, err
	}
	return s, nil
}

// UnmarshalJSON decodes a schema from its JSON form, documented in docs/schemas.md, and checks it
// with Validate. Unknown members, a member given twice in an object (names are compared
// ignoring case, as encoding/json matches them), a member that does not apply to the column's
// kind, a required member that is absent, and text after the schema object are errors; a JSON
// syntax error is reported with its line and column in b.
func (s *Schema) UnmarshalJSON(b []byte) error {
	if err := checkDuplicateMembers(b); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var js jsonSchema
	if err := dec.Decode(&js); err != nil {
		return jsonError(b, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return fmt.Errorf("data: schema: line %d: text after the schema object", lineOf(b, dec.InputOffset()))
	}
	var out Schema
	switch {
	case js.Format == nil:
		return schemaError("", `"privopt_schema" is missing (write "privopt_schema": %d)`, SchemaFormat)
	case *js.Format != SchemaFormat:
		return schemaError("", `"privopt_schema" is %d; this version of privopt reads format %d`, *js.Format, SchemaFormat)
	}
	if js.Delimiter != nil {
		switch *js.Delimiter {
		case ",", ";", "\t":
			out.Delimiter = (*js.Delimiter)[0]
		default:
			return schemaError("", `delimiter %q is not ",", ";" or "\t"`, *js.Delimiter)
		}
	}
	if js.Decimal != nil {
		switch *js.Decimal {
		case ".":
		case ",":
			out.Decimal = ','
		default:
			return schemaError("", `decimal %q is not "." or ","`, *js.Decimal)
		}
	}
	if js.Norm == nil {
		return schemaError("", `"norm" is missing`)
	}
	if js.PublicRows != nil {
		if *js.PublicRows < 1 {
			return schemaError("", `"public_rows" is %d; it must be a whole number of at least 1`, *js.PublicRows)
		}
		out.PublicRows = *js.PublicRows
	}
	if err := js.Norm.decode(&out.Norm); err != nil {
		return err
	}
	if js.Columns == nil {
		return schemaError("", `"columns" is missing`)
	}
	out.Columns = make([]Column, len(js.Columns))
	for i := range js.Columns {
		if err := js.Columns[i].decode(i, &out.Columns[i]); err != nil {
			return err
		}
	}
	if err := out.Validate(); err != nil {
		return err
	}
	*s = out
	return nil
}

func (jn *jsonNorm) decode(n *Norm) error {
	switch {
	case jn.P == nil:
		return schemaError("", `norm: "p" is missing`)
	case jn.Radius == nil:
		return schemaError("", `norm: "radius" is missing`)
	case jn.Fit == nil:
		return schemaError("", `norm: "fit" is missing ("scale" or "clip")`)
	}
	var name string
	if err := json.Unmarshal(jn.P, &n.P); err != nil {
		if outOfRange(err) {
			return schemaError("", `norm: "p" %s is out of range: %s`, jn.P, finiteNumbers)
		}
		if json.Unmarshal(jn.P, &name) != nil || name != "inf" {
			return schemaError("", `norm: "p" is %s; it must be a number at least 1, or "inf"`, jn.P)
		}
		n.P = math.Inf(1)
	}
	n.Radius, n.Fit = *jn.Radius, Fit(*jn.Fit)
	if jn.Bias != nil {
		n.Bias = *jn.Bias
	}
	return nil
}

// decode converts the i-th column, checking which members are present for its kind.
func (jc *jsonColumn) decode(i int, c *Column) error {
	if jc.Name == nil {
		return schemaError("", `column %d: "name" is missing`, i+1)
	}
	c.Name = *jc.Name
	if jc.Kind == nil {
		return schemaError(c.Name, `"kind" is missing`)
	}
	c.Kind = Kind(*jc.Kind)
	set := map[string]bool{
		"min": jc.Min != nil, "max": jc.Max != nil, "transform": jc.Transform != nil, "scale": jc.Scale != nil,
		"private_range": jc.PrivateRange != nil, "categories": jc.Categories != nil, "other": jc.Other != nil,
		"positive": jc.Positive != nil, "negative": jc.Negative != nil, "rest_negative": jc.RestNegative != nil,
		"classes": jc.Classes != nil, "missing": jc.Missing != nil, "derived": jc.Derived != nil,
	}
	required := map[Kind][]string{
		Numeric: {"min", "max"}, NumericLabel: {"min", "max"}, Categorical: {"categories"},
		BinaryLabel: {"positive"}, ClassLabel: {"classes"},
	}[c.Kind]
	if c.Kind == BinaryLabel && (jc.RestNegative == nil || !*jc.RestNegative) {
		required = append(required, "negative")
	}
	for _, f := range required {
		if !set[f] {
			return schemaError(c.Name, "%q is missing", f)
		}
	}
	if kindIndex(c.Kind) >= 0 {
		if err := checkMembers(c.Name, c.Kind, set); err != nil {
			return err
		}
	}
	if jc.Min != nil {
		c.Min = *jc.Min
	}
	if jc.Max != nil {
		c.Max = *jc.Max
	}
	if jc.Transform != nil {
		c.Transform = Transform(*jc.Transform)
	}
	if jc.Scale != nil {
		c.Scale = ColumnScale(*jc.Scale)
	}
	if r := jc.PrivateRange; r != nil {
		if r.Lo == nil || r.Hi == nil {
			return schemaError(c.Name, `private_range: "lo" and "hi" are both required`)
		}
		c.Range = &Range{Lo: *r.Lo, Hi: *r.Hi}
	}
	c.Categories, c.Positive, c.Negative, c.Classes, c.Derived = jc.Categories, jc.Positive, jc.Negative, jc.Classes, jc.Derived
	if jc.Source != nil {
		c.Source = *jc.Source
	}
	c.Other = jc.Other != nil && *jc.Other
	c.RestNegative = jc.RestNegative != nil && *jc.RestNegative
	if jc.Missing != nil {
		if err := decodeMissing(jc.Missing, c); err != nil {
			return err
		}
	}
	return nil
}

// decodeMissing reads the policy "error" or {"replace": value}, the value a number for a
// numeric column and a string for the others.
func decodeMissing(raw json.RawMessage, c *Column) error {
	var policy string
	if json.Unmarshal(raw, &policy) == nil {
		if policy != "error" {
			return schemaError(c.Name, `missing: %q is not a policy ("error", or {"replace": value})`, policy)
		}
		return nil
	}
	var rep struct {
		Replace json.RawMessage `json:"replace"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rep); err != nil || rep.Replace == nil {
		return schemaError(c.Name, `missing: %s is not a policy ("error", or {"replace": value})`, raw)
	}
	c.Missing.Replace = true
	if c.Kind == Numeric || c.Kind == NumericLabel {
		var v float64
		if err := json.Unmarshal(rep.Replace, &v); err != nil {
			if outOfRange(err) {
				return schemaError(c.Name, "missing: the replacement %s is out of range: %s", rep.Replace, finiteNumbers)
			}
			return schemaError(c.Name, "missing: the replacement %s is not a number", rep.Replace)
		}
		c.Missing.Value = strconv.FormatFloat(v, 'g', -1, 64)
		return nil
	}
	if err := json.Unmarshal(rep.Replace, &c.Missing.Value); err != nil {
		return schemaError(c.Name, "missing: the replacement %s is not a string", rep.Replace)
	}
	return nil
}

// MarshalJSON writes the schema in its JSON form, which UnmarshalJSON reads back to an equal
// schema. It checks the schema with Validate first.
func (s *Schema) MarshalJSON() ([]byte, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	format := SchemaFormat
	js := jsonSchema{Format: &format, Norm: &jsonNorm{Radius: &s.Norm.Radius}}
	if s.Delimiter != 0 {
		d := string(rune(s.Delimiter))
		js.Delimiter = &d
	}
	if s.Decimal == ',' {
		d := ","
		js.Decimal = &d
	}
	if math.IsInf(s.Norm.P, 1) {
		js.Norm.P = json.RawMessage(`"inf"`)
	} else {
		js.Norm.P, _ = json.Marshal(s.Norm.P)
	}
	if s.Norm.Bias != 0 {
		js.Norm.Bias = &s.Norm.Bias
	}
	if s.PublicRows != 0 {
		js.PublicRows = &s.PublicRows
	}
	fit := string(s.Norm.Fit)
	js.Norm.Fit = &fit
	js.Columns = make([]jsonColumn, len(s.Columns))
	for i := range s.Columns {
		c := &s.Columns[i]
		kind := string(c.Kind)
		jc := jsonColumn{Name: &c.Name, Kind: &kind, Categories: c.Categories, Positive: c.Positive,
			Negative: c.Negative, Classes: c.Classes, Derived: c.Derived}
		if c.Source != "" {
			jc.Source = &c.Source
		}
		switch c.Kind {
		case Numeric, NumericLabel:
			jc.Min, jc.Max = &c.Min, &c.Max
			if c.Transform != NoTransform {
				t := string(c.Transform)
				jc.Transform = &t
			}
			if c.Scale != ScalePrivate {
				sc := string(c.Scale)
				jc.Scale = &sc
			}
			if c.Range != nil {
				jc.PrivateRange = &jsonRange{Lo: &c.Range.Lo, Hi: &c.Range.Hi}
			}
		case Categorical:
			if c.Other {
				jc.Other = &c.Other
			}
		case BinaryLabel:
			if c.RestNegative {
				jc.RestNegative = &c.RestNegative
			}
		}
		if c.Missing.Replace {
			var v any = c.Missing.Value
			if c.Kind == Numeric || c.Kind == NumericLabel {
				v, _ = parseNumber([]byte(c.Missing.Value)) // checked by Validate
			}
			jc.Missing, _ = json.Marshal(map[string]any{"replace": v})
		}
		js.Columns[i] = jc
	}
	return json.Marshal(js)
}

// jsonError describes a JSON decoding error, with the line of b where it occurred.
func jsonError(b []byte, err error) error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return fmt.Errorf("data: schema: line %d: %w", lineOf(b, syntax.Offset), err)
	case errors.As(err, &typ) && outOfRange(err):
		return fmt.Errorf("data: schema: line %d: %q %s is out of range: %s", lineOf(b, typ.Offset), typ.Field, strings.TrimPrefix(typ.Value, "number "), finiteNumbers)
	case errors.As(err, &typ) && typ.Type.Kind().String() == "int" && strings.HasPrefix(typ.Value, "number"):
		return fmt.Errorf("data: schema: line %d: %q must be a whole number, not %s", lineOf(b, typ.Offset), typ.Field, strings.TrimPrefix(typ.Value, "number "))
	case errors.As(err, &typ):
		return fmt.Errorf("data: schema: line %d: %q must be a JSON %s, not %s", lineOf(b, typ.Offset), typ.Field, jsonType(typ.Type.Kind().String()), typ.Value)
	case errors.Is(err, io.EOF):
		return errors.New("data: schema: empty input")
	}
	if name, ok := strings.CutPrefix(err.Error(), `json: unknown field "`); ok {
		return unknownMember(b, strings.TrimSuffix(name, `"`))
	}
	return fmt.Errorf("data: schema: %w", err)
}

// unknownMember is the error for a member that no object of a schema has: its line (where
// its name first appears as a member name) and, when one is close, the member meant.
func unknownMember(b []byte, name string) error {
	where := ""
	if k := bytes.Index(b, []byte(strconv.Quote(name))); k >= 0 {
		where = "line " + strconv.Itoa(lineOf(b, int64(k))) + ": "
	}
	hint, best := "", 3 // suggest a member at most 2 edits away
	for _, members := range [][]string{schemaMembers, memberNames} {
		for _, m := range members {
			if d := editDistance(name, m); d < best {
				hint, best = " (did you mean \""+m+"\"?)", d
			}
		}
	}
	return fmt.Errorf("data: schema: %sunknown member %q%s", where, name, hint)
}

// schemaMembers lists the members of a schema's objects beside a column's optional ones
// (memberNames): the top level, the norm, a column's required ones, a private range and a
// missing value's replacement.
var schemaMembers = []string{"privopt_schema", "delimiter", "decimal", "norm", "public_rows", "columns",
	"p", "radius", "bias", "fit", "name", "kind", "source", "lo", "hi", "replace"}

// editDistance returns the Levenshtein distance between a and b, by bytes, ASCII letters
// compared ignoring case.
func editDistance(a, b string) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if lowerASCII(a[i-1]) == lowerASCII(b[j-1]) {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// finiteNumbers ends the message about a number beyond the range of float64.
const finiteNumbers = "numbers must be finite float64 values"

// outOfRange reports whether err is encoding/json's error for a number decoded into a float64
// that cannot hold it (1e999): JSON has no other number a float64 refuses.
func outOfRange(err error) bool {
	var typ *json.UnmarshalTypeError
	return errors.As(err, &typ) && typ.Type.Kind().String() == "float64" && strings.HasPrefix(typ.Value, "number ")
}

// checkDuplicateMembers walks the JSON text b and returns an error, naming the member and its
// line, when an object has two members whose names are equal ignoring case: encoding/json
// would silently keep the last. It stops without an error at a syntax error, which decoding
// reports.
func checkDuplicateMembers(b []byte) error {
	type member struct {
		name string
		end  int64 // the offset just after the name
	}
	type object struct {
		seen    map[string]member // the members so far, by their folded names
		wantKey bool              // the next token is a member name (or the closing brace)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber() // Token would stop at a number beyond float64, which decoding reports
	var stack []*object
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		var top *object
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if name, ok := tok.(string); ok && top != nil && top.wantKey {
			folded := foldName(name)
			if first, dup := top.seen[folded]; dup {
				line, firstLine := lineOf(b, dec.InputOffset()), lineOf(b, first.end)
				if first.name != name {
					return fmt.Errorf("data: schema: line %d: duplicate member %q (the same as %q on line %d: member names are compared ignoring case)", line, name, first.name, firstLine)
				}
				return fmt.Errorf("data: schema: line %d: duplicate member %q (first on line %d)", line, name, firstLine)
			}
			top.seen[folded] = member{name, dec.InputOffset()}
			top.wantKey = false
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &object{seen: map[string]member{}, wantKey: true})
			continue
		case json.Delim('['):
			stack = append(stack, nil)
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		// A value ended: the enclosing object expects a name next; the schema ends with the
		// outermost value.
		if len(stack) == 0 {
			return nil
		}
		if parent := stack[len(stack)-1]; parent != nil {
			parent.wantKey = true
		}
	}
}

// foldName returns the form of a member name shared by exactly the names equal to it ignoring
// case, as encoding/json compares them (Unicode simple folding: "K", "k" and the Kelvin sign
// "\u212A" are one name).
func foldName(name string) string {
	var b strings.Builder
	for _, r := range name {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		b.WriteRune(least)
	}
	return b.String()
}

// jsonType names a Go kind as the JSON type that decodes into it.
func jsonType(goKind string) string {
	switch goKind {
	case "float64", "int":
		return "number"
	case "bool":
		return "boolean"
	case "slice":
		return "array"
	case "ptr", "struct":
		return "object"
	}
	return goKind
}

// lineOf returns the 1-based line of byte offset off in b.
func lineOf(b []byte, off int64) int {
	off = min(max(off, 0), int64(len(b)))
	return 1 + bytes.Count(b[:off], []byte("\n"))
}

// lowerASCII returns c in lower case when it is an ASCII capital letter, else c.
func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
