package mech

// WithStepNoise returns a copy of a langevin or noisy-gd plan whose noise σ is multiplied by
// scale and whose claimed guarantee is unchanged: the audits' mutants (a scale below 1 breaks
// the claim).
func WithStepNoise(p Plan, scale float64) Plan {
	switch p := p.(type) {
	case *langevinPlan:
		lp := *p
		lp.sigma *= scale
		return &lp
	case *noisyGDPlan:
		np := *p
		np.sigma *= scale
		return &np
	}
	panic("mech: WithStepNoise: not a noisy gradient plan")
}
