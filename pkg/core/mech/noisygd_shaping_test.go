package mech

import (
	"context"
	"github.com/privopt/privopt/pkg/core/privacy"
	"math"
	"strings"
	"testing"

	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/geom"
	"github.com/privopt/privopt/pkg/core/loss"
	"github.com/privopt/privopt/pkg/rng"
)

// multiBiasData returns biasData's rows (d coordinates, the last the bias 1/√2) with labels in
// 0..k−1 drawn from the first feature's sign and the seed.
func multiBiasData(n, d, k int, seed uint64) *data.Dataset {
	ds := biasData(n, d, seed)
	r := rng.Seeded(seed + 1)
	ds.Y = make([]float64, n)
	for i := range n {
		c := 0
		if ds.Row(i, nil)[0] > 0 {
			c = 1
		}
		if u := r.Float64(); u < 0.3 {
			c = int(u / 0.3 * float64(k))
		}
		ds.Y[i] = float64(c)
	}
	return ds
}

func multiProblem(ds *data.Dataset, k int) Problem {
	return Problem{Loss: LossSpec{Name: "multinomial", Classes: k}, Dim: ds.D, N: ds.N,
		Bounds: loss.Bounds{X: 1, XNorm: 2, Bias: ds.Bias}, Domain: geom.Whole{D: k * ds.D}, Radius: 5}
}

// TestNoisyGDMultinomialBiasShaping: with a declared bias, the multinomial's steps are planned
// as with isotropic noise (the same T and h) and the release of S⁻¹z, S scaling the bias
// coordinate of every class block by 4, is calibrated for G = √2·X̄ times
// Bounds.BiasScaledShare(4) with the isotropic rounding term; the steps still meet ρ. The scaled
// drifts of neighbouring datasets (one row replaced by one of norm 1 with another label, at
// points θ up to norm 30) differ by at most h·Δ, and by more than a third of it for some
// pair: a sensitivity that forgot a class block's bias, or scaled only the last block, fails.
// Over 400 seeds one step's noise on each class's bias coordinate has 16 times a feature's
// variance (sample ratios in [10, 26], as in TestNoisyGDBiasNoiseShape), and 1 times with
// NoBiasShaping. The report names the class blocks.
func TestNoisyGDMultinomialBiasShaping(t *testing.T) {
	const k = 3
	ds := multiBiasData(1000, 4, k, 3)
	p := multiProblem(ds, k)
	b := privacy.Budget{Epsilon: 1, Delta: 1e-6}
	pl, s := noisyPlan(t, NoisyGD{}, b, p)
	_, iso := noisyPlan(t, NoisyGD{NoBiasShaping: true}, b, p)
	share := p.Bounds.BiasScaledShare(4)
	if s.biasScale != 4 || s.biasStride != ds.D || iso.biasScale != 0 {
		t.Fatalf("bias scale %v, stride %v (isotropic scale %v)", s.biasScale, s.biasStride, iso.biasScale)
	}
	if pl.Parameters()["bias_scale"] != 4 {
		t.Errorf("parameters %v", pl.Parameters())
	}
	if s.steps != iso.steps || s.h != iso.h {
		t.Errorf("%d steps of %v, isotropic %d of %v", s.steps, s.h, iso.steps, iso.h)
	}
	g := roundUp(iso.g * share)
	if want := roundUp(Sensitivity(b, g, ds.N) + meanGradientRounding(ds.N, iso.g)); s.g != g || s.delta != want || !(iso.g >= math.Sqrt2) {
		t.Errorf("G = %v, Δ = %v, want %v and %v (isotropic G %v)", s.g, s.delta, g, want, iso.g)
	}
	if rho := s.rhoAt(s.steps); rho > s.rhoTarget || rho < s.rhoTarget*(1-1e-6) {
		t.Errorf("ρ = %v for a target %v", rho, s.rhoTarget)
	}

	// The scaled drifts of neighbouring datasets differ by at most h·Δ.
	l, err := p.NewLoss(ds)
	if err != nil {
		t.Fatal(err)
	}
	r := rng.Seeded(5)
	dim := k * ds.D
	g1, g2, theta := make([]float64, dim), make([]float64, dim), make([]float64, dim)
	worst := 0.0
	for trial := range 300 {
		other, i := biasNeighbour(t, ds, trial, r)
		other.Y[i] = float64((int(other.Y[i]) + 1 + trial%(k-1)) % k)
		l2, err := p.NewLoss(other)
		if err != nil {
			t.Fatal(err)
		}
		for j := range theta {
			theta[j] = 30 * r.Normal() / math.Sqrt(float64(dim))
		}
		if trial%3 == 0 {
			clear(theta)
		}
		loss.MeanGrad(l, g1, theta)
		loss.MeanGrad(l2, g2, theta)
		diff := 0.0
		for j := range g1 {
			dj := s.h * (g1[j] - g2[j])
			if j%ds.D == ds.D-1 {
				dj /= 4
			}
			diff += dj * dj
		}
		worst = math.Max(worst, math.Sqrt(diff))
	}
	if !(worst <= s.h*s.delta) || !(worst > 0.3*s.h*s.delta) {
		t.Errorf("largest scaled drift difference %v, bound h·Δ = %v", worst, s.h*s.delta)
	}

	// One step's noise: each class's bias coordinate carries t² = 16 times a feature's variance.
	if testing.Short() {
		t.Skip("slow statistical check (2 × 400 releases): runs under go test without -short (./build.sh test)")
	}
	for _, c := range []struct {
		m      NoisyGD
		lo, hi float64
	}{{NoisyGD{MaxSteps: 1, NoPrecondition: true}, 10, 26}, {NoisyGD{MaxSteps: 1, NoPrecondition: true, NoBiasShaping: true}, 0.6, 1.6}} {
		pl, err := c.m.Plan(b, p)
		if err != nil {
			t.Fatal(err)
		}
		sum, sq := make([]float64, dim), make([]float64, dim)
		const runs = 400
		for seed := range runs {
			rel, err := pl.Run(context.Background(), ds, rng.Seeded(uint64(100+seed)), nil)
			if err != nil {
				t.Fatal(err)
			}
			if seed == 0 && !c.m.NoBiasShaping && !strings.Contains(rel.Report.Statement, "the last of each of its 3 class blocks") {
				t.Errorf("the report does not name the class blocks: %s", rel.Report.Statement)
			}
			for j, w := range rel.Model.Weights {
				sum[j] += w
				sq[j] += w * w
			}
		}
		for cl := range k {
			v := make([]float64, ds.D)
			for j := range v {
				i := cl*ds.D + j
				v[j] = (sq[i] - sum[i]*sum[i]/runs) / (runs - 1)
			}
			feat := 0.0
			for _, x := range v[:ds.D-1] {
				feat += x / float64(ds.D-1)
			}
			if ratio := v[ds.D-1] / feat; !(ratio >= c.lo && ratio <= c.hi) {
				t.Errorf("%+v, class %d: the bias's variance is %v times a feature's, want it in [%v, %v]", c.m, cl, ratio, c.lo, c.hi)
			}
		}
	}
}

// TestNoisyGDRegressionIsotropic: a regression loss (squared in a ball, Huber on the whole
// space) keeps the noise isotropic even with a declared bias (NoisyGD's "Bias shaping"): its
// plan is the one NoBiasShaping gives, field for field, and its release the same bits.
func TestNoisyGDRegressionIsotropic(t *testing.T) {
	ds := regressionData(300, 4)
	ball, err := geom.NewBall(ds.D, 2, 10, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		loss LossSpec
		dom  geom.Domain
	}{{LossSpec{Name: "squared"}, ball}, {LossSpec{Name: "huber", Param: 1}, geom.Whole{D: ds.D}}} {
		p := Problem{Loss: c.loss, Dim: ds.D, N: ds.N, Bounds: loss.Bounds{X: 1, XNorm: 2, Y: 1, Bias: ds.Bias},
			Domain: c.dom, Radius: 10, Categorical: ds.Categorical}
		for _, eps := range []float64{0.5, 8} {
			b := privacy.Budget{Epsilon: eps, Delta: 1e-6}
			pl, s := noisyPlan(t, NoisyGD{}, b, p)
			iso, si := noisyPlan(t, NoisyGD{NoBiasShaping: true}, b, p)
			if s.biasScale != 0 || s.g != si.g || s.delta != si.delta || s.steps != si.steps || s.sigma != si.sigma {
				t.Errorf("%s at ε = %g: bias scale %v, G %v/%v, Δ %v/%v, %d/%d steps, σ %v/%v", c.loss.Name, eps,
					s.biasScale, s.g, si.g, s.delta, si.delta, s.steps, si.steps, s.sigma, si.sigma)
			}
			if _, ok := pl.Parameters()["bias_scale"]; ok {
				t.Errorf("%s at ε = %g: parameters %v", c.loss.Name, eps, pl.Parameters())
			}
			if a, b := releaseDigest(t, pl, ds, 3), releaseDigest(t, iso, ds, 3); a != b {
				t.Errorf("%s at ε = %g: digest %#x, with NoBiasShaping %#x", c.loss.Name, eps, a, b)
			}
		}
	}
}
