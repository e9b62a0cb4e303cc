package data

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// readAll reads a CSV input with openCSV and next, returning the header, the records and the
// line where each record starts.
func readAll(input string, delim byte) (names []string, records [][]string, lines []int, err error) {
	rr, names, err := openCSV(strings.NewReader(input), delim)
	if err != nil {
		return nil, nil, nil, err
	}
	for {
		ok, err := rr.next(names)
		if err != nil {
			return nil, nil, nil, err
		}
		if !ok {
			return names, records, lines, nil
		}
		rec := make([]string, len(rr.fields))
		for k, f := range rr.fields {
			rec[k] = string(f)
		}
		records = append(records, rec)
		lines = append(lines, rr.start)
	}
}

func TestReadCSVDialect(t *testing.T) {
	tests := []struct {
		name    string
		input   string
		delim   byte // 0: detect
		header  []string
		records [][]string
		lines   []int
	}{
		{"plain comma", "a,b\n1,2\n3,4\n", 0,
			[]string{"a", "b"}, [][]string{{"1", "2"}, {"3", "4"}}, []int{2, 3}},
		{"comma and space (UCI Adult)", "age, workclass\n39, State-gov\n50, Self-emp-not-inc\n", 0,
			[]string{"age", "workclass"}, [][]string{{"39", "State-gov"}, {"50", "Self-emp-not-inc"}}, []int{2, 3}},
		{"semicolon detected", "a;b;c\n1;2,5;3\n", 0,
			[]string{"a", "b", "c"}, [][]string{{"1", "2,5", "3"}}, []int{2}},
		{"tab detected, inner spaces kept", "a\tb c\n1 2\t x \n", 0,
			[]string{"a", "b c"}, [][]string{{"1 2", "x"}}, []int{2}},
		{"tab delimiter keeps empty fields", "a\tb\tc\n\t\t3\n", 0,
			[]string{"a", "b", "c"}, [][]string{{"", "", "3"}}, []int{2}},
		{"quoted delimiter, doubled quote, line break", "a,b,c\n\"x,y\",\"say \"\"hi\"\"\",\"one\ntwo\"\n5,6,7\n", 0,
			[]string{"a", "b", "c"}, [][]string{{"x,y", `say "hi"`, "one\ntwo"}, {"5", "6", "7"}}, []int{2, 4}},
		{"CRLF inside quotes reads as LF", "a,b\r\n\"1\r\n2\",3\r\n", 0,
			[]string{"a", "b"}, [][]string{{"1\n2", "3"}}, []int{2}},
		{"byte-order mark and CRLF", "\xEF\xBB\xBFa,b\r\n1,2\r\n", 0,
			[]string{"a", "b"}, [][]string{{"1", "2"}}, []int{2}},
		{"empty fields and a trailing delimiter", "a,b,c\n1,,\n,,\n", 0,
			[]string{"a", "b", "c"}, [][]string{{"1", "", ""}, {"", "", ""}}, []int{2, 3}},
		{"empty lines skipped, lines still counted", "\na,b\n\n1,2\n\r\n3,4\n\n", 0,
			[]string{"a", "b"}, [][]string{{"1", "2"}, {"3", "4"}}, []int{4, 6}},
		{"spaces around quotes removed, inside kept", "a,b\n  \" x \" , y\n", 0,
			[]string{"a", "b"}, [][]string{{" x ", "y"}}, []int{2}},
		{"empty quoted field", "a,b\n\"\",2\n", 0,
			[]string{"a", "b"}, [][]string{{"", "2"}}, []int{2}},
		{"quoted header name with a comma", "\"x,y\";z\n1;2\n", 0,
			[]string{"x,y", "z"}, [][]string{{"1", "2"}}, []int{2}},
		{"declared delimiter wins", "a,b;c\n1,2;3\n", ';',
			[]string{"a,b", "c"}, [][]string{{"1,2", "3"}}, []int{2}},
		{"one column", "a\n1\n2", 0,
			[]string{"a"}, [][]string{{"1"}, {"2"}}, []int{2, 3}},
		{"no final line ending, final CR dropped", "a,b\n1,2\r", 0,
			[]string{"a", "b"}, [][]string{{"1", "2"}}, []int{2}},
		{"UTF-8 text", "名前,値\né,ü\n", 0,
			[]string{"名前", "値"}, [][]string{{"é", "ü"}}, []int{2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			header, records, lines, err := readAll(tc.input, tc.delim)
			if err != nil {
				t.Fatalf("read %q: %v", tc.input, err)
			}
			if !slices.Equal(header, tc.header) {
				t.Errorf("header = %q, want %q", header, tc.header)
			}
			if !slices.EqualFunc(records, tc.records, slices.Equal) {
				t.Errorf("records = %q, want %q", records, tc.records)
			}
			if !slices.Equal(lines, tc.lines) {
				t.Errorf("record lines = %v, want %v", lines, tc.lines)
			}
		})
	}
}

// TestLineLimit checks that a line of exactly maxRecord bytes is read, whatever its line
// ending, and that one byte more is refused.
func TestLineLimit(t *testing.T) {
	full := strings.Repeat("1", maxRecord)
	for _, end := range []string{"", "\n", "\r\n", "\r"} {
		_, records, _, err := readAll("a\n"+full+end, 0)
		if err != nil || len(records) != 1 || len(records[0][0]) != maxRecord {
			t.Errorf("a line of %d bytes ending in %q: %d records, %v; want one record of %d bytes", maxRecord, end, len(records), err, maxRecord)
		}
		_, records, _, err = readAll(full+end+"\n1\n", 0)
		if err != nil || len(records) != 1 {
			t.Errorf("a header of %d bytes ending in %q: %d records, %v; want one record", maxRecord, end, len(records), err)
		}
		const want = "data: line 2: line longer than 1048576 bytes"
		if _, _, _, err := readAll("a\n1"+full+end, 0); err == nil || err.Error() != want {
			t.Errorf("a line of %d bytes ending in %q: %v; want %s", maxRecord+1, end, err, want)
		}
	}
}

func TestDetectDelimiter(t *testing.T) {
	tests := []struct {
		header string
		want   byte
		err    string
	}{
		{"a,b,c", ',', ""},
		{"a;b;c", ';', ""},
		{"a\tb\tc", '\t', ""},
		{"price (net, €);qty;total", ';', ""},
		{`"a;b";"c;d",e,f`, ',', ""},
		{"single", ',', ""},
		{"\n\r\na;b\nc,d,e,f", ';', ""},
		{"a,b;c;d,e", 0, `data: line 1: cannot tell the delimiter: the header line has 2 commas, 2 semicolons and 0 tabs (declare "delimiter" in the schema)`},
		{"\na,b\tc", 0, `data: line 2: cannot tell the delimiter: the header line has 1 commas, 0 semicolons and 1 tabs (declare "delimiter" in the schema)`},
	}
	for _, tc := range tests {
		got, err := detectDelimiter([]byte(tc.header))
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("detectDelimiter(%q) = %q, %v; want error %q", tc.header, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("detectDelimiter(%q) = %q, %v; want %q", tc.header, got, err, tc.want)
		}
	}
}

// TestHeaderStartingLikeBzip2: a header that starts with the letters "BZh" but not bzip2's
// block-size digit is CSV text.
func TestHeaderStartingLikeBzip2(t *testing.T) {
	rr, names, err := openCSV(strings.NewReader("BZhours,y\n1,2\n"), 0)
	if err != nil || rr == nil || len(names) != 2 || names[0] != "BZhours" {
		t.Errorf("openCSV: %v, %q", err, names)
	}
}

// TestPreview: the preview reads as Encode does (spaces around fields removed, quoted
// delimiters and line breaks kept, empty lines skipped, the delimiter detected), at most
// maxRows rows, and stops quietly at the first record Encode would refuse.
func TestPreview(t *testing.T) {
	in := "\xEF\xBB\xBFa; b ;c\n 1 ;\"x;y\";\"two\nlines\"\n\n2;z;w\n3;only two\n4;5;6\n"
	h, rows, err := Preview(strings.NewReader(in), 0, 10)
	want := [][]string{{"1", "x;y", "two\nlines"}, {"2", "z", "w"}}
	if err != nil || !slices.Equal(h, []string{"a", "b", "c"}) || !reflect.DeepEqual(rows, want) {
		t.Fatalf("Preview = %q, %q, %v; want the header a, b, c and rows %q", h, rows, err, want)
	}
	if _, rows, _ := Preview(strings.NewReader(in), ';', 1); len(rows) != 1 {
		t.Errorf("maxRows 1: %d rows", len(rows))
	}
	if _, _, err := Preview(strings.NewReader("a,a\n1,2\n"), 0, 10); err == nil {
		t.Error("a duplicate column name in the header: no error")
	}
}
