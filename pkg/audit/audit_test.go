package audit

import (
	"context"
	"testing"

	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/privacy"
	"github.com/privopt/privopt/pkg/rng"
)

// meanData returns datasets of n one-dimensional rows in [−1, 1]: d0 has every row at 0 but
// the first at +1, d1 the first at −1 (one record flipped to the opposite extreme).
func meanData(n int) (d0, d1 *data.Dataset) {
	mk := func(first float64) *data.Dataset {
		ds := &data.Dataset{N: n, D: 1, X: make([]float64, n), Y: make([]float64, n)}
		ds.X[0] = first
		return ds
	}
	return mk(1), mk(-1)
}

// gaussianMean is the Gaussian mechanism on the mean of rows in [−1, 1] (L2 sensitivity 2/n
// under replace-one) with noise σ = scale·(2/n)/μ: scale = 1 is exactly μ-GDP.
func gaussianMean(mu, scale float64) Mechanism {
	return func(_ context.Context, ds *data.Dataset, r *rng.Rand) ([]float64, error) {
		sum := 0.0
		for _, v := range ds.X {
			sum += v
		}
		n := float64(ds.N)
		return []float64{sum/n + scale*(2/n)/mu*r.Normal()}, nil
	}
}

// TestCorrectGaussianPasses: the exact Gaussian mechanism is never flagged (at level 1e-3 the
// audit of a correct mechanism fails with probability at most 1e-3), and the lower bound on ε
// stays below the true ε(δ).
func TestCorrectGaussianPasses(t *testing.T) {
	d0, d1 := meanData(10)
	for _, mu := range []float64{0.5, 1, 2} {
		res, err := Run(context.Background(), gaussianMean(mu, 1), d0, d1, privacy.GDP{Mu: mu}, 1e-6, Config{})
		if err != nil {
			t.Fatal(err)
		}
		trueEps, _ := privacy.GDP{Mu: mu}.Epsilon(1e-6)
		if res.Violation || res.EpsilonLower > trueEps {
			t.Errorf("μ=%g: violation %v, ε lower bound %g (true ε %g), worst %+v", mu, res.Violation, res.EpsilonLower, trueEps, res.Worst)
		}
		if res.EpsilonLower <= 0 {
			t.Errorf("μ=%g: the audit found no evidence of any leakage: ε lower bound %g", mu, res.EpsilonLower)
		}
		// The μ lower bound is below the true μ (with confidence 1 − 1e-3) and, at this fixed
		// seed, informative: above μ/2.
		if res.MuLower > mu || res.MuLower < mu/2 {
			t.Errorf("μ=%g: μ lower bound %g", mu, res.MuLower)
		}
	}
}

// TestHalfSigmaFails: Gaussian noise with half the calibrated σ (twice the claimed μ) is caught.
func TestHalfSigmaFails(t *testing.T) {
	d0, d1 := meanData(10)
	for _, mu := range []float64{0.5, 1} {
		res, err := Run(context.Background(), gaussianMean(mu, 0.5), d0, d1, privacy.GDP{Mu: mu}, 1e-6, Config{})
		if err != nil {
			t.Fatal(err)
		}
		trueEps, _ := privacy.GDP{Mu: mu}.Epsilon(1e-6)
		if !res.Violation || res.MuLower <= mu {
			t.Errorf("μ=%g: half σ was not caught (μ lower bound %g); worst %+v", mu, res.MuLower, res.Worst)
		}
		if res.EpsilonLower <= trueEps*0.5 {
			t.Logf("μ=%g: ε lower bound %g against the claimed %g", mu, res.EpsilonLower, trueEps)
		}
	}
}

// TestFixedSeedFails: drawing the noise from the same seed on every run makes the outputs a
// function of the data, which the audit sees at once.
func TestFixedSeedFails(t *testing.T) {
	d0, d1 := meanData(10)
	mech := gaussianMean(1, 1)
	fixed := func(ctx context.Context, ds *data.Dataset, _ *rng.Rand) ([]float64, error) {
		return mech(ctx, ds, rng.Seeded(42))
	}
	res, err := Run(context.Background(), fixed, d0, d1, privacy.GDP{Mu: 1}, 1e-6, Config{Runs: 200, Calibration: 20})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Violation {
		t.Errorf("a fixed seed was not caught; worst %+v", res.Worst)
	}
}

func TestClopperPearson(t *testing.T) {
	for _, tc := range []struct {
		k, n  int
		level float64
	}{{0, 100, 0.05}, {3, 100, 0.01}, {50, 100, 1e-3}, {99, 100, 0.05}} {
		u := clopperPearsonUpper(tc.k, tc.n, tc.level)
		// The binomial probability of at most k successes at p = u equals the level.
		p := 0.0
		coef := 1.0
		for j := 0; j <= tc.k; j++ {
			if j > 0 {
				coef *= float64(tc.n-j+1) / float64(j)
			}
			p += coef * pow(u, j) * pow(1-u, tc.n-j)
		}
		if d := p - tc.level; d > 1e-9 || d < -1e-9 {
			t.Errorf("CP(%d, %d, %g) = %g: P[X ≤ k] = %g", tc.k, tc.n, tc.level, u, p)
		}
	}
	if clopperPearsonUpper(10, 10, 0.05) != 1 {
		t.Error("k = n must give 1")
	}
}

func pow(x float64, k int) float64 {
	r := 1.0
	for range k {
		r *= x
	}
	return r
}

// TestPower reports the smallest μ error the default audit detects, and checks it is modest.
func TestPower(t *testing.T) {
	for _, mu := range []float64{0.25, 0.5, 1, 2} {
		ratio := Power(mu, 2000, 40, 1e-3)
		t.Logf("μ = %g: the default audit (2000 runs per dataset) detects μ_true ≥ %.2f·μ", mu, ratio)
		if ratio > 2 {
			t.Errorf("μ = %g: the audit only detects a factor %g", mu, ratio)
		}
	}
}
