package ui

import (
	"github.com/privopt/privopt/pkg/core/mech"
	"math"
	"slices"

	"github.com/privopt/privopt/internal/fit"
	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/wasm/engine"
)

// modelState is the app's model step: the loss, its modifier and the parameter domain.
type modelState struct {
	// Loss names the loss (fit.Losses); LossParam is its parameter (smooth-hinge, huber).
	Loss      string
	LossParam Field
	// Modifier is "none", "tilted" (Tilt) or "adversarial" (Robust in the RobustNorm norm).
	Modifier   string
	Tilt       Field
	Robust     Field
	RobustNorm string
	// Domain is fit.Whole, fit.Ball or fit.Box, and Radius its radius. The domain follows the
	// loss's default (fit.DefaultDomain) until the person, or a link, chooses one
	// (domainChosen).
	Domain       string
	Radius       Field
	domainChosen bool
}

// Modifiers of a loss.
const (
	NoModifier  = "none"
	Tilted      = "tilted"
	Adversarial = "adversarial"
)

func (a *App) initModel() {
	a.Loss, a.Modifier, a.RobustNorm = mech.LossLogistic, NoModifier, "inf"
	a.Domain = fit.DefaultDomain(a.Loss)
	a.LossParam.Set("1", positive)
	a.Tilt.Set("1", positive)
	a.Robust.Set("0.05", positive)
	a.Radius.Set("10", positive)
}

// LabelKind is the label kind of the checked data, or of the schema's label column while
// the data is unchecked (data.LabelBinary when there is neither).
func (a *App) LabelKind() data.LabelKind {
	if a.Dataset != nil {
		return a.Dataset.Facts.Label
	}
	if a.Schema != nil {
		for _, c := range a.Schema.Columns {
			if k := c.Kind.LabelKind(); k != data.LabelUnspecified {
				return k
			}
		}
	}
	return data.LabelBinary
}

// BinaryLabel reports whether LabelKind is binary.
func (a *App) BinaryLabel() bool { return a.LabelKind() == data.LabelBinary }

// LossChoices lists the losses that fit the data's label.
func (a *App) LossChoices() []string { return fit.Losses(a.LabelKind()) }

// SetLoss chooses the loss, and its default domain unless a domain was chosen.
func (a *App) SetLoss(name string) {
	a.Loss = name
	a.defaultDomain()
	a.specChanged()
}

// defaultDomain sets the loss's default domain (fit.DefaultDomain) unless a domain was chosen.
func (a *App) defaultDomain() {
	if !a.domainChosen {
		a.Domain = fit.DefaultDomain(a.Loss)
	}
}

// HasLossParam reports whether the loss takes a parameter.
func (a *App) HasLossParam() bool { return a.Loss == mech.LossSmoothHinge || a.Loss == mech.LossHuber }

// LossParamLabel names the loss's parameter.
func (a *App) LossParamLabel() string {
	if a.Loss == mech.LossHuber {
		return "Huber threshold δ (residuals beyond it count linearly)"
	}
	return "smoothing width H"
}

// SetLossParam sets the loss's parameter.
func (a *App) SetLossParam(text string) { a.LossParam.Set(text, positive); a.specChanged() }

// SetModifier sets the loss's modifier: none, tilted or adversarial.
func (a *App) SetModifier(m string) { a.Modifier = m; a.specChanged() }

// SetTilt sets the tilt t of tilted ERM.
func (a *App) SetTilt(text string) { a.Tilt.Set(text, positive); a.specChanged() }

// SetRobust sets the radius ρ of adversarial training.
func (a *App) SetRobust(text string) { a.Robust.Set(text, positive); a.specChanged() }

// SetRobustNorm sets the norm of adversarial perturbations: "1", "2" or "inf".
func (a *App) SetRobustNorm(q string) { a.RobustNorm = q; a.specChanged() }

// SetDomain chooses the parameter domain: whole, ball or box.
func (a *App) SetDomain(d string) { a.Domain, a.domainChosen = d, true; a.specChanged() }

// SetRadius sets the domain's radius.
func (a *App) SetRadius(text string) { a.Radius.Set(text, positive); a.specChanged() }

// RadiusLabel describes the radius for the chosen domain.
func (a *App) RadiusLabel() string {
	switch a.Domain {
	case fit.Ball:
		return "radius R of the ball ‖w‖₂ ≤ R"
	case fit.Box:
		return "half-width R of the box |wᵢ| ≤ R"
	}
	return "comparison radius D (the utility bound compares with the best model of ‖w‖₂ ≤ D)"
}

// dataReady follows a successful check of the data: a loss that does not fit the label is
// replaced by the label's first loss (with its default domain, unless a domain was chosen),
// and the mechanisms are planned. The first time, the
// engine also measures this machine's query rate for the predicted times (after the page
// has loaded and the data is read, so that nothing else slows the measurement); then worker 1
// reads the data for the first run (prefetch).
func (a *App) dataReady() {
	if a.Rate == nil && !a.calibrating {
		a.calibrating = true
		a.send(0, engine.Request{Kind: "calibrate"})
	} else if !a.calibrating {
		a.prefetch()
	}
	if choices := a.LossChoices(); !slices.Contains(choices, a.Loss) {
		a.Loss = choices[0]
		a.defaultDomain()
	}
	if a.Loss == mech.LossMultinomial && a.Modifier == Adversarial {
		a.Modifier = NoModifier
	}
	a.specChanged()
}

// modelSpec fills the loss and domain of a spec from the last valid values.
func (a *App) modelSpec(s *fit.Spec) {
	s.Loss, s.Domain, s.Radius = a.Loss, a.Domain, a.Radius.Value
	if a.HasLossParam() {
		s.LossParam = a.LossParam.Value
	}
	switch a.Modifier {
	case Tilted:
		s.Tilt = a.Tilt.Value
	case Adversarial:
		s.Robust = a.Robust.Value
		q, err := fit.ParseExponent(a.RobustNorm)
		if err != nil {
			q = fit.Exponent(math.Inf(1))
		}
		s.RobustNorm = q
	}
}

// modelErrors lists the model step's invalid fields.
func (a *App) modelErrors() []string {
	var out []string
	for _, f := range []struct {
		used  bool
		field *Field
		name  string
	}{
		{a.HasLossParam(), &a.LossParam, "the loss parameter"},
		{a.Modifier == Tilted, &a.Tilt, "the tilt"},
		{a.Modifier == Adversarial, &a.Robust, "the adversarial radius"},
		{true, &a.Radius, "the radius"},
	} {
		if f.used && f.field.Err != "" {
			out = append(out, f.name)
		}
	}
	return out
}
