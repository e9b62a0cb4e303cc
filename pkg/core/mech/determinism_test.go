package mech

import (
	"context"
	"fmt"
	"github.com/privopt/privopt/pkg/core/privacy"
	"slices"
	"strings"
	"testing"

	"github.com/privopt/privopt/internal/stattest"
	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/geom"
	"github.com/privopt/privopt/pkg/core/loss"
	"github.com/privopt/privopt/pkg/rng"
)

// pinnedReleases are the digests of seeded releases of every registered mechanism on a toy
// problem (see TestReleasesIdenticalEverywhere).
var pinnedReleases = map[string]uint64{
	"langevin":      0x11b059270bf2dbff,
	"noisy-gd":      0xd7e8496cddaf7901,
	"outpert":       0x8f9c2cd6dd392743,
	"outpert-gauss": 0xad5c9e9fa19a7786,
	"rem":           0x64dbbdb2c5fffd3,
	"expmech":       0xab364d6ff81cda96,
	"rashomon":      0xc664bd9780e4b60f,
	"rem-lp":        0xf3fd48505b81c2a6,
	"auto":          0x5cbcc36524ef4cc6,
}

// boundedOnly are the mechanisms that need a bounded domain (exact Gibbs sampling, and REM in
// ℓ1 geometry by default): TestReleasesIdenticalEverywhere runs them on the box [−1, 1]⁴.
var boundedOnly = map[string]bool{"expmech": true, "rem-lp": true}

// pinSettings replace a mechanism's defaults in TestReleasesIdenticalEverywhere where those
// take too long for a test: REM in ℓ1's certified sampler needs millions of steps at n = 200
// (its cost model says so), so the pin runs its fast mode, which goes through the same target
// (loss, regularizer remainder and gradients).
var pinSettings = map[string]Mechanism{"rem-lp": REMLp{Sampler: SampleMALA}}

// TestReleasesIdenticalEverywhere pins a digest of a seeded release of every mechanism: the
// test runs natively and under js/wasm, and both must give these exact bits (the page and the
// command line release the same model for the same seed). A new mechanism must add its pin.
// Names lists them in order, each once, and ByName finds each.
func TestReleasesIdenticalEverywhere(t *testing.T) {
	if names := Names(); !slices.IsSorted(names) || len(slices.Compact(slices.Clone(names))) != len(names) {
		t.Fatalf("Names() = %v: not in order, or with a name twice", names)
	}
	ds := toyData(200, 4, 9)
	box, err := geom.NewBox([]float64{-1, -1, -1, -1}, []float64{1, 1, 1, 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range Names() {
		p := toyProblem(ds)
		if boundedOnly[name] {
			p.Domain = box
		}
		m, err := ByName(name)
		if err != nil {
			t.Fatal(err)
		}
		if alt, ok := pinSettings[name]; ok {
			m = alt
		}
		budget := privacy.Budget{Epsilon: 2, Delta: 1e-6}
		if name == "outpert" || name == "expmech" {
			budget.Delta = 0
		}
		pl, err := m.Plan(budget, p)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want, ok := pinnedReleases[name]
		if got := releaseDigest(t, pl, ds, 11); !ok || got != want {
			t.Errorf("%s: digest %#x, pinned %#x (pinned: %v)", name, got, want, ok)
		}
	}
}

// pinnedSparseReleases are the digests of seeded releases on one-hot-like data, which the
// losses hold sparse (see TestSparseReleasesIdenticalEverywhere).
var pinnedSparseReleases = map[string]uint64{
	"noisy-gd":      0xd41c7bcb02a4f5b3,
	"outpert-gauss": 0x70375b717d0eb51d,
	"rem":           0x3716f058206af49e,
}

// TestSparseReleasesIdenticalEverywhere pins releases of a gradient method, output
// perturbation's solver and REM's per-example values on data with two non-zero entries in
// eight, natively and under js/wasm, as TestReleasesIdenticalEverywhere does for dense data;
// the same rows held sparse (data.Sparse, as Encode holds one-hot rows), with stored +0
// entries among them (as Rescale leaves them), give the same bits.
func TestSparseReleasesIdenticalEverywhere(t *testing.T) {
	ds := toyData(200, 8, 12)
	for i := range ds.N {
		for j := 2; j < 8; j++ {
			ds.X[i*8+(i+j)%8] = 0
		}
	}
	held := *ds
	held.X, held.Sparse = nil, &data.Sparse{Blocks: []data.SparseBlock{{Start: []int{0}}}}
	blk := &held.Sparse.Blocks[0]
	for i := range ds.N {
		for j, v := range ds.X[i*8 : (i+1)*8] {
			if v != 0 || i%7 == j {
				blk.Col, blk.Val = append(blk.Col, int32(j)), append(blk.Val, v)
			}
		}
		blk.Start = append(blk.Start, len(blk.Col))
	}
	for _, ds := range []*data.Dataset{ds, &held} {
		sparseReleases(t, ds, pinnedSparseReleases)
	}
}

// pinnedOneHotReleases are the digests of seeded releases on rows that Encode holds sparse with
// their one-hot entries apart (see TestOneHotReleasesIdenticalEverywhere).
var pinnedOneHotReleases = map[string]uint64{
	"noisy-gd":      0xf596dd0c5d31cdd7,
	"outpert-gauss": 0xc80701a9ddde7093,
	"rem":           0x40936e93e14642e1,
}

// TestOneHotReleasesIdenticalEverywhere pins releases of a gradient method, output
// perturbation's solver and REM's per-example values on a file of 2 numeric and 3 categorical
// columns as Encode holds it (data.Sparse with its one-hot entries apart, which the kernels
// read in their own loop), natively and under js/wasm.
func TestOneHotReleasesIdenticalEverywhere(t *testing.T) {
	schema, err := data.LoadSchema(strings.NewReader(`{"privopt_schema": 1, "norm": {"p": 2, "radius": 1, "bias": 0.5, "fit": "scale"},
 "columns": [
  {"name": "a", "kind": "numeric", "min": 0, "max": 10},
  {"name": "p", "kind": "categorical", "categories": ["a", "b", "c", "d", "e", "f", "g", "h"]},
  {"name": "b", "kind": "numeric", "min": -1, "max": 1},
  {"name": "q", "kind": "categorical", "categories": ["a", "b", "c", "d", "e", "f", "g", "h"]},
  {"name": "r", "kind": "categorical", "categories": ["a", "b", "c", "d", "e", "f", "g", "h"]},
  {"name": "y", "kind": "binary-label", "positive": ["1"], "negative": ["0"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	text.WriteString("a,p,b,q,r,y\n")
	for i := range 300 {
		fmt.Fprintf(&text, "%d,%c,%.2f,%c,%c,%d\n", i%11, 'a'+i%8, float64(i%21-10)/10, 'a'+i*3%8, 'a'+i*5%7, (i/3+i%2)%2)
	}
	ds, _, err := data.Encode(strings.NewReader(text.String()), schema)
	if err != nil {
		t.Fatal(err)
	}
	if ds.Sparse == nil || ds.Sparse.Hots != 3 {
		t.Fatalf("rows held sparse: %v, want with 3 one-hot entries a row", ds.Sparse != nil)
	}
	sparseReleases(t, ds, pinnedOneHotReleases)
}

// planAt2 plans the named mechanism for toyProblem(ds) at ε = 2, δ = 10⁻⁶.
func planAt2(t *testing.T, name string, ds *data.Dataset) Plan {
	t.Helper()
	m, err := ByName(name)
	if err != nil {
		t.Fatal(err)
	}
	pl, err := m.Plan(privacy.Budget{Epsilon: 2, Delta: 1e-6}, toyProblem(ds))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return pl
}

// sparseReleases checks the pinned releases pins on ds (TestSparseReleasesIdenticalEverywhere).
func sparseReleases(t *testing.T, ds *data.Dataset, pins map[string]uint64) {
	t.Helper()
	for name, want := range pins {
		pl := planAt2(t, name, ds)
		rel, err := pl.Run(context.Background(), ds, rng.Seeded(13), nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		dg := stattest.NewDigest()
		dg.Add(rel.Model.Weights...)
		if dg.Sum() != want {
			t.Errorf("%s (rows held sparse: %v): digest %#x, pinned %#x", name, ds.Sparse != nil, dg.Sum(), want)
		}
		// The training accuracy, computed by the loss's sparse row kernels, is Accuracy's.
		if acc, _ := Accuracy(toyProblem(ds), ds, rel.Model.Weights); rel.Diagnostics.TrainAccuracy == nil || *rel.Diagnostics.TrainAccuracy != acc {
			t.Errorf("%s: training accuracy %v, Accuracy %v", name, rel.Diagnostics.TrainAccuracy, acc)
		}
	}
}

// pinnedPreconditioned is the digest of a seeded noisy-gd release at ε = 8 (ρ = 1.05 ≥ ρ₀),
// where the second moments are released and the steps preconditioned (see
// TestPreconditionedReleaseIdenticalEverywhere).
const pinnedPreconditioned = 0x27d88f5d02260a68

// TestPreconditionedReleaseIdenticalEverywhere pins noisy-gd's preconditioned path natively and
// under js/wasm at ε = 8, as TestReleasesIdenticalEverywhere does at ε = 2 and
// TestSchemaShapedReleaseIdenticalEverywhere below ρ₀: the second moments' release, the
// preconditioner's powers and the steps must give these exact bits everywhere.
func TestPreconditionedReleaseIdenticalEverywhere(t *testing.T) {
	ds := toyData(200, 4, 9)
	pl, err := NoisyGD{}.Plan(privacy.Budget{Epsilon: 8, Delta: 1e-6}, toyProblem(ds))
	if err != nil {
		t.Fatal(err)
	}
	if pl.(*noisyGDPlan).pre == nil {
		t.Fatal("no preconditioner at ε = 8")
	}
	if got := releaseDigest(t, pl, ds, 11); got != pinnedPreconditioned {
		t.Errorf("digest %#x, pinned %#x", got, uint64(pinnedPreconditioned))
	}
}

// pinnedSchemaShaped is the digest of a seeded noisy-gd release on rows with a declared bias
// coordinate, whose drifts' bias is scaled before and after each release, and declared
// categorical features, whose weights the ridge shrinks (see
// TestSchemaShapedReleaseIdenticalEverywhere).
const pinnedSchemaShaped = 0xbd9688e6f9a2970d

// TestSchemaShapedReleaseIdenticalEverywhere pins noisy-gd's path with a declared bias and
// categorical features natively and under js/wasm, below ρ₀ (no preconditioner): the scalings
// by 4 around each release and the ridge's terms must give these bits everywhere.
func TestSchemaShapedReleaseIdenticalEverywhere(t *testing.T) {
	ds := biasData(300, 4, 9)
	p := toyProblem(ds)
	p.Bounds.Bias, p.Categorical = ds.Bias, []int{0, 1}
	pl, err := NoisyGD{}.Plan(privacy.Budget{Epsilon: 0.5, Delta: 1e-6}, p)
	if err != nil {
		t.Fatal(err)
	}
	if gp := pl.(*noisyGDPlan); gp.biasScale != 4 || !(gp.ridge > 0) || gp.pre != nil {
		t.Fatalf("bias scale %g, ridge %g, preconditioner %v: want 4, a ridge and none", gp.biasScale, gp.ridge, gp.pre != nil)
	}
	if got := releaseDigest(t, pl, ds, 11); got != pinnedSchemaShaped {
		t.Errorf("digest %#x, pinned %#x", got, uint64(pinnedSchemaShaped))
	}
}

// pinnedFastModes are the digests of seeded REM releases in each fast sampling mode (see
// TestFastModesIdenticalEverywhere).
var pinnedFastModes = map[SamplerMode]uint64{
	SampleMALA:     0x9e32d27f5b2a774c,
	SampleLangevin: 0xed347092886999c6,
	SampleKinetic:  0x8c710bf2bb5c0c1,
}

// TestFastModesIdenticalEverywhere pins REM's fast modes (their default steps and step counts)
// natively and under js/wasm, as TestReleasesIdenticalEverywhere pins its certified default.
func TestFastModesIdenticalEverywhere(t *testing.T) {
	ds := toyData(200, 4, 9)
	for mode, want := range pinnedFastModes {
		pl, err := REM{Sampler: mode}.Plan(privacy.Budget{Epsilon: 2, Delta: 1e-6}, toyProblem(ds))
		if err != nil {
			t.Fatal(err)
		}
		if got := releaseDigest(t, pl, ds, 11); got != want {
			t.Errorf("%s: digest %#x, pinned %#x", mode, got, want)
		}
	}
}

// releaseDigest runs pl on ds with the given seed and returns the digest of the release's
// weights and certified δ.
func releaseDigest(t *testing.T, pl Plan, ds *data.Dataset, seed uint64) uint64 {
	t.Helper()
	rel, err := pl.Run(context.Background(), ds, rng.Seeded(seed), nil)
	if err != nil {
		t.Fatal(err)
	}
	dg := stattest.NewDigest()
	dg.Add(rel.Model.Weights...)
	dg.Add(rel.Report.Achieved.Delta)
	return dg.Sum()
}

// pinnedWorkers are the digests of seeded noisy-gd and outpert-gauss releases on 10,000 rows,
// which the losses' full passes split into chunks (see TestReleasesIgnoreWorkers).
var pinnedWorkers = map[string]uint64{
	"noisy-gd/logistic":    0xc136997b554800ff,
	"noisy-gd/multinomial": 0x2824320b516f6a7b,
	"outpert-gauss":        0x82007476ad730f21,
}

// TestReleasesIgnoreWorkers pins releases whose full passes run on several goroutines natively
// (loss.SetWorkers) and on one under js/wasm: with 1, 2 and 4 workers natively, and under
// js/wasm, a seeded release has these exact bits.
func TestReleasesIgnoreWorkers(t *testing.T) {
	defer loss.SetWorkers(loss.SetWorkers(0))
	ds := toyData(10_000, 4, 21)
	multi := multiBiasData(10_000, 4, 3, 22)
	cases := []struct {
		name string
		m    Mechanism
		ds   *data.Dataset
		p    Problem
	}{
		{"noisy-gd/logistic", NoisyGD{}, ds, toyProblem(ds)},
		{"noisy-gd/multinomial", NoisyGD{}, multi, multiProblem(multi, 3)},
		{"outpert-gauss", OutputPerturbation{Gaussian: true}, ds, toyProblem(ds)},
	}
	for _, tc := range cases {
		pl, err := tc.m.Plan(privacy.Budget{Epsilon: 2, Delta: 1e-6}, tc.p)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for _, workers := range []int{1, 2, 4} {
			loss.SetWorkers(workers)
			if got, want := releaseDigest(t, pl, tc.ds, 23), pinnedWorkers[tc.name]; got != want {
				t.Errorf("%s, %d workers: digest %#x, pinned %#x", tc.name, workers, got, want)
			}
		}
	}
}

// pinnedDenseBlocks are the digests of seeded releases on 10,000 rows of 8 numeric columns as
// Encode holds them, as float64 and as float32 (see TestDenseBlocksReleasesIdenticalEverywhere).
var pinnedDenseBlocks = map[string][2]uint64{
	"noisy-gd":      {0x6226fafd0e142a44, 0x83d0b9cd8b8183a1},
	"outpert-gauss": {0xc1ca6bf84b7e5b41, 0xc46c7711794d6149},
}

// TestDenseBlocksReleasesIdenticalEverywhere pins seeded releases on rows that Encode holds
// dense, in blocks (data.Sparse.Dense), whose third block is mostly zeros and read sparse (a
// loss chooses per block): with 1, 2 and 4 workers natively, and under js/wasm, and with the
// same rows held in one slice (a dataset built by hand), a release has these exact bits; and
// so for the rows held as float32 (data.Options.Float32), whose releases are those of the
// float64 rows of their values in one slice.
func TestDenseBlocksReleasesIdenticalEverywhere(t *testing.T) {
	defer loss.SetWorkers(loss.SetWorkers(0))
	var schema, text strings.Builder
	schema.WriteString(`{"privopt_schema": 1, "norm": {"p": 2, "radius": 1, "bias": 0.5, "fit": "scale"}, "columns": [`)
	for j := range 8 {
		fmt.Fprintf(&schema, `{"name": "x%d", "kind": "numeric", "min": 0, "max": 10}, `, j)
		fmt.Fprintf(&text, "x%d,", j)
	}
	schema.WriteString(`{"name": "y", "kind": "binary-label", "positive": ["1"], "negative": ["0"]}]}`)
	text.WriteString("y\n")
	for i := range 10_000 {
		for j := range 8 {
			v := (i*(j+3) + j) % 11
			if i >= 2*data.BlockRows && j > 0 {
				v = 0 // the third block: one numeric entry and the bias a row
			}
			fmt.Fprintf(&text, "%d,", v)
		}
		fmt.Fprintf(&text, "%d\n", (i/3+i%2)%2)
	}
	s, err := data.LoadSchema(strings.NewReader(schema.String()))
	if err != nil {
		t.Fatal(err)
	}
	for v, f32 := range []bool{false, true} {
		ds, _, err := data.EncodeWith(strings.NewReader(text.String()), s, data.Options{Float32: f32})
		if err != nil || !ds.Sparse.Dense || ds.Sparse.Float32 != f32 {
			t.Fatalf("%v (rows held dense in blocks: %v)", err, err == nil && ds.Sparse.Dense)
		}
		flat := *ds
		flat.Sparse, flat.X = nil, make([]float64, 0, ds.N*ds.D)
		for i := range ds.N {
			flat.X = append(flat.X, ds.Row(i, nil)...)
		}
		for name, want := range pinnedDenseBlocks {
			pl := planAt2(t, name, ds)
			for _, workers := range []int{1, 2, 4} {
				loss.SetWorkers(workers)
				for _, held := range []*data.Dataset{ds, &flat} {
					if got := releaseDigest(t, pl, held, 29); got != want[v] {
						t.Errorf("%s, float32 %v, %d workers, rows in blocks %v: digest %#x, pinned %#x", name, f32, workers, held.Sparse != nil, got, want[v])
					}
				}
			}
		}
	}
}
