package mech_test

import (
	"context"
	"math"
	"testing"

	"github.com/privopt/privopt/pkg/audit"
	"github.com/privopt/privopt/pkg/core/mech"
)

// TestAuditLangevinMutants: projected noisy gradient descent (which passes its audit in
// pkg/audit) is caught by the audit with the same steps but less noise — σ halved, and σ
// calibrated with the constant of Ganesh, Thakurta and Upadhyay's Lemma 3.1 (β ≤ 2ε/(Δ√(Tη log(1/δ))), i.e.
// μ = √2·ε/√(log(1/δ)), which with the same step and time scales the noise by μ/μ_Lemma).
func TestAuditLangevinMutants(t *testing.T) {
	var c audit.Case
	for _, k := range audit.Cases() {
		if k.Mechanism == "langevin" && k.Variant == "" {
			c = k
		}
	}
	good, err := c.Plan()
	if err != nil {
		t.Fatal(err)
	}
	muGood := math.Sqrt(2 * good.Parameters()["rho_zcdp"])
	muLemma := math.Sqrt2 * c.Budget.Epsilon / math.Sqrt(math.Log(1/c.Budget.Delta))
	for _, tc := range []struct {
		name  string
		scale float64
	}{
		{"half σ", 0.5},
		{"the Lemma 3.1 constant", muGood / muLemma},
	} {
		out, err := c.AuditPlan(context.Background(), mech.WithStepNoise(good, tc.scale), audit.Config{})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("langevin with %s (σ × %.3f): violation %v, ε lower bound %.3f", tc.name, tc.scale, out.Violation, out.EpsilonLower)
		if !out.Violation {
			t.Errorf("langevin with %s was not caught (worst %+v)", tc.name, out.Worst)
		}
	}
}

// TestAuditNoisyGDMutant: noisy-gd's one-step audit case (which passes in pkg/audit) is caught
// with half the calibrated σ.
func TestAuditNoisyGDMutant(t *testing.T) {
	if testing.Short() {
		t.Skip("slow audit of a mutant: runs under go test without -short (./build.sh test)")
	}
	var c audit.Case
	for _, k := range audit.Cases() {
		if k.Mechanism == "noisy-gd" && k.Variant == "one step" {
			c = k
		}
	}
	good, err := c.Plan()
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.AuditPlan(context.Background(), mech.WithStepNoise(good, 0.5), audit.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("noisy-gd, one step, half σ: violation %v, ε lower bound %.3f", out.Violation, out.EpsilonLower)
	if !out.Violation {
		t.Errorf("noisy-gd with half σ was not caught (worst %+v)", out.Worst)
	}
}
