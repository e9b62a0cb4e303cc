package mech

import (
	"context"
	"fmt"
	"github.com/privopt/privopt/pkg/core/cost"
	"github.com/privopt/privopt/pkg/core/privacy"
	"os"
	"testing"
	"time"

	"github.com/privopt/privopt/internal/adultdata"
	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/geom"
	"github.com/privopt/privopt/pkg/core/loss"
	"github.com/privopt/privopt/pkg/rng"
	"github.com/privopt/privopt/pkg/sampler"
)

// adultTrain encodes adult.data with the adult-lr schema.
func adultTrain(b testing.TB) *data.Dataset {
	path, err := adultdata.File("adult.data")
	if err != nil {
		b.Fatal(err)
	}
	sf, err := os.Open("../../../examples/adult-lr.schema.json")
	if err != nil {
		b.Fatal(err)
	}
	defer sf.Close()
	schema, err := data.LoadSchema(sf)
	if err != nil {
		b.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	ds, _, err := data.Encode(f, schema)
	if err != nil {
		b.Fatal(err)
	}
	return ds
}

// head returns the first n rows of ds.
func head(ds *data.Dataset, n int) *data.Dataset {
	return pickRows(ds, 0, n)
}

// BenchmarkREMAdultCertified plans the regularized exponential mechanism on adult-lr (its first
// 1,000, 5,000, 10,000 and 15,000 rows, and all 32,561) at ε = 1, δ = 1e-6 (μ_GDP ≈ 0.24 after
// the sampler's share) for each certified oracle on the whole space (and with oracle C on the
// ℓ2 ball of radius 10 for the first 1,000 and 5,000 rows), runs 200 steps of the plan, and reports the measured time per step and the time the whole
// certified run would take (steps × time per step), next to the cost model's prediction from
// the measured query and draw rates.
func BenchmarkREMAdultCertified(b *testing.B) {
	full := adultTrain(b)
	ball, err := geom.NewBall(full.D, 2, 10, nil)
	if err != nil {
		b.Fatal(err)
	}
	type variant struct {
		n      int
		mode   SamplerMode
		domain geom.Domain
		name   string
	}
	var variants []variant
	for _, n := range []int{1000, 5000, 10000, 15000, full.N} {
		for _, mode := range []SamplerMode{SampleStochastic, SampleEnvelope, SampleValue} {
			variants = append(variants, variant{n, mode, geom.Whole{D: full.D}, fmt.Sprintf("n=%d/%s", n, mode)})
		}
	}
	// On the ℓ2 ball of radius D (the restricted proposals and oracle C's constrained step).
	for _, n := range []int{1000, 5000} {
		variants = append(variants, variant{n, SampleEnvelope, ball, fmt.Sprintf("n=%d/%s/ball", n, SampleEnvelope)})
	}
	for _, v := range variants {
		ds := head(full, v.n)
		n, mode := v.n, v.mode
		p := Problem{Loss: LossSpec{Name: "logistic"}, Dim: ds.D, N: n, Bounds: loss.Bounds{X: 1, XNorm: 2, Y: 1},
			Domain: v.domain, Radius: 10}
		{
			b.Run(v.name, func(b *testing.B) {
				pl, err := REM{Sampler: mode}.Plan(privacy.Budget{Epsilon: 1, Delta: 1e-6}, p)
				if err != nil {
					b.Fatal(err)
				}
				rp := pl.(*remPlan)
				l, err := p.NewLoss(ds)
				if err != nil {
					b.Fatal(err)
				}
				t := &remTarget{loss: l, k: rp.k, rows: p.N, constants: rp.samplerConstants(), domain: p.Domain}
				short := rp.plan
				short.Steps = min(200, rp.plan.Steps)
				b.ResetTimer()
				var res sampler.Result
				for b.Loop() {
					res, err = sampler.Run(context.Background(), t, short, rng.Seeded(1), nil)
					if err != nil {
						b.Fatal(err)
					}
				}
				perStep := b.Elapsed().Seconds() / float64(b.N) / float64(short.Steps)
				b.ReportMetric(perStep*1e6, "µs/step")
				b.ReportMetric(float64(rp.plan.Steps), "planned-steps")
				b.ReportMetric(perStep*float64(rp.plan.Steps), "certified-run-s")
				b.ReportMetric(res.Stats.AcceptanceRate(), "acceptance")
				// The cost model's prediction at the native rates of BenchmarkLinearValue,
				// BenchmarkLinearGrad and BenchmarkNormalDraws: 10.4 M values, 6.8 M gradients and
				// about 100 M draws per second.
				b.ReportMetric(rp.plan.Cost.Seconds(cost.Rates{Queries: 10.4e6, Gradients: 6.8e6, Draws: 1e8}), "model-s")
			})
		}
	}
}

// BenchmarkREMAdultFast runs the fast modes on adult-lr at ε = 1, δ = 1e-6 with their default
// step counts (mixing not certified) and reports the time per run.
func BenchmarkREMAdultFast(b *testing.B) {
	ds := adultTrain(b)
	p := Problem{Loss: LossSpec{Name: "logistic"}, Dim: ds.D, N: ds.N, Bounds: loss.Bounds{X: 1, XNorm: 2, Y: 1},
		Domain: geom.Whole{D: ds.D}, Radius: 10}
	for _, mode := range []SamplerMode{SampleMALA, SampleLangevin, SampleKinetic} {
		b.Run(string(mode), func(b *testing.B) {
			pl, err := REM{Sampler: mode, FastSteps: 200}.Plan(privacy.Budget{Epsilon: 1, Delta: 1e-6}, p)
			if err != nil {
				b.Fatal(err)
			}
			start := time.Now()
			for b.Loop() {
				if _, err := pl.Run(context.Background(), ds, rng.Seeded(2), nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(time.Since(start).Seconds()/float64(b.N)/200*1e3, "ms/step")
		})
	}
}

// BenchmarkNoisyGDWorkers fits noisy-gd (its defaults, ε = 1, δ = 1e-6) on 1,000,000 rows of 20
// features with 1 and 2 workers (loss.SetWorkers): the whole fit, planning excluded. The
// releases are the same bits (TestReleasesIgnoreWorkers); the ratio of the times is what a
// second core gains on a whole fit.
func BenchmarkNoisyGDWorkers(b *testing.B) {
	defer loss.SetWorkers(loss.SetWorkers(0))
	ds := toyData(1_000_000, 20, 31)
	pl, err := NoisyGD{}.Plan(privacy.Budget{Epsilon: 1, Delta: 1e-6}, toyProblem(ds))
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("%d steps", pl.(*noisyGDPlan).steps)
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			loss.SetWorkers(workers)
			for b.Loop() {
				if _, err := pl.Run(context.Background(), ds, rng.Seeded(1), nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
