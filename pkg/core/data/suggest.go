package data

import (
	"io"
	"math"
	"slices"
	"strconv"
)

// maxSuggestedValues is the most distinct values SuggestSchema lists for a text column; a
// column with more is suggested as ignored (an identifier or free text).
const maxSuggestedValues = 50

// SuggestSchema reads the header and at most maxRows data rows of a CSV input and suggests a
// schema, for a user interface to show the person as a starting point. Every bound, value
// list and missing-value replacement it reads from the rows is marked in the column's
// Derived list, so Encode refuses the suggestion until a person has confirmed each (see
// Schema.Confirm): a range observed in the data is a statistic of the private data, not a
// public bound.
//
// The suggestion, column by column (after the delimiter is detected as Encode does):
//   - the last column is the label: binary when it has two distinct values (the larger one,
//     in byte order, positive), numeric when it has more and all are numbers, a class
//     label when it has at most 50 distinct texts; otherwise SuggestSchema returns an error;
//   - another column whose values are all numbers is numeric, over the observed [min, max];
//     it is ignored when all its values are equal (it carries no information), or when they
//     are whole numbers that grow on every one of at least 20 rows (a row number or an
//     identifier); one whose
//     values are numbers but for at most a tenth (a stray "high" among blood pressures) is
//     numeric over its numbers too, never ignored in silence: encoding the file then names
//     the first line whose value is not a number, for the person to correct or to declare
//     the column otherwise;
//   - another column with at most 50 distinct texts is categorical over them, sorted in
//     byte order;
//   - any other column, or one whose values are all missing, is ignored (a number column
//     whose range exceeds float64, too), and listed in the Ignored it returns with the
//     reason, for a user interface to ask the person instead of dropping the column in
//     silence;
//   - a feature column with missing values replaces them, a numeric one by its min, a
//     categorical one by the category "?" (added to its list);
//   - the norm is ‖x‖₂ ≤ 1 with a bias coordinate 1/√2 and FitScale, as in adult-lr.
//
// Errors in the rows it reads are reported as Encode reports them.
func SuggestSchema(r io.Reader, maxRows int) (*Schema, []Ignored, error) {
	if maxRows < 1 {
		return nil, nil, schemaError("", "suggest: read at least one row (maxRows = %d)", maxRows)
	}
	rr, names, err := openCSV(r, 0)
	if err != nil {
		return nil, nil, err
	}
	stats := make([]columnStats, len(names))
	for k := range stats {
		stats[k] = columnStats{values: map[string]bool{}}
		for m := range stats[k].byMark {
			stats[k].byMark[m] = numberStats{numeric: true, rising: true, min: math.Inf(1), max: math.Inf(-1)}
		}
	}
	rows := 0
	for rows < maxRows {
		ok, err := rr.next(names)
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			break
		}
		for k, f := range rr.fields {
			stats[k].add(f)
		}
		rows++
	}
	if rows == 0 {
		return nil, nil, lineError(rr.line+1, "no data rows after the header")
	}
	s := &Schema{Norm: Norm{P: 2, Radius: 1, Bias: math.Sqrt2 / 2, Fit: FitScale}}
	// The decimal mark is a comma when more columns are numbers read with it than with a point.
	byMark := [2]int{}
	for k := range stats {
		for m := range byMark {
			if stats[k].numbersOnly(m) {
				byMark[m]++
			}
		}
	}
	mark := 0
	if byMark[1] > byMark[0] {
		mark, s.Decimal = 1, ','
	}
	for k := range stats {
		stats[k].numberStats = &stats[k].byMark[mark]
	}
	var ignored []Ignored
	for k, name := range names {
		st := &stats[k]
		var c Column
		if k == len(names)-1 {
			c, err = st.label(name)
			if err != nil {
				return nil, nil, err
			}
		} else {
			var why Ignored
			c, why = st.feature(name)
			if c.Kind == Ignore {
				ignored = append(ignored, why)
			}
		}
		s.Columns = append(s.Columns, c)
	}
	if err := s.Validate(); err != nil {
		return nil, nil, err
	}
	return s, ignored, nil
}

// Ignored is a column that SuggestSchema suggests ignoring, and why.
type Ignored struct {
	// Column is the column's name.
	Column string `json:"column"`
	// Reason says why, in words, about the rows read.
	Reason string `json:"reason"`
	// Instead is the kind the column could have instead, with bounds or values the person
	// declares (Numeric for numbers, Categorical for texts), or "" when it has no value.
	Instead Kind `json:"instead,omitempty"`
}

// columnStats gathers what SuggestSchema reads of one column.
type columnStats struct {
	values  map[string]bool // the distinct values, up to maxSuggestedValues + 1
	seen    int             // values that are not missing (in a text column)
	missing bool            // an empty field or "?"
	marks   int             // values that a numeric column reads as missing: NA, NaN, …
	// byMark holds the numbers read with a decimal point and with a decimal comma; the
	// embedded numberStats is the one of the schema's mark, once SuggestSchema has chosen it.
	byMark [2]numberStats
	*numberStats
}

// numberStats gathers the numbers of a column, read with one decimal mark.
type numberStats struct {
	numeric  bool    // every value seen but the marks is a number
	numbers  int     // the values that are numbers
	min, max float64 // over the numbers
	// rising is true while every value is a whole number above the one before it, as in a
	// row number or an identifier column; last is the last number.
	rising bool
	last   float64
}

func (st *columnStats) add(text []byte) {
	if missingValue(text, false) {
		st.missing = true
		return
	}
	st.seen++
	if len(st.values) <= maxSuggestedValues && !st.values[string(text)] {
		st.values[string(text)] = true
	}
	if missingValue(text, true) {
		st.marks++
		return
	}
	for m := range st.byMark {
		st.byMark[m].add(text, m == 1)
	}
}

func (ns *numberStats) add(text []byte, comma bool) {
	v, err := parseMarked(text, comma)
	if err != nil {
		ns.numeric = false
		return
	}
	ns.rising = ns.rising && v == math.Trunc(v) && (ns.numbers == 0 || v > ns.last)
	ns.last = v
	ns.numbers++
	ns.min, ns.max = min(ns.min, v), max(ns.max, v)
}

// numbersOnly reports whether the column's values read with the decimal mark m (0 for a
// point, 1 for a comma) are numbers but for the marks of missing numbers, and some are.
func (st *columnStats) numbersOnly(m int) bool {
	return st.byMark[m].numeric && st.byMark[m].numbers > 0
}

// missingNumbers reports whether a numeric column has missing values.
func (st *columnStats) missingNumbers() bool { return st.missing || st.marks > 0 }

// minRisingRows is how many rows of whole numbers, each above the one before, make a column
// look like a row number or an identifier.
const minRisingRows = 20

// mostlyNumbers reports whether the column's values are numbers but for at most a tenth of
// them (and at least one number differs from another).
func (st *columnStats) mostlyNumbers() bool {
	return st.numbers > 0 && 10*(st.seen-st.marks-st.numbers) <= st.seen && st.min < st.max && !math.IsInf(st.max-st.min, 0)
}

// sorted returns the distinct values in byte order, without the marks of missing numbers
// when withoutMarks is set.
func (st *columnStats) sorted(withoutMarks bool) []string {
	out := make([]string, 0, len(st.values))
	for v := range st.values {
		if !withoutMarks || !missingValue([]byte(v), true) {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out
}

// feature suggests a feature column and, for a column it suggests ignoring, says why.
func (st *columnStats) feature(name string) (Column, Ignored) {
	c := Column{Name: name}
	why := Ignored{Column: name}
	switch {
	case st.seen == st.marks:
		c.Kind, why.Reason = Ignore, "every value in the rows read is missing"
	case st.numeric && st.min == st.max:
		c.Kind, why.Reason, why.Instead = Ignore, "every value in the rows read is the same number: it carries no information", Numeric
	case st.numeric && math.IsInf(st.max-st.min, 0):
		c.Kind, why.Reason, why.Instead = Ignore, "its numbers are too far apart for a range", Numeric
	case st.numeric && st.rising && !st.missingNumbers() && st.seen >= minRisingRows:
		c.Kind, why.Instead = Ignore, Numeric
		why.Reason = "its values are whole numbers that grow on every row read, like a row number or an identifier: a model would learn the order of the file"
	case st.numeric || st.mostlyNumbers():
		c.Kind, c.Min, c.Max, c.Derived = Numeric, st.min, st.max, []string{"min", "max"}
		if st.missingNumbers() {
			c.Missing = Missing{Replace: true, Value: strconv.FormatFloat(c.Min, 'g', -1, 64)}
			c.Derived = append(c.Derived, "missing")
		}
	case len(st.values) <= maxSuggestedValues:
		c.Kind, c.Categories, c.Derived = Categorical, st.sorted(false), []string{"categories"}
		if st.missing {
			if !slices.Contains(c.Categories, "?") {
				c.Categories = append(c.Categories, "?")
			}
			c.Missing = Missing{Replace: true, Value: "?"}
			c.Derived = append(c.Derived, "missing")
		}
	default:
		c.Kind, why.Instead = Ignore, Categorical
		why.Reason = "it has more than " + strconv.Itoa(maxSuggestedValues) + " distinct texts in the rows read, like an identifier or free text"
	}
	return c, why
}

// label suggests the label column.
func (st *columnStats) label(name string) (Column, error) {
	c := Column{Name: name}
	numbers := st.numeric && st.numbers > 0
	v := st.sorted(numbers) // a number column's marks of missing numbers are no label's value
	switch {
	case numbers && st.rising && !st.missingNumbers() && st.seen >= minRisingRows:
		return c, schemaError(name, "suggest: the last column cannot be the label: its values are whole numbers that grow on every row read, like a row number or an identifier (put the column to predict last)")
	case len(v) == 2:
		c.Kind, c.Negative, c.Positive, c.Derived = BinaryLabel, v[:1], v[1:], []string{"positive", "negative"}
	case numbers && len(v) > 2 && !math.IsInf(st.max-st.min, 0):
		c.Kind, c.Min, c.Max, c.Derived = NumericLabel, st.min, st.max, []string{"min", "max"}
	case len(v) > 2 && len(v) <= maxSuggestedValues:
		c.Kind, c.Classes, c.Derived = ClassLabel, v, []string{"classes"}
	default:
		return c, schemaError(name, "suggest: the last column cannot be the label: it has %d distinct values in the first rows (a label needs 2 to %d, or numbers; put the column to predict last)", len(v), maxSuggestedValues)
	}
	return c, nil
}
