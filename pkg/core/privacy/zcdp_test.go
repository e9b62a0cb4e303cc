package privacy

import (
	"errors"
	"github.com/privopt/privopt/internal/stattest"
	"math"
	"testing"
	"time"
)

// TestZCDPCurve: ρ-zCDP is the Rényi curve α·ρ, the same as the Rényi curve of √(2ρ)-GDP, and
// invalid ρ are refused.
func TestZCDPCurve(t *testing.T) {
	for _, rho := range []float64{0, 1e-6, 0.02, 0.5, 3} {
		c, err := ZCDP(rho)
		if err != nil {
			t.Fatal(err)
		}
		g := GaussianRDP(math.Sqrt(2 * rho))
		for _, a := range []float64{1.001, 2, 17, 1e4} {
			if got, want := c.Eps(a), a*rho; got != want {
				t.Errorf("ρ = %g: Eps(%g) = %g, want %g", rho, a, got, want)
			}
			if stattest.RelErr(c.Eps(a), g.Eps(a)) > 1e-15 {
				t.Errorf("ρ = %g: Eps(%g) = %g, GaussianRDP gives %g", rho, a, c.Eps(a), g.Eps(a))
			}
		}
	}
	for _, rho := range []float64{-1, math.NaN(), math.Inf(1)} {
		if _, err := ZCDP(rho); err == nil {
			t.Errorf("ZCDP(%g) accepted", rho)
		}
	}
}

// TestCalibrateZCDP: the calibrated ρ meets the target when evaluated, a ρ larger by 1e-9
// (relative) does not (so it is the largest to that precision), it is at least the closed form
// of Mironov's conversion, and for δ = 1e-6, ε = 1 it sits where the conversion's closed form for
// zCDP puts it (checked independently by minimising the CKS bound over a fine grid of orders).
func TestCalibrateZCDP(t *testing.T) {
	for _, tc := range []struct{ eps, delta float64 }{
		{0.01, 1e-6}, {0.1, 1e-9}, {0.5, 1e-6}, {1, 1e-6}, {1, 1e-5}, {4, 1e-6}, {8, 1e-10}, {30, 1e-3}, {1, 0.3},
	} {
		rho, err := CalibrateZCDP(tc.eps, tc.delta)
		if err != nil {
			t.Fatalf("(%g, %g): %v", tc.eps, tc.delta, err)
		}
		c, _ := ZCDP(rho)
		if d := c.Delta(tc.eps); d > tc.delta {
			t.Errorf("(%g, %g): ρ = %g gives δ = %g above the target", tc.eps, tc.delta, rho, d)
		}
		up, _ := ZCDP(rho * (1 + 1e-9))
		if d := up.Delta(tc.eps); d <= tc.delta {
			t.Errorf("(%g, %g): ρ·(1 + 1e-9) still meets the target (δ = %g): not the largest ρ", tc.eps, tc.delta, d)
		}
		l := -math.Log(tc.delta)
		r0 := math.Sqrt(l+tc.eps) - math.Sqrt(l)
		if rho < r0*r0 {
			t.Errorf("(%g, %g): ρ = %g below Mironov's closed form %g", tc.eps, tc.delta, rho, r0*r0)
		}
		// Independent check of the CKS conversion at this ρ: the minimum over orders on a fine
		// grid of exp((α−1)(αρ − ε))·(1 − 1/α)^(α−1)/α must be close to δ (within the grid's
		// resolution) and never below the library's δ by more than rounding.
		best := math.Inf(1)
		for a := 1.0001; a < 1e5; a *= 1.0005 {
			v := math.Exp((a-1)*(a*rho-tc.eps)) * math.Pow(1-1/a, a-1) / a
			best = math.Min(best, v)
		}
		if stattest.RelErr(best, tc.delta) > 1e-3 {
			t.Errorf("(%g, %g): the CKS bound at ρ = %g is %g by a direct search, want about δ", tc.eps, tc.delta, rho, best)
		}
	}
	for _, tc := range []struct{ eps, delta float64 }{{0, 1e-6}, {-1, 1e-6}, {1, 0}, {1, 1}, {math.NaN(), 0.1}, {math.Inf(1), 0.1}} {
		if _, err := CalibrateZCDP(tc.eps, tc.delta); err == nil {
			t.Errorf("CalibrateZCDP(%g, %g) accepted", tc.eps, tc.delta)
		}
	}
}

// BenchmarkCalibrateZCDP measures the calibration of ρ to (ε, δ) = (1, 1e-6).
func BenchmarkCalibrateZCDP(b *testing.B) {
	for b.Loop() {
		if _, err := CalibrateZCDP(1, 1e-6); err != nil {
			b.Fatal(err)
		}
	}
}

// TestLinearCurveDelta: for zCDP and μ-GDP's Rényi curve, Delta takes the CKS bound at the
// minimising order that linearOrder finds by Newton's method; it agrees with the search over
// the orders that every other curve uses (the same curve without the linear marker) to a
// relative 10⁻⁹, and is never above it: it is the same minimum, found exactly.
func TestLinearCurveDelta(t *testing.T) {
	for _, rho := range []float64{1e-6, 1e-4, 0.0244, 0.5, 3} {
		c, err := ZCDP(rho)
		if err != nil {
			t.Fatal(err)
		}
		searched := RDP{Eps: c.Eps, Name: c.Name}
		for _, eps := range []float64{0, 0.05, 0.5, 1, 4, 8, 20} {
			fast, slow := c.Delta(eps), searched.Delta(eps)
			_, alpha := minOverOrders(func(a float64) float64 { return searched.logDeltaAt(a, eps) })
			if fast > slow*(1+1e-9) || (alpha < 1e5 && fast < slow*(1-1e-9)) {
				t.Errorf("ρ = %g, ε = %g: δ = %.17g, the search over the orders gives %.17g (order %g)", rho, eps, fast, slow, alpha)
			}
		}
	}
	if g := GaussianRDP(0.7); g.Delta(1) != (RDP{Eps: g.Eps}).Delta(1) && math.Abs(g.Delta(1)/(RDP{Eps: g.Eps}).Delta(1)-1) > 1e-9 {
		t.Errorf("GaussianRDP: δ(1) = %g, searched %g", g.Delta(1), (RDP{Eps: g.Eps}).Delta(1))
	}
}

// calibrationCase is an (ε, δ) a calibrator must answer: a valid parameter or an error.
var calibrationCases = [][2]float64{
	{1e-16, 1e-6}, {1e-300, 1e-6}, {5e-324, 0.5}, {1e-8, 1e-300}, {1, 1e-320}, {1, 5e-324},
	{1e308, 1e-6}, {1e5, 1e-6}, {700, 0.999999}, {745, 1e-300}, {0, 0.5}, {1, 1 - 1e-16},
	{1e-16, 1 - 1e-16}, {math.MaxFloat64, math.SmallestNonzeroFloat64},
}

// checkCalibrated runs CalibrateZCDP and CalibrateGDP on (ε, δ), and the ε(δ) searches of the
// μ-GDP and ρ-zCDP curves with μ = ρ = ε, each within 10 seconds (a hang guard: an answer takes
// microseconds), and checks that a calibration's answer meets the target.
func checkCalibrated(t *testing.T, eps, delta float64) {
	t.Helper()
	for _, c := range []struct {
		name string
		run  func() (Curve, error)
	}{
		{"zCDP", func() (Curve, error) {
			rho, err := CalibrateZCDP(eps, delta)
			if err != nil {
				return nil, err
			}
			return ZCDP(rho)
		}},
		{"GDP", func() (Curve, error) {
			mu, err := CalibrateGDP(eps, delta)
			return GDP{Mu: mu}, err
		}},
		// The inverse searches, with ε read as μ and as ρ: ε at δ for those curves.
		{"GDP's ε(δ)", func() (Curve, error) {
			_, err := GDP{Mu: eps}.Epsilon(delta)
			return nil, errors.Join(err, errors.New("no curve to check"))
		}},
		{"zCDP's ε(δ)", func() (Curve, error) {
			c, err := ZCDP(eps)
			if err == nil {
				_, err = c.Epsilon(delta)
			}
			return nil, errors.Join(err, errors.New("no curve to check"))
		}},
	} {
		done := make(chan struct{})
		var curve Curve
		var err error
		go func() { curve, err = c.run(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s calibration for (ε = %g, δ = %g) did not return", c.name, eps, delta)
		}
		if err != nil {
			continue // an error is a valid answer for a budget out of reach
		}
		if d := curve.Delta(eps); !(d <= delta) {
			t.Errorf("%s calibration for (ε = %g, δ = %g): %v has δ(ε) = %g", c.name, eps, delta, curve, d)
		}
	}
}

// TestCalibrationsTerminate: the calibrations answer every budget, including ε = 10⁻¹⁶ (where
// √(l + ε) − √l rounds to 0 and the zCDP calibration used to loop forever), subnormal δ and
// ε = 10³⁰⁸: a parameter that meets the budget, or an error.
func TestCalibrationsTerminate(t *testing.T) {
	for _, c := range calibrationCases {
		checkCalibrated(t, c[0], c[1])
	}
	if rho, err := CalibrateZCDP(1e-16, 1e-6); err != nil || !(rho > 0) {
		t.Errorf("CalibrateZCDP(1e-16, 1e-6) = %g, %v; want a positive ρ", rho, err)
	}
}

// FuzzCalibrate: the calibrations return, and what they return meets the budget.
func FuzzCalibrate(f *testing.F) {
	for _, c := range calibrationCases {
		f.Add(c[0], c[1])
	}
	f.Fuzz(func(t *testing.T, eps, delta float64) { checkCalibrated(t, eps, delta) })
}
