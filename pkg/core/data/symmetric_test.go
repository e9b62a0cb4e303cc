package data

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/privopt/privopt/pkg/core/geom"
)

// TestSymmetric: on rows encoded with FitScale (ℓ2 and ℓ∞ norms), held dense and sparse, the
// numeric features become exactly 2x − c and nothing else changes; every row stays within the
// declared bound; the sparse result has the dense result's bits, passes Sparse.Check and keeps
// an absent block absent; SymmetricWeights gives binary and multinomial models the same scores
// (to a relative 1e-12) on every row; and rows fitted by FitClip or without a bias are refused.
func TestSymmetric(t *testing.T) {
	file := mixedRows(rand.New(rand.NewPCG(91, 92)), 2*BlockRows+300)
	for _, norm := range []struct{ p, bias string }{{"2", "0.5"}, {"\"inf\"", "0.25"}} {
		s := mustSchema(t, fmt.Sprintf(mixedSchema, norm.p, norm.bias, "scale"))
		var results []*Dataset
		for _, held := range []holding{heldDense, heldSparse} {
			ds, _, err := encode(strings.NewReader(file), s, false, held, nil)
			if err != nil {
				t.Fatal(err)
			}
			if ds.Scale != s.Scaling().Scale || !(ds.Scale > 0) {
				t.Fatalf("p = %s: Scale %g, the schema's %g", norm.p, ds.Scale, s.Scaling().Scale)
			}
			sym, err := Symmetric(ds)
			if err != nil {
				t.Fatal(err)
			}
			numeric := map[int]bool{0: true, 7: true} // a, then c's six one-hot features (five and other), then b
			if got := numericFeatures(ds); fmt.Sprint(got) != "[0 7]" {
				t.Fatalf("numeric features %v, want [0 7]", got)
			}
			x, y := make([]float64, ds.D), make([]float64, ds.D)
			for i := range ds.N {
				x, y = ds.Row(i, x), sym.Row(i, y)
				for j := range x {
					want := x[j]
					if numeric[j] {
						want = 2*x[j] - ds.Scale
					}
					if math.Float64bits(y[j]) != math.Float64bits(want) {
						t.Fatalf("p = %s, row %d, feature %d: %g, want %g", norm.p, i, j, y[j], want)
					}
				}
				if n := geom.Norm(y, ds.P); n > ds.Radius {
					t.Fatalf("p = %s, row %d: norm %g above the bound %g", norm.p, i, n, ds.Radius)
				}
			}
			if held == heldSparse {
				if err := sym.Sparse.Check(sym.N, sym.D); err != nil {
					t.Fatal(err)
				}
				part := *ds
				part.Sparse = &Sparse{Blocks: append([]SparseBlock{{}}, ds.Sparse.Blocks[1:]...)}
				ps, err := Symmetric(&part)
				if err != nil {
					t.Fatal(err)
				}
				if ps.Holds(0) || !ps.Holds(BlockRows) || ps.Sparse.Check(ps.N, ps.D) != nil {
					t.Error("an absent block is not absent in the result, or a held one is")
				}
			}
			results = append(results, sym)

			for _, blocks := range []int{1, 3} {
				r := rand.New(rand.NewPCG(uint64(blocks), 7))
				w := make([]float64, blocks*ds.D)
				for j := range w {
					w[j] = r.NormFloat64()
				}
				mapped := append([]float64(nil), w...)
				SymmetricWeights(ds, mapped)
				for i := range ds.N {
					x, y = ds.Row(i, x), sym.Row(i, y)
					for k := 0; k < len(w); k += ds.D {
						got, want := dotOf(mapped[k:k+ds.D], x), dotOf(w[k:k+ds.D], y)
						if math.Abs(got-want) > 1e-12*(1+math.Abs(want)) {
							t.Fatalf("p = %s, %d blocks, row %d: score %g, want %g", norm.p, blocks, i, got, want)
						}
					}
				}
			}
		}
		sameDataset(t, "symmetric, sparse against dense", results[1], results[0])
	}
	for _, norm := range []struct{ p, bias, fit string }{{"2", "0.5", "clip"}, {"2", "0", "scale"}} {
		ds, _, err := Encode(strings.NewReader(mixedRows(rand.New(rand.NewPCG(1, 2)), 20)), mustSchema(t, fmt.Sprintf(mixedSchema, norm.p, norm.bias, norm.fit)))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Symmetric(ds); err == nil {
			t.Errorf("%+v: accepted", norm)
		}
	}
}

// dotOf returns Σ a_j·b_j.
func dotOf(a, b []float64) float64 {
	s := 0.0
	for j := range a {
		s += a[j] * b[j]
	}
	return s
}
