package geom

import (
	"math"
	"math/rand/v2"
	"testing"
)

// support returns h_C(u) = sup_{z ∈ C} ⟨u, z⟩, in closed form for each domain type.
func support(t *testing.T, dom Domain, u []float64) float64 {
	switch c := dom.(type) {
	case *Ball:
		s := c.r * Norm(u, Dual(c.p))
		if c.center != nil {
			s += dot(u, c.center)
		}
		return s
	case *Box:
		s := 0.0
		for i, v := range u {
			s += math.Max(v*c.lo[i], v*c.hi[i])
		}
		return s
	case *SchattenBall:
		n, err := SchattenNorm(u, c.rows, c.cols, Dual(c.p))
		if err != nil {
			t.Fatal(err)
		}
		return c.r * n
	case Whole:
		if Norm(u, 2) == 0 {
			return 0
		}
		return inf
	}
	t.Fatalf("no support function for %T", dom)
	return 0
}

func mustBall(t *testing.T, d int, p, r float64, c []float64) *Ball {
	t.Helper()
	b, err := NewBall(d, p, r, c)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func testDomains(t *testing.T) map[string]Domain {
	t.Helper()
	const d = 6
	centre := []float64{0.5, -0.3, 0.2, 0, 1, -1}
	box, err := NewBox([]float64{-1, -2, 0, 0.5, -3, -0.1}, []float64{1, 0, 0, 2, 3, 0.1})
	if err != nil {
		t.Fatal(err)
	}
	sb := func(p float64) Domain {
		b, err := NewSchattenBall(2, 3, p, 1.5)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	return map[string]Domain{
		"l2":           mustBall(t, d, 2, 1.5, nil),
		"l2-centred":   mustBall(t, d, 2, 0.7, centre),
		"l1":           mustBall(t, d, 1, 1.5, nil),
		"l1-centred":   mustBall(t, d, 1, 0.4, centre),
		"l1.5":         mustBall(t, d, 1.5, 1.5, nil),
		"l1.1":         mustBall(t, d, 1.1, 1, nil),
		"l3":           mustBall(t, d, 3, 1.5, nil),
		"l3-centred":   mustBall(t, d, 3, 0.5, centre),
		"l8":           mustBall(t, d, 8, 1, nil),
		"linf":         mustBall(t, d, inf, 0.5, nil),
		"point":        mustBall(t, d, 2, 0, centre),
		"box":          box,
		"whole":        Whole{D: d},
		"schatten1":    sb(1),
		"schatten1.5":  sb(1.5),
		"schatten2":    sb(2),
		"schatten-inf": sb(inf),
	}
}

// TestProject checks, on random points inside and outside each domain, that the projection
// lies in the domain, is idempotent, is non-expansive, and satisfies the optimality condition
// of the Euclidean projection: ⟨x − y, z − y⟩ ≤ 0 for every z ∈ C, i.e. h_C(x − y) ≤ ⟨x − y, y⟩
// with h_C the support function (equality holds when x ∉ C).
func TestProject(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for name, dom := range testDomains(t) {
		t.Run(name, func(t *testing.T) {
			d := dom.Dim()
			prev, prevY := []float64(nil), []float64(nil)
			for k := 0; k < 300; k++ {
				scale := []float64{0.05, 0.5, 2, 30}[k%4]
				x := randVec(rng, d, scale)
				if k%7 == 0 {
					x[rng.IntN(d)] *= 40
				}
				y := make([]float64, d)
				dom.Project(y, x)
				if !dom.Contains(y) {
					t.Fatalf("Project(%v) = %v is outside the domain", x, y)
				}
				y2 := make([]float64, d)
				dom.Project(y2, y)
				for i := range y {
					if y2[i] != y[i] {
						t.Fatalf("not idempotent: Π(Π(x)) = %v, Π(x) = %v", y2, y)
					}
				}
				inPlace := append([]float64(nil), x...)
				dom.Project(inPlace, inPlace)
				for i := range y {
					if inPlace[i] != y[i] {
						t.Fatalf("in-place projection %v differs from %v", inPlace, y)
					}
				}
				u := make([]float64, d)
				for i := range u {
					u[i] = x[i] - y[i]
				}
				gap := support(t, dom, u) - dot(u, y)
				if gap > 1e-9*Norm(u, 2)*(1+Norm(x, 2)) {
					t.Fatalf("optimality violated: h_C(x−y) − ⟨x−y, y⟩ = %v for x = %v, y = %v", gap, x, y)
				}
				if prev != nil {
					dx, dy := make([]float64, d), make([]float64, d)
					for i := range dx {
						dx[i], dy[i] = x[i]-prev[i], y[i]-prevY[i]
					}
					if Norm(dy, 2) > Norm(dx, 2)*(1+1e-12)+1e-14 {
						t.Fatalf("expansive: ‖Πx − Πx'‖ = %v > ‖x − x'‖ = %v", Norm(dy, 2), Norm(dx, 2))
					}
				}
				prev, prevY = x, y
			}
		})
	}
}

// TestProjectL1Exact compares the ℓ1 projection with hand-computed answers.
func TestProjectL1Exact(t *testing.T) {
	tests := []struct {
		x, want []float64
		r       float64
	}{
		{[]float64{3, 1, 0}, []float64{2, 0, 0}, 2},
		{[]float64{2, -2, 0.5}, []float64{1, -1, 0}, 2},
		{[]float64{1, 1, 1, 1}, []float64{0.5, 0.5, 0.5, 0.5}, 2},
		{[]float64{0.5, 0.2, -0.1}, []float64{0.5, 0.2, -0.1}, 2},
		{[]float64{4, -1, 1}, []float64{0, 0, 0}, 0},
	}
	for _, tc := range tests {
		b := mustBall(t, len(tc.x), 1, tc.r, nil)
		got := make([]float64, len(tc.x))
		b.Project(got, tc.x)
		for i := range got {
			if !closeTo(got[i], tc.want[i], 1e-15) {
				t.Errorf("Π_{ℓ1,%v}(%v) = %v, want %v", tc.r, tc.x, got, tc.want)
				break
			}
		}
	}
}

// TestProjectLpKKT checks the general-p projection against its KKT conditions: y_i has the
// sign of x_i, |x_i| − |y_i| = λ|y_i|^{p−1} with one λ > 0 for all i, and ‖y‖_p = R.
func TestProjectLpKKT(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, p := range []float64{1.2, 1.5, 3, 6} {
		b := mustBall(t, 5, p, 1, nil)
		for k := 0; k < 100; k++ {
			x := randVec(rng, 5, 3)
			if Norm(x, p) <= 1 {
				continue
			}
			y := make([]float64, 5)
			b.Project(y, x)
			if n := Norm(y, p); !closeTo(n, 1, 1e-13) {
				t.Fatalf("p=%v: ‖y‖_p = %v, want 1", p, n)
			}
			// λ from the largest coordinate (best conditioned), then the residual of every
			// coordinate's equation relative to |x_i|.
			j := 0
			for i := range x {
				if math.Abs(x[i]) > math.Abs(x[j]) {
					j = i
				}
			}
			lam := (math.Abs(x[j]) - math.Abs(y[j])) / math.Pow(math.Abs(y[j]), p-1)
			for i := range x {
				if sign(y[i]) != sign(x[i]) {
					t.Fatalf("p=%v: sign of y_%d differs from x", p, i)
				}
				res := math.Abs(x[i]) - math.Abs(y[i]) - lam*math.Pow(math.Abs(y[i]), p-1)
				if math.Abs(res) > 1e-12*math.Abs(x[j]) {
					t.Fatalf("p=%v: KKT residual %v at coordinate %d (x=%v, y=%v)", p, res, i, x, y)
				}
			}
			if !(lam > 0) {
				t.Fatalf("p=%v: multiplier %v not positive", p, lam)
			}
		}
	}
}

func TestRadius(t *testing.T) {
	centre := []float64{1, -2, 0}
	box, err := NewBox([]float64{-1, -3, 0}, []float64{2, 1, 0.5})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		dom  Domain
		p    float64
		want float64
	}{
		{mustBall(t, 4, 2, 3, nil), 2, 3},
		{mustBall(t, 4, 2, 3, nil), 1, 6},    // 3·4^{1/2}
		{mustBall(t, 4, 2, 3, nil), inf, 3},  // attained at 3e_1
		{mustBall(t, 4, 1, 3, nil), 2, 3},    // ℓ1 ⊂ ℓ2
		{mustBall(t, 4, inf, 3, nil), 2, 6},  // 3·4^{1/2}
		{mustBall(t, 4, inf, 3, nil), 1, 12}, // 3·4
		{mustBall(t, 3, 2, 1, centre), 2, 1 + math.Sqrt(5)},
		{box, 1, 2 + 3 + 0.5},
		{box, inf, 3},
		{Whole{D: 3}, 2, inf},
	}
	for _, tc := range tests {
		if got := tc.dom.Radius(tc.p); !closeTo(got, tc.want, 1e-15) && got != tc.want {
			t.Errorf("%T.Radius(%v) = %v, want %v", tc.dom, tc.p, got, tc.want)
		}
	}
	// Schatten ball: sup ‖A‖_F over the S_1 ball is R, over the S_∞ ball R·√k.
	for _, tc := range []struct{ p, want float64 }{{1, 2}, {2, 2}, {inf, 2 * math.Sqrt(2)}} {
		b, err := NewSchattenBall(2, 5, tc.p, 2)
		if err != nil {
			t.Fatal(err)
		}
		if got := b.Radius(2); !closeTo(got, tc.want, 1e-15) {
			t.Errorf("SchattenBall(p=%v).Radius(2) = %v, want %v", tc.p, got, tc.want)
		}
	}
}

func TestDomainErrors(t *testing.T) {
	if _, err := NewBall(0, 2, 1, nil); err == nil {
		t.Error("NewBall accepted dimension 0")
	}
	if _, err := NewBall(2, 0.5, 1, nil); err == nil {
		t.Error("NewBall accepted p = 0.5")
	}
	if _, err := NewBall(2, 2, -1, nil); err == nil {
		t.Error("NewBall accepted a negative radius")
	}
	if _, err := NewBall(2, 2, inf, nil); err == nil {
		t.Error("NewBall accepted an infinite radius")
	}
	if _, err := NewBall(2, 2, 1, []float64{1}); err == nil {
		t.Error("NewBall accepted a centre of the wrong length")
	}
	if _, err := NewBall(2, 2, 1, []float64{1, math.NaN()}); err == nil {
		t.Error("NewBall accepted a NaN centre")
	}
	if _, err := NewBox([]float64{0, 1}, []float64{1, 0}); err == nil {
		t.Error("NewBox accepted lo > hi")
	}
	if _, err := NewBox([]float64{0}, []float64{inf}); err == nil {
		t.Error("NewBox accepted an infinite bound")
	}
	if _, err := NewBox(nil, nil); err == nil {
		t.Error("NewBox accepted an empty box")
	}
	if _, err := NewSchattenBall(0, 2, 1, 1); err == nil {
		t.Error("NewSchattenBall accepted shape 0×2")
	}
	b := mustBall(t, 2, 2, 1, nil)
	if b.Contains([]float64{0, math.NaN()}) {
		t.Error("Contains accepted NaN")
	}
	if b.Contains([]float64{0}) {
		t.Error("Contains accepted a vector of the wrong length")
	}
}

// TestScaledProjection checks the projection in the metric diag(s)⁻¹ on random points and
// scales (sᵢ from 10⁻³ to 10³): it exists for the whole space, boxes and ℓ2 balls (centred or
// not) and for no other domain; its result lies in the domain, is the same in place, leaves a
// point of the domain unchanged bit for bit, and satisfies the metric projection's optimality
// condition ⟨S⁻¹(x − y), z − y⟩ ≤ 0 for every z ∈ C (h_C(g) ≤ ⟨g, y⟩ with g = S⁻¹(x − y)). On
// the ℓ2 balls, x outside gives the KKT conditions: ‖y − c‖₂ = R and g = λ(y − c) with one
// λ ≥ 0, to rounding. The whole space and boxes give Project's result bit for bit, and on a
// ball a constant s gives the Euclidean projection to a few ulps (8 of R).
func TestScaledProjection(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for name, dom := range testDomains(t) {
		t.Run(name, func(t *testing.T) {
			proj := ScaledProjection(dom)
			ball, isBall := dom.(*Ball)
			_, isSchatten := dom.(*SchattenBall)
			if want := !isSchatten && (!isBall || ball.p == 2); (proj != nil) != want {
				t.Fatalf("ScaledProjection is nil: %v, want %v", proj == nil, !want)
			}
			if proj == nil {
				return
			}
			d := dom.Dim()
			for k := 0; k < 300; k++ {
				x := randVec(rng, d, []float64{0.05, 0.5, 2, 30}[k%4])
				s := make([]float64, d)
				for i := range s {
					s[i] = math.Pow(10, 6*rng.Float64()-3)
				}
				y := make([]float64, d)
				proj(y, x, s)
				if !dom.Contains(y) {
					t.Fatalf("the projection %v of %v is outside the domain", y, x)
				}
				inPlace := append([]float64(nil), x...)
				proj(inPlace, inPlace, s)
				y2 := make([]float64, d)
				proj(y2, y, s)
				for i := range y {
					if inPlace[i] != y[i] || y2[i] != y[i] {
						t.Fatalf("in place %v, projected again %v, want %v", inPlace, y2, y)
					}
				}
				g := make([]float64, d)
				for i := range g {
					g[i] = (x[i] - y[i]) / s[i]
				}
				if gap := support(t, dom, g) - dot(g, y); gap > 1e-12*Norm(g, 2)*(1+Norm(x, 2)) {
					t.Fatalf("optimality violated by %v: x = %v, s = %v, y = %v", gap, x, s, y)
				}
				if !isBall || dom.Contains(x) {
					if !isBall {
						e := make([]float64, d)
						dom.Project(e, x)
						for i := range e {
							if e[i] != y[i] {
								t.Fatalf("%v, the Euclidean projection %v", y, e)
							}
						}
					}
					continue
				}
				// KKT: uᵢ − rᵢ = λsᵢrᵢ for one λ ≥ 0, with u = x − c and r = y − c, ‖r‖₂ = R. Every
				// difference carries the rounding of its terms, a few ulps of |xᵢ| + |yᵢ| + |cᵢ|
				// (eᵢ below); λ is read off the coordinate where its relative error is smallest.
				u, r, e := make([]float64, d), make([]float64, d), make([]float64, d)
				lam, rel := 0.0, math.Inf(1)
				for i := range r {
					c := 0.0
					if ball.center != nil {
						c = ball.center[i]
					}
					u[i], r[i] = x[i]-c, y[i]-c
					e[i] = 16 * 0x1p-53 * (math.Abs(x[i]) + math.Abs(y[i]) + math.Abs(c))
					if q := e[i]/math.Abs(u[i]-r[i]) + e[i]/math.Abs(r[i]); q < rel {
						lam, rel = (u[i]-r[i])/(s[i]*r[i]), q
					}
				}
				if n := Norm(r, 2); !closeTo(n, ball.r, 1e-15) {
					t.Fatalf("‖y − c‖ = %v, want R = %v", n, ball.r)
				}
				if ball.r == 0 {
					continue
				}
				for i := range r {
					res := u[i] - r[i] - lam*s[i]*r[i]
					if tol := e[i] + lam*s[i]*(math.Abs(r[i])*rel+e[i]); !(lam >= 0) || math.Abs(res) > tol {
						t.Fatalf("KKT: u − r = %v·s∘r fails at coordinate %d by %v (tolerance %v): x = %v, s = %v, y = %v", lam, i, res, tol, x, s, y)
					}
				}
				for i := range s {
					s[i] = 3.7
				}
				proj(y, x, s)
				euclid := make([]float64, d)
				dom.Project(euclid, x)
				for i := range euclid {
					if math.Abs(euclid[i]-y[i]) > 2e-15*ball.r {
						t.Fatalf("constant scales: %v, the Euclidean projection %v", y, euclid)
					}
				}
			}
		})
	}
}
