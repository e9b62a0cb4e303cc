package privacy

import (
	"bufio"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// referenceRows reads the rows of one kind from the shared reference table, whose inputs
// are "name=value" pairs.
func referenceRows(t *testing.T, kind string) []struct {
	in   map[string]float64
	want float64
	src  string
} {
	t.Helper()
	f, err := os.Open("testdata/gaussian-dp.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []struct {
		in   map[string]float64
		want float64
		src  string
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) != 4 || cols[0] != kind {
			continue
		}
		in := map[string]float64{}
		for _, kv := range strings.Fields(cols[1]) {
			k, v, _ := strings.Cut(kv, "=")
			x, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("bad reference input %q", kv)
			}
			in[k] = x
		}
		want, err := strconv.ParseFloat(cols[2], 64)
		if err != nil {
			t.Fatalf("bad reference value %q", cols[2])
		}
		rows = append(rows, struct {
			in   map[string]float64
			want float64
			src  string
		}{in, want, cols[3]})
	}
	if len(rows) == 0 {
		t.Fatalf("no %q rows in the reference table", kind)
	}
	return rows
}

func TestGaussianDeltaReference(t *testing.T) {
	for _, r := range referenceRows(t, "delta") {
		got := GaussianDelta(r.in["mu"], r.in["eps"])
		if rel := math.Abs(got-r.want) / r.want; rel > 1e-9 {
			t.Errorf("δ(μ=%g, ε=%g) = %.17g, want %.17g (%s): relative error %.2g",
				r.in["mu"], r.in["eps"], got, r.want, r.src, rel)
		}
	}
}
