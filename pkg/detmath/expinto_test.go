package detmath

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestExpIntoBits: ExpInto gives Exp's bits (under WebAssembly its assembly path against Exp
// in Go) on 200,000 arguments over [−760, 760] and [−1, 1], on the edges of the assembly's
// range and of Exp's special cases, on signed zeros, subnormal results, infinities and NaNs,
// in place and into another slice, and for runs that start and stop anywhere. A constant off
// by one ulp or an operation out of order fails.
func TestExpIntoBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(81, 82))
	var x []float64
	for range 100000 {
		x = append(x, (rng.Float64()*2-1)*760, rng.Float64()*2-1)
	}
	for _, v := range []float64{700, -700, 709.78, 709.79, -745.13, -745.14, -708.4, 1e-300, 5e-324} {
		x = append(x, v, -v, math.Nextafter(v, 0), math.Nextafter(v, math.Inf(1)), math.Nextafter(-v, math.Inf(-1)))
	}
	for k := -70000; k <= 70000; k += 997 { // arguments whose reduction rounds at a half
		x = append(x, (float64(k)-0.5)/92.33248261689366)
	}
	x = append(x, 0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 1, -1)
	got := make([]float64, len(x))
	ExpInto(got, x)
	inPlace := append([]float64(nil), x...)
	ExpInto(inPlace, inPlace)
	for i, v := range x {
		want := math.Float64bits(Exp(v))
		if math.Float64bits(got[i]) != want || math.Float64bits(inPlace[i]) != want {
			t.Fatalf("Exp(%v): ExpInto gives %v (in place %v), Exp %v", v, got[i], inPlace[i], Exp(v))
		}
	}
	for n := range 8 { // short runs that end in the special values, into a longer slice
		xs := x[len(x)-n:]
		d := make([]float64, n+1)
		d[n] = 42
		ExpInto(d, xs)
		for i, v := range xs {
			if math.Float64bits(d[i]) != math.Float64bits(Exp(v)) {
				t.Fatalf("Exp(%v) in a run of %d: %v", v, n, d[i])
			}
		}
		if d[n] != 42 {
			t.Fatalf("a run of %d wrote past its end", n)
		}
	}
}

// TestLog1pIntoBits: Log1pInto gives Log1p's bits (under WebAssembly its assembly paths against
// Log1p in Go) on 200,000 arguments over (−1, 1] and over magnitudes up to 10³⁰⁸, on the edges
// of ±1/128, of the assembly's range and of Log's table intervals, on signed zeros, subnormal
// arguments, −1, infinities and NaNs, in place and into another slice.
func TestLog1pIntoBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(83, 84))
	var y []float64
	for range 100000 {
		y = append(y, rng.Float64()*2-1, math.Pow(10, rng.Float64()*616-308)*float64(1-2*rng.IntN(2)))
	}
	for _, v := range []float64{1.0 / 128, 1e300, 1, 0.5, math.Sqrt2 - 1, math.Sqrt2/2 - 1, 5e-324, 1e-300, -1, 2} {
		y = append(y, v, -v, math.Nextafter(v, 0), math.Nextafter(v, math.Inf(1)), math.Nextafter(-v, math.Inf(-1)))
	}
	for j := range 193 { // the table's interval edges: 1 + y = (1/2 + j/128)·2^k
		for _, k := range []float64{1, 2, 64} {
			y = append(y, (0.5+float64(j)/128)*k-1)
		}
	}
	y = append(y, 0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), -1.5)
	got := make([]float64, len(y))
	Log1pInto(got, y)
	inPlace := append([]float64(nil), y...)
	Log1pInto(inPlace, inPlace)
	for i, v := range y {
		want := Log1p(v)
		for _, g := range []float64{got[i], inPlace[i]} {
			if math.Float64bits(g) != math.Float64bits(want) && !(math.IsNaN(g) && math.IsNaN(want)) {
				t.Fatalf("Log1p(%v): Log1pInto gives %v, Log1p %v", v, g, want)
			}
		}
	}
}
