package data

import "testing"

// TestParseNumberTable checks which texts are numbers: decimal syntax only, finite, within
// float64 (underflow to 0 is fine).
func TestParseNumberTable(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		err  string
	}{
		{"1", 1, ""}, {"-2.5", -2.5, ""}, {"+3e2", 300, ""}, {".5", 0.5, ""}, {"5.", 5, ""}, {"1E-3", 0.001, ""},
		{"1e-400", 0, ""}, {"007", 7, ""},
		{"0x1p4", 0, `"0x1p4" is not a number`}, {"-0X1P4", 0, `"-0X1P4" is not a number`}, {"0x_1p4", 0, `"0x_1p4" is not a number`},
		{"1_000", 0, `"1_000" is not a number`}, {"1,5", 0, `"1,5" is not a number`}, {"", 0, `"" is not a number`},
		{"NaN", 0, `"NaN" is not a finite number`}, {"-infinity", 0, `"-infinity" is not a finite number`}, {"+Inf", 0, `"+Inf" is not a finite number`},
		{"1e309", 0, `"1e309" is beyond the range of float64`}, {"-1e309", 0, `"-1e309" is beyond the range of float64`},
		{"0x1p9999", 0, `"0x1p9999" is not a number`}, {"1e", 0, `"1e" is not a number`}, {"--1", 0, `"--1" is not a number`},
	}
	for _, tc := range tests {
		got, err := parseNumber([]byte(tc.in))
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("parseNumber(%q) = %v, %v; want error %s", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("parseNumber(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}
