package mech

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/privopt/privopt/pkg/core/privacy"
	"github.com/privopt/privopt/pkg/rng"
)

// TestAutoPlan: the selection's guarantee is the random-stopping curve of its ρ, which is the
// largest that meets the budget, under both relations; every candidate is planned within ρ;
// every final fit is planned at the whole budget on the rows the candidates do not use, and
// the plan's guarantee is the worst of these; at Tuning 1 it is the selection's alone; the
// splits' sizes are public; settings and budgets it cannot serve are refused.
func TestAutoPlan(t *testing.T) {
	ds := toyData(200, 4, 9)
	for _, rel := range relations {
		for _, b := range []privacy.Budget{{Epsilon: 1, Delta: 1e-6}, {Epsilon: 0.25, Delta: 1e-9}, {Epsilon: 8, Delta: 1e-5}} {
			b.Neighbouring = rel
			pl, err := Auto{}.Plan(b, toyProblem(ds))
			if err != nil {
				t.Fatalf("%v: %v", b, err)
			}
			ap := pl.(*autoPlan)
			rho, err := privacy.CalibrateRandomStopping(privacy.Stopping{Gamma: 1.0 / defaultAutoLogRuns, Logarithmic: true}, b.Epsilon, b.Delta)
			if err != nil || ap.rho != rho {
				t.Errorf("%v: ρ = %g, calibration gives %g (%v)", b, ap.rho, rho, err)
			}
			if d := pl.Guarantee().Delta(b.Epsilon); !(d <= b.Delta) {
				t.Errorf("%v: δ(ε) = %g above the target", b, d)
			}
			worst, ok := pl.Guarantee().(privacy.Parallel)
			if !ok || len(ap.finals) != len(ap.grid) || worst[0].String() != ap.selection.String() {
				t.Fatalf("%v: guarantee %v, %d final plans for %d candidates", b, pl.Guarantee(), len(ap.finals), len(ap.grid))
			}
			if len(worst) != 2 {
				t.Errorf("%v: %d parts, want the selection's and the final fits' bound: %v", b, len(worst), worst)
			}
			for i, f := range ap.finals {
				if got := worst.Delta(b.Epsilon / 2); got < f.Guarantee().Delta(b.Epsilon/2) || got < ap.selection.Delta(b.Epsilon/2) {
					t.Errorf("%v: the guarantee's δ(ε/2) = %g is below a part's", b, got)
				}
				if r, full := f.Parameters()["rho_zcdp"], ap.plans[i].Parameters()["rho_zcdp"]; !(r > full) {
					t.Errorf("%v: final fit %d is %g-zCDP, not above a candidate's %g: not at the whole budget", b, i, r, full)
				}
			}
			for i, c := range ap.plans {
				if r := c.Parameters()["rho_zcdp"]; !(r > 0.9*ap.rho && r <= ap.rho) {
					t.Errorf("%v: candidate %d is %g-zCDP, want at most and about ρ = %g", b, i, r, ap.rho)
				}
			}
			if got, want := ap.score.rho, ap.rho; !(got <= want && got > 0.9*want) {
				t.Errorf("%v: the score's ρ %g, want at most and about %g", b, got, want)
			}
			if rel == privacy.ReplaceOne && (ap.tuningRows != 20 || ap.validRows != 4 || ap.plans[0].(*noisyGDPlan).problem.N != 16 || ap.finals[0].(*noisyGDPlan).problem.N != 180) {
				t.Errorf("%v: %d tuning rows, %d validation rows, %d to fit and %d for the final fit, want 20, 4, 16 and 180", b, ap.tuningRows, ap.validRows, ap.plans[0].(*noisyGDPlan).problem.N, ap.finals[0].(*noisyGDPlan).problem.N)
			}
			pl, err = Auto{Tuning: 1}.Plan(b, toyProblem(ds))
			if err != nil {
				t.Fatal(err)
			}
			ap = pl.(*autoPlan)
			if _, ok := pl.Guarantee().(privacy.RDP); !ok || ap.finals != nil || (rel == privacy.ReplaceOne && ap.validRows != 40) {
				t.Errorf("%v, Tuning 1: guarantee %v, %d final plans, %d validation rows", b, pl.Guarantee(), len(ap.finals), ap.validRows)
			}
		}
	}
	for _, bad := range []struct {
		a Auto
		b privacy.Budget
	}{
		{Auto{}, privacy.Budget{Epsilon: 1}},
		{Auto{Runs: 6}, privacy.Budget{Epsilon: 1, Delta: 1e-6}},
		{Auto{Runs: 128}, privacy.Budget{Epsilon: 1, Delta: 1e-6}},
		{Auto{Stopping: "poisson"}, privacy.Budget{Epsilon: 1, Delta: 1e-6}},
		{Auto{Stopping: stopGeometric, Runs: 3}, privacy.Budget{Epsilon: 1, Delta: 1e-6}},
		{Auto{Validation: 1}, privacy.Budget{Epsilon: 1, Delta: 1e-6}},
		{Auto{Validation: 0.001}, privacy.Budget{Epsilon: 1, Delta: 1e-6}},
		{Auto{Tuning: 1.5}, privacy.Budget{Epsilon: 1, Delta: 1e-6}},
		{Auto{Tuning: -0.2}, privacy.Budget{Epsilon: 1, Delta: 1e-6}},
		{Auto{Tuning: 0.001}, privacy.Budget{Epsilon: 1, Delta: 1e-6}},
		{Auto{Tuning: 0.999}, privacy.Budget{Epsilon: 1, Delta: 1e-6}},
	} {
		if _, err := bad.a.Plan(bad.b, toyProblem(ds)); err == nil {
			t.Errorf("%+v with %v accepted", bad.a, bad.b)
		}
	}
}

// TestAutoStops: the number of runs K follows its law. Over 20,000 draws with a fixed seed, for
// the logarithmic law with γ = 1/32 and the geometric with γ = 1/8, the mean of K is within 5
// standard errors of E[K] (8.94, standard error 0.10; 8, 0.053) and P(K = 1) within 5 of
// (1 − γ)/log(1/γ) = 0.2795 and γ = 1/8 (0.0032 and 0.0023): a false failure has probability
// below 1e-5. The progress estimate P(K ≤ k) is the law's CDF: it matches the draws' within
// 0.02 and tends to 1.
func TestAutoStops(t *testing.T) {
	for _, tc := range []struct {
		a                Auto
		mean, se, p1, s1 float64
	}{
		{Auto{Stopping: stopLogarithmic, Runs: 32}, 31 / (32 * math.Log(32)) * 32, 0.10, 31 / (32 * math.Log(32)), 0.0032},
		{Auto{Stopping: stopGeometric, Runs: 8}, 8, 0.053, 0.125, 0.0023},
	} {
		pl := &autoPlan{mech: tc.a, stopping: privacy.Stopping{Gamma: 1 / float64(tc.a.Runs), Logarithmic: tc.a.Stopping == stopLogarithmic}}
		r := rng.Seeded(3)
		const draws = 20000
		sum, count := 0, map[int]int{}
		for range draws {
			k := pl.draws(r)
			sum += k
			count[k]++
		}
		if mean := float64(sum) / draws; math.Abs(mean-tc.mean) > 5*tc.se || math.Abs(pl.stopping.Mean()-tc.mean) > 1e-12 {
			t.Errorf("%s: mean K = %g, E[K] = %g, want %g", tc.a.Stopping, mean, pl.stopping.Mean(), tc.mean)
		}
		if p := float64(count[1]) / draws; math.Abs(p-tc.p1) > 5*tc.s1 {
			t.Errorf("%s: P(K = 1) = %g, want %g", tc.a.Stopping, p, tc.p1)
		}
		cum := 0
		for k := 1; k <= 10; k++ {
			cum += count[k]
			if got, want := pl.below(k), float64(cum)/draws; math.Abs(got-want) > 0.02 {
				t.Errorf("%s: P(K ≤ %d) = %g, the draws give %g", tc.a.Stopping, k, got, want)
			}
		}
		if got := pl.below(2000); got < 1-1e-9 || got > 1 {
			t.Errorf("%s: P(K ≤ 2000) = %g, want 1", tc.a.Stopping, got)
		}
	}
}

// TestAutoOrder: the order of the runs' outputs is total and strict: the score first, then the
// configuration, then the weights.
func TestAutoOrder(t *testing.T) {
	rel := func(w ...float64) *Release { return &Release{Model: Model{Weights: w}} }
	runs := []autoRun{
		{candidate: 0, release: rel(1, 2), score: 5},
		{candidate: 0, release: rel(1, 3), score: 5},
		{candidate: 1, release: rel(0, 0), score: 5},
		{candidate: 3, release: rel(9, 9), score: 4},
	}
	// runs[i] is better than runs[j] exactly when i < j.
	for i, a := range runs {
		for j, b := range runs {
			if got := a.better(b); got != (i < j) {
				t.Errorf("run %d better than run %d: %v", i, j, got)
			}
		}
	}
}

// TestAutoRowOnOneSide: each run is ρ-zCDP only because a row is either among the rows a
// candidate fits or among those that score it, never both, and the whole is within the worse
// of the selection's and the final fit's guarantees only because a row is either among the
// tuning rows or among the final fit's (parallel composition). On every replay pair, under
// both relations, the pair's different row changes the inputs of at most one of: the
// candidates' noisy steps, the scores, the final fit's noisy steps (those after the last
// score). Under -short it replays the pairs of the first 8 extreme rows of 16 (whose pairs
// still put the row on each side under each relation).
func TestAutoRowOnOneSide(t *testing.T) {
	base, extremes := replayRows(t, replayBase)
	rows := 16
	if testing.Short() {
		rows = 8
	}
	for _, rel := range relations {
		sides := map[string]int{}
		for j := range rows {
			for _, pair := range neighbours(rel, base, extremes, j) {
				// Halves, so that each side is likely: 1/2 final, 1/4 fit, 1/4 score.
				c := replayCase{"auto", Auto{Tuning: 0.5, Validation: 0.5}, privacy.Budget{Epsilon: 4, Delta: 1e-6}, nil, nil}
				pl := replayPlan(t, c, rel, adultReplayProblem(base, 0), pair.d0.N)
				w0, err := watch(t, pl, pair.d0, 80+uint64(j), nil)
				if err != nil {
					t.Fatal(err)
				}
				w1, err := watch(t, pl, pair.d1, 80+uint64(j), w0)
				if err != nil {
					t.Fatal(err)
				}
				if len(w0.releases) != len(w1.releases) {
					t.Fatalf("%s, %s: %d and %d releases", rel, pair.name, len(w0.releases), len(w1.releases))
				}
				last := -1 // the last score's release: the final fit's follow
				for k, a := range w0.releases {
					if strings.HasPrefix(a.site, "auto's") {
						last = k
					}
				}
				changed := map[string]bool{}
				for k, a := range w0.releases {
					if dist(a.in, w1.releases[k].in) == 0 {
						continue
					}
					switch {
					case k > last:
						changed["final"] = true
					case strings.HasPrefix(a.site, "auto's"):
						changed["score"] = true
					default:
						changed["fit"] = true
					}
				}
				side := "neither"
				for s := range changed {
					side = s
				}
				if len(changed) > 1 {
					t.Errorf("%s, %s: the row changes the inputs of more than one part: %v", rel, pair.name, changed)
				}
				sides[side]++
			}
		}
		// Every side must occur, or the test would not see a row on it.
		if sides["fit"] == 0 || sides["score"] == 0 || sides["final"] == 0 {
			t.Errorf("%s: rows on each side %v: the pairs do not exercise every side", rel, sides)
		}
		t.Logf("%s: the pairs' different rows were on these sides: %v", rel, sides)
	}
}

// TestAutoReleasesOnlyTheBest: the release is the best-scored run's model, with its
// configuration and score, and the report states the guarantee of the whole procedure; the
// number of runs stays in the local diagnostics.
func TestAutoReleasesOnlyTheBest(t *testing.T) {
	ds := toyData(400, 4, 5)
	pl, err := Auto{}.Plan(privacy.Budget{Epsilon: 2, Delta: 1e-6}, toyProblem(ds))
	if err != nil {
		t.Fatal(err)
	}
	for seed := range uint64(6) {
		rel, err := pl.Run(context.Background(), ds, rng.Seeded(seed), nil)
		if err != nil {
			t.Fatal(err)
		}
		k := rel.Diagnostics.Details["runs"]
		if !(k >= 1) {
			t.Fatalf("seed %d: %v runs", seed, k)
		}
		if _, ok := rel.Parameters["runs"]; ok {
			t.Errorf("seed %d: the number of runs is released", seed)
		}
		if !strings.Contains(rel.Report.Statement, "the number is not released") || rel.Report.Guarantee.Kind != "parallel" {
			t.Errorf("seed %d: report %q", seed, rel.Report.Statement)
		}
		c := int(rel.Parameters["selected_candidate"])
		if grid := pl.(*autoPlan).grid; c < 0 || c >= len(grid) || !strings.Contains(rel.Report.Statement, grid[c].name) {
			t.Errorf("seed %d: selected candidate %d not stated", seed, c)
		}
		// The selected score is the largest of the runs' scores in the diagnostics.
		best := math.Inf(-1)
		for _, part := range strings.Split(strings.SplitN(rel.Diagnostics.NotPrivate, "their scores: ", 2)[1], "; ") {
			var v float64
			if i := strings.LastIndex(part, ": "); i >= 0 {
				if _, err := fmt.Sscan(part[i+2:], &v); err == nil {
					best = math.Max(best, v)
				}
			}
		}
		if s := rel.Parameters["selected_score"]; math.Abs(s-best) > 1e-5*math.Max(1, math.Abs(best)) {
			t.Errorf("seed %d: selected score %g, best of the runs %g", seed, s, best)
		}
	}
}

// TestAutoGrid: the grid has the features as encoded exactly when noisy-gd's defaults use
// symmetric ones (a FitScale factor and a bias), and its candidates plan on such a problem.
func TestAutoGrid(t *testing.T) {
	p := toyProblem(toyData(200, 4, 9))
	if g := autoGrid(p); len(g) != 4 {
		t.Errorf("without a scale factor: %d candidates, want 4", len(g))
	}
	p.Scale = 0.5
	g := autoGrid(p)
	if p.Bounds.Bias > 0 {
		if len(g) != 5 || !g[4].mech.NoSymmetric {
			t.Errorf("with a scale factor and a bias: %+v", g)
		}
	} else if len(g) != 4 {
		t.Errorf("with a scale factor but no bias: %d candidates, want 4", len(g))
	}
	base, _ := replayRows(t, replayBase)
	ap, err := Auto{}.Plan(privacy.Budget{Epsilon: 1, Delta: 1e-6}, adultReplayProblem(base, base.N))
	if err != nil {
		t.Fatal(err)
	}
	if grid := ap.(*autoPlan).grid; len(grid) != 5 || grid[4].name != "numeric features as encoded" {
		t.Errorf("adult-lr's grid: %+v", grid)
	}
}

// TestFinalsBound: the bound of the final fits' guarantees is at least as bad as each of them
// at every ε, and there is none for guarantees that are not μ-GDP.
func TestFinalsBound(t *testing.T) {
	plan := func(c privacy.Curve) Plan { return &autoPlan{guarantee: c} }
	parts := []privacy.Curve{
		privacy.WithSamplerError{Base: privacy.GDP{Mu: 0.5}, TV: 3e-13},
		privacy.WithSamplerError{Base: privacy.GDP{Mu: 0.5 + 1e-15}, TV: 1e-13},
		privacy.GDP{Mu: 0.4},
	}
	var plans []Plan
	for _, c := range parts {
		plans = append(plans, plan(c))
	}
	bound := finalsBound(plans)
	want := privacy.WithSamplerError{Base: privacy.GDP{Mu: 0.5 + 1e-15}, TV: 3e-13}
	if bound != privacy.Curve(want) {
		t.Fatalf("bound %v, want %v", bound, want)
	}
	for _, eps := range []float64{0, 0.5, 1, 2, 4} {
		for _, c := range parts {
			if c.Delta(eps) > bound.Delta(eps) {
				t.Errorf("δ(%g): %v is %g, above the bound's %g", eps, c, c.Delta(eps), bound.Delta(eps))
			}
		}
	}
	if got := finalsBound([]Plan{plan(privacy.GDP{Mu: 1}), plan(privacy.PureDP{Eps: 1})}); got != nil {
		t.Errorf("a bound %v for a pure-DP part", got)
	}
	if got := finalsBound([]Plan{plan(privacy.GDP{Mu: 1})}); got != privacy.Curve(privacy.GDP{Mu: 1}) {
		t.Errorf("the bound of one μ-GDP part is %v", got)
	}
}

// TestAutoMinRows: under replace-one, auto plans from the fewest rows whose parts are none empty
// (25 at the default shares: 3 tuning rows, 1 of them scoring) and refuses one row fewer with a
// message that says how many it needs, not the tuning part's size.
func TestAutoMinRows(t *testing.T) {
	a := Auto{Tuning: defaultAutoTuning, Validation: defaultAutoValidation}
	if got := a.minRows(); got != 25 {
		t.Fatalf("minRows = %d, want 25 at the default shares", got)
	}
	b := privacy.Budget{Epsilon: 1, Delta: 1e-6}
	if _, err := (Auto{}).Plan(b, toyProblem(toyData(25, 2, 1))); err != nil {
		t.Errorf("25 rows: %v", err)
	}
	_, err := (Auto{}).Plan(b, toyProblem(toyData(24, 2, 1)))
	if err == nil || !strings.Contains(err.Error(), "auto needs at least 25 rows") || !strings.Contains(err.Error(), "these 24 rows") {
		t.Errorf("24 rows: %v", err)
	}
	for n := 25; n < 400; n++ {
		if _, v := a.split(n); v < 1 {
			t.Errorf("%d rows leave a part empty", n)
		}
	}
}

// TestAutoStoppedInItsFinalFit: stopped while fitting the selected configuration on the other
// rows, auto releases the steps taken (as noisy-gd does) and its report says so.
func TestAutoStoppedInItsFinalFit(t *testing.T) {
	ds := toyData(400, 3, 5)
	pl, err := Auto{}.Plan(privacy.Budget{Epsilon: 1, Delta: 1e-6}, toyProblem(ds))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rel, err := pl.Run(ctx, ds, rng.Seeded(3), func(p Progress) {
		if strings.HasPrefix(p.Stage, "the selected") {
			cancel()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rel.Report.Statement, "The final fit was stopped early") {
		t.Errorf("report: %s", rel.Report.Statement)
	}
}
