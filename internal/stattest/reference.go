package stattest

import (
	"bufio"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// RefRow is one row of a reference table: its kind, its named inputs, the inputs as written,
// and its values.
type RefRow struct {
	Kind   string
	In     map[string]float64
	Args   string
	Values []string
}

// ReadReference reads a tab-separated reference table — kind, then "name=value" inputs
// separated by spaces, then values — skipping empty lines, lines starting with # and a header
// line starting with "kind".
func ReadReference(t testing.TB, path string) []RefRow {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []RefRow
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.HasPrefix(line, "kind\t") || line == "" {
			continue
		}
		cols := strings.Split(line, "\t")
		r := RefRow{Kind: cols[0], In: map[string]float64{}, Args: cols[1], Values: cols[2:]}
		for _, kv := range strings.Fields(cols[1]) {
			k, v, _ := strings.Cut(kv, "=")
			x, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("%s: bad input %q", path, kv)
			}
			r.In[k] = x
		}
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

// Parse returns the number s of a reference table, failing the test if it is not one.
func Parse(t testing.TB, s string) float64 {
	t.Helper()
	x, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("bad reference value %q", s)
	}
	return x
}

// RelErr returns |got − want|/|want|, and 0 when they are equal.
func RelErr(got, want float64) float64 {
	if got == want {
		return 0
	}
	return math.Abs(got-want) / math.Abs(want)
}
