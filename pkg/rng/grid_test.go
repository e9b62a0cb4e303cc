package rng

import (
	"errors"
	"math"
	"testing"
)

// constNoise returns the same integer every time and counts its draws.
type constNoise struct {
	z     int64
	draws int
}

func (c *constNoise) Sample(*Rand) int64 { c.draws++; return c.z }

func TestGridRelease(t *testing.T) {
	r := Seeded(18)
	g, err := NewGrid(10) // spacing 2^−10
	if err != nil {
		t.Fatal(err)
	}
	if g.Spacing() != 0x1p-10 {
		t.Fatalf("Spacing = %v", g.Spacing())
	}
	for _, tc := range []struct {
		name string
		x    float64
		z    int64
		want float64
	}{
		{"on grid", 3.5, 0, 3.5},
		{"round down", 0x1p-10 * 7.4, 0, 0x1p-10 * 7},
		{"round up, negative", -0x1p-10 * 7.6, 0, -0x1p-10 * 8},
		{"tie away from zero", 0x1p-10 * 2.5, 0, 0x1p-10 * 3},
		{"noise added", 1, -5, 1 - 5*0x1p-10},
		{"tiny input rounds to 0", 1e-300, 2, 2 * 0x1p-10},
		{"input clamp", 1e300, 0, 0x1p52 * 0x1p-10},
		{"output clamp", 0x1p52 * 0x1p-10, 1 << 60, 0x1p53 * 0x1p-10},
		{"saturated noise", -1e300, math.MinInt64 + 1, -0x1p53 * 0x1p-10},
	} {
		noise := &constNoise{z: tc.z}
		dst := []float64{tc.x}
		if err := g.Release(r, dst, dst, noise); err != nil {
			t.Fatal(err)
		}
		if dst[0] != tc.want || noise.draws != 1 {
			t.Errorf("%s: Release(%v) = %v with %d draws, want %v with 1", tc.name, tc.x, dst[0], noise.draws, tc.want)
		}
	}

	// With real noise, every output is an exact multiple of the spacing whose integer differs
	// from the rounded input by the noise draw.
	dg, err := g.DiscreteGaussian(0.01)
	if err != nil {
		t.Fatal(err)
	}
	x := []float64{0.1, -2.3333, 7, 1e-9}
	dst := make([]float64, len(x))
	if err := g.Release(r, dst, x, dg); err != nil {
		t.Fatal(err)
	}
	for i, v := range dst {
		m := v * 1024
		if m != math.Trunc(m) || math.Abs(v-x[i]) > 1 {
			t.Errorf("Release: %v for %v is not a plausible grid value", v, x[i])
		}
	}
}

func TestGridReleaseRejectsBadInput(t *testing.T) {
	r := Seeded(19)
	g, _ := NewGrid(0)
	for _, tc := range []struct {
		name   string
		dst, x []float64
	}{
		{"length", make([]float64, 2), []float64{1}},
		{"NaN", make([]float64, 2), []float64{1, math.NaN()}},
		{"Inf", make([]float64, 2), []float64{math.Inf(-1), 1}},
	} {
		noise := &constNoise{}
		if err := g.Release(r, tc.dst, tc.x, noise); !errors.Is(err, ErrInvalid) || noise.draws != 0 {
			t.Errorf("%s: error %v after %d draws, want ErrInvalid before any draw", tc.name, err, noise.draws)
		}
	}
}

func TestGridSensitivity(t *testing.T) {
	g, _ := NewGrid(20)
	sp := 0x1p-20
	for _, tc := range []struct {
		delta float64
		d     int
	}{{0, 1}, {1, 2}, {0.37, 92}, {1e-3, 1_000_003}} {
		l2, err := g.L2Sensitivity(tc.delta, tc.d)
		if err != nil {
			t.Fatal(err)
		}
		exact := tc.delta + sp*math.Sqrt(float64(tc.d))
		// Never below the exact bound, and at most a few ulp above it.
		if l2 < exact || l2 > exact*(1+1e-15)+1e-300 {
			t.Errorf("L2Sensitivity(%v, %d) = %v, exact %v", tc.delta, tc.d, l2, exact)
		}
		l1, err := g.L1Sensitivity(tc.delta, tc.d)
		if err != nil {
			t.Fatal(err)
		}
		exact1 := tc.delta + sp*float64(tc.d)
		if l1 < exact1 || l1 > exact1*(1+1e-15)+1e-300 {
			t.Errorf("L1Sensitivity(%v, %d) = %v, exact %v", tc.delta, tc.d, l1, exact1)
		}
	}
	// √2 rounds down in float64, so the bound must be bumped: check on a case where the sum
	// is exact, Δ = 0, against 2^−20·√2 computed exactly by squaring.
	l2, _ := g.L2Sensitivity(0, 2)
	if s := l2 / sp; math.FMA(s, s, -2) < 0 {
		t.Errorf("L2Sensitivity(0, 2)/g = %v is below √2", s)
	}
}

func TestGridNoise(t *testing.T) {
	g, _ := NewGrid(3)
	dg, err := g.DiscreteGaussian(0.3) // σ/g = 2.4
	if err != nil {
		t.Fatal(err)
	}
	s := 2.4 // float64(0.3·8)
	if dg.Sigma2() < s*s || math.FMA(2.4, 2.4, -dg.Sigma2()) > 0 || dg.Sigma2() > math.Nextafter(s*s, 10) {
		t.Errorf("σ_g² = %v: not the upward rounding of 2.4²", dg.Sigma2())
	}
	dl, err := g.DiscreteLaplace(0.3)
	if err != nil {
		t.Fatal(err)
	}
	if dl.Scale() != 0.3*8 {
		t.Errorf("scale %v, want %v", dl.Scale(), 0.3*8)
	}
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"NewGrid(961)", second(NewGrid(961))},
		{"NewGrid(-961)", second(NewGrid(-961))},
		{"DiscreteGaussian(0)", second(g.DiscreteGaussian(0))},
		{"DiscreteGaussian(NaN)", second(g.DiscreteGaussian(math.NaN()))},
		{"DiscreteGaussian(2^38)", second(g.DiscreteGaussian(0x1p38))},
		{"DiscreteLaplace(-1)", second(g.DiscreteLaplace(-1))},
		{"DiscreteLaplace(Inf)", second(g.DiscreteLaplace(math.Inf(1)))},
		{"L2Sensitivity(NaN)", second(g.L2Sensitivity(math.NaN(), 1))},
		{"L2Sensitivity(d=0)", second(g.L2Sensitivity(1, 0))},
		{"L1Sensitivity(-1)", second(g.L1Sensitivity(-1, 3))},
		{"L1Sensitivity(Inf)", second(g.L1Sensitivity(math.Inf(1), 3))},
	} {
		if !errors.Is(tc.err, ErrInvalid) {
			t.Errorf("%s: error %v, want one wrapping ErrInvalid", tc.name, tc.err)
		}
	}
}
