package data

import (
	"bytes"
	"os"
	"testing"

	"github.com/privopt/privopt/internal/adultdata"
)

// BenchmarkEncodeAdult encodes adult.data (32,561 rows, 4 MB, d = 92) from memory with the
// shipped schema, and reports rows per second.
func BenchmarkEncodeAdult(b *testing.B) {
	path, err := adultdata.File("adult.data")
	if err != nil {
		b.Fatalf("the adult-lr benchmark needs the shared data: %v", err)
	}
	input, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	s := loadAdultSchema(b)
	b.SetBytes(int64(len(input)))
	rows := 0
	for b.Loop() {
		ds, _, err := Encode(bytes.NewReader(input), s)
		if err != nil {
			b.Fatal(err)
		}
		rows += ds.N
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkEncodeGenerated streams 100,000 generated rows (4 columns, d = 6) from an
// io.Reader that makes them on the fly, and reports rows per second.
func BenchmarkEncodeGenerated(b *testing.B) {
	const n = 100_000
	s := mustSchema(b, generatedSchema)
	rows := 0
	for b.Loop() {
		ds, _, err := Encode(&generatedRows{n: n}, s)
		if err != nil {
			b.Fatal(err)
		}
		rows += ds.N
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
}
