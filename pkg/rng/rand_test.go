package rng

import (
	"bytes"
	"fmt"
	"github.com/privopt/privopt/internal/stattest"
	mrand "math/rand/v2"
	"slices"
	"testing"
)

type goldenStream struct {
	name string
	draw func() []string // the first values of a fresh stream, formatted exactly
}

// goldenStreams returns, for each kind of variate, a function drawing its first values from
// Seeded(2026); %x prints a float64 exactly.
func goldenStreams() []goldenStream {
	const n = 6
	floats := func(f func(r *Rand) float64) func() []string {
		return func() []string {
			r := Seeded(2026)
			out := make([]string, n)
			for i := range out {
				out[i] = fmt.Sprintf("%x", f(r))
			}
			return out
		}
	}
	ints := func(f func(r *Rand) int64) func() []string {
		return func() []string {
			r := Seeded(2026)
			out := make([]string, n)
			for i := range out {
				out[i] = fmt.Sprint(f(r))
			}
			return out
		}
	}
	must := func(v float64, err error) float64 {
		if err != nil {
			panic(err)
		}
		return v
	}
	mustI := func(v int64, err error) int64 {
		if err != nil {
			panic(err)
		}
		return v
	}
	vec := func(f func(r *Rand, dst []float64) error) func(r *Rand) float64 {
		dst := make([]float64, 3)
		i := 0
		return func(r *Rand) float64 {
			if i%3 == 0 {
				if err := f(r, dst); err != nil {
					panic(err)
				}
			}
			i++
			return dst[(i-1)%3]
		}
	}
	dg, _ := NewDiscreteGaussian(2.75)
	dl, _ := NewDiscreteLaplace(0.375)
	return []goldenStream{
		{"Uint64", ints(func(r *Rand) int64 { return int64(r.Uint64()) })},
		{"Float64", floats(func(r *Rand) float64 { return r.Float64() })},
		{"Normal", floats(func(r *Rand) float64 { return r.Normal() })},
		{"Exp", floats(func(r *Rand) float64 { return r.Exp() })},
		{"Laplace(2)", floats(func(r *Rand) float64 { return must(r.Laplace(2)) })},
		{"Gamma(0.3, 1)", floats(func(r *Rand) float64 { return must(r.Gamma(0.3, 1)) })},
		{"Gamma(7.5, 2)", floats(func(r *Rand) float64 { return must(r.Gamma(7.5, 2)) })},
		{"Poisson(3)", ints(func(r *Rand) int64 { return mustI(r.Poisson(3)) })},
		{"Poisson(1e6)", ints(func(r *Rand) int64 { return mustI(r.Poisson(1e6)) })},
		{"UnitSphere(3)", floats(vec((*Rand).UnitSphere))},
		{"UnitBall(3)", floats(vec((*Rand).UnitBall))},
		{"LpBall(3, 1.5)", floats(vec(func(r *Rand, d []float64) error { return r.LpBall(d, 1.5) }))},
		{"L2Laplace(3, 0.5)", floats(vec(func(r *Rand, d []float64) error { return r.L2Laplace(d, 0.5) }))},
		{"DiscreteGaussian(2.75)", ints(dg.Sample)},
		{"DiscreteLaplace(0.375)", ints(dl.Sample)},
	}
}

// golden holds the first values of each stream for Seeded(2026), recorded natively on amd64.
// The same test runs under js/wasm (./build.sh test runs the package there): identical values
// prove identical streams on both platforms.
var golden = map[string][]string{
	"Uint64":                 {"2459165182688001436", "2740085053390983589", "387198094680692106", "2922373453343822946", "8015838029850207884", "6489199748342535698"},
	"Float64":                {"0x1.1105ada2b103cp-03", "0x1.3035e6b52dd08p-03", "0x1.57e6a766c9a4p-06", "0x1.4472d9611cb88p-03", "0x1.bcf7e8dfa9278p-02", "0x1.68391328d20b4p-02"},
	"Normal":                 {"-0x1.6fe83d16cc5bp-03", "-0x1.87752de401d1fp-03", "-0x1.f8d6d8f3b6f4dp-06", "0x1.1b55251d593ccp-02", "0x1.439f1c81bc158p-01", "0x1.de6d536a24bdep-01"},
	"Exp":                    {"0x1.6de40db234fe8p-03", "0x1.795b51d73a765p-03", "0x1.0a327a8bad432p-05", "0x1.51a2307eadb01p-02", "0x1.5322038066999p-01", "0x1.86576de7a9d27p+00"},
	"Laplace(2)":             {"-0x1.6de40db234fe8p-02", "0x1.0a327a8bad432p-04", "-0x1.51a2307eadb01p-01", "0x1.5322038066999p+00", "0x1.86576de7a9d27p+01", "-0x1.d67dd9f8148a1p+00"},
	"Gamma(0.3, 1)":          {"0x1.6fd1df0cf2909p-01", "0x1.012ae9558e041p-07", "0x1.b1f95d6f11e7dp-06", "0x1.88e96915c6986p-05", "0x1.0359ecaf1dde1p-06", "0x1.0bede06f2a666p-02"},
	"Gamma(7.5, 2)":          {"0x1.ac924fa705c19p+03", "0x1.c5685bd556917p+03", "0x1.1fda9583afb33p+04", "0x1.6ba7f699e7784p+03", "0x1.3b784893cd8f5p+03", "0x1.3516bdfcba7adp+04"},
	"Poisson(3)":             {"6", "3", "4", "2", "2", "2"},
	"Poisson(1e6)":           {"998726", "999815", "1000843", "999662", "998646", "1000146"},
	"UnitSphere(3)":          {"-0x1.5c3f5fcfc29a4p-01", "-0x1.728a2670c4a77p-01", "-0x1.dddccab6eeacp-04", "0x1.e7d8c82072ff6p-03", "0x1.169bc54fb6dcfp-01", "0x1.9be1c0f238365p-01"},
	"UnitBall(3)":            {"-0x1.38004aa5a2c64p-01", "-0x1.4bf917cc115ep-01", "-0x1.ac201c26010b7p-04", "0x1.880dcb10d5399p-02", "0x1.21cc10f1249b5p-01", "-0x1.72e45d8341ed1p-02"},
	"LpBall(3, 1.5)":         {"-0x1.f9ab60ac85e29p-02", "-0x1.b7645d8b5b764p-02", "-0x1.b7d56f8f89755p-02", "-0x1.81411b780f4b1p-03", "0x1.25c0d3480e8cdp-01", "-0x1.7be1aa2e84fa9p-02"},
	"L2Laplace(3, 0.5)":      {"-0x1.11c42f4d2602dp+00", "-0x1.234a6d87e6f8dp+00", "-0x1.77a8f3028b2a7p-03", "0x1.cad0de7ff03ap-02", "-0x1.259a9cc1f4252p-02", "0x1.d6128f6eec058p-02"},
	"DiscreteGaussian(2.75)": {"0", "2", "2", "0", "0", "-3"},
	"DiscreteLaplace(0.375)": {"0", "0", "0", "0", "1", "0"},
}

func TestGoldenStreams(t *testing.T) {
	streams := goldenStreams()
	if len(streams) != len(golden) {
		t.Fatalf("%d streams, %d golden entries", len(streams), len(golden))
	}
	for _, s := range streams {
		if got, want := s.draw(), golden[s.name]; !slices.Equal(got, want) {
			t.Errorf("%s:\n got  %q\n want %q", s.name, got, want)
		}
	}
}

func TestSeededAndSplit(t *testing.T) {
	draw := func(r *Rand) []uint64 {
		out := make([]uint64, 8)
		for i := range out {
			out[i] = r.Uint64()
		}
		return out
	}
	if !slices.Equal(draw(Seeded(7)), draw(Seeded(7))) {
		t.Error("Seeded(7) is not reproducible")
	}
	if slices.Equal(draw(Seeded(7)), draw(Seeded(8))) {
		t.Error("Seeded(7) and Seeded(8) agree")
	}
	// Split of a seeded Rand: deterministic, seeded, and different from the parent's stream.
	a, b := Seeded(7), Seeded(7)
	ca, cb := a.Split(), b.Split()
	if !ca.Seeded() || !slices.Equal(draw(ca), draw(cb)) {
		t.Error("Split of a seeded Rand is not a reproducible seeded Rand")
	}
	if slices.Equal(draw(ca), draw(a)) {
		t.Error("child and parent streams agree")
	}
	if ca2 := a.Split(); slices.Equal(draw(ca2), draw(ca)) {
		t.Error("two children agree")
	}
	p := New()
	if p.Seeded() || p.Split().Seeded() {
		t.Error("New() or its Split reports Seeded")
	}
	if slices.Equal(draw(New()), draw(New())) {
		t.Error("two New() streams agree")
	}
	if !WithSource(Seeded(1)).Seeded() {
		t.Error("WithSource reports not seeded")
	}
}

// TestRekey checks that the OS source rekeys after ReseedPeriod outputs: its output then
// differs from the old generator's continuation, which is what it would be without a rekey.
func TestRekey(t *testing.T) {
	s := &osSource{}
	s.rekey()
	if s.left != ReseedPeriod {
		t.Fatalf("left = %d after rekey", s.left)
	}
	s.left = 1
	s.Uint64()
	state, err := s.c.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	old := rand2ChaCha8(t, state)
	next := make([]uint64, 4)
	for i := range next {
		next[i] = s.Uint64() // the first one triggers the rekey
	}
	if s.left != ReseedPeriod-4 {
		t.Errorf("left = %d, want %d", s.left, ReseedPeriod-4)
	}
	cont := make([]uint64, 4)
	for i := range cont {
		cont[i] = old.Uint64()
	}
	if slices.Equal(next, cont) {
		t.Error("no rekey: the stream continued the old generator")
	}
	if after, _ := s.c.MarshalBinary(); bytes.Equal(after, state) {
		t.Error("generator state unchanged")
	}
}

// TestUniformIntegers checks uint64n (χ² for n = 7, and for n = 3·2^61, whose rejection zone
// is large, over the six equiprobable classes v >> 60) and bit (χ² over 4-bit patterns), each
// at level 1e-4.
func TestUniformIntegers(t *testing.T) {
	r := Seeded(13)
	for _, tc := range []struct {
		n       uint64
		shift   uint
		classes int64
	}{{1, 0, 1}, {7, 0, 7}, {3 << 61, 60, 6}} {
		xs := make([]int64, 70000)
		for i := range xs {
			v := r.uint64n(tc.n)
			if v >= tc.n {
				t.Fatalf("uint64n(%d) = %d", tc.n, v)
			}
			xs[i] = int64(v >> tc.shift)
		}
		stattest.Chi2(t, fmt.Sprintf("uint64n(%d)", tc.n), xs, func(int64) float64 { return 1 / float64(tc.classes) }, 0, tc.classes-1)
	}
	xs := make([]int64, 40000)
	for i := range xs {
		v := int64(0)
		for j := 0; j < 4; j++ {
			if r.bit() {
				v |= 1 << j
			}
		}
		xs[i] = v
	}
	stattest.Chi2(t, "bit patterns", xs, func(int64) float64 { return 1.0 / 16 }, 0, 15)
}

func rand2ChaCha8(t *testing.T, state []byte) *mrand.ChaCha8 {
	t.Helper()
	c := mrand.NewChaCha8([32]byte{})
	if err := c.UnmarshalBinary(state); err != nil {
		t.Fatal(err)
	}
	return c
}

// scripted returns the given words in turn.
type scripted struct{ words []uint64 }

func (s *scripted) Uint64() uint64 {
	w := s.words[0]
	s.words = s.words[1:]
	return w
}

func TestUint64NRejects(t *testing.T) {
	tests := []struct {
		words []uint64
		n     uint64
		want  uint64
		used  int
	}{
		// 2^64 mod 3 = 1: x = 0 gives the low word 0 < 1 and is rejected; 2^63·3 = 1·2^64 + 2^63.
		{[]uint64{0, 1 << 63}, 3, 1, 2},
		{[]uint64{1 << 63}, 3, 1, 1},
		{[]uint64{^uint64(0)}, 10, 9, 1},
		{[]uint64{0}, 1, 0, 1}, // 2^64 mod 1 = 0: nothing is rejected
		// n = 2^63 + 1: 2^64 mod n = 2^63 − 1; x = 1 gives lo = n ≥ threshold, hi 0.
		{[]uint64{1}, 1<<63 + 1, 0, 1},
	}
	for _, tc := range tests {
		src := &scripted{words: slices.Clone(tc.words)}
		if got := Uint64N(src, tc.n); got != tc.want || len(tc.words)-len(src.words) != tc.used {
			t.Errorf("Uint64N(%v, %d) = %d using %d words; want %d using %d", tc.words, tc.n, got, len(tc.words)-len(src.words), tc.want, tc.used)
		}
	}
}
