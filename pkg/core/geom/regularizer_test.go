package geom

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// checkGrad compares Grad with central finite differences at x and checks that Grad returns
// Value(x).
func checkGrad(t *testing.T, name string, r Regularizer, x []float64) {
	t.Helper()
	g := make([]float64, len(x))
	v := r.Grad(g, x)
	if want := r.Value(x); !closeTo(v, want, 1e-13) {
		t.Fatalf("%s: Grad returned value %v, Value = %v", name, v, want)
	}
	for i := range x {
		h := 1e-6 * math.Max(1, math.Abs(x[i]))
		xp, xm := append([]float64(nil), x...), append([]float64(nil), x...)
		xp[i] += h
		xm[i] -= h
		fd := (r.Value(xp) - r.Value(xm)) / (2 * h)
		if math.Abs(fd-g[i]) > 1e-6*math.Max(1, math.Abs(g[i])) {
			t.Fatalf("%s: ∂_%d r = %v, finite difference %v", name, i, g[i], fd)
		}
	}
}

func mustLp(t *testing.T, p float64, d int, x0 []float64) *LpRegularizer {
	t.Helper()
	r, err := NewLpRegularizer(p, d, x0)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestPaperRegularizers checks the shapes of Gopi, Lee, Liu, Shen and Tian's regularizers (Corollaries 2–4).
func TestPaperRegularizers(t *testing.T) {
	const d = 92
	q1 := 1 + 1/math.Log(d)
	tests := []struct {
		p, q, s float64
	}{
		{1, q1, math.Pow(d, 2*(1-1/q1)) / (q1 - 1)},
		{1.5, 1.5, 2},
		{2, 2, 1},
		{3, 2, 1},
		{inf, 2, 1},
	}
	for _, tc := range tests {
		r := mustLp(t, tc.p, d, nil)
		if r.Q() != tc.q || !closeTo(r.Scale(), tc.s, 1e-15) {
			t.Errorf("p=%v: q=%v S=%v, want q=%v S=%v", tc.p, r.Q(), r.Scale(), tc.q, tc.s)
		}
		if m := r.Modulus(tc.p); !closeTo(m, 1, 1e-13) {
			t.Errorf("p=%v: modulus %v in ℓp, want 1", tc.p, m)
		}
	}
	// The p = 1 scale is the paper's e²/(q−1) divided by e^{2/(1+ln d)}.
	r := mustLp(t, 1, d, nil)
	if got, want := r.Scale()*math.Exp(2/(1+math.Log(d))), math.E*math.E/(q1-1); !closeTo(got, want, 1e-13) {
		t.Errorf("p=1 scale × e^{2/(1+ln d)} = %v, want e²/(q−1) = %v", got, want)
	}
}

// TestRegularizerStrongConvexity checks, on random pairs, the first-order strong convexity
// inequality r(y) ≥ r(x) + ⟨∇r(x), y − x⟩ + (σ/2)‖y − x‖_p² and the midpoint form
// r((x+y)/2) ≤ (r(x) + r(y))/2 − (σ/8)‖x − y‖_p² with σ = Modulus(p), in the stated norm.
// For q = 2 the smoothness bound is checked as well, and on the quadratic both hold with
// equality in ℓ2.
func TestRegularizerStrongConvexity(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	const d = 8
	x0 := randVec(rng, d, 0.3)
	type tc struct {
		name string
		r    Regularizer
		ps   []float64
	}
	var tests []tc
	for _, p := range []float64{1, 1.2, 1.5, 2, 3, inf} {
		tests = append(tests, tc{fmt.Sprint("seed-p", p), mustLp(t, p, d, x0), []float64{p, 1, 2, inf}})
	}
	ridge, err := NewScaledLpRegularizer(2, 0.3, d, nil)
	if err != nil {
		t.Fatal(err)
	}
	tests = append(tests, tc{"ridge", ridge, []float64{1, 2, 4, inf}})
	for _, p := range []float64{1.3, 2} {
		s, err := NewScaledSchattenRegularizer(p, 1/(p-1), 2, 4, nil)
		if err != nil {
			t.Fatal(err)
		}
		tests = append(tests, tc{fmt.Sprint("schatten-q", p), s, []float64{1, p, 2, inf}})
	}
	for _, c := range tests {
		for _, p := range c.ps {
			sigma := c.r.Modulus(p)
			beta := c.r.Smoothness(p)
			norm := func(v []float64) float64 {
				if s, ok := c.r.(*SchattenRegularizer); ok {
					n, err := SchattenNorm(v, s.rows, s.cols, p)
					if err != nil {
						t.Fatal(err)
					}
					return n
				}
				return Norm(v, p)
			}
			for k := 0; k < 200; k++ {
				x := randVec(rng, d, []float64{0.1, 1, 5}[k%3])
				y := randVec(rng, d, []float64{0.1, 1, 5}[(k/3)%3])
				if k%5 == 0 {
					copy(y, x)
					y[k%d] += 0.01 // nearby pairs probe the local curvature
				}
				g := make([]float64, d)
				rx := c.r.Grad(g, x)
				ry := c.r.Value(y)
				u, mid := make([]float64, d), make([]float64, d)
				for i := range u {
					u[i], mid[i] = y[i]-x[i], (x[i]+y[i])/2
				}
				nu := norm(u)
				lin := rx + dot(g, u)
				tol := 1e-11 * (math.Abs(rx) + math.Abs(ry) + 1)
				if ry < lin+sigma/2*nu*nu-tol {
					t.Fatalf("%s, p=%v: r(y) = %v < r(x) + ⟨∇r, y−x⟩ + σ/2‖y−x‖² = %v (σ=%v)", c.name, p, ry, lin+sigma/2*nu*nu, sigma)
				}
				if rm := c.r.Value(mid); rm > (rx+ry)/2-sigma/8*nu*nu+tol {
					t.Fatalf("%s, p=%v: midpoint inequality fails: %v > %v", c.name, p, rm, (rx+ry)/2-sigma/8*nu*nu)
				}
				if !math.IsInf(beta, 1) && ry > lin+beta/2*nu*nu+tol {
					t.Fatalf("%s, p=%v: r(y) = %v > upper quadratic bound %v (β=%v)", c.name, p, ry, lin+beta/2*nu*nu, beta)
				}
			}
		}
	}
	// Exactness for the quadratic in ℓ2: r(y) − r(x) − ⟨∇r(x), y−x⟩ = (S/2)‖y−x‖₂².
	x, y := randVec(rng, d, 1), randVec(rng, d, 1)
	g := make([]float64, d)
	rx := ridge.Grad(g, x)
	u := make([]float64, d)
	for i := range u {
		u[i] = y[i] - x[i]
	}
	if gap, want := ridge.Value(y)-rx-dot(g, u), ridge.Modulus(2)/2*dot(u, u); !closeTo(gap, want, 1e-12) {
		t.Errorf("ridge: Bregman gap %v, want σ/2‖u‖² = %v", gap, want)
	}
	if ridge.Modulus(2) != ridge.Smoothness(2) {
		t.Errorf("ridge: modulus %v ≠ smoothness %v in ℓ2", ridge.Modulus(2), ridge.Smoothness(2))
	}
}

func TestRegularizerGrad(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const d = 5
	x0 := randVec(rng, d, 0.5)
	for _, p := range []float64{1, 1.2, 1.7, 2, 3} {
		for _, c := range [][]float64{nil, x0} {
			r, err := NewLpRegularizer(p, 5, c)
			if err != nil {
				t.Fatal(err)
			}
			for k := 0; k < 20; k++ {
				checkGrad(t, "lp", r, randVec(rng, d, 2))
			}
		}
	}
	a0 := randVec(rng, 6, 0.3)
	for _, p := range []float64{1, 1.4, 2, 3} {
		for _, c := range [][]float64{nil, a0} {
			r, err := NewSchattenRegularizer(p, 3, 2, c)
			if err != nil {
				if p == 1 { // k = 2 < 3: p = 1 needs three singular values
					continue
				}
				t.Fatal(err)
			}
			for k := 0; k < 20; k++ {
				checkGrad(t, "schatten", r, randVec(rng, 6, 2))
			}
		}
	}
	r, err := NewSchattenRegularizer(1, 3, 4, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkGrad(t, "schatten-p1", r, randVec(rng, 12, 1))
}

// TestRange checks Θ for every supported (regularizer, domain) pair: Θ equals r at the
// maximizer built by hand (so the range is exact, not just an upper bound), r(x0) = 0 is the
// minimum, and no point of the domain (random projections, and for ℓ1 balls every vertex)
// exceeds Θ.
func TestRange(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	const d = 5
	c := []float64{0.3, -0.2, 0.1, 0, 0.5}
	x0 := []float64{0.35, -0.1, 0.1, 0.05, 0.45}
	box, err := NewBox([]float64{-1, -0.5, 0, 0, -2}, []float64{1, 0.5, 0.3, 1, 1})
	if err != nil {
		t.Fatal(err)
	}
	scaled := func(q float64, x0 []float64) *LpRegularizer {
		r, err := NewScaledLpRegularizer(q, 1.7, d, x0)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	ones := func(s float64) []float64 {
		v := make([]float64, d)
		for i := range v {
			v[i] = s
		}
		return v
	}
	tests := []struct {
		name string
		r    *LpRegularizer
		dom  Domain
		arg  []float64 // the maximizer
	}{
		{"q2-on-l2", scaled(2, nil), mustBall(t, d, 2, 1.5, nil), []float64{1.5, 0, 0, 0, 0}},
		{"q1.5-on-l3", scaled(1.5, nil), mustBall(t, d, 3, 1, nil), ones(math.Pow(d, -1.0/3))},
		{"q1.5-on-l1", scaled(1.5, nil), mustBall(t, d, 1, 2, nil), []float64{0, 0, -2, 0, 0}},
		{"q2-on-linf", scaled(2, nil), mustBall(t, d, inf, 0.5, nil), ones(0.5)},
		{"q1.5-on-l1.5-offcentre", scaled(1.5, x0), mustBall(t, d, 1.5, 0.4, c), nil},
		{"q2-on-l1-offcentre", scaled(2, x0), mustBall(t, d, 1, 0.4, c), nil},
		{"q1.2-on-linf-offcentre", scaled(1.2, x0), mustBall(t, d, inf, 0.4, c), nil},
		{"q1.5-on-box", scaled(1.5, x0), box, nil},
	}
	for _, tc := range tests {
		theta, err := tc.r.Range(tc.dom)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		centre := tc.r.Center()
		if centre == nil {
			centre = make([]float64, d)
		}
		if v := tc.r.Value(centre); v != 0 {
			t.Fatalf("%s: r(x0) = %v, want 0", tc.name, v)
		}
		arg := tc.arg
		if arg == nil {
			arg = bruteMaximizer(t, tc.r, tc.dom)
		}
		if !tc.dom.Contains(arg) && !tc.dom.Contains(shrinkTo(arg, tc.dom)) {
			t.Fatalf("%s: maximizer %v outside the domain", tc.name, arg)
		}
		if v := tc.r.Value(arg); !closeTo(v, theta, 1e-12) {
			t.Fatalf("%s: Θ = %v, r at the maximizer = %v", tc.name, theta, v)
		}
		for k := 0; k < 500; k++ {
			x := randVec(rng, d, 3)
			tc.dom.Project(x, x)
			if v := tc.r.Value(x); v > theta*(1+1e-12) {
				t.Fatalf("%s: r(%v) = %v > Θ = %v", tc.name, x, v, theta)
			}
		}
	}
}

// bruteMaximizer returns the maximizer of r over the vertices of a box, an ℓ∞ ball or an ℓ1
// ball by enumeration, or, for an ℓq ball with the regularizer's own q, the point
// c + R(c − x0)/‖c − x0‖_q; it is independent of the formulas in Range.
func bruteMaximizer(t *testing.T, r *LpRegularizer, dom Domain) []float64 {
	x0 := r.Center()
	d := r.Dim()
	var vertices [][]float64
	switch b := dom.(type) {
	case *Box:
		vertices = boxVertices(b.lo, b.hi)
	case *Ball:
		c := b.Center()
		switch {
		case math.IsInf(b.p, 1):
			lo, hi := make([]float64, d), make([]float64, d)
			for i := range lo {
				lo[i], hi[i] = c[i]-b.r, c[i]+b.r
			}
			vertices = boxVertices(lo, hi)
		case b.p == 1:
			for i := 0; i < d; i++ {
				for _, s := range []float64{b.r, -b.r} {
					v := append([]float64(nil), c...)
					v[i] += s
					vertices = append(vertices, v)
				}
			}
		case b.p == r.Q():
			u := make([]float64, d)
			for i := range u {
				u[i] = c[i] - x0[i]
			}
			n := Norm(u, b.p)
			for i := range u {
				u[i] = c[i] + b.r*u[i]/n
			}
			return u
		}
	}
	if vertices == nil {
		t.Fatalf("no brute-force maximizer for %T", dom)
	}
	best, arg := -1.0, []float64(nil)
	for _, v := range vertices {
		if val := r.Value(v); val > best {
			best, arg = val, v
		}
	}
	return arg
}

func boxVertices(lo, hi []float64) [][]float64 {
	var out [][]float64
	for mask := 0; mask < 1<<len(lo); mask++ {
		v := make([]float64, len(lo))
		for i := range v {
			if mask>>i&1 == 1 {
				v[i] = hi[i]
			} else {
				v[i] = lo[i]
			}
		}
		out = append(out, v)
	}
	return out
}

// shrinkTo projects x onto dom (a maximizer on the boundary may be outside by an ulp).
func shrinkTo(x []float64, dom Domain) []float64 {
	y := make([]float64, len(x))
	dom.Project(y, x)
	return y
}

func TestRangeSeedValues(t *testing.T) {
	const d, D = 92, 2.5
	q1 := 1 + 1/math.Log(d)
	tests := []struct {
		p    float64
		want float64
	}{
		{1.5, D * D / (2 * 0.5)},                              // Corollary 2
		{2, D * D / 2},                                        // Corollary 2/4
		{4, 0.5 * math.Pow(d, 1-2.0/4) * D * D},               // Corollary 4
		{inf, 0.5 * d * D * D},                                // Corollary 4, p = ∞
		{1, D * D * math.Pow(d, 2*(1-1/q1)) / (2 * (q1 - 1))}, // Corollary 3, exact scale
	}
	for _, tc := range tests {
		r := mustLp(t, tc.p, d, nil)
		theta, err := r.Range(mustBall(t, d, tc.p, D, nil))
		if err != nil {
			t.Fatal(err)
		}
		if !closeTo(theta, tc.want, 1e-13) {
			t.Errorf("p=%v: Θ = %v, want %v", tc.p, theta, tc.want)
		}
	}
	// Corollary 3's Θ with the paper's scale is e²D² ln d/2; ours is smaller by e^{2/(1+ln d)}.
	r := mustLp(t, 1, d, nil)
	theta, _ := r.Range(mustBall(t, d, 1, D, nil))
	if paper := math.E * math.E * D * D * math.Log(d) / 2; !closeTo(theta*math.Exp(2/(1+math.Log(d))), paper, 1e-13) {
		t.Errorf("p=1: Θ·e^{2/(1+ln d)} = %v, want the paper's %v", theta*math.Exp(2/(1+math.Log(d))), paper)
	}
}

func TestRangeErrors(t *testing.T) {
	const d = 4
	r := mustLp(t, 1.5, d, []float64{0.5, 0, 0, 0})
	tests := []struct {
		name string
		dom  Domain
	}{
		{"whole", Whole{D: d}},
		{"centre-outside", mustBall(t, d, 1.5, 0.1, nil)},
		{"other-norm-offcentre", mustBall(t, d, 3, 1, []float64{0.4, 0, 0, 0})},
		{"wrong-dimension", mustBall(t, d+1, 1.5, 1, nil)},
	}
	for _, tc := range tests {
		if _, err := r.Range(tc.dom); err == nil {
			t.Errorf("%s: Range returned no error", tc.name)
		}
	}
	for _, bad := range []struct {
		p float64
		d int
	}{{1, 2}, {0.5, 4}, {math.NaN(), 4}, {2, 0}} {
		if _, err := NewLpRegularizer(bad.p, bad.d, nil); err == nil {
			t.Errorf("NewLpRegularizer(%v, %d) returned no error", bad.p, bad.d)
		}
	}
	if _, err := NewScaledLpRegularizer(2.5, 1, 3, nil); err == nil {
		t.Error("NewScaledLpRegularizer accepted q = 2.5")
	}
	if _, err := NewScaledLpRegularizer(2, 0, 3, nil); err == nil {
		t.Error("NewScaledLpRegularizer accepted scale 0")
	}
	if _, err := NewLpRegularizer(2, 3, []float64{0, math.Inf(1), 0}); err == nil {
		t.Error("NewLpRegularizer accepted an infinite centre")
	}
}
