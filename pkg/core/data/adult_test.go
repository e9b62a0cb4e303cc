package data

import (
	"bufio"
	"github.com/privopt/privopt/pkg/core/geom"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/privopt/privopt/internal/adultdata"
)

// adultSchemaPath is the shipped adult-lr schema, relative to this package.
const adultSchemaPath = "../../../examples/adult-lr.schema.json"

// openAdult opens a file of the shared UCI Adult data, failing the test with the reason when
// it is missing.
func openAdult(t testing.TB, name string) *os.File {
	t.Helper()
	path, err := adultdata.File(name)
	if err != nil {
		t.Fatalf("the adult-lr tests need the shared data: %v", err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func loadAdultSchema(t testing.TB) *Schema {
	t.Helper()
	f, err := os.Open(adultSchemaPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := LoadSchema(f)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// adultCategories reads the category lists of adult.names ("name: a, b, c.").
func adultCategories(t *testing.T) map[string][]string {
	t.Helper()
	re := regexp.MustCompile(`^([a-z-]+): (.*)\.$`)
	cats := map[string][]string{}
	sc := bufio.NewScanner(openAdult(t, "adult.names"))
	for sc.Scan() {
		m := re.FindStringSubmatch(sc.Text())
		if m == nil || m[2] == "continuous" {
			continue
		}
		for _, v := range strings.Split(m[2], ",") {
			cats[m[1]] = append(cats[m[1]], strings.TrimSpace(v))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cats
}

// TestAdult encodes both adult files with the shipped schema and checks them against an
// independent implementation of bench/ADULT.md written here from adult.names: d = 92, every
// row equal to x = [z/√24, 1/√2] within 1e-15 (the schema computes the factor as
// sqrt((1 − b²)/12) with b the float64 nearest 1/√2, which differs from 1/√24 by rounding
// only), ‖x‖₂ ≤ 1 (with no slack: Encode guarantees the computed norm), no clipped row or
// value, and the label counts found by counting the raw lines that end in ">50K" or ">50K.".
func TestAdult(t *testing.T) {
	s := loadAdultSchema(t)
	cats := adultCategories(t)
	for _, c := range []string{"workclass", "occupation", "native-country"} {
		cats[c] = append(cats[c], "?")
	}
	numeric := map[string][2]float64{"age": {17, 90}, "education-num": {1, 16}, "capital-gain": {0, 99999},
		"capital-loss": {0, 99999}, "hours-per-week": {1, 99}}
	order := []string{"age", "workclass", "education-num", "marital-status", "occupation", "relationship",
		"race", "sex", "capital-gain", "capital-loss", "hours-per-week", "native-country"}
	var features []string
	for _, c := range order {
		if _, ok := numeric[c]; ok {
			features = append(features, c)
			continue
		}
		for _, v := range cats[c] {
			features = append(features, c+"="+v)
		}
	}
	features = append(features, "(bias)")

	for _, file := range []struct {
		name string
		rows int // from adult.names
	}{{"adult.data", 32561}, {"adult.test", 16281}} {
		t.Run(file.name, func(t *testing.T) {
			ds, diag, err := Encode(openAdult(t, file.name), s)
			if err != nil {
				t.Fatal(err)
			}
			if ds.N != file.rows || ds.D != 92 || !slices.Equal(ds.Features, features) {
				t.Fatalf("N = %d, D = %d, features %q; want %d, 92, %q", ds.N, ds.D, ds.Features, file.rows, features)
			}
			if ds.P != 2 || ds.Radius != 1 || ds.Label.Kind != LabelBinary {
				t.Fatalf("P = %v, Radius = %v, label %+v", ds.P, ds.Radius, ds.Label)
			}
			if diag.ClippedRows != 0 {
				t.Errorf("%d rows clipped; the adult-lr scaling clips none by construction", diag.ClippedRows)
			}
			for _, c := range diag.Columns {
				if c.Clipped != 0 || c.Other != 0 {
					t.Errorf("column %q: %d values clipped, %d outside the declared lists; want none", c.Name, c.Clipped, c.Other)
				}
			}

			// The independent implementation, line by line.
			sc := bufio.NewScanner(openAdult(t, file.name))
			sc.Scan() // the header
			positives, i := 0, 0
			for ; sc.Scan(); i++ {
				fields := strings.Split(sc.Text(), ", ")
				if len(fields) != 15 {
					t.Fatalf("line %d has %d fields", i+2, len(fields))
				}
				get := map[string]string{}
				for k, name := range []string{"age", "workclass", "fnlwgt", "education", "education-num", "marital-status",
					"occupation", "relationship", "race", "sex", "capital-gain", "capital-loss", "hours-per-week", "native-country", "Y"} {
					get[name] = fields[k]
				}
				var z []float64
				for _, c := range order {
					if b, ok := numeric[c]; ok {
						v, err := strconv.ParseFloat(get[c], 64)
						if err != nil {
							t.Fatal(err)
						}
						z = append(z, (min(max(v, b[0]), b[1])-b[0])/(b[1]-b[0]))
						continue
					}
					k := slices.Index(cats[c], get[c])
					if k < 0 {
						t.Fatalf("line %d: %q is not a category of %s in adult.names", i+2, get[c], c)
					}
					oneHot := make([]float64, len(cats[c]))
					oneHot[k] = 1
					z = append(z, oneHot...)
				}
				want := append(scaleRows([][]float64{z}, 1/math.Sqrt(24))[0], 1/math.Sqrt2)
				row := ds.Row(i, nil)
				for k := range want {
					if !closeTo(row[k], want[k], 1e-15) {
						t.Fatalf("row %d, feature %q = %v; ADULT.md gives %v", i, features[k], row[k], want[k])
					}
				}
				if n := geom.Norm(row, 2); n > 1 {
					t.Fatalf("row %d has norm %v > 1", i, n)
				}
				wantY := -1.0
				if strings.HasSuffix(sc.Text(), ">50K") || strings.HasSuffix(sc.Text(), ">50K.") {
					wantY = 1
					positives++
				}
				if ds.Y[i] != wantY {
					t.Fatalf("row %d: Y = %v, want %v", i, ds.Y[i], wantY)
				}
			}
			if err := sc.Err(); err != nil {
				t.Fatal(err)
			}
			if i != ds.N {
				t.Fatalf("%d lines, %d rows", i, ds.N)
			}
			got := 0
			for _, y := range ds.Y {
				if y == 1 {
					got++
				}
			}
			if got != positives {
				t.Errorf("%d positive labels; the raw lines have %d", got, positives)
			}
			t.Logf("%s: %d rows, %d labels +1, %d labels −1", file.name, ds.N, got, ds.N-got)
		})
	}
}
