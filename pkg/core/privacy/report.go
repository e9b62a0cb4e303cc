package privacy

import (
	"errors"
	"strconv"
)

// ReportVersion identifies the JSON form of Report; it changes only when a field's meaning does.
const ReportVersion = "privopt-report/1"

// Neighbouring names the relation between datasets that the guarantee protects.
type Neighbouring string

const (
	// ReplaceOne: the datasets have the same size and differ in one record (the default).
	ReplaceOne Neighbouring = "replace-one"
	// AddRemove: one dataset is the other with one record added.
	AddRemove Neighbouring = "add-remove"
)

// Validate checks that the relation is one privopt knows.
func (n Neighbouring) Validate() error {
	if n != ReplaceOne && n != AddRemove {
		return errors.New("privacy: unknown neighbouring relation " + strconv.Quote(string(n)) + " (want " + strconv.Quote(string(ReplaceOne)) + " or " + strconv.Quote(string(AddRemove)) + ")")
	}
	return nil
}

// Randomness says where a release's random numbers came from.
type Randomness string

const (
	// OSSeeded: a generator seeded from the operating system's (or browser's) CSPRNG.
	OSSeeded Randomness = "os-seeded"
	// SeededNotPrivate: a generator seeded by the user, reproducible by anyone with the seed:
	// the release is not private.
	SeededNotPrivate Randomness = "seeded: not private"
)

// Sensitivity is the sensitivity a mechanism was calibrated to.
type Sensitivity struct {
	// Value is the sensitivity, for example 2G/n.
	Value float64 `json:"value"`
	// Of names what it bounds, for example "the L2 distance between the minimizers".
	Of string `json:"of"`
	// Derivation says how Value follows from public constants, for example "2·G/n with G = 1, n = 32561".
	Derivation string `json:"derivation"`
}

// SamplerStatus is what is certified about a sampler's error.
type SamplerStatus struct {
	// Exact is true when the mechanism samples exactly (or uses no sampler).
	Exact bool `json:"exact"`
	// Certified is true when TV bounds the total-variation error for every dataset.
	Certified bool `json:"certified"`
	// TV is the certified total-variation error (0 when Exact).
	TV float64 `json:"tv"`
	// Statement explains the status in words, naming the theorem behind a certificate.
	Statement string `json:"statement"`
}

// Guarantee is the privacy parameter of the mechanism in its natural form.
type Guarantee struct {
	// Kind is "gaussian-dp", "pure-dp", "approximate-dp", "renyi-dp", "parallel" (the worst of
	// guarantees on disjoint parts of the rows) or "composition".
	Kind string `json:"kind"`
	// Mu is μ for Gaussian DP.
	Mu float64 `json:"mu,omitempty"`
	// Epsilon and Delta are the parameters of pure and approximate DP.
	Epsilon float64 `json:"epsilon,omitempty"`
	Delta   float64 `json:"delta,omitempty"`
	// Description restates the guarantee in words.
	Description string `json:"description"`
}

// ReportSpec is what a mechanism knows about its own release; NewReport adds what follows
// from the curve.
type ReportSpec struct {
	Mechanism    string
	Paper        string
	Target       Budget
	Neighbouring Neighbouring
	Sensitivity  Sensitivity
	Sampler      SamplerStatus
	Randomness   Randomness
}

// Report states exactly what a release certifies. Its JSON form is stable (see ReportVersion).
type Report struct {
	Version   string `json:"version"`
	Mechanism string `json:"mechanism"`
	Paper     string `json:"paper"`
	// Guarantee is the mechanism's privacy in its natural parameter (before sampler error).
	Guarantee Guarantee `json:"guarantee"`
	// Target is the budget asked for; Achieved is (target ε, δ(target ε)) of the certified
	// curve, sampler error included, which is at most the target δ.
	Target   Budget `json:"target"`
	Achieved Budget `json:"achieved"`
	// Neighbouring is the relation the guarantee protects; Sensitivity the calibration's.
	Neighbouring Neighbouring  `json:"neighbouring"`
	Sensitivity  Sensitivity   `json:"sensitivity"`
	Sampler      SamplerStatus `json:"sampler"`
	Randomness   Randomness    `json:"randomness"`
	// Private is false when the randomness was seeded, or when the sampler's error is not
	// certified: then no privacy is claimed for this release.
	Private bool `json:"private"`
	// Statement says in one paragraph what is certified.
	Statement string `json:"statement"`
	// Curve samples the certified δ(ε) at ReportEpsilons (plus the target ε).
	Curve []CurvePoint `json:"curve"`
}

// ReportEpsilons are the ε values at which every report samples its curve.
var ReportEpsilons = []float64{0, 0.05, 0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20}

// GuaranteeOf describes a curve's natural parameter.
func GuaranteeOf(c Curve) Guarantee {
	g := Guarantee{Description: c.String()}
	switch v := c.(type) {
	case GDP:
		g.Kind, g.Mu = "gaussian-dp", v.Mu
	case PureDP:
		g.Kind, g.Epsilon = "pure-dp", v.Eps
	case ApproxDP:
		g.Kind, g.Epsilon, g.Delta = "approximate-dp", v.Eps, v.Del
	case RDP:
		g.Kind = "renyi-dp"
	case Parallel:
		g.Kind = "parallel"
	default:
		g.Kind = "composition"
	}
	return g
}

// NewReport builds the report of a release made by a mechanism with guarantee base and the
// sampler status in spec (whose TV is folded into the curve). It fails when the folded curve
// does not meet the target budget, so a report never claims a budget the release exceeds.
func NewReport(base Curve, spec ReportSpec) (Report, error) {
	if err := spec.Target.Validate(); err != nil {
		return Report{}, err
	}
	if err := spec.Neighbouring.Validate(); err != nil {
		return Report{}, err
	}
	if spec.Randomness != OSSeeded && spec.Randomness != SeededNotPrivate {
		return Report{}, errors.New("privacy: unknown randomness " + strconv.Quote(string(spec.Randomness)))
	}
	if spec.Sampler.Exact && spec.Sampler.TV != 0 {
		return Report{}, errors.New("privacy: an exact sampler has no total-variation error, got " + num(spec.Sampler.TV))
	}
	certified := base
	if spec.Sampler.Certified && spec.Sampler.TV > 0 {
		folded, err := FoldSamplerError(base, spec.Sampler.TV)
		if err != nil {
			return Report{}, err
		}
		certified = folded
	}
	achieved := certified.Delta(spec.Target.Epsilon)
	if achieved > spec.Target.Delta {
		return Report{}, errors.New("privacy: " + describe(certified) + " gives δ = " + FormatUp(achieved, 3) + " at ε = " + num(spec.Target.Epsilon) + ", above the target δ = " + sig(spec.Target.Delta, 3))
	}
	mixingOK := spec.Sampler.Exact || spec.Sampler.Certified
	r := Report{
		Version:      ReportVersion,
		Mechanism:    spec.Mechanism,
		Paper:        spec.Paper,
		Guarantee:    GuaranteeOf(base),
		Target:       spec.Target,
		Achieved:     Budget{Epsilon: spec.Target.Epsilon, Delta: achieved},
		Neighbouring: spec.Neighbouring,
		Sensitivity:  spec.Sensitivity,
		Sampler:      spec.Sampler,
		Randomness:   spec.Randomness,
		Private:      spec.Randomness == OSSeeded && mixingOK,
		Curve:        Sample(certified, reportEpsilons(spec.Target.Epsilon)),
	}
	r.Statement = statement(r, certified)
	return r, nil
}

// reportEpsilons returns ReportEpsilons with the target ε inserted in order.
func reportEpsilons(target float64) []float64 {
	out := make([]float64, 0, len(ReportEpsilons)+1)
	inserted := false
	for _, e := range ReportEpsilons {
		if !inserted && target <= e {
			if target < e {
				out = append(out, target)
			}
			inserted = true
		}
		out = append(out, e)
	}
	if !inserted {
		out = append(out, target)
	}
	return out
}

// statement is the report's statement in words. A release that is not private (seeded, or drawn
// by a sampler whose mixing is not certified) says so first, and then what the mechanism would
// guarantee with private randomness and an exact sampler.
func statement(r Report, certified Curve) string {
	claim := "(ε = " + num(r.Achieved.Epsilon) + ", δ = " + FormatUp(r.Achieved.Delta, 3) +
		")-differentially private under the " + string(r.Neighbouring) + " relation: " + describe(certified) + "."
	uncertified := !r.Sampler.Exact && !r.Sampler.Certified
	var s string
	switch {
	case r.Randomness == SeededNotPrivate:
		s = "This release is NOT private: its random numbers came from a user-chosen seed, and anyone with the seed can reproduce the noise. With private randomness the mechanism would be " + claim
	case uncertified:
		s = "This release is NOT private: its sampler's mixing is not certified. With an exact sampler the mechanism would be " + claim
	default:
		s = "The release is " + claim
	}
	switch {
	case r.Sampler.Exact:
	case r.Sampler.Certified:
		s += " The sampler's total-variation error, at most " + FormatUp(r.Sampler.TV, 3) + " for every dataset, is included."
	default:
		s += " Mixing is not certified: the guarantee holds for the exact distribution only, and no privacy is claimed for this release."
	}
	return s
}
