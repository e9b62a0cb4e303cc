package data

import (
	"strings"
	"testing"
)

// TestParseNumberTable checks which texts are numbers: decimal syntax only, finite, within
// float64 (underflow to 0 is fine); with a decimal comma (comma), the same values, and a point
// refused (it could be a thousands separator).
func TestParseNumberTable(t *testing.T) {
	tests := []struct {
		in    string
		comma bool
		want  float64
		err   string
	}{
		{"1", false, 1, ""}, {"-2.5", false, -2.5, ""}, {"+3e2", false, 300, ""}, {".5", false, 0.5, ""}, {"5.", false, 5, ""},
		{"1E-3", false, 0.001, ""}, {"1e-400", false, 0, ""}, {"007", false, 7, ""},
		{"0x1p4", false, 0, `"0x1p4" is not a number`}, {"-0X1P4", false, 0, `"-0X1P4" is not a number`}, {"0x_1p4", false, 0, `"0x_1p4" is not a number`},
		{"1_000", false, 0, `"1_000" is not a number`}, {"", false, 0, `"" is not a number`},
		{"1,5", false, 0, `"1,5" is not a number (if the file's decimal mark is a comma, declare "decimal": "," in the schema)`},
		{"NaN", false, 0, `"NaN" is not a finite number`}, {"-infinity", false, 0, `"-infinity" is not a finite number`}, {"+Inf", false, 0, `"+Inf" is not a finite number`},
		{"1e309", false, 0, `"1e309" is beyond the range of float64`}, {"-1e309", false, 0, `"-1e309" is beyond the range of float64`},
		{"0x1p9999", false, 0, `"0x1p9999" is not a number`}, {"1e", false, 0, `"1e" is not a number`}, {"--1", false, 0, `"--1" is not a number`},

		{"1", true, 1, ""}, {"-2,5", true, -2.5, ""}, {"+3e2", true, 300, ""}, {",5", true, 0.5, ""}, {"5,", true, 5, ""}, {"1,5E-3", true, 0.0015, ""},
		{"0," + strings.Repeat("0", 40) + "1e41", true, 1, ""},
		{"1.5", true, 0, `"1.5" is not a number with a decimal comma, as the schema declares`},
		{"1.234,5", true, 0, `"1.234,5" is not a number with a decimal comma, as the schema declares`},
		{"1,2,3", true, 0, `"1,2,3" is not a number`}, {"abc", true, 0, `"abc" is not a number`}, {"", true, 0, `"" is not a number`},
		{"NaN", true, 0, `"NaN" is not a finite number`}, {"1e309", true, 0, `"1e309" is beyond the range of float64`},
	}
	for _, tc := range tests {
		got, err := parseMarked([]byte(tc.in), tc.comma)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("parseMarked(%q, %v) = %v, %v; want error %s", tc.in, tc.comma, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("parseMarked(%q, %v) = %v, %v; want %v", tc.in, tc.comma, got, err, tc.want)
		}
	}
}
