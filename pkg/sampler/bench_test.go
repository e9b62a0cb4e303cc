package sampler

import (
	"context"
	"testing"

	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/geom"
	"github.com/privopt/privopt/pkg/core/loss"
	"github.com/privopt/privopt/pkg/rng"
)

// logisticTarget is k·(mean logistic loss) over synthetic rows with ‖x‖ ≤ 1 at d = 92, the
// shape of adult-lr, with the Gaussian part kμ.
type logisticTarget struct {
	l    *loss.Linear
	k, m float64
}

func newLogisticTarget(b testing.TB, n, d int, k, m float64) *logisticTarget {
	r := rng.Seeded(1)
	ds := &data.Dataset{N: n, D: d, X: make([]float64, n*d), Y: make([]float64, n)}
	for i := range n {
		if err := r.UnitBall(ds.X[i*d : (i+1)*d]); err != nil {
			b.Fatal(err)
		}
		ds.Y[i] = 1
		if ds.X[i*d] < 0 {
			ds.Y[i] = -1
		}
	}
	l, err := loss.NewLinear(loss.Logistic{}, ds, loss.Bounds{X: 1, XNorm: 2, Y: 1})
	if err != nil {
		b.Fatal(err)
	}
	return &logisticTarget{l: l, k: k, m: m}
}

func (t *logisticTarget) Dim() int                  { return t.l.Dim() }
func (t *logisticTarget) Value(x []float64) float64 { return t.k * t.l.Mean(nil, x) }
func (t *logisticTarget) Grad(g, x []float64) float64 {
	v := t.l.Mean(g, x)
	for i := range g {
		g[i] *= t.k
	}
	return t.k * v
}
func (t *logisticTarget) NumExamples() int { return t.l.Len() }
func (t *logisticTarget) ExampleValue(i int, x []float64) float64 {
	return t.k * t.l.Value(x, i)
}
func (t *logisticTarget) Constants() Constants {
	return Constants{Lipschitz: t.k, ExampleLipschitz: t.k, ExampleRank: 1, Smoothness: t.k / 4, StrongConvexity: t.m}
}
func (t *logisticTarget) Domain() geom.Domain { return geom.Whole{D: t.l.Dim()} }

// BenchmarkProximalStep measures one outer step of the proximal sampler with each oracle at
// d = 92 and n = 1000, at the step size its plan chooses for a regularized exponential
// mechanism with kG²/m = (0.25·n)²/4 (μ_GDP = 0.25); it reports steps and per-example queries
// per second.
func BenchmarkProximalStep(b *testing.B) {
	const n, d = 1000, 92
	k := 50.0
	m := 4 * k / (0.25 * 0.25 * n * n)
	for _, oracle := range []Oracle{ValueOracle, StochasticOracle, EnvelopeOracle} {
		b.Run(oracle.String(), func(b *testing.B) {
			t := newLogisticTarget(b, n, d, k, m)
			p, err := NewPlan(t.Constants(), d, n, oracle, 1e-7)
			if err != nil {
				b.Fatal(err)
			}
			p.Steps = 1
			ch, err := newChain(t, rng.Seeded(2))
			if err != nil {
				b.Fatal(err)
			}
			ch.start()
			b.ResetTimer()
			for b.Loop() {
				if err := ch.proximalSteps(context.Background(), p, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "steps/s")
			b.ReportMetric(float64(ch.stats.Queries+ch.stats.Gradients)/b.Elapsed().Seconds(), "queries+gradients/s")
		})
	}
}

// BenchmarkNormalDraws measures the Gaussian draws of the proposals (per coordinate).
func BenchmarkNormalDraws(b *testing.B) {
	r := rng.Seeded(4)
	dst := make([]float64, 92)
	for b.Loop() {
		r.NormalVec(dst)
	}
	b.ReportMetric(float64(b.N*len(dst))/b.Elapsed().Seconds(), "draws/s")
}

// BenchmarkFastStep measures one step of MALA and of projected Langevin at d = 92, n = 1000.
func BenchmarkFastStep(b *testing.B) {
	const n, d = 1000, 92
	for name, run := range map[string]func(context.Context, Target, FastSettings, *rng.Rand, func(float64)) (Result, error){
		"mala": MALA, "projected-langevin": ProjectedLangevin,
	} {
		b.Run(name, func(b *testing.B) {
			t := newLogisticTarget(b, n, d, 50, 1)
			b.ResetTimer()
			res, err := run(context.Background(), t, FastSettings{Steps: b.N}, rng.Seeded(3), nil)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "steps/s")
			b.ReportMetric(float64(res.Stats.Gradients)/b.Elapsed().Seconds(), "gradients/s")
		})
	}
}
