package mech

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/privopt/privopt/pkg/core/privacy"
	"github.com/privopt/privopt/pkg/rng"
)

func TestRangeGrid(t *testing.T) {
	g := RangeGrid()
	if len(g) != rangeGridSize || g[0] != 0 || g[len(g)-1] != 1 {
		t.Fatalf("%d points from %g to %g, want %d from 0 to 1", len(g), g[0], g[len(g)-1], rangeGridSize)
	}
	for i := 1; i < len(g); i++ {
		if !(g[i] > g[i-1]) {
			t.Fatalf("grid not increasing at %d: %g, %g", i, g[i-1], g[i])
		}
	}
	if g[1] != math.Exp2(-28.5) || g[len(g)-2] != 1-math.Exp2(-28.5) {
		t.Errorf("the ladder ends at %g and 1 − %g, want 2^−28.5", g[1], 1-g[len(g)-2])
	}
}

// rangesRun runs a seeded plan on the given columns.
func rangesRun(t *testing.T, b privacy.Budget, seed uint64, columns ...[]float64) *Ranges {
	t.Helper()
	p, err := PlanRanges(b, len(columns), len(columns[0]))
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.Run(func(k int) ([]float64, error) { return columns[k], nil }, rng.Seeded(seed))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRangesFindQuantiles checks, at a large ε where the noise (σ < 0.01 rows) cannot move a
// comparison, that the ranges are the exact quantiles rounded outwards to the grid.
func TestRangesFindQuantiles(t *testing.T) {
	const n = 6400
	uniform, small, point, indicator := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range n {
		uniform[i] = 0.2 + 0.41*(float64(i)+0.5)/n // uniform on [0.2, 0.61]
		small[i] = 1e-3 * float64(i) / n           // [0, 0.001): a loose declared bound
		point[i] = 0.5
		if i%400 == 0 { // 0.25 % ones: below the level, so Hi ≤ Lo and Hi moves up
			indicator[i] = 1
		}
	}
	for _, rel := range []privacy.Neighbouring{privacy.ReplaceOne, privacy.AddRemove} {
		for _, delta := range []float64{1e-6, 0} {
			b := privacy.Budget{Epsilon: 1e6, Delta: delta, Neighbouring: rel}
			got := rangesRun(t, b, 1, uniform, small, point, indicator)
			grid := RangeGrid()
			at := func(q float64) int { return slices.IndexFunc(grid, func(g float64) bool { return g >= q }) }
			above := func(q float64) float64 { return grid[at(q)] }    // Hi: the first grid point at or above
			before := func(q float64) float64 { return grid[at(q)-1] } // Lo: the grid point before it
			want := []Interval{
				{before(0.2 + 0.41*RangeLevel), above(0.61 - 0.41*RangeLevel)},
				{before(1e-3 * RangeLevel), above(1e-3 * (1 - RangeLevel))},
				{before(0.5), 0.5},
				{0, grid[1]}, // the count at 0 reaches both levels: Lo = 0, and Hi moves above it
			}
			if !slices.Equal(got.Intervals, want) {
				t.Errorf("%s δ = %g: ranges %v, want %v", rel, delta, got.Intervals, want)
			}
			if got.Queries != 4*2*rangeSteps || !(got.NoiseSD < 0.01) {
				t.Errorf("%s δ = %g: %d queries with noise SD %g", rel, delta, got.Queries, got.NoiseSD)
			}
		}
	}
}

// TestRangesNoise checks the accuracy the plan promises at a small ε: with noise of SD σ rows
// on each answer, the lower end found lies within 6σ rows of the exact quantile's rank, over
// 200 seeds (a comparison at a point 6σ from the target goes wrong with probability 1e-9; 7 per
// search, 200 searches: false-failure rate below 2e-6).
func TestRangesNoise(t *testing.T) {
	const n = 20000
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(i) / n
	}
	p, err := PlanRanges(privacy.Budget{Epsilon: 1, Delta: 1e-6}, 1, n)
	if err != nil {
		t.Fatal(err)
	}
	sd := p.NoiseSD()
	if !(sd > 10 && sd < 100) {
		t.Fatalf("noise SD %g rows at ε = 1 for one column: out of the expected range", sd)
	}
	grid := RangeGrid()
	for seed := range uint64(200) {
		out, err := p.Run(func(int) ([]float64, error) { return v, nil }, rng.Seeded(seed))
		if err != nil {
			t.Fatal(err)
		}
		lo := out.Intervals[0].Lo
		i := slices.Index(grid, lo)
		// The grid point below lo must have a count at most L·n + 6σ, lo one at least L·n − 6σ.
		rankAt := func(t float64) float64 { return math.Floor(t*n) + 1 } // #{v ≤ t}
		if lo > 0 && rankAt(grid[i-1]) > RangeLevel*n+6*sd || rankAt(lo) < RangeLevel*n-6*sd {
			t.Fatalf("seed %d: Lo = %g is more than 6σ = %g rows from the %g quantile", seed, lo, 6*sd, RangeLevel)
		}
	}
}

func TestRangesGuarantee(t *testing.T) {
	for _, b := range []privacy.Budget{{Epsilon: 0.1, Delta: 1e-7}, {Epsilon: 1, Delta: 1e-6, Neighbouring: privacy.AddRemove}, {Epsilon: 0.5}} {
		for _, m := range []int{1, 6, 180} {
			p, err := PlanRanges(b, m, 100000)
			if err != nil {
				t.Fatal(err)
			}
			if !(privacy.Budget{Epsilon: b.Epsilon, Delta: b.Delta}).Meets(p.Guarantee()) {
				t.Errorf("%v, %d columns: %v does not meet the budget", b, m, p.Guarantee())
			}
			// The noise grows like √Q: at least √(2·7·m)/μ rows for the μ the budget allows.
			if b.Delta > 0 {
				mu, err := privacy.CalibrateGDP(b.Epsilon, b.Delta)
				if err != nil {
					t.Fatal(err)
				}
				if floor := math.Sqrt(float64(2*rangeSteps*m)) / mu; p.NoiseSD() < floor*0.99 {
					t.Errorf("%v, %d columns: noise SD %g below the %g that μ = %g allows", b, m, p.NoiseSD(), floor, mu)
				}
			}
		}
	}
	if _, err := PlanRanges(privacy.Budget{Epsilon: 1, Delta: 1e-6}, 0, 1000); err == nil {
		t.Error("no columns: no error")
	}
}

// TestRangesReplay runs the ranges on neighbouring columns (a value replaced, added or removed,
// at both ends of the scale) with the same seed, the second run following the first's answers,
// and checks that every query's exact answer moves by at most the declared sensitivity 1, and
// by at most 1 − L under add/remove (which a query of larger sensitivity, e.g. one that
// counted a row twice, would break), and that following the answers gives the same release.
func TestRangesReplay(t *testing.T) {
	base := make([]float64, 500)
	for i := range base {
		base[i] = math.Mod(float64(i)*0.618, 1)
	}
	type pair struct {
		name   string
		rel    privacy.Neighbouring
		d0, d1 []float64
		bound  float64
	}
	var pairs []pair
	for _, v := range []float64{0, 1, 0.3} {
		replaced := slices.Clone(base)
		replaced[7] = v
		pairs = append(pairs,
			pair{fmt.Sprintf("replace by %g", v), privacy.ReplaceOne, base, replaced, 1},
			pair{fmt.Sprintf("add %g", v), privacy.AddRemove, base, append(slices.Clone(base), v), 1 - RangeLevel},
			pair{fmt.Sprintf("remove row %d", int(v*100)), privacy.AddRemove, base, slices.Delete(slices.Clone(base), int(v*100), int(v*100)+1), 1 - RangeLevel})
	}
	defer func() { replay = replayHooks{} }()
	for _, pr := range pairs {
		for seed := range uint64(5) {
			p, err := PlanRanges(privacy.Budget{Epsilon: 2, Delta: 1e-6, Neighbouring: pr.rel}, 2, len(base))
			if err != nil {
				t.Fatal(err)
			}
			var ins0, outs0 [][]float64
			replay = replayHooks{release: func(site string, in, out []float64, sens, grid float64) {
				if sens != 1 || site != "private ranges" {
					t.Fatalf("%s: release at %q with sensitivity %g", pr.name, site, sens)
				}
				ins0, outs0 = append(ins0, in), append(outs0, slices.Clone(out))
			}}
			r0, err := p.Run(func(int) ([]float64, error) { return pr.d0, nil }, rng.Seeded(seed))
			if err != nil {
				t.Fatal(err)
			}
			k := 0
			worst := 0.0
			replay = replayHooks{release: func(site string, in, out []float64, sens, grid float64) {
				worst = math.Max(worst, math.Abs(in[0]-ins0[k][0]))
				copy(out, outs0[k])
				k++
			}}
			r1, err := p.Run(func(int) ([]float64, error) { return pr.d1, nil }, rng.Seeded(seed+100))
			if err != nil {
				t.Fatal(err)
			}
			if k != len(ins0) || !slices.Equal(r0.Intervals, r1.Intervals) {
				t.Fatalf("%s: %d answers (want %d), ranges %v and %v: following the answers must give the same release", pr.name, k, len(ins0), r0.Intervals, r1.Intervals)
			}
			if worst > pr.bound {
				t.Errorf("%s seed %d: an answer moved by %g, above %g", pr.name, seed, worst, pr.bound)
			}
		}
	}
}

// TestRangesIdenticalEverywhere pins a seeded release: the noise is exact discrete noise and
// the counts are exact, so the ranges must be the same bits natively and in WebAssembly.
func TestRangesIdenticalEverywhere(t *testing.T) {
	v := make([]float64, 3000)
	for i := range v {
		v[i] = math.Mod(float64(i)*0.618034, 1) * 0.01
	}
	got := rangesRun(t, privacy.Budget{Epsilon: 1, Delta: 1e-6}, 1, v, v)
	want := []Interval{{Lo: 0.0001220703125, Hi: 0.011048543456039804}, {Lo: 0.0001220703125, Hi: 0.011048543456039804}}
	if !slices.Equal(got.Intervals, want) {
		t.Errorf("ranges %#v, pinned %#v", got.Intervals, want)
	}
}

// BenchmarkRanges estimates the private ranges of 10 columns of 1,000,000 values (uniform on
// [0, 1]), as a fit of the scale benchmark's rows does before its mechanism.
func BenchmarkRanges(b *testing.B) {
	const columns, n = 10, 1_000_000
	gen := rand.New(rand.NewPCG(5, 6))
	values := make([][]float64, columns)
	for k := range values {
		values[k] = make([]float64, n)
		for i := range values[k] {
			values[k][i] = gen.Float64()
		}
	}
	p, err := PlanRanges(privacy.Budget{Epsilon: 0.2, Delta: 1e-7}, columns, n)
	if err != nil {
		b.Fatal(err)
	}
	r := rng.Seeded(7)
	for b.Loop() {
		if _, err := p.Run(func(k int) ([]float64, error) { return values[k], nil }, r); err != nil {
			b.Fatal(err)
		}
	}
}
