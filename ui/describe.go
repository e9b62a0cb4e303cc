package ui

import "github.com/privopt/privopt/pkg/core/mech"

// The page's plain-language descriptions of the losses, their modifiers and the mechanisms.
// A mechanism registered in pkg/core/mech without a description here still appears on the
// page, with its name, its paper and its settings.

// lossDescription describes a loss.
type lossDescription struct{ title, explain string }

// lossText describes each loss, by name (a list, not a map: a map literal's initialisation is
// code, several kB of the page's WebAssembly for this file's tables, where a list is data).
var lossText = [...]struct {
	name string
	lossDescription
}{
	{mech.LossLogistic, lossDescription{"logistic regression", "log(1 + e^(−y⟨w, x⟩)) for labels ±1: smooth, and Lipschitz with the declared row bound."}},
	{mech.LossHinge, lossDescription{"hinge (support vector machine)", "max(0, 1 − y⟨w, x⟩) for labels ±1: Lipschitz but not smooth."}},
	{mech.LossSmoothHinge, lossDescription{"smoothed hinge", "The hinge with its corner replaced by a parabola of width H: Lipschitz and smooth."}},
	{mech.LossSquared, lossDescription{"least squares", "½(⟨w, x⟩ − y)² for a numeric label: Lipschitz only on a bounded domain, with the label's declared range."}},
	{mech.LossHuber, lossDescription{"Huber regression", "Quadratic for residuals within δ, linear beyond: least squares that outliers cannot dominate."}},
	{mech.LossMultinomial, lossDescription{"multinomial logistic regression", "One weight vector per class; the loss is log Σₖ e^⟨wₖ, x⟩ − ⟨w_y, x⟩."}},
}

// lossOf describes the loss of the given name (ok false when the page has no description).
func lossOf(name string) (d lossDescription, ok bool) {
	for _, l := range lossText {
		if l.name == name {
			return l.lossDescription, true
		}
	}
	return d, false
}

// LossExplain explains the chosen loss.
func (a *App) LossExplain() string {
	d, _ := lossOf(a.Loss)
	return d.explain
}

// LossTitle is a loss's name as the page shows it (for the loss menu).
func (a *App) LossTitle(name string) string {
	if d, ok := lossOf(name); ok {
		return d.title
	}
	return name
}

// ModifierExplain explains the chosen modifier.
func (a *App) ModifierExplain() string {
	switch a.Modifier {
	case Tilted:
		return "Tilted ERM minimises (1/t)·log mean e^(t·ℓᵢ): t > 0 weighs the worst-fitted rows more (fairness, robustness). Its smoothness grows by t·G². Output perturbation supports it (Lowy and Razaviyayn); the sampling mechanisms need a plain mean."
	case Adversarial:
		return "Adversarial training minimises each row's loss at the worst perturbation of its features within an ℓq ball of radius ρ, in closed form for margin losses (Lowy and Razaviyayn). The loss is no longer smooth."
	}
	return "The mean of the per-row losses."
}

// mechanismDescription describes a mechanism in plain language.
type mechanismDescription struct {
	title, explain, assumptions string
}

// mechanismText describes each mechanism, by name (a list: see lossText).
var mechanismText = [...]struct {
	name string
	mechanismDescription
}{
	{"rem", mechanismDescription{
		"Regularized exponential mechanism (ℓ2)",
		"Draws the model at random, favouring low training loss: its density is proportional to exp(−k·(F(w) + μ‖w‖²/2)). k and μ follow from ε, δ and the declared bounds; the guarantee is Gaussian differential privacy, and a certified sampler's error is counted in δ.",
		"A convex loss, Lipschitz with the declared row bound; δ > 0; the whole space, a box or an ℓ2 ball; no tilt. The certified samplers can be slow (their cost grows like (μ·n)²); the fast samplers (MALA, Langevin) do not certify their mixing, and then no privacy is claimed.",
	}},
	{"rem-lp", mechanismDescription{
		"Regularized exponential mechanism in ℓp norms",
		"The regularized exponential mechanism with a regularizer that is strongly convex in an ℓp norm (Schatten-p for multinomial weights): better than ℓ2 when the rows are bounded in ℓ∞ and the best model is sparse; with rows bounded in ℓ2 (as the demo's) it is no better than ℓ2. Gaussian differential privacy, a certified sampler's error counted in δ.",
		"A convex loss, Lipschitz in the chosen norm; δ > 0; for p < 2 a box domain (p = 1 needs at least 3 parameters); no tilt. The certified samplers can be very slow; the fast ones claim no privacy.",
	}},
	{"outpert", mechanismDescription{
		"Output perturbation (pure ε-DP)",
		"Fits the ridge-regularized model to a certified accuracy, then adds noise scaled to how far one row can move the exact minimizer (2L/(λn), widened by the solver's certificate). Pure ε-differential privacy: no δ.",
		"A convex Lipschitz loss with ridge regularization; supports tilted ERM and adversarial training.",
	}},
	{"outpert-gauss", mechanismDescription{
		"Output perturbation (Gaussian, (ε, δ))",
		"Fits the ridge-regularized model to a certified accuracy, then adds Gaussian noise calibrated exactly on the Gaussian privacy curve to how far one row can move the minimizer.",
		"A convex Lipschitz loss with ridge regularization; δ > 0; supports tilted ERM and adversarial training.",
	}},
	{"langevin", mechanismDescription{
		"Langevin diffusion (noisy gradient descent)",
		"Runs gradient descent with Gaussian noise added at every step. The whole trajectory is Gaussian differentially private (μ = βΔ√(t/2)), so the run can stop at any time without costing privacy.",
		"A convex loss with bounded gradients on a bounded domain; δ > 0.",
	}},
	{"noisy-gd", mechanismDescription{
		"Noisy gradient descent with momentum (recommended)",
		"Runs gradient descent with momentum and Gaussian noise added at every step, and releases the average of the last half of the steps. Each example's gradient is capped at 70 % of the largest the bounds allow (for a regression, at 20 % of the label's bound, far above a fitted model's errors) (the loss is Huberized for badly misfit examples; not for multinomial), which lowers the noise needed. From ρ ≥ 0.01 (about ε ≥ 0.6 at δ = 10⁻⁶) it first spends 5 % of the budget on a noisy release of the features' mean squares and uses them to take longer steps along rarely non-zero features. The weights of categorical columns are shrunk towards each other by a small ridge (larger at smaller budgets), which keeps the noise from piling up on rare categories. The privacy is that of the noisy releases (Gaussian DP, exactly calibrated, with the tiny distance of its discrete noise from rounded Gaussian noise counted in δ), so the run can stop at any time. No accuracy bound is proven, but it is the most accurate mechanism on the adult benchmark.",
		"A smooth loss with bounded gradients (logistic, smooth hinge, Huber, squared on a bounded domain, multinomial); δ > 0.",
	}},
	{"auto", mechanismDescription{
		"Noisy gradient descent, tuned privately",
		"Fits noisy-gd settings a random number of times (about 9 on average) on a tenth of the rows, scores them on part of that tenth, and fits the best-scored settings with the whole budget on the other nine tenths. The guarantee covers the tuning (the tenth and the rest are disjoint, so the whole costs the worse of the two, each within the budget). About as accurate as noisy-gd on the development suite, whose defaults already suit it; it counts the cost of trying settings, which trying them by hand does not.",
		"As noisy-gd; δ > 0; at least 25 rows. It takes about 1.6 noisy-gd fits.",
	}},
	{"rashomon", mechanismDescription{
		"Rashomon-set sampler",
		"Draws a model from the near-optimal models (those whose training loss is within ψ of the best), to show how much equally good models disagree. With δ = 0 it samples exactly (pure ε-DP); with δ > 0 it runs noisy gradient steps (Gaussian DP).",
		"A smooth convex Lipschitz loss; with δ = 0 a bounded domain (box or ball), with δ > 0 any domain. Each model drawn costs privacy: several draws compose.",
	}},
	{"expmech", mechanismDescription{
		"Exponential mechanism (pure ε-DP)",
		"Draws the model with density proportional to exp(−β·F(w)) on a bounded domain, with β = εn/(2R) where R bounds the range of one row's loss over the domain: pure ε-differential privacy, no δ, sampled exactly.",
		"A Lipschitz loss on a bounded domain (convexity for the utility bound). Its cost grows exponentially with the number of parameters: practical in a few dimensions only (the predicted time says so).",
	}},
}

// optionOf describes the setting of the given mechanism (the zero value when the page has no
// description).
func optionOf(mechanism, option string) optionDescription {
	for _, o := range optionText {
		if o.mechanism == mechanism && o.option == option {
			return o.optionDescription
		}
	}
	return optionDescription{}
}

// optionDescription explains a mechanism's setting; choices, when set, are its values.
type optionDescription struct {
	help    string
	choices []OptionChoice
}

// OptionChoice is one value of a mechanism's setting; Uncertified marks a choice whose
// privacy is not certified.
type OptionChoice struct {
	// Value is the setting's text and Label describes it.
	Value, Label string
	Uncertified  bool
}

// samplerChoices are the sampling modes of the REM family.
var samplerChoices = []OptionChoice{
	{"proximal-envelope", "proximal sampler, envelope rejection (certified, floating-point safe)", false},
	{"proximal-stochastic", "proximal sampler, stochastic oracle (certified; float64 only: needs FloatSampler)", false},
	{"proximal-value", "proximal sampler, value rejection (certified; float64 only: needs FloatSampler)", false},
	{"mala", "MALA (fast; mixing not certified: no privacy claimed)", true},
	{"langevin", "projected Langevin (fast; mixing not certified: no privacy claimed)", true},
	{"kinetic-langevin", "kinetic Langevin (fastest; mixing not certified: no privacy claimed)", true},
}

// optionText describes each mechanism's settings (a list: see lossText).
var optionText = [...]struct {
	mechanism, option string
	optionDescription
}{
	{"rem-lp", "Norm", optionDescription{"the exponent p of the norm (1 to ∞; default 1)", nil}},
	{"rem-lp", "Sampler", optionDescription{"how the model is sampled", samplerChoices}},
	{"rem-lp", "SamplerShare", optionDescription{"share of δ given to the certified sampler's error", nil}},
	{"rem-lp", "FastSteps", optionDescription{"steps of a fast sampler", nil}},
	{"rem-lp", "FloatSampler", optionDescription{"run the certified sampler in float64 arithmetic: faster, and it runs what the floating-point-safe sampler refuses (oracles A and B, other robust norms, Schatten-p below 2), with the guarantee proven in exact arithmetic only", nil}},
	{"noisy-gd", "Momentum", optionDescription{"the momentum m in (0, 1) (0: the default, 0.9, and 0.95 when there are many steps to take)", nil}},
	{"noisy-gd", "StepScale", optionDescription{"the scale c of the number of steps (0: the default, 4, and for a regression loss half the label's bound over the rows' bound)", nil}},
	{"noisy-gd", "MaxStepLength", optionDescription{"the longest step, in units of 1/β, below 2(1 + m) (0: the default, 3·(1 + m)/1.9)", nil}},
	{"noisy-gd", "MaxSteps", optionDescription{"the largest number of steps (0: the default, ⌈1000/b_max⌉)", nil}},
	{"noisy-gd", "Clip", optionDescription{"the share of the largest derivative at which each example's derivative is clipped, in (0, 1] (0: the default, 0.7, and for a regression loss 0.2 of the label's bound where that is lower; 1: no clipping)", nil}},
	{"noisy-gd", "NoPrecondition", optionDescription{"never precondition (the plain method at every budget)", nil}},
	{"noisy-gd", "NoBiasShaping", optionDescription{"keep the noise the same on every coordinate when the rows have a bias coordinate", nil}},
	{"noisy-gd", "NoSymmetric", optionDescription{"fit the numeric features as encoded, in [0, c], instead of spread over [−c, c] (the default on the whole space for rows fitted by the norm fit \"scale\" with a bias)", nil}},
	{"noisy-gd", "PreconditionFrom", optionDescription{"the ρ from which the steps are preconditioned (0: the default, 0.01)", nil}},
	{"noisy-gd", "PreconditionShare", optionDescription{"the share of ρ spent on the features' mean squares (0: the default, 0.05)", nil}},
	{"noisy-gd", "PreconditionPower", optionDescription{"the power γ of the preconditioner (0: the default, 0.75)", nil}},
	{"noisy-gd", "PreconditionFloor", optionDescription{"the floor of the mean squares, in units of their noise (0: the default, 10)", nil}},
	{"noisy-gd", "NoCategoricalRidge", optionDescription{"do not shrink the weights of the categorical columns' one-hot features", nil}},
	{"noisy-gd", "RidgeScale", optionDescription{"the scale κ of the ridge λ = κ·G·√d/(D·n·√(2ρ)) on the categorical weights (0: the default, 0.5)", nil}},
	{"auto", "Stopping", optionDescription{"the law of the number of fits", []OptionChoice{
		{"logarithmic", "logarithmic (the default: costs less privacy at the same mean)", false},
		{"geometric", "geometric", false},
	}}},
	{"auto", "Runs", optionDescription{"1/γ of the number of fits' law, a power of two up to 64 (0: 32 for the logarithmic, a mean of 8.9 fits; 8 for the geometric, a mean of 8)", nil}},
	{"auto", "Tuning", optionDescription{"the share of the rows that tune; the selected settings are then fitted on the others with the whole budget (0: 0.1; 1: no final fit, the best tuning fit is released)", nil}},
	{"auto", "Validation", optionDescription{"the share of the tuning rows that score the fits (0: 0.2)", nil}},
	{"rashomon", "Psi", optionDescription{"the threshold ψ of near-optimality (0: the default)", nil}},
	{"rashomon", "ThresholdShare", optionDescription{"with δ = 0, the share of the sensitivity spent on the threshold's solver", nil}},
	{"rashomon", "Ridge", optionDescription{"with δ > 0, the ridge λ (0: the default)", nil}},
	{"rashomon", "Steps", optionDescription{"with δ > 0, the number of noisy gradient steps (0: the default)", nil}},
	{"rem", "Sampler", optionDescription{"how the model is sampled", samplerChoices}},
	{"rem", "Objective", optionDescription{"which risk the parameters minimise", []OptionChoice{
		{"erm", "the training loss (ERM)", false},
		{"sco", "the population loss (SCO)", false},
	}}},
	{"rem", "SamplerShare", optionDescription{"share of δ given to the certified sampler's error", nil}},
	{"rem", "FastSteps", optionDescription{"steps of a fast sampler", nil}},
	{"rem", "FloatSampler", optionDescription{"run the certified sampler in float64 arithmetic: faster, and it runs what the floating-point-safe sampler refuses (oracles A and B, other robust norms, Schatten-p below 2), with the guarantee proven in exact arithmetic only", nil}},
}

// mechanismOf describes the mechanism of the given name (ok false when the page has no
// description).
func mechanismOf(name string) (d mechanismDescription, ok bool) {
	for _, m := range mechanismText {
		if m.name == name {
			return m.mechanismDescription, true
		}
	}
	return d, false
}

// MechanismTitle is a mechanism's name as the page shows it.
func (a *App) MechanismTitle(name string) string {
	if d, ok := mechanismOf(name); ok {
		return d.title
	}
	return name
}

// MechanismExplain explains a mechanism ("" when the page has no description).
func (a *App) MechanismExplain(name string) string {
	d, _ := mechanismOf(name)
	return d.explain
}

// MechanismAssumptions states a mechanism's assumptions ("" when the page has no description).
func (a *App) MechanismAssumptions(name string) string {
	d, _ := mechanismOf(name)
	return d.assumptions
}
