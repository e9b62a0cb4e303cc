package data

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// suggestInput has a numeric column with a missing value, a categorical one with a missing
// value, an identifier with 60 distinct values, a constant, and a binary label; a malformed
// line follows row 60.
func suggestInput() string {
	var b strings.Builder
	b.WriteString("age; color; id; const; label\n")
	for i := range 60 {
		age, color := fmt.Sprint(20+i%30), []string{"red", "blue", "green"}[i%3]
		if i == 5 {
			age = "?"
		}
		if i == 7 {
			color = ""
		}
		fmt.Fprintf(&b, "%s; %s; id%d; 4; %s\n", age, color, i, []string{"no", "yes"}[i%2])
	}
	b.WriteString("this line is malformed\n")
	return b.String()
}

func TestSuggestSchema(t *testing.T) {
	s, ignored, err := SuggestSchema(strings.NewReader(suggestInput()), 60)
	if err != nil {
		t.Fatal(err)
	}
	wantIgnored := []Ignored{
		{Column: "id", Reason: "it has more than 50 distinct texts in the rows read, like an identifier or free text", Instead: Categorical},
		{Column: "const", Reason: "every value in the rows read is the same number: it carries no information", Instead: Numeric},
	}
	if !reflect.DeepEqual(ignored, wantIgnored) {
		t.Errorf("ignored %+v, want %+v", ignored, wantIgnored)
	}
	want := &Schema{Norm: Norm{P: 2, Radius: 1, Bias: math.Sqrt2 / 2, Fit: FitScale}, Columns: []Column{
		{Name: "age", Kind: Numeric, Min: 20, Max: 49, Missing: Missing{Replace: true, Value: "20"}, Derived: []string{"min", "max", "missing"}},
		{Name: "color", Kind: Categorical, Categories: []string{"blue", "green", "red", "?"}, Missing: Missing{Replace: true, Value: "?"},
			Derived: []string{"categories", "missing"}},
		{Name: "id", Kind: Ignore},
		{Name: "const", Kind: Ignore},
		{Name: "label", Kind: BinaryLabel, Positive: []string{"yes"}, Negative: []string{"no"}, Derived: []string{"positive", "negative"}},
	}}
	if !reflect.DeepEqual(s, want) {
		t.Fatalf("SuggestSchema =\n%+v\nwant\n%+v", s, want)
	}
	// The marks survive JSON.
	js, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if back := mustSchema(t, string(js)); !reflect.DeepEqual(back, s) {
		t.Fatalf("the suggestion changed through JSON: %s", js)
	}
	// Encode refuses the suggestion until every mark is confirmed.
	data := strings.Join(strings.Split(suggestInput(), "\n")[:61], "\n")
	if _, _, err := Encode(strings.NewReader(data), s); err == nil ||
		!strings.Contains(err.Error(), `column "age": min was read from the data and is not confirmed (and 6 more)`) {
		t.Fatalf("Encode of an unconfirmed suggestion: %v", err)
	}
	for _, u := range [][2]string{{"age", "min"}, {"age", "max"}, {"age", "missing"}, {"color", "categories"},
		{"color", "missing"}, {"label", "positive"}, {"label", "negative"}} {
		if err := s.Confirm(u[0], u[1]); err != nil {
			t.Fatal(err)
		}
	}
	ds, diag, err := Encode(strings.NewReader(data), s)
	if err != nil {
		t.Fatalf("Encode after confirming: %v", err)
	}
	if ds.N != 60 || ds.D != 1+4+1 || diag.Columns[0].Missing != 1 || diag.Columns[1].Missing != 1 {
		t.Fatalf("N = %d, D = %d, diagnostics %+v", ds.N, ds.D, diag)
	}
}

func TestSuggestLabel(t *testing.T) {
	tests := []struct {
		name, input string
		want        Column
		err         string
	}{
		{"numeric target", "x,t\n1,0.5\n2,-3\n3,8\n", Column{Name: "t", Kind: NumericLabel, Min: -3, Max: 8, Derived: []string{"min", "max"}}, ""},
		{"two numbers are binary", "x,t\n1,1\n2,0\n3,1\n", Column{Name: "t", Kind: BinaryLabel, Positive: []string{"1"}, Negative: []string{"0"}, Derived: []string{"positive", "negative"}}, ""},
		{"classes", "x,t\n1,cat\n2,dog\n3,cow\n", Column{Name: "t", Kind: ClassLabel, Classes: []string{"cat", "cow", "dog"}, Derived: []string{"classes"}}, ""},
		{"one value", "x,t\n1,a\n2,a\n", Column{}, `data: schema: column "t": suggest: the last column cannot be the label: it has 1 distinct values in the first rows (a label needs 2 to 50, or numbers; put the column to predict last)`},
		{"malformed row", "x,t\n1,a\n2,b,c\n", Column{}, `data: line 3: 3 fields, but the header has 2 (the delimiter is a comma)`},
		{"a row number", "x,id\n" + rowNumbers(25), Column{},
			`data: schema: column "id": suggest: the last column cannot be the label: its values are whole numbers that grow on every row read, like a row number or an identifier (put the column to predict last)`},
		{"no rows", "x,t\n", Column{}, `data: line 2: no data rows after the header`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, _, err := SuggestSchema(strings.NewReader(tc.input), 100)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error %v, want %s", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Columns[1]; !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("label %+v, want %+v", got, tc.want)
			}
		})
	}
	if _, _, err := SuggestSchema(strings.NewReader("x,t\n1,2\n"), 0); err == nil {
		t.Fatal("SuggestSchema read 0 rows without an error")
	}
}

// TestSuggestMostlyNumbers: a numeric column with a stray text value is suggested numeric, not
// ignored in silence, and encoding names the line of the stray value; a column with more texts
// than a tenth of its values is not numeric.
func TestSuggestMostlyNumbers(t *testing.T) {
	var b strings.Builder
	b.WriteString("pressure,notes,label\n")
	for i := range 40 {
		p, note := fmt.Sprint(100+i), fmt.Sprint(i)
		if i == 12 {
			p = "high"
		}
		if i%4 == 0 {
			note = "n/a" + fmt.Sprint(i%3)
		}
		fmt.Fprintf(&b, "%s,%s,%d\n", p, note, i%2)
	}
	s, _, err := SuggestSchema(strings.NewReader(b.String()), 1000)
	if err != nil {
		t.Fatal(err)
	}
	if c := s.Columns[0]; c.Kind != Numeric || c.Min != 100 || c.Max != 139 {
		t.Fatalf("the pressure column: %+v", c)
	}
	if c := s.Columns[1]; c.Kind == Numeric {
		t.Fatalf("a quarter of texts made the notes column numeric: %+v", c)
	}
	for _, c := range s.Columns {
		for _, f := range slices.Clone(c.Derived) {
			if err := s.Confirm(c.Name, f); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, _, err := Encode(strings.NewReader(b.String()), s); err == nil || !strings.Contains(err.Error(), "line 14") || !strings.Contains(err.Error(), "high") {
		t.Fatalf("encoding the stray value: %v", err)
	}
}

// TestSuggestIgnoredSaysWhy: every column the suggestion ignores is listed with the reason and
// the kind it could have instead, for the person to choose; no other column is.
func TestSuggestIgnoredSaysWhy(t *testing.T) {
	var b strings.Builder
	b.WriteString("patient,comment,empty,huge,dose,label\n")
	for i := range 80 {
		fmt.Fprintf(&b, "P%04d,felt %d times better,,%de307,%d,%d\n", i, i, 1-2*(i%2)*9, i%5, i%2)
	}
	s, ignored, err := SuggestSchema(strings.NewReader(b.String()), 1000)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Kind{"patient": Categorical, "comment": Categorical, "empty": "", "huge": Numeric}
	for _, g := range ignored {
		k, ok := want[g.Column]
		if !ok || g.Instead != k || g.Reason == "" {
			t.Errorf("ignored %+v", g)
		}
		delete(want, g.Column)
	}
	if len(want) > 0 {
		t.Errorf("not listed: %v", want)
	}
	for _, c := range s.Columns {
		if ignoredColumn := slices.ContainsFunc(ignored, func(g Ignored) bool { return g.Column == c.Name }); ignoredColumn != (c.Kind == Ignore) {
			t.Errorf("column %q of kind %s: listed as ignored %v", c.Name, c.Kind, ignoredColumn)
		}
	}
}

// TestSuggestRowNumbers: a column of whole numbers that grow on every row (a row number, an
// identifier) is suggested ignored, with the reason, and can be declared numeric instead; a
// sorted column with ties, a column of growing decimals and a short file are kept numeric.
func TestSuggestRowNumbers(t *testing.T) {
	file := func(rows int) string {
		var b strings.Builder
		b.WriteString("id,year,score,label\n")
		for i := range rows {
			fmt.Fprintf(&b, "%d,%d,%g,%d\n", 1000+3*i, 1990+i/2, 0.5+float64(i), i%2)
		}
		return b.String()
	}
	s, ignored, err := SuggestSchema(strings.NewReader(file(40)), 1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(ignored) != 1 || ignored[0].Column != "id" || ignored[0].Instead != Numeric || !strings.Contains(ignored[0].Reason, "row number or an identifier") {
		t.Errorf("ignored = %+v, want id alone, as a row number", ignored)
	}
	for _, c := range s.Columns[1:3] {
		if c.Kind != Numeric {
			t.Errorf("column %s: %s, want numeric", c.Name, c.Kind)
		}
	}
	if s, ignored, err = SuggestSchema(strings.NewReader(file(minRisingRows-1)), 1000); err != nil || len(ignored) != 0 || s.Columns[0].Kind != Numeric {
		t.Errorf("%d rows: id is %s, ignored %+v, %v", minRisingRows-1, s.Columns[0].Kind, ignored, err)
	}
}

// TestSuggestDecimalComma: a file written with decimal commas (delimited by semicolons, as a
// spreadsheet in many languages saves it) is suggested with "decimal": "," and its number
// columns numeric over their values; a file with points keeps the point, and whole numbers
// alone do not make a comma.
func TestSuggestDecimalComma(t *testing.T) {
	var b strings.Builder
	b.WriteString("height;count;town;label\n")
	for i := range 30 {
		fmt.Fprintf(&b, "%d,%d;%d;t%d;%d,5\n", 150+i, i%10, i%7, i%3, i%4)
	}
	s, ignored, err := SuggestSchema(strings.NewReader(b.String()), 1000)
	if err != nil {
		t.Fatal(err)
	}
	if s.Decimal != ',' || len(ignored) != 0 {
		t.Fatalf("decimal mark %q, ignored %+v", s.Decimal, ignored)
	}
	if c := s.Columns[0]; c.Kind != Numeric || c.Min != 150 || c.Max != 179.9 {
		t.Errorf("height: %+v", c)
	}
	if c := s.Columns[1]; c.Kind != Numeric || c.Min != 0 || c.Max != 6 {
		t.Errorf("count: %+v", c)
	}
	if c := s.Columns[3]; c.Kind != NumericLabel || c.Min != 0.5 || c.Max != 3.5 {
		t.Errorf("label: %+v", c)
	}
	confirmAll(t, s)
	if _, _, err := Encode(strings.NewReader(b.String()), s); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{"a;b;y\n1.5;2;1\n2,5;3;0\n", "a;b;y\n1;2;1\n2;3;0\n"} {
		if s, _, err := SuggestSchema(strings.NewReader(file), 1000); err != nil || s.Decimal != 0 {
			t.Errorf("%q: decimal mark %q, %v", file, s.Decimal, err)
		}
	}
}

// TestSuggestMissingNumbers: NA, NaN, NULL and the like among numbers are missing values of a
// numeric column (replaced by its min, marked derived), not texts that make it categorical; a
// column of nothing else is ignored as missing; a label's are no label value.
func TestSuggestMissingNumbers(t *testing.T) {
	var b strings.Builder
	b.WriteString("dose,nothing,word,label\n")
	for i := range 40 {
		dose, word := fmt.Sprint(i%9+1), []string{"NA", "yes"}[i%2]
		if i%5 == 0 {
			dose = []string{"NA", "NaN", "null", "#N/A", "."}[i/5%5]
		}
		label := fmt.Sprint(i % 2)
		if i == 3 {
			label = "NA"
		}
		fmt.Fprintf(&b, "%s,%s,%s,%s\n", dose, []string{"NA", "NULL"}[i%2], word, label)
	}
	s, ignored, err := SuggestSchema(strings.NewReader(b.String()), 1000)
	if err != nil {
		t.Fatal(err)
	}
	want := []Column{
		{Name: "dose", Kind: Numeric, Min: 1, Max: 9, Missing: Missing{Replace: true, Value: "1"}, Derived: []string{"min", "max", "missing"}},
		{Name: "nothing", Kind: Ignore},
		{Name: "word", Kind: Categorical, Categories: []string{"NA", "yes"}, Derived: []string{"categories"}},
		{Name: "label", Kind: BinaryLabel, Positive: []string{"1"}, Negative: []string{"0"}, Derived: []string{"positive", "negative"}},
	}
	if !reflect.DeepEqual(s.Columns, want) {
		t.Fatalf("columns\n%+v\nwant\n%+v", s.Columns, want)
	}
	if len(ignored) != 1 || ignored[0].Reason != "every value in the rows read is missing" {
		t.Fatalf("ignored %+v", ignored)
	}
}

// rowNumbers returns n rows "x,id" with ids 1000, 1001, … growing on every row.
func rowNumbers(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%d,%d\n", i%7, 1000+i)
	}
	return b.String()
}
