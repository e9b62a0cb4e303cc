package data

import (
	"io"
	"strings"
	"testing"
	"time"
)

// TestProgressReader: the bytes pass through unchanged; the first read reports, later ones
// only after the interval; the fractions grow to 1; a size of 0 reports nothing.
func TestProgressReader(t *testing.T) {
	text := strings.Repeat("0123456789", 100)
	var got []float64
	r := ProgressReader(&oneByteAtATime{strings.NewReader(text)}, int64(len(text)), 0, func(f float64) { got = append(got, f) })
	b, err := io.ReadAll(r)
	if err != nil || string(b) != text {
		t.Fatalf("read %d bytes, %v", len(b), err)
	}
	if len(got) < len(text) || got[0] != 1.0/1000 || got[len(got)-1] != 1 {
		t.Errorf("%d reports, first %g, last %g", len(got), got[0], got[len(got)-1])
	}
	got = nil
	io.ReadAll(ProgressReader(&oneByteAtATime{strings.NewReader(text)}, int64(len(text)), time.Hour, func(f float64) { got = append(got, f) }))
	if len(got) != 1 {
		t.Errorf("an hour's interval gave %d reports, want the first only", len(got))
	}
	got = nil
	io.ReadAll(ProgressReader(strings.NewReader(text), 0, 0, func(f float64) { got = append(got, f) }))
	if len(got) != 0 {
		t.Errorf("size 0 gave reports %v", got)
	}
}

// oneByteAtATime reads one byte per call.
type oneByteAtATime struct{ r io.Reader }

func (o *oneByteAtATime) Read(b []byte) (int, error) { return o.r.Read(b[:min(1, len(b))]) }
