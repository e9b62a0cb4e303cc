package rng

import (
	"testing"
)

// Every benchmark reports samples/s (vectors/s for the vector samplers) as a metric.

func report(b *testing.B) {
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "samples/s")
}

var sinkF float64
var sinkI int64

func BenchmarkUint64(b *testing.B) {
	r := Seeded(1)
	var s uint64
	for b.Loop() {
		s += r.Uint64()
	}
	sinkI = int64(s)
	report(b)
}

func BenchmarkUint64OS(b *testing.B) {
	r := New()
	var s uint64
	for b.Loop() {
		s += r.Uint64()
	}
	sinkI = int64(s)
	report(b)
}

func BenchmarkFloat64(b *testing.B) {
	r := Seeded(1)
	for b.Loop() {
		sinkF += r.Float64()
	}
	report(b)
}

func BenchmarkNormal(b *testing.B) {
	r := Seeded(1)
	for b.Loop() {
		sinkF += r.Normal()
	}
	report(b)
}

// BenchmarkNormalPairDD draws one pair of double-double normals per iteration.
func BenchmarkNormalPairDD(b *testing.B) {
	r := Seeded(1)
	for b.Loop() {
		h, _, _, _ := r.NormalPairDD()
		sinkF += h
	}
}

func BenchmarkNormalOS(b *testing.B) {
	r := New()
	for b.Loop() {
		sinkF += r.Normal()
	}
	report(b)
}

func BenchmarkExp(b *testing.B) {
	r := Seeded(1)
	for b.Loop() {
		sinkF += r.Exp()
	}
	report(b)
}

func BenchmarkLaplace(b *testing.B) {
	r := Seeded(1)
	for b.Loop() {
		v, _ := r.Laplace(2)
		sinkF += v
	}
	report(b)
}

func benchGamma(b *testing.B, shape float64) {
	r := Seeded(1)
	for b.Loop() {
		v, _ := r.Gamma(shape, 1)
		sinkF += v
	}
	report(b)
}

func BenchmarkGamma0_3(b *testing.B) { benchGamma(b, 0.3) }
func BenchmarkGamma3(b *testing.B)   { benchGamma(b, 3) }
func BenchmarkGamma1e6(b *testing.B) { benchGamma(b, 1e6) }

func benchPoisson(b *testing.B, mean float64) {
	r := Seeded(1)
	for b.Loop() {
		k, _ := r.Poisson(mean)
		sinkI += k
	}
	report(b)
}

func BenchmarkPoisson3(b *testing.B)   { benchPoisson(b, 3) }
func BenchmarkPoisson100(b *testing.B) { benchPoisson(b, 100) }
func BenchmarkPoisson1e9(b *testing.B) { benchPoisson(b, 1e9) }

const benchDim = 92 // adult-lr

func benchVec(b *testing.B, f func(r *Rand, dst []float64) error) {
	r := Seeded(1)
	dst := make([]float64, benchDim)
	for b.Loop() {
		if err := f(r, dst); err != nil {
			b.Fatal(err)
		}
	}
	report(b)
}

func BenchmarkNormalVec92(b *testing.B) {
	benchVec(b, func(r *Rand, d []float64) error { r.NormalVec(d); return nil })
}
func BenchmarkUnitSphere92(b *testing.B) { benchVec(b, (*Rand).UnitSphere) }
func BenchmarkUnitBall92(b *testing.B)   { benchVec(b, (*Rand).UnitBall) }
func BenchmarkLpBall92p1_5(b *testing.B) {
	benchVec(b, func(r *Rand, d []float64) error { return r.LpBall(d, 1.5) })
}
func BenchmarkL2Laplace92(b *testing.B) {
	benchVec(b, func(r *Rand, d []float64) error { return r.L2Laplace(d, 1) })
}

func benchInt(b *testing.B, n IntNoise) {
	r := Seeded(1)
	for b.Loop() {
		sinkI += n.Sample(r)
	}
	report(b)
}

func BenchmarkDiscreteGaussian2_75(b *testing.B) {
	g, _ := NewDiscreteGaussian(2.75)
	benchInt(b, g)
}

func BenchmarkDiscreteGaussian1e12(b *testing.B) {
	g, _ := NewDiscreteGaussian(1e12)
	benchInt(b, g)
}

func BenchmarkDiscreteLaplace1e3(b *testing.B) {
	l, _ := NewDiscreteLaplace(1e3)
	benchInt(b, l)
}

func BenchmarkGridRelease92(b *testing.B) {
	g, _ := NewGrid(30)
	dg, _ := g.DiscreteGaussian(0.05)
	x := make([]float64, benchDim)
	for i := range x {
		x[i] = float64(i) / 7
	}
	benchVec(b, func(r *Rand, d []float64) error { return g.Release(r, d, x, dg) })
}
