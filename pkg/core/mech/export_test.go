package mech

// WithLangevinNoise returns a copy of a Langevin plan whose noise σ is multiplied by scale and
// whose claimed guarantee is unchanged: the audits' mutants (a scale below 1 breaks the claim).
func WithLangevinNoise(p Plan, scale float64) Plan {
	lp := *p.(*langevinPlan)
	lp.sigma *= scale
	return &lp
}
