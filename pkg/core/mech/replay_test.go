package mech

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/privopt/privopt/internal/demo"
	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/geom"
	"github.com/privopt/privopt/pkg/core/loss"
	"github.com/privopt/privopt/pkg/core/privacy"
	"github.com/privopt/privopt/pkg/rng"
	"github.com/privopt/privopt/pkg/sampler"
)

// The replay tests run a mechanism on two neighbouring datasets with the same randomness and
// check what its privacy proof assumes, from inside the run (replayHooks):
//   - every vector noise is added to differs between the two runs by at most the sensitivity
//     the plan declared, the second run being made to follow the first run's releases (each
//     step's sensitivity is stated given the earlier releases);
//   - a sampler's potentials differ by a function whose Lipschitz constant is at most the
//     declared one, and an exponential mechanism's scores by a function whose span is at most
//     the declared one;
//   - everything released besides the noised values (the report, the parameters, the utility
//     bound, the number of releases) is identical.
// The pairs are replace-one pairs and add/remove pairs of different sizes (a row added, a row
// removed), with rows at the declared bounds that take every value of every categorical column.

// replayRows returns the first n of the demo's training rows encoded with its adult-lr schema
// (base) and 42 rows
// at the bounds (extremes): row j has every categorical column at its category j (modulo
// their number), every numeric column at its maximum for even j and its minimum for odd j,
// and the label positive for even j.
func replayRows(t testing.TB, n int) (base, extremes *data.Dataset) {
	t.Helper()
	schema, err := data.LoadSchema(demo.Schema())
	if err != nil {
		t.Fatal(err)
	}
	var csv bytes.Buffer
	sc := bufio.NewScanner(demo.Train())
	for i := 0; i <= n && sc.Scan(); i++ { // the header and n rows
		csv.WriteString(sc.Text() + "\n")
	}
	for j := range 42 {
		var cells []string
		for _, c := range schema.Columns {
			switch c.Kind {
			case data.Numeric:
				cells = append(cells, fmt.Sprint(map[bool]float64{true: c.Max, false: c.Min}[j%2 == 0]))
			case data.Categorical:
				cells = append(cells, c.Categories[j%len(c.Categories)])
			default: // the label
				cells = append(cells, map[bool]string{true: c.Positive[0], false: "<=50K"}[j%2 == 0])
			}
		}
		csv.WriteString(strings.Join(cells, ", ") + "\n")
	}
	all, _, err := data.Encode(&csv, schema)
	if err != nil {
		t.Fatal(err)
	}
	if all.N != n+42 {
		t.Fatalf("%d rows encoded, want %d", all.N, n+42)
	}
	return pickRows(all, 0, n), pickRows(all, n, n+42)
}

// denseRows returns rows lo..hi−1 of ds dense, row-major (a copy), however ds holds them.
func denseRows(ds *data.Dataset, lo, hi int) []float64 {
	out := make([]float64, 0, (hi-lo)*ds.D)
	for i := lo; i < hi; i++ {
		out = append(out, ds.Row(i, nil)...)
	}
	return out
}

// pickRows returns rows lo..hi−1 of ds as a dataset of their own (copies, held dense).
func pickRows(ds *data.Dataset, lo, hi int) *data.Dataset {
	out := *ds
	out.N = hi - lo
	out.X, out.Sparse = denseRows(ds, lo, hi), nil
	out.Y = append([]float64(nil), ds.Y[lo:hi]...)
	return &out
}

// joinRows returns the rows of a followed by those of b (held dense).
func joinRows(a, b *data.Dataset) *data.Dataset {
	out := *a
	out.N = a.N + b.N
	out.X, out.Sparse = append(denseRows(a, 0, a.N), denseRows(b, 0, b.N)...), nil
	out.Y = append(append([]float64(nil), a.Y...), b.Y...)
	return &out
}

// neighbourPair is two datasets that differ in one row under a relation.
type neighbourPair struct {
	name   string
	d0, d1 *data.Dataset
}

// neighbours returns the pairs of base and extreme row j under the relation: the first row of
// base replaced by it (replace-one); base with it added, and base without its first row
// (add/remove).
func neighbours(rel privacy.Neighbouring, base, extremes *data.Dataset, j int) []neighbourPair {
	row := pickRows(extremes, j, j+1)
	if rel == privacy.ReplaceOne {
		return []neighbourPair{{fmt.Sprintf("row 0 replaced by extreme %d", j), base, joinRows(row, pickRows(base, 1, base.N))}}
	}
	return []neighbourPair{
		{fmt.Sprintf("extreme %d added", j), base, joinRows(base, row)},
		{"row 0 removed", base, pickRows(base, 1, base.N)},
	}
}

// release is one noise addition seen by the replay hooks.
type release struct {
	site       string
	in, out    []float64
	sens, grid float64
}

// tamperRelease, when not nil, changes every released value the hooks see before they record
// it: the mutants of the tests that check the releases' grid.
var tamperRelease func(out []float64)

// watched is what the hooks saw of one run.
type watched struct {
	releases []release
	targets  []watchedTarget
	scores   []watchedScore
	rel      *Release
}

type watchedTarget struct {
	site            string
	t               sampler.Target
	lipschitz, norm float64
}

type watchedScore struct {
	site  string
	score gibbsScore
	span  float64
}

// watch runs pl on ds with a seeded source and returns what the hooks saw. When follow is
// not nil, each release is replaced by follow's release of the same index (the coupling), and
// a release beyond follow's is an error.
func watch(t testing.TB, pl Plan, ds *data.Dataset, seed uint64, follow *watched) (*watched, error) {
	t.Helper()
	w := &watched{}
	var failure error
	replay = replayHooks{
		release: func(site string, in, out []float64, sens, grid float64) {
			if tamperRelease != nil {
				tamperRelease(out)
			}
			k := len(w.releases)
			w.releases = append(w.releases, release{site, in, append([]float64(nil), out...), sens, grid})
			if follow == nil {
				return
			}
			if k >= len(follow.releases) {
				if failure == nil {
					failure = fmt.Errorf("release %d (%s) has no counterpart on the neighbour", k, site)
				}
				return
			}
			copy(out, follow.releases[k].out)
		},
		target: func(site string, tg sampler.Target, lipschitz, norm float64) {
			w.targets = append(w.targets, watchedTarget{site, tg, lipschitz, norm})
		},
		score: func(site string, s gibbsScore, span float64) {
			w.scores = append(w.scores, watchedScore{site, s, span})
		},
	}
	defer func() { replay = replayHooks{} }()
	rel, err := pl.Run(context.Background(), ds, rng.Seeded(seed), nil)
	if err != nil {
		return nil, err
	}
	w.rel = rel
	return w, failure
}

// replayPair runs the two plans (the same plan for a correct mechanism) on the pair's
// datasets with the same seed, the second following the first's releases, and returns every
// way the runs break a declared sensitivity or release something else that differs.
func replayPair(t testing.TB, pl0, pl1 Plan, pair neighbourPair, seed uint64) (bad []string, checked int, tightest float64) {
	t.Helper()
	w0, err := watch(t, pl0, pair.d0, seed, nil)
	if err != nil {
		t.Fatalf("%s: %v", pair.name, err)
	}
	w1, err := watch(t, pl1, pair.d1, seed, w0)
	if err != nil {
		return []string{err.Error()}, 0, 0
	}
	checked = len(w0.releases) + len(w0.targets) + len(w0.scores)
	if len(w0.releases) != len(w1.releases) {
		bad = append(bad, fmt.Sprintf("%d releases, %d on the neighbour", len(w0.releases), len(w1.releases)))
	}
	for k := range min(len(w0.releases), len(w1.releases)) {
		a, b := w0.releases[k], w1.releases[k]
		if a.site != b.site || a.sens != b.sens || a.grid != b.grid {
			bad = append(bad, fmt.Sprintf("release %d: %s with sensitivity %g, on the neighbour %s with %g", k, a.site, a.sens, b.site, b.sens))
			continue
		}
		if a.grid > 0 {
			for _, out := range [][]float64{a.out, b.out} {
				if i := slices.IndexFunc(out, func(v float64) bool { return math.Mod(v, a.grid) != 0 }); i >= 0 {
					bad = append(bad, fmt.Sprintf("release %d (%s): coordinate %d = %v is not on the grid of spacing %g", k, a.site, i, out[i], a.grid))
					break
				}
			}
		}
		d := dist(a.in, b.in)
		if !(d <= a.sens) {
			bad = append(bad, fmt.Sprintf("release %d (%s): the inputs differ by %.6g, above the declared sensitivity %.6g", k, a.site, d, a.sens))
		}
		tightest = math.Max(tightest, d/a.sens)
	}
	badT, ratioT := checkTargets(w0.targets, w1.targets)
	badS, ratioS := checkScores(w0.scores, w1.scores)
	bad, tightest = append(append(bad, badT...), badS...), math.Max(tightest, math.Max(ratioT, ratioS))
	for _, part := range []struct {
		name string
		a, b any
	}{{"report", w0.rel.Report, w1.rel.Report}, {"parameters", w0.rel.Parameters, w1.rel.Parameters}, {"utility", w0.rel.Utility, w1.rel.Utility},
		{"model's names", [2][]string{w0.rel.Model.Features, w0.rel.Model.Classes}, [2][]string{w1.rel.Model.Features, w1.rel.Model.Classes}}} {
		ja, _ := json.Marshal(part.a)
		jb, _ := json.Marshal(part.b)
		if !bytes.Equal(ja, jb) {
			bad = append(bad, fmt.Sprintf("the %s differs: %s / %s", part.name, firstDifference(ja, jb), firstDifference(jb, ja)))
		}
	}
	return bad, checked, tightest
}

// firstDifference returns a's text around its first byte that differs from b.
func firstDifference(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return string(a[max(0, i-60):min(len(a), i+60)])
}

// testPoints returns m points of the domain for the Lipschitz and span checks: draws of a
// Gaussian of scale radius/√d, projected onto the domain.
func testPoints(dom geom.Domain, radius float64, m int, seed uint64) [][]float64 {
	r := rng.Seeded(seed)
	d := dom.Dim()
	pts := make([][]float64, m)
	for i := range pts {
		x := make([]float64, d)
		for j := range x {
			x[j] = r.Normal() * radius / math.Sqrt(float64(d))
		}
		dom.Project(x, x)
		pts[i] = x
	}
	return pts
}

// checkTargets checks that the potentials of two runs' targets differ by a function whose
// Lipschitz constant in the declared norm, measured between 60 points of the domain (and by
// the gradients' difference at each, for targets with gradients), is at most the declared one, and that the targets have as many per-example terms (the public N).
// It also returns the largest ratio of the measured to the declared constant.
func checkTargets(a, b []watchedTarget) (bad []string, tightest float64) {
	if len(a) != len(b) {
		return []string{fmt.Sprintf("%d sampler targets, %d on the neighbour", len(a), len(b))}, 0
	}
	for k := range a {
		ta, tb := a[k], b[k]
		if ta.lipschitz != tb.lipschitz || ta.norm != tb.norm {
			bad = append(bad, fmt.Sprintf("%s: declared Lipschitz constants %g and %g", ta.site, ta.lipschitz, tb.lipschitz))
			continue
		}
		if ea, ok := ta.t.(sampler.Examples); ok {
			if eb := tb.t.(sampler.Examples); ea.NumExamples() != eb.NumExamples() {
				bad = append(bad, fmt.Sprintf("%s: %d per-example terms, %d on the neighbour", ta.site, ea.NumExamples(), eb.NumExamples()))
			}
		}
		pts := testPoints(ta.t.Domain(), 2, 60, 5)
		diff := make([]float64, len(pts))
		for i, x := range pts {
			diff[i] = ta.t.Value(x) - tb.t.Value(x)
		}
		worst := 0.0
		for i := range pts {
			for j := range i {
				step := make([]float64, len(pts[i]))
				for c := range step {
					step[c] = pts[i][c] - pts[j][c]
				}
				if r := geom.Norm(step, ta.norm); r > 1e-3 { // projected points can coincide
					worst = math.Max(worst, math.Abs(diff[i]-diff[j])/r)
				}
			}
		}
		if !(worst <= ta.lipschitz) {
			bad = append(bad, fmt.Sprintf("%s: the potentials' difference has Lipschitz constant %.6g, above the declared %.6g", ta.site, worst, ta.lipschitz))
		}
		// With gradients, the local Lipschitz constant at each point: the dual norm of the
		// gradients' difference.
		ga, okA := ta.t.(sampler.Gradient)
		gb, okB := tb.t.(sampler.Gradient)
		if okA && okB {
			d := len(pts[0])
			a, b := make([]float64, d), make([]float64, d)
			for _, x := range pts {
				ga.Grad(a, x)
				gb.Grad(b, x)
				for c := range a {
					a[c] -= b[c]
				}
				if g := geom.Norm(a, geom.Dual(ta.norm)); !(g <= ta.lipschitz) {
					bad = append(bad, fmt.Sprintf("%s: the potentials' gradients differ by %.6g, above the declared Lipschitz constant %.6g", ta.site, g, ta.lipschitz))
				} else {
					worst = math.Max(worst, g)
				}
			}
		}
		tightest = math.Max(tightest, worst/ta.lipschitz)
	}
	return bad, tightest
}

// checkScores checks that the scores of two runs differ by a function whose span over 400
// points of the domain is at most the declared one. It also returns the largest ratio of the
// measured to the declared span.
func checkScores(a, b []watchedScore) (bad []string, tightest float64) {
	if len(a) != len(b) {
		return []string{fmt.Sprintf("%d scores, %d on the neighbour", len(a), len(b))}, 0
	}
	for k := range a {
		sa, sb := a[k], b[k]
		if sa.span != sb.span {
			bad = append(bad, fmt.Sprintf("%s: declared spans %g and %g", sa.site, sa.span, sb.span))
			continue
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		r := rng.Seeded(9)
		for range 400 {
			x := make([]float64, len(replayBox.Lo()))
			for c := range x {
				x[c] = replayBox.Lo()[c] + (replayBox.Hi()[c]-replayBox.Lo()[c])*r.Float64()
			}
			va, _ := sa.score(x, math.Inf(1))
			vb, _ := sb.score(x, math.Inf(1))
			lo, hi = math.Min(lo, va-vb), math.Max(hi, va-vb)
		}
		if !(hi-lo <= sa.span) {
			bad = append(bad, fmt.Sprintf("%s: the scores' difference spans %.6g, above the declared %.6g", sa.site, hi-lo, sa.span))
		}
		tightest = math.Max(tightest, (hi-lo)/sa.span)
	}
	return bad, tightest
}

// replayBox is the domain of the exponential mechanisms' replay problem.
var replayBox = func() *geom.Box {
	b, err := geom.NewBox([]float64{-1, -1}, []float64{1, 1})
	if err != nil {
		panic(err)
	}
	return b
}()

// replayCase is one mechanism with its settings, problem and budget.
type replayCase struct {
	name   string
	m      Mechanism
	budget privacy.Budget
	// extremes lists the extreme rows paired with the base (every one when nil).
	extremes []int
	// domain, when not nil, replaces the problem's domain.
	domain geom.Domain
}

// adultReplayProblem is the logistic problem of the demo's schema (d = 92, a bias coordinate
// and categorical features) with n public rows.
func adultReplayProblem(base *data.Dataset, n int) Problem {
	return Problem{Loss: LossSpec{Name: "logistic"}, Dim: base.D, N: n, Bounds: loss.Bounds{X: base.Radius, XNorm: base.P, Y: 1, Bias: base.Bias},
		Domain: geom.Whole{D: base.D}, Radius: 5, Categorical: base.Categorical, Scale: base.Scale, Ranged: numericOf(base)}
}

// numericOf lists the features of ds that are neither one-hot nor the bias: as if every numeric
// column had a private range.
func numericOf(ds *data.Dataset) []int {
	var out []int
	for j := range ds.D - 1 {
		if !slices.Contains(ds.Categorical, j) {
			out = append(out, j)
		}
	}
	return out
}

// replayPlan plans a case's mechanism for the relation: N = the pair's first dataset's rows
// under replace-one, the declared replayN under add/remove.
func replayPlan(t testing.TB, c replayCase, rel privacy.Neighbouring, p Problem, n0 int) Plan {
	t.Helper()
	b := c.budget
	b.Neighbouring = rel
	p.N = replayN
	if rel == privacy.ReplaceOne {
		p.N = n0
	}
	if c.domain != nil {
		p.Domain = c.domain
	}
	pl, err := c.m.Plan(b, p)
	if err != nil {
		t.Fatalf("%s under %s: %v", c.name, rel, err)
	}
	return pl
}

var relations = []privacy.Neighbouring{privacy.ReplaceOne, privacy.AddRemove}

// replayAll replays a case's mechanism on the pairs of base and each of its extreme rows (or
// those c.extremes lists) under the relation, seeded from seed: every failure is an error, and
// a case whose runs show the hooks nothing fails too.
func replayAll(t *testing.T, c replayCase, rel privacy.Neighbouring, p Problem, base, extremes *data.Dataset, seed uint64) {
	t.Helper()
	js := c.extremes
	if js == nil {
		for j := range extremes.N {
			js = append(js, j)
		}
	}
	seen, tightest := 0, 0.0
	for _, j := range js {
		for _, pair := range neighbours(rel, base, extremes, j) {
			pl := replayPlan(t, c, rel, p, pair.d0.N)
			bad, checked, ratio := replayPair(t, pl, pl, pair, seed+uint64(j))
			for _, b := range bad {
				t.Errorf("%s: %s", pair.name, b)
			}
			seen += checked
			tightest = math.Max(tightest, ratio)
		}
	}
	if seen == 0 {
		t.Error("the run showed the hooks no release, target or score: nothing was checked")
	}
	t.Logf("%d releases, targets and scores checked; the tightest used %.3f of its declared sensitivity", seen, tightest)
}

// replayBase and replayN are the size of the replay pairs' base dataset and the public N
// declared for their add/remove pairs.
const replayBase, replayN = 300, 400

// TestReplaySensitivities replays every mechanism that runs on the demo's adult-lr problem
// (d = 92) on replace-one and add/remove pairs: no declared sensitivity is exceeded and
// nothing but the noised values differs. The checks are deterministic (fixed seeds). Under
// -short it replays noisy-gd alone, on the pairs of four extreme rows.
func TestReplaySensitivities(t *testing.T) {
	base, extremes := replayRows(t, replayBase)
	budget := privacy.Budget{Epsilon: 1, Delta: 1e-6}
	few := []int{0, 1, 7, 41}
	cases := []replayCase{
		{"noisy-gd", NoisyGD{}, budget, nil, nil},
		{"noisy-gd (no preconditioner, no clipping)", NoisyGD{NoPrecondition: true, Clip: 1, NoBiasShaping: true, NoCategoricalRidge: true}, budget, few, nil},
		{"noisy-gd (features as encoded)", NoisyGD{NoSymmetric: true}, budget, few, nil},
		{"langevin", Langevin{}, budget, nil, nil},
		{"outpert", OutputPerturbation{}, privacy.Budget{Epsilon: 1}, nil, nil},
		{"outpert-gauss", OutputPerturbation{Gaussian: true}, budget, nil, nil},
		{"rem (certified)", REM{}, budget, few, nil},
		{"rem (mala)", REM{Sampler: SampleMALA}, budget, few, nil},
		{"rem-lp (mala)", REMLp{Norm: 1.5, Sampler: SampleMALA}, budget, few, boxDomain(t, base.D, 1)},
		{"rashomon (langevin)", Rashomon{}, budget, few, nil},
		{"auto", Auto{}, budget, few, nil},
	}
	if testing.Short() {
		cases = cases[:1]
		cases[0].extremes = few
	}
	for _, c := range cases {
		for _, rel := range relations {
			t.Run(c.name+"/"+string(rel), func(t *testing.T) {
				replayAll(t, c, rel, adultReplayProblem(base, 0), base, extremes, 100)
			})
		}
	}
}

// smallPairs returns a base dataset of n two-dimensional rows and extreme rows on the unit
// circle (‖x‖₂ = 1, the declared bound), with labels from label(k) for extreme k of 8.
func smallPairs(n int, label func(k int) float64, baseLabel func(i int, x []float64) float64) (base, extremes *data.Dataset) {
	base = smallData(n, 2, 3)
	for i := range base.N {
		base.Y[i] = baseLabel(i, base.Row(i, nil))
	}
	var rows [][]float64
	var labels []float64
	for k := range 8 {
		a := float64(k) * math.Pi / 4
		rows = append(rows, []float64{math.Cos(a), math.Sin(a)})
		labels = append(labels, label(k))
	}
	return base, rowsData(2, rows, labels)
}

// TestReplayOtherProblems replays the exponential mechanisms (whose scores it checks) on a
// two-dimensional box, and the main mechanisms on regression and multinomial problems, under
// both relations with rows on the declared bound (under -short, two of them).
func TestReplayOtherProblems(t *testing.T) {
	sign := func(k int) float64 { return float64(1 - 2*(k%2)) }
	binary, binExtremes := smallPairs(60, sign, func(i int, x []float64) float64 { return sign(i) })
	reg, regExtremes := smallPairs(60, sign, func(_ int, x []float64) float64 { return (x[0] - 0.5*x[1]) / 1.2 })
	classes, classExtremes := smallPairs(60, func(k int) float64 { return float64(k % 3) }, func(i int, _ []float64) float64 { return float64(i % 3) })
	type problem struct {
		name           string
		p              Problem
		base, extremes *data.Dataset
		mechs          []replayCase
	}
	budget := privacy.Budget{Epsilon: 1, Delta: 1e-6}
	bounds := loss.Bounds{X: 1, XNorm: 2, Y: 1}
	problems := []problem{
		{"logistic on a box", Problem{Loss: LossSpec{Name: "logistic"}, Dim: 2, Bounds: bounds, Domain: replayBox, Radius: 2}, binary, binExtremes,
			[]replayCase{{"expmech", ExpMech{}, privacy.Budget{Epsilon: 1}, nil, nil}, {"rashomon (pure)", Rashomon{}, privacy.Budget{Epsilon: 1}, nil, nil},
				{"rem", REM{}, budget, nil, nil}, {"noisy-gd", NoisyGD{}, budget, nil, nil}}},
		{"squared loss", Problem{Loss: LossSpec{Name: "squared"}, Dim: 2, Bounds: bounds, Domain: replayBox, Radius: 2}, reg, regExtremes,
			[]replayCase{{"noisy-gd", NoisyGD{}, budget, nil, nil}, {"outpert-gauss", OutputPerturbation{Gaussian: true}, budget, nil, nil}, {"langevin", Langevin{}, budget, nil, nil},
				{"auto", Auto{}, budget, nil, nil}}},
		{"huber loss", Problem{Loss: LossSpec{Name: "huber", Param: 0.1}, Dim: 2, Bounds: bounds, Domain: geom.Whole{D: 2}, Radius: 2}, reg, regExtremes,
			[]replayCase{{"noisy-gd", NoisyGD{}, budget, nil, nil}, {"outpert", OutputPerturbation{}, privacy.Budget{Epsilon: 1}, nil, nil}, {"rem", REM{}, budget, nil, nil}}},
		{"multinomial loss", Problem{Loss: LossSpec{Name: "multinomial", Classes: 3}, Dim: 2, Bounds: bounds, Domain: geom.Whole{D: 6}, Radius: 2}, classes, classExtremes,
			[]replayCase{{"noisy-gd", NoisyGD{}, budget, nil, nil}, {"outpert-gauss", OutputPerturbation{Gaussian: true}, budget, nil, nil}, {"auto", Auto{}, budget, nil, nil}}},
	}
	for _, pr := range problems {
		for _, c := range pr.mechs {
			if testing.Short() {
				c.extremes = []int{0, 1} // two of the eight extreme rows, with different labels
			}
			for _, rel := range relations {
				t.Run(pr.name+"/"+c.name+"/"+string(rel), func(t *testing.T) {
					replayAll(t, c, rel, pr.p, pr.base, pr.extremes, 200)
				})
			}
		}
	}
}

// printsN is a mutant that releases the observed number of rows in its report.
type printsN struct{ Plan }

func (p printsN) Run(ctx context.Context, ds *data.Dataset, r *rng.Rand, progress func(Progress)) (*Release, error) {
	rel, err := p.Plan.Run(ctx, ds, r, progress)
	if err == nil {
		rel.Report.Statement += fmt.Sprintf(" The data had n = %d rows.", ds.N)
	}
	return rel, err
}

// dividesByObservedN is a mutant that plans with the public N but divides its means by the
// observed number of rows (noisy-gd, outpert and rem plans).
type dividesByObservedN struct{ Plan }

func (p dividesByObservedN) Run(ctx context.Context, ds *data.Dataset, r *rng.Rand, progress func(Progress)) (*Release, error) {
	switch pl := p.Plan.(type) {
	case *noisyGDPlan:
		c := *pl
		c.problem.N = ds.N
		return c.Run(ctx, ds, r, progress)
	case *outpertPlan:
		c := *pl
		c.problem.N = ds.N
		return c.Run(ctx, ds, r, progress)
	case *remPlan:
		c := *pl
		c.problem.N = ds.N
		return c.Run(ctx, ds, r, progress)
	}
	panic(fmt.Sprintf("dividesByObservedN: a %T", p.Plan))
}

// TestReplayCatchesAddRemoveMutants: the defects add/remove had are caught by the replay on
// add/remove pairs (a row at the bounds added, a row removed): means divided by the observed n
// with the noise planned for the public N (for noisy-gd, a step's input moves by more than its
// declared sensitivity; for the others, what they release differs); planning each dataset with
// its observed number of rows as N (parameters that differ); and a report that states n.
func TestReplayCatchesAddRemoveMutants(t *testing.T) {
	base, extremes := replayRows(t, replayBase)
	budget := privacy.Budget{Epsilon: 1, Delta: 1e-6}
	exceeds := func(bad []string) bool {
		return slices.ContainsFunc(bad, func(b string) bool { return strings.Contains(b, "above the declared") })
	}
	for _, c := range []struct {
		replayCase
		mustExceed bool // the divided-by-n mutant must exceed a declared sensitivity
	}{
		{replayCase{"noisy-gd", NoisyGD{}, budget, nil, nil}, true},
		{replayCase{"outpert-gauss", OutputPerturbation{Gaussian: true}, budget, nil, nil}, false},
		{replayCase{"rem", REM{}, budget, nil, nil}, false},
	} {
		caught := map[string]bool{}
		for _, pair := range neighbours(privacy.AddRemove, base, extremes, 0) {
			b := c.budget
			b.Neighbouring = privacy.AddRemove
			observed0, err := c.m.Plan(b, adultReplayProblem(base, pair.d0.N))
			if err != nil {
				t.Fatal(err)
			}
			observed1, err := c.m.Plan(b, adultReplayProblem(base, pair.d1.N))
			if err != nil {
				t.Fatal(err)
			}
			pl := replayPlan(t, c.replayCase, privacy.AddRemove, adultReplayProblem(base, 0), pair.d0.N)
			for _, m := range []struct {
				name     string
				pl0, pl1 Plan
			}{
				{"planned with the observed n", observed0, observed1},
				{"divided by the observed n", dividesByObservedN{pl}, dividesByObservedN{pl}},
				{"n in the report", printsN{pl}, printsN{pl}},
			} {
				bad, _, _ := replayPair(t, m.pl0, m.pl1, pair, 1)
				if len(bad) > 0 && (m.name != "divided by the observed n" || !c.mustExceed || exceeds(bad)) {
					caught[m.name] = true
					t.Logf("%s, %s, %s: caught: %s", c.name, pair.name, m.name, bad[0])
				}
			}
		}
		for _, m := range []string{"planned with the observed n", "divided by the observed n", "n in the report"} {
			if !caught[m] {
				t.Errorf("%s: the mutant %s was not caught", c.name, m)
			}
		}
	}
}

// TestReplayCatchesRawFloatRelease: the releases of the noise-adding mechanisms are checked to
// lie on their grids, so a release of a raw floating-point value (here: the released value
// moved by one unit in the last place, as continuous noise would leave it) is caught.
func TestReplayCatchesRawFloatRelease(t *testing.T) {
	base, extremes := replayRows(t, replayBase)
	pair := neighbours(privacy.ReplaceOne, base, extremes, 0)[0]
	for _, c := range []replayCase{
		{"noisy-gd", NoisyGD{}, privacy.Budget{Epsilon: 1, Delta: 1e-6}, nil, nil},
		{"outpert-gauss", OutputPerturbation{Gaussian: true}, privacy.Budget{Epsilon: 1, Delta: 1e-6}, nil, nil},
		{"rashomon (langevin)", Rashomon{}, privacy.Budget{Epsilon: 1, Delta: 1e-6}, nil, nil},
	} {
		pl := replayPlan(t, c, privacy.ReplaceOne, adultReplayProblem(base, 0), pair.d0.N)
		if bad, checked, _ := replayPair(t, pl, pl, pair, 1); len(bad) > 0 || checked == 0 {
			t.Fatalf("%s: the correct mechanism: %q (%d checked)", c.name, bad, checked)
		}
		tamperRelease = func(out []float64) { out[0] = math.Nextafter(out[0], math.Inf(1)) } // one ulp: far below any grid spacing
		bad, _, _ := replayPair(t, pl, pl, pair, 1)
		tamperRelease = nil
		if !slices.ContainsFunc(bad, func(b string) bool { return strings.Contains(b, "is not on the grid") }) {
			t.Errorf("%s: a raw float release was not caught: %q", c.name, bad)
		}
	}
}

// TestAddRemoveRefusesRowsBeyondN: under add/remove a plan for N rows runs on fewer, and
// refuses more (never dropping any).
func TestAddRemoveRefusesRowsBeyondN(t *testing.T) {
	ds := toyData(41, 3, 1)
	p := toyProblem(ds)
	p.N = 40
	pl, err := OutputPerturbation{Gaussian: true}.Plan(privacy.Budget{Epsilon: 1, Delta: 1e-6, Neighbouring: privacy.AddRemove}, p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pl.Run(context.Background(), pickRows(ds, 0, 30), rng.Seeded(1), nil); err != nil {
		t.Errorf("30 rows under N = 40: %v", err)
	}
	if _, err := pl.Run(context.Background(), ds, rng.Seeded(1), nil); err == nil || !strings.Contains(err.Error(), "41 rows, more than the declared public number of rows N = 40") {
		t.Errorf("41 rows under N = 40: %v", err)
	}
}

// TestReplayFewRows replays every mechanism under add/remove on the pairs of the smallest
// sizes: no rows against one row at the bounds, and that row against two. Under add/remove the
// number of rows is private, so a run on no rows must release as a run on one does (the
// declared sensitivities hold, nothing else differs) and never fail where its neighbour does
// not: auto's splits by content and the page's held-out rows may leave any part empty. auto
// is replayed with many seeds, so that its splits put the rows on every side.
func TestReplayFewRows(t *testing.T) {
	sign := func(k int) float64 { return float64(1 - 2*(k%2)) }
	_, binExtremes := smallPairs(1, sign, func(i int, x []float64) float64 { return sign(i) })
	_, regExtremes := smallPairs(1, sign, func(_ int, x []float64) float64 { return x[0] })
	_, classExtremes := smallPairs(1, func(k int) float64 { return float64(k % 3) }, func(i int, _ []float64) float64 { return 0 })
	budget := privacy.Budget{Epsilon: 1, Delta: 1e-6}
	bounds := loss.Bounds{X: 1, XNorm: 2, Y: 1}
	autoSeeds := 16 // a part is empty in every run on 1 row, and in 81 % on 2 (no row to tune)
	if testing.Short() {
		autoSeeds = 8
	}
	for _, pr := range []struct {
		name     string
		p        Problem
		extremes *data.Dataset
		mechs    []replayCase
	}{
		{"logistic on a box", Problem{Loss: LossSpec{Name: "logistic"}, Dim: 2, Bounds: bounds, Domain: replayBox, Radius: 2}, binExtremes, []replayCase{
			{"expmech", ExpMech{}, privacy.Budget{Epsilon: 1}, nil, nil},
			{"rashomon (pure)", Rashomon{}, privacy.Budget{Epsilon: 1}, nil, nil},
			{"rashomon (langevin)", Rashomon{}, budget, nil, nil},
			{"rem", REM{}, budget, nil, nil},
			{"rem-lp", REMLp{Norm: 1.5, Sampler: SampleMALA}, budget, nil, nil},
			{"noisy-gd", NoisyGD{}, budget, nil, nil},
			{"langevin", Langevin{}, budget, nil, nil},
			{"outpert", OutputPerturbation{}, privacy.Budget{Epsilon: 1}, nil, nil},
			{"outpert-gauss", OutputPerturbation{Gaussian: true}, budget, nil, nil},
			{"auto", Auto{}, budget, nil, nil},
		}},
		{"squared loss", Problem{Loss: LossSpec{Name: "squared"}, Dim: 2, Bounds: bounds, Domain: replayBox, Radius: 2}, regExtremes, []replayCase{
			{"noisy-gd", NoisyGD{}, budget, nil, nil},
			{"auto", Auto{}, budget, nil, nil},
		}},
		{"multinomial loss", Problem{Loss: LossSpec{Name: "multinomial", Classes: 3}, Dim: 2, Bounds: bounds, Domain: geom.Whole{D: 6}, Radius: 2}, classExtremes, []replayCase{
			{"noisy-gd", NoisyGD{}, budget, nil, nil},
			{"outpert-gauss", OutputPerturbation{Gaussian: true}, budget, nil, nil},
			{"auto", Auto{}, budget, nil, nil},
		}},
	} {
		for _, c := range pr.mechs {
			t.Run(pr.name+"/"+c.name, func(t *testing.T) {
				seeds := 1
				if _, ok := c.m.(Auto); ok {
					seeds = autoSeeds
				}
				pl := replayPlan(t, c, privacy.AddRemove, pr.p, 0)
				one := pickRows(pr.extremes, 0, 1)
				// A release of no rows, diagnostics and all, is written out (no NaN).
				if rel, err := pl.Run(context.Background(), pickRows(one, 0, 0), rng.Seeded(1), nil); err != nil {
					t.Fatalf("no rows: %v", err)
				} else if _, err := json.Marshal(rel); err != nil {
					t.Errorf("no rows: the release: %v", err)
				}
				for j := 1; j < pr.extremes.N; j += 3 {
					other := pickRows(pr.extremes, j, j+1)
					for _, pair := range []neighbourPair{
						{"no rows, then one", pickRows(one, 0, 0), other},
						{"one row, then two", one, joinRows(one, other)},
						{"two rows, then one", joinRows(one, other), one},
					} {
						for s := range seeds {
							bad, _, _ := replayPair(t, pl, pl, pair, uint64(300+7*j+s))
							for _, b := range bad {
								t.Errorf("%s (extreme %d, seed %d): %s", pair.name, j, s, b)
							}
						}
					}
				}
			})
		}
	}
}
