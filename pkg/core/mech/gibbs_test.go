package mech

import (
	"context"
	"errors"
	"github.com/privopt/privopt/pkg/core/privacy"
	"math"
	"testing"

	"github.com/privopt/privopt/internal/stattest"
	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/geom"
	"github.com/privopt/privopt/pkg/core/loss"
	"github.com/privopt/privopt/pkg/rng"
)

// rowsData builds a dataset from explicit rows and labels.
func rowsData(d int, rows [][]float64, labels []float64) *data.Dataset {
	ds := &data.Dataset{N: len(rows), D: d, Y: append([]float64(nil), labels...), P: 2, Radius: 1}
	for _, r := range rows {
		ds.X = append(ds.X, r...)
	}
	for j := range d {
		ds.Features = append(ds.Features, "x"+string(rune('a'+j)))
	}
	return ds
}

// repeatRow returns n copies of a row with a label, followed by the extra rows.
func repeatRow(n int, row []float64, label float64, extra [][]float64, extraLabels []float64) ([][]float64, []float64) {
	var rows [][]float64
	var labels []float64
	for range n {
		rows = append(rows, row)
		labels = append(labels, label)
	}
	return append(rows, extra...), append(labels, extraLabels...)
}

// smallData is toyData in any dimension d ≥ 1: rows uniform in the unit ball, labels
// following the first coordinate with noise.
func smallData(n, d int, seed uint64) *data.Dataset {
	r := rng.Seeded(seed)
	rows, labels := make([][]float64, n), make([]float64, n)
	for i := range rows {
		rows[i] = make([]float64, d)
		if err := r.UnitBall(rows[i]); err != nil {
			panic(err)
		}
		labels[i] = 1
		if rows[i][0]+0.3*r.Normal() < 0 {
			labels[i] = -1
		}
	}
	return rowsData(d, rows, labels)
}

// cube returns the box [−b, b]^d.
func cube(t testing.TB, d int, b float64) *geom.Box {
	t.Helper()
	lo, hi := make([]float64, d), make([]float64, d)
	for i := range lo {
		lo[i], hi[i] = -b, b
	}
	box, err := geom.NewBox(lo, hi)
	if err != nil {
		t.Fatal(err)
	}
	return box
}

// boxProblem is the logistic problem on the box [−b, b]^d with ‖x‖₂ ≤ 1.
func boxProblem(t testing.TB, ds *data.Dataset, b float64) Problem {
	box := cube(t, ds.D, b)
	return Problem{Loss: LossSpec{Name: "logistic"}, Dim: ds.D, N: ds.N, Bounds: loss.Bounds{X: 1, XNorm: 2, Y: 1},
		Domain: box, Radius: box.Radius(2)}
}

// grid1 returns m + 1 equally spaced points of [lo, hi].
func grid1(lo, hi float64, m int) []float64 {
	g := make([]float64, m+1)
	for i := range g {
		g[i] = lo + (hi-lo)*float64(i)/float64(m)
	}
	return g
}

// logDensity1 returns the normalised log-density on a 1-D grid of ∝ exp(−β·score), by the
// trapezoid rule.
func logDensity1(theta []float64, beta float64, score func(float64) float64) []float64 {
	lp := make([]float64, len(theta))
	top := math.Inf(-1)
	for i, th := range theta {
		lp[i] = -beta * score(th)
		top = math.Max(top, lp[i])
	}
	z := 0.0
	for i := range lp {
		w := 1.0
		if i == 0 || i == len(lp)-1 {
			w = 0.5
		}
		z += w * math.Exp(lp[i]-top)
	}
	z = top + math.Log(z*(theta[1]-theta[0]))
	for i := range lp {
		lp[i] -= z
	}
	return lp
}

// meanLoss returns F(θ) of a 1-D dataset.
func meanLoss(t testing.TB, ds *data.Dataset, p Problem) func(float64) float64 {
	l, err := p.NewLoss(ds)
	if err != nil {
		t.Fatal(err)
	}
	return func(th float64) float64 { return l.Mean(nil, []float64{th}) }
}

// TestGibbsPrivacyRatio1D computes, by quadrature on a fine grid, the densities of the exact
// Gibbs release on adversarial replace-one neighbours in one dimension, for the exponential
// mechanism (ψ = 0) and the pure-ε Rashomon sampler (ψ > 0, with the threshold computed by
// the mechanism's own solver on each dataset), and checks sup_θ p_D(θ)/p_D′(θ) ≤ e^ε. The
// neighbours differ in the sign of one label, which moves F by −θ/n (the largest range the
// logistic loss allows), and the other rows push the mass to the far end, so the ratio comes
// close to e^ε: the test also checks that it exceeds e^{0.8ε}, so a calibration off by a
// factor of 2 in the safe direction would be caught too.
func TestGibbsPrivacyRatio1D(t *testing.T) {
	const n, b = 400, 1.0
	rows, labels := repeatRow(n-1, []float64{1}, -1, [][]float64{{1}}, []float64{1})
	d1 := rowsData(1, rows, labels)
	labels2 := append([]float64(nil), labels...)
	labels2[n-1] = -1
	d2 := rowsData(1, rows, labels2)
	// F in closed form (label −1 at x = 1 costs log(1 + e^θ), label +1 costs log(1 + e^−θ)),
	// checked below against the loss the mechanism uses.
	sp := func(z float64) float64 { return math.Max(z, 0) + math.Log1p(math.Exp(-math.Abs(z))) }
	closed := []func(float64) float64{
		func(th float64) float64 { return ((n-1)*sp(th) + sp(-th)) / n },
		func(th float64) float64 { return sp(th) },
	}
	theta := grid1(-b, b, 400000)
	for _, tc := range []struct {
		name string
		eps  float64
		mech Mechanism
	}{
		{"expmech eps=0.5", 0.5, ExpMech{}},
		{"expmech eps=2", 2, ExpMech{}},
		{"rashomon eps=1", 1, Rashomon{Psi: 0.05}},
		{"rashomon eps=4", 4, Rashomon{Psi: 0.2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := boxProblem(t, d1, b)
			plan, err := tc.mech.Plan(privacy.Budget{Epsilon: tc.eps}, p)
			if err != nil {
				t.Fatal(err)
			}
			pl := plan.(*gibbsPlan)
			if want := tc.eps * n / (2 * b); math.Abs(pl.beta*(1+2*pl.eta/pl.scoreSens)-want) > 1e-6*want {
				t.Errorf("β(1 + 2η/s) = %g, want εn/(2Z) = %g (Z = %g is the logistic range on the box)", pl.beta*(1+2*pl.eta/pl.scoreSens), want, b)
			}
			var lp [2][]float64
			for k, ds := range []*data.Dataset{d1, d2} {
				f, real := closed[k], meanLoss(t, ds, p)
				for _, th := range []float64{-1, -0.3, 0, 0.7, 1} {
					if math.Abs(f(th)-real(th)) > 1e-13 {
						t.Fatalf("closed form %g, loss %g at θ = %g", f(th), real(th), th)
					}
				}
				score := f
				if pl.psi > 0 {
					l, _ := p.NewLoss(ds)
					m, err := minimizeMean(context.Background(), l, pl.dom, pl.smooth, pl.g, pl.solverIters, pl.solverGap)
					if err != nil {
						t.Fatal(err)
					}
					tau, err := pl.threshold(m)
					if err != nil {
						t.Fatal(err)
					}
					gridMin := math.Inf(1)
					for _, th := range theta {
						gridMin = math.Min(gridMin, f(th))
					}
					// The grid minimum is within 1e-5 of F* (spacing 5e-6, slope ≤ 1).
					if tau > gridMin+1e-12 || tau < gridMin-pl.eta-1e-5 {
						t.Errorf("threshold %g outside [F* − η, F*] = [%g, %g]", tau, gridMin-pl.eta, gridMin)
					}
					score = func(th float64) float64 { return math.Max(f(th), tau+pl.psi) }
				}
				lp[k] = logDensity1(theta, pl.beta, score)
			}
			worst := 0.0
			for i := range theta {
				worst = math.Max(worst, math.Max(lp[0][i]-lp[1][i], lp[1][i]-lp[0][i]))
			}
			// The trapezoid rule's relative error on the normalisations is below 1e-6 here
			// (spacing 5e-6, |d log p/dθ| ≤ β ≤ 800).
			if worst > tc.eps+1e-5 {
				t.Errorf("sup log p_D/p_D′ = %g > ε = %g", worst, tc.eps)
			}
			if worst < 0.8*tc.eps {
				t.Errorf("sup log p_D/p_D′ = %g, far below ε = %g: the neighbours are not adversarial or β is too small", worst, tc.eps)
			}
		})
	}
}

// TestGibbsPlanConstants checks β = ε/s with s = 2R/n (R/n under add/remove), R the exact
// range of the loss on the domain (Z for the logistic loss, min(2Z, 1 + Z) for the hinge, G·D
// for the squared loss), the pure guarantee and the utility bound d/β + ψ.
func TestGibbsPlanConstants(t *testing.T) {
	ds := toyData(50, 3, 7)
	for _, tc := range []struct {
		loss      string
		b         float64
		wantRange float64
	}{
		{"logistic", 2, 2 * math.Sqrt(3)},
		{"hinge", 2, math.Min(2*2*math.Sqrt(3), 1+2*math.Sqrt(3))},
		{"hinge", 0.1, math.Min(2*0.1*math.Sqrt(3), 1+0.1*math.Sqrt(3))},
		{"squared", 1, (math.Sqrt(3) + 1) * 2 * math.Sqrt(3)},
	} {
		p := boxProblem(t, ds, tc.b)
		p.Loss.Name = tc.loss
		for _, rel := range []struct {
			nb     privacy.Budget
			factor float64
		}{{privacy.Budget{Epsilon: 1}, 2}, {privacy.Budget{Epsilon: 1, Neighbouring: "add-remove"}, 1}} {
			plan, err := ExpMech{}.Plan(rel.nb, p)
			if err != nil {
				t.Fatal(err)
			}
			pl := plan.(*gibbsPlan)
			if math.Abs(pl.rangeBound-tc.wantRange) > 1e-8*tc.wantRange {
				t.Errorf("%s on [−%g, %g]³: range %g, want %g", tc.loss, tc.b, tc.b, pl.rangeBound, tc.wantRange)
			}
			if want := 1 / (rel.factor * pl.rangeBound / 50); math.Abs(pl.beta-want) > 1e-12*want || pl.beta*pl.scoreSens > 1 {
				t.Errorf("%s: β = %g, want ε/s = %g (and β·s ≤ ε)", tc.loss, pl.beta, want)
			}
			if d := pl.Guarantee().Delta(1); d != 0 {
				t.Errorf("%s: the pure guarantee gives δ(ε) = %g", tc.loss, d)
			}
			if want := 3 / pl.beta; pl.Utility().Bound != want {
				t.Errorf("%s: utility %g, want d/β = %g", tc.loss, pl.Utility().Bound, want)
			}
		}
	}
}

// TestExactSamplerKS draws from the exponential mechanism and the pure Rashomon sampler with
// their Run on small problems and compares the samples with the quadrature CDF of the target
// (1-D, and each marginal in 2-D) by KS at level 1e-4 (each fails with probability 1e-4 for a
// correct sampler; fixed seeds). It also checks the utility bound on the sample mean of F:
// mean F − F* ≤ d/β + ψ (the exact expectation, computed by quadrature, must satisfy it too).
func TestExactSamplerKS(t *testing.T) {
	const draws = 1500
	for _, tc := range []struct {
		name string
		d    int
		mech Mechanism
		eps  float64
	}{
		{"expmech 1-D", 1, ExpMech{}, 2},
		{"rashomon 1-D", 1, Rashomon{Psi: 0.02}, 4},
		{"expmech 2-D", 2, ExpMech{}, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds := smallData(30, tc.d, 11)
			p := boxProblem(t, ds, 3)
			plan, err := tc.mech.Plan(privacy.Budget{Epsilon: tc.eps}, p)
			if err != nil {
				t.Fatal(err)
			}
			pl := plan.(*gibbsPlan)
			l, _ := p.NewLoss(ds)
			r := rng.Seeded(5)
			samples := make([][]float64, draws)
			meanF := 0.0
			for i := range samples {
				rel, err := plan.Run(context.Background(), ds, r, nil)
				if err != nil {
					t.Fatal(err)
				}
				samples[i] = rel.Model.Weights
				meanF += l.Mean(nil, samples[i]) / draws
			}
			// Quadrature of the target on a grid (the product grid in 2-D).
			const m = 600
			axis := grid1(-3, 3, m)
			score := func(x []float64) float64 { return l.Mean(nil, x) }
			if pl.psi > 0 {
				mm, _ := minimizeMean(context.Background(), l, pl.dom, pl.smooth, pl.g, pl.solverIters, pl.solverGap)
				tau, _ := pl.threshold(mm)
				score = func(x []float64) float64 { return math.Max(l.Mean(nil, x), tau+pl.psi) }
			}
			marg := make([][]float64, tc.d) // unnormalised marginal densities on the axis
			for k := range marg {
				marg[k] = make([]float64, m+1)
			}
			fmin, ef, z := math.Inf(1), 0.0, 0.0
			x := make([]float64, tc.d)
			idx := make([]int, tc.d)
			for {
				for k := range x {
					x[k] = axis[idx[k]]
				}
				s := score(x)
				f := l.Mean(nil, x)
				fmin = math.Min(fmin, f)
				w := math.Exp(-pl.beta * s) // β·s is far below 700 here
				for k := range marg {
					marg[k][idx[k]] += w
				}
				ef += w * f
				z += w
				k := 0
				for ; k < tc.d; k++ {
					idx[k]++
					if idx[k] <= m {
						break
					}
					idx[k] = 0
				}
				if k == tc.d {
					break
				}
			}
			ef /= z
			bound := float64(tc.d)/pl.beta + pl.psi
			if ef-fmin > bound {
				t.Errorf("quadrature: E F − F* = %g > d/β + ψ = %g", ef-fmin, bound)
			}
			// The sample mean of F has standard error at most range/√draws; allow 5 of them.
			if meanF-fmin > bound+5*pl.rangeBound/math.Sqrt(draws) {
				t.Errorf("samples: mean F − F* = %g > d/β + ψ = %g", meanF-fmin, bound)
			}
			for k := range marg {
				cdf := cumulative(axis, marg[k])
				xs := make([]float64, draws)
				for i := range xs {
					xs[i] = samples[i][k]
				}
				stattest.KS(t, tc.name, xs, cdf)
			}
		})
	}
}

// cumulative returns the CDF of a density given at equally spaced points (trapezoid rule,
// linear interpolation between the points).
func cumulative(axis, dens []float64) func(float64) float64 {
	c := make([]float64, len(axis))
	for i := 1; i < len(axis); i++ {
		c[i] = c[i-1] + (dens[i-1]+dens[i])/2
	}
	total := c[len(c)-1]
	for i := range c {
		c[i] /= total
	}
	return func(x float64) float64 {
		if x <= axis[0] {
			return 0
		}
		if x >= axis[len(axis)-1] {
			return 1
		}
		h := axis[1] - axis[0]
		i := int((x - axis[0]) / h)
		i = min(i, len(axis)-2)
		f := (x - axis[i]) / h
		return c[i] + f*(c[i+1]-c[i])
	}
}

// TestMinimizeMean checks the solver's certified bounds, lower ≤ min_C F ≤ upper, against a
// fine grid in 2-D, for smooth (FISTA) and non-smooth (subgradient) losses, and that FISTA's
// last iterate after the a-priori number of iterations is within the gap.
func TestMinimizeMean(t *testing.T) {
	ds := toyData(40, 2, 13)
	for _, lossName := range []string{"logistic", "hinge"} {
		for _, b := range []float64{0.5, 4} { // the minimizer on the boundary, then inside
			p := boxProblem(t, ds, b)
			p.Loss.Name = lossName
			l, _ := p.NewLoss(ds)
			dom, _ := newBoundedDomain(p.Domain)
			c, _ := p.Constants(2)
			const gap = 1e-3
			iters := 5000
			if lossName == "logistic" {
				iters, _ = fistaIterations(c.Smoothness, dom.diam, gap)
			}
			m, err := minimizeMean(context.Background(), l, dom, c.Smoothness, c.Lipschitz, iters, -1) // all iterations
			if err != nil {
				t.Fatal(err)
			}
			gridMin := math.Inf(1)
			axis := grid1(-b, b, 400)
			for _, u := range axis {
				for _, v := range axis {
					gridMin = math.Min(gridMin, l.Mean(nil, []float64{u, v}))
				}
			}
			// The grid minimum exceeds F* by at most G·(spacing) ≤ b/200·√2.
			slack := b / 200 * math.Sqrt2
			if m.lower > gridMin || m.upper < gridMin-slack {
				t.Errorf("%s on [−%g, %g]²: bounds [%g, %g] do not bracket the minimum ≈ %g", lossName, b, b, m.lower, m.upper, gridMin)
			}
			if lossName == "logistic" && !(m.last-gridMin <= gap) {
				t.Errorf("%s on [−%g, %g]²: F(x_K) − F* = %g > the a-priori gap %g", lossName, b, b, m.last-gridMin, gap)
			}
		}
	}
}

// TestSampleGibbsCancel: with an acceptance rate far below anything reachable, the sampler
// runs until the context is cancelled, then returns its error and no point.
func TestSampleGibbsCancel(t *testing.T) {
	dom, _ := newBoundedDomain(cube(t, 5, 1))
	ctx, cancel := context.WithCancel(context.Background())
	score := func(x []float64, _ float64) (float64, bool) { return 1 + x[0], false }
	x, proposals, err := sampleGibbs(ctx, rng.Seeded(1), dom, 5, 1e6, 0, score, func(k int64) {
		if k == 1000 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || x != nil || proposals != 1000 {
		t.Errorf("got %v, %d proposals, error %v; want nothing after 1000 proposals and context.Canceled", x, proposals, err)
	}
	// A floor above the score is a broken certificate: an error, never a clipped acceptance.
	if _, _, err := sampleGibbs(context.Background(), rng.Seeded(1), dom, 5, 1, 3, score, nil); err == nil {
		t.Error("a floor above the score was accepted")
	}
}

// TestBoundedDomain checks the uniform proposals (inside the domain, mean and variance of each
// coordinate), the linear minimization against vertices, and the ℓ2 diameters.
func TestBoundedDomain(t *testing.T) {
	ball1, _ := geom.NewBall(3, 1, 2, []float64{1, 0, -1})
	ball2, _ := geom.NewBall(4, 2, 1.5, nil)
	box, _ := geom.NewBox([]float64{-1, 0, 2}, []float64{3, 1, 2.5})
	for _, tc := range []struct {
		dom  geom.Domain
		diam float64
	}{
		{ball1, 4}, {ball2, 3}, {box, math.Sqrt(16 + 1 + 0.25)},
	} {
		c, err := newBoundedDomain(tc.dom)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(c.diam-tc.diam) > 1e-8*tc.diam || c.diam < tc.diam {
			t.Errorf("%T: diameter %g, want %g rounded up", tc.dom, c.diam, tc.diam)
		}
		r := rng.Seeded(3)
		d := tc.dom.Dim()
		x := make([]float64, d)
		g := []float64{0.3, -2, 1, 0.5}[:d]
		lin := c.minLinear(g)
		for range 20000 {
			if err := c.draw(r, x); err != nil {
				t.Fatal(err)
			}
			if !tc.dom.Contains(x) {
				t.Fatalf("%T: proposal %v outside", tc.dom, x)
			}
			s := 0.0
			for i := range x {
				s += g[i] * x[i]
			}
			if s < lin-1e-12 {
				t.Fatalf("%T: ⟨g, x⟩ = %g below the linear minimum %g", tc.dom, s, lin)
			}
		}
	}
	// Exact linear minima: on the box at the vertex picked by the signs, on the ℓ1 ball at
	// c − R·sign(g_j)e_j with j the largest |g_j|.
	cb, _ := newBoundedDomain(box)
	if got, want := cb.minLinear([]float64{1, -1, 2}), -1.0-1+4; got != want {
		t.Errorf("box: min linear %g, want %g", got, want)
	}
	c1, _ := newBoundedDomain(ball1)
	if got, want := c1.minLinear([]float64{0.5, -3, 1}), 0.5-1-2*3; math.Abs(got-want) > 1e-12 {
		t.Errorf("ℓ1 ball: min linear %g, want %g", got, want)
	}
}

// TestGibbsRejects: unbounded domains, tilted losses and a non-smooth loss for the pure
// Rashomon sampler are refused.
func TestGibbsRejects(t *testing.T) {
	ds := toyData(20, 2, 3)
	whole := toyProblem(ds)
	if _, err := (ExpMech{}).Plan(privacy.Budget{Epsilon: 1}, whole); err == nil {
		t.Error("the whole space accepted")
	}
	p := boxProblem(t, ds, 1)
	tilted := p
	tilted.Loss.Tilt = 1
	if _, err := (ExpMech{}).Plan(privacy.Budget{Epsilon: 1}, tilted); err == nil {
		t.Error("a tilted loss accepted")
	}
	hinge := p
	hinge.Loss.Name = "hinge"
	if _, err := (Rashomon{Psi: 0.1}).Plan(privacy.Budget{Epsilon: 1}, hinge); err == nil {
		t.Error("the pure Rashomon sampler accepted a non-smooth loss")
	}
	if _, err := (ExpMech{}).Plan(privacy.Budget{Epsilon: 1}, hinge); err != nil {
		t.Errorf("the exponential mechanism refused the hinge loss: %v", err)
	}
}

// TestMeanScoreEarlyStop: the early-stopping score never changes a decision: when it stops,
// the full mean exceeds the limit; when it does not, it returns the full mean (bit for bit the
// loss's Mean) clipped below at clip.
func TestMeanScoreEarlyStop(t *testing.T) {
	ds := toyData(500, 3, 17)
	p := boxProblem(t, ds, 3)
	l, _ := p.NewLoss(ds)
	r := rng.Seeded(2)
	dom, _ := newBoundedDomain(p.Domain)
	x := make([]float64, 3)
	stopped := 0
	for _, clip := range []float64{math.Inf(-1), 0.9} {
		score := meanScore(l, p.N, true, clip)
		for range 2000 {
			_ = dom.draw(r, x)
			full := l.Mean(nil, x)
			limit := 0.2 + 2*r.Float64()
			s, above := score(x, limit)
			switch {
			case above && !(full > limit):
				t.Fatalf("stopped early at %v, but F = %g ≤ limit %g", x, full, limit)
			case above:
				stopped++
			case s != math.Max(full, clip):
				t.Fatalf("score %g, want max(F, clip) = %g", s, math.Max(full, clip))
			}
		}
	}
	if stopped == 0 {
		t.Error("the score never stopped early")
	}
}

// TestGibbsAcceptancePrediction computes the exact acceptance rate of the exponential
// mechanism's sampler by quadrature in 2-D (the mean over the box of exp(−β(F − floor)), with
// the floor the solver certifies) and checks the plan's two bounds on the expected number of
// proposals: the one for every dataset, and the one for an interior minimizer (which this
// problem has), within a factor 100 of the truth (it takes the loss's largest curvature, 1/4,
// in every direction, where the data's curvature is several times smaller).
func TestGibbsAcceptancePrediction(t *testing.T) {
	// Labels drawn from a logistic model with weights (3, 0): the minimizer is near (3, 0).
	ds := smallData(100, 2, 23)
	r := rng.Seeded(24)
	for i := range ds.N {
		ds.Y[i] = -1
		if r.Float64() < 1/(1+math.Exp(-3*ds.X[2*i])) {
			ds.Y[i] = 1
		}
	}
	p := boxProblem(t, ds, 6)
	plan, err := ExpMech{}.Plan(privacy.Budget{Epsilon: 2}, p)
	if err != nil {
		t.Fatal(err)
	}
	pl := plan.(*gibbsPlan)
	l, _ := p.NewLoss(ds)
	m, _ := minimizeMean(context.Background(), l, pl.dom, pl.smooth, pl.g, pl.solverIters, pl.solverGap)
	const k = 400
	axis := grid1(-6, 6, k)
	acc, best, at := 0.0, math.Inf(1), []float64{0, 0}
	for i, u := range axis {
		for j, v := range axis {
			w := 1.0
			if i == 0 || i == k {
				w /= 2
			}
			if j == 0 || j == k {
				w /= 2
			}
			f := l.Mean(nil, []float64{u, v})
			if f < best {
				best, at = f, []float64{u, v}
			}
			acc += w * math.Exp(-pl.beta*(f-m.lower))
		}
	}
	acc /= k * k
	if math.Abs(at[0]) > 5 || math.Abs(at[1]) > 5 || math.IsNaN(pl.logProposalsInterior) {
		t.Fatalf("the test needs an interior minimizer (at %v) and the interior prediction (%g)", at, pl.logProposalsInterior)
	}
	got := -math.Log(acc)
	if got > pl.logProposals || got > pl.logProposalsInterior {
		t.Errorf("log expected proposals %g above the bounds %g (every dataset) or %g (interior minimizer)", got, pl.logProposals, pl.logProposalsInterior)
	}
	if pl.logProposalsInterior-got > math.Log(100) {
		t.Errorf("the interior prediction e^%g is more than 100 times the truth e^%g", pl.logProposalsInterior, got)
	}
}

// BenchmarkGibbsProposal measures one proposal of the exact sampler (a uniform point, an
// exponential variate and the early-stopping score) at the shape of the adult-lr two-feature
// runs: n = 32561 rows, d = 2, the logistic loss on [−10, 10]², ε = 1, with the floor the
// solver certifies.
func BenchmarkGibbsProposal(b *testing.B) {
	ds := smallData(32561, 2, 31)
	p := boxProblem(b, ds, 10)
	plan, err := ExpMech{}.Plan(privacy.Budget{Epsilon: 1}, p)
	if err != nil {
		b.Fatal(err)
	}
	pl := plan.(*gibbsPlan)
	l, _ := p.NewLoss(ds)
	m, err := minimizeMean(context.Background(), l, pl.dom, pl.smooth, pl.g, pl.solverIters, pl.solverGap)
	if err != nil {
		b.Fatal(err)
	}
	score := meanScore(l, p.N, true, math.Inf(-1))
	r := rng.Seeded(1)
	x := make([]float64, 2)
	b.ResetTimer()
	for range b.N {
		_ = pl.dom.draw(r, x)
		score(x, m.lower+r.Exp()/pl.beta)
	}
}
