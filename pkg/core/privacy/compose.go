package privacy

import (
	"errors"
	"github.com/privopt/privopt/pkg/detmath"
	"math"
	"slices"
	"strconv"
	"strings"
)

// ComposeGDP returns the guarantee of running μᵢ-GDP mechanisms on the same data (adaptively
// or not): exactly μ-GDP with μ = √Σμᵢ² (Dong, Roth and Su 2019, Corollary 3.3). The sum is
// formed on the ratios μᵢ/max μ (so nothing underflows or overflows), with exact squares and
// compensated summation, and the result is rounded up by three ulps, which exceeds its
// rounding error: μ is never below the exact value.
func ComposeGDP(mus ...float64) (GDP, error) {
	if len(mus) == 0 {
		return GDP{}, errors.New("privacy: nothing to compose")
	}
	top := 0.0
	for _, m := range mus {
		if !(m > 0) || math.IsInf(m, 1) {
			return GDP{}, errors.New("privacy: μ must be finite and positive, got " + num(m))
		}
		top = math.Max(top, m)
	}
	var sum, comp float64
	for _, m := range mus {
		r := m / top
		sq := r * r
		sqErr := math.FMA(r, r, -sq) // r² = sq + sqErr exactly
		t := sum + sq
		if math.Abs(sum) >= sq {
			comp += (sum - t) + sq
		} else {
			comp += (sq - t) + sum
		}
		comp += sqErr
		sum = t
	}
	mu := top * math.Sqrt(sum+comp)
	for range 3 {
		mu = math.Nextafter(mu, math.Inf(1))
	}
	if math.IsInf(mu, 1) {
		return GDP{}, errors.New("privacy: the composed μ overflows")
	}
	return GDP{Mu: mu}, nil
}

// ComposePure returns Σεᵢ: k mechanisms with pure εᵢ-DP compose to pure (Σεᵢ)-DP, which is
// tight at δ = 0 (basic composition).
func ComposePure(epss ...float64) (PureDP, error) {
	if len(epss) == 0 {
		return PureDP{}, errors.New("privacy: nothing to compose")
	}
	sum := 0.0
	for _, e := range epss {
		if !(e > 0) || math.IsInf(e, 1) {
			return PureDP{}, errors.New("privacy: ε must be finite and positive, got " + num(e))
		}
		sum += e
	}
	return PureDP{Eps: sum * (1 + 4e-16*float64(len(epss)))}, nil // rounded up past the summation error
}

// PureComposition is the exact guarantee of k mechanisms that are each ε-DP (Kairouz, Oh and
// Viswanath 2015, Theorem 3.3, with δ = 0): the k-fold composition of randomized response. Its
// profile is δ(ε′) = (1 + e^ε)^(−k)·Σ_{i=0}^{k} C(k, i)·max(0, e^{ε(k−i)} − e^{ε′}e^{εi}), below
// the pure bound (kε, 0) for every ε′ < kε and tight: no better statement holds for every set
// of k ε-DP mechanisms.
type PureComposition struct {
	Eps float64
	K   int
}

// NewPureComposition returns the k-fold composition of ε-DP.
func NewPureComposition(eps float64, k int) (PureComposition, error) {
	if _, err := NewPureDP(eps); err != nil {
		return PureComposition{}, err
	}
	if k < 1 {
		return PureComposition{}, errors.New("privacy: the number of mechanisms must be at least 1, got " + strconv.Itoa(k))
	}
	return PureComposition{Eps: eps, K: k}, nil
}

// Delta evaluates the profile term by term in log space; every term is non-negative, so the
// sum has full relative accuracy. It rounds toward privacy: an outcome's loss ε(k − 2i) is
// rounded up before it is compared with eps (a term is dropped only when it is 0 in exact
// arithmetic), each term's log is raised by a bound on its rounding (log C(k, i) is a sum of
// 2i logarithms: about 1e-11 relative at k = 500), and the sum by deltaUp; beyond the largest
// loss, δ is exactly 0.
func (p PureComposition) Delta(eps float64) float64 {
	k := float64(p.K)
	logNorm := k * math.Log1p(detmath.Exp(p.Eps)) // log (1 + e^ε)^k
	if p.Eps > 30 {
		logNorm = k * (p.Eps + math.Log1p(detmath.Exp(-p.Eps)))
	}
	maxLog := math.Inf(-1)
	terms := make([]float64, 0, p.K+1)
	logBinom, binomErr := 0.0, 0.0 // log C(k, i), updated as i grows, and a bound on its rounding
	for i := 0; i <= p.K; i++ {
		if i > 0 {
			a, b := detmath.Log(k-float64(i-1)), detmath.Log(float64(i))
			logBinom += a - b
			binomErr += 0x1p-52*math.Abs(logBinom) + 0x1p-51*(a+b) // twice the rounding of two logarithms and two sums
		}
		m := k - 2*float64(i)
		margin := p.Eps * m // the loss value of outcome i, rounded up (FMA gives the product's rounding exactly)
		if math.FMA(p.Eps, m, -margin) > 0 {
			margin = math.Nextafter(margin, math.Inf(1))
		}
		if margin <= eps {
			break // margins decrease with i
		}
		gap, own := -math.Expm1(eps-margin), p.Eps*(k-float64(i))
		t := logBinom + own + detmath.Log(gap) - logNorm
		t += binomErr + 0x1p-50*(math.Abs(t)+own+logNorm)
		terms = append(terms, t)
		maxLog = math.Max(maxLog, t)
	}
	if len(terms) == 0 {
		return 0
	}
	s := 0.0
	for _, t := range terms {
		s += detmath.Exp(t - maxLog)
	}
	return deltaUp(detmath.Exp(maxLog) * s * (1 + 0x1p-50*float64(len(terms))))
}

// Total returns kε, the pure ε of the composition (its δ is 0 from there on), rounded up.
func (p PureComposition) Total() float64 {
	k := float64(p.K)
	t := p.Eps * k
	if math.FMA(p.Eps, k, -t) > 0 {
		t = math.Nextafter(t, math.Inf(1))
	}
	return t
}

// Epsilon returns the smallest ε′ ≥ 0 with δ(ε′) ≤ delta.
func (p PureComposition) Epsilon(delta float64) (float64, error) { return epsilonByBisection(p, delta) }

// Tradeoff returns a lower bound on the tradeoff function from the profile.
func (p PureComposition) Tradeoff(alpha float64) float64 { return tradeoffFromProfile(p, alpha) }

// String describes the guarantee.
func (p PureComposition) String() string {
	return strconv.Itoa(p.K) + "-fold composition of " + FormatUp(p.Eps, 6) + "-DP (optimal composition)"
}

// WithSamplerError is a guarantee whose mechanism is run with an approximate sampler whose
// output is within total-variation distance TV of the exact mechanism's, for every dataset.
// Then it is (ε, δ(ε) + (1 + e^ε)·TV)-DP for every ε, and, since (ε, δ)-DP implies (ε′, δ)-DP
// for every ε′ > ε, the profile is the running minimum of that expression.
type WithSamplerError struct {
	Base Curve
	TV   float64
}

// FoldSamplerError returns the guarantee of base run with a sampler of certified
// total-variation error tv ≥ 0.
func FoldSamplerError(base Curve, tv float64) (WithSamplerError, error) {
	if !(tv >= 0 && tv < 1) {
		return WithSamplerError{}, errors.New("privacy: a total-variation error must be in [0, 1), got " + num(tv))
	}
	return WithSamplerError{Base: base, TV: tv}, nil
}

// raw is δ(ε) + (1 + e^ε)·TV, capped at 1.
func (w WithSamplerError) raw(eps float64) float64 {
	return deltaUp(w.Base.Delta(eps) + (1+detmath.Exp(eps))*w.TV)
}

// Delta returns min over ε′ ≤ ε of δ(ε′) + (1 + e^{ε′})·TV. The expression first decreases and
// then increases in ε′; the minimum on [0, ε] is found by golden-section search where it turns.
func (w WithSamplerError) Delta(eps float64) float64 {
	if w.TV == 0 {
		return w.Base.Delta(eps)
	}
	if eps <= 0 {
		return w.raw(eps)
	}
	// The raw profile increases wherever e^ε·TV dominates; find the turning point in [0, eps].
	// It is below log(1/TV), where the raw profile reaches 1: search there for ε = +∞.
	lo, hi := 0.0, eps
	if math.IsInf(eps, 1) {
		hi = -math.Log(w.TV)
	}
	const phi = 0.6180339887498949
	for range 100 {
		a, b := hi-phi*(hi-lo), lo+phi*(hi-lo)
		if w.raw(a) < w.raw(b) {
			hi = b
		} else {
			lo = a
		}
	}
	return math.Min(w.raw(eps), math.Min(w.raw(lo), w.raw(hi)))
}

// Epsilon returns the smallest ε ≥ 0 with δ(ε) ≤ delta.
func (w WithSamplerError) Epsilon(delta float64) (float64, error) {
	return epsilonByBisection(w, delta)
}

// Tradeoff returns a lower bound on the tradeoff function: by the same coupling, the base
// tradeoff shifted by the total-variation error, T(α) ≥ T_base(α + TV) − TV.
func (w WithSamplerError) Tradeoff(alpha float64) float64 {
	if alpha >= 1 {
		return 0
	}
	return math.Max(0, w.Base.Tradeoff(math.Min(1, math.Max(alpha, 0)+w.TV))-w.TV)
}

// String describes the guarantee.
func (w WithSamplerError) String() string {
	return describe(w.Base) + ", with a sampler within total variation " + FormatUp(w.TV, 3)
}

// SplitDelta divides a δ budget at ε between the mechanism and its sampler: the sampler gets
// share of it, so its total-variation error may be tv = share·δ/(1 + e^ε), and the mechanism
// must meet deltaMech = δ − (1 + e^ε)·tv. Then δ_mech(ε) ≤ deltaMech implies the folded
// guarantee meets (ε, δ).
func SplitDelta(eps, delta, share float64) (deltaMech, tv float64, err error) {
	if err := (Budget{Epsilon: eps, Delta: delta}).Validate(); err != nil {
		return 0, 0, err
	}
	if !(share > 0 && share < 1) {
		return 0, 0, errors.New("privacy: the sampler's share of δ must be in (0, 1), got " + num(share))
	}
	if math.IsInf(detmath.Exp(eps), 1) { // ε above about 709: the share would be δ/∞ = 0
		return 0, 0, errors.New("privacy: at ε = " + num(eps) + " a sampler's total-variation error τ counts (1 + e^ε)·τ in δ, and e^ε overflows: no sampler's error fits; use a smaller ε")
	}
	tv = share * delta / (1 + detmath.Exp(eps))
	// WithSamplerError's δ at ε, deltaUp(δ_mech + (1 + e^ε)·τ), must be at most delta.
	fits := func(dm float64) bool { return deltaUp(dm+(1+detmath.Exp(eps))*tv) <= delta }
	deltaMech = nudge(delta*(1-2*relSlack)-(1+detmath.Exp(eps))*tv, 0, fits)
	if !(deltaMech > 0) {
		return 0, 0, errors.New("privacy: δ = " + num(delta) + " is too small to share with a sampler's error")
	}
	return deltaMech, tv, nil
}

// Compose returns the guarantee of running all the given mechanisms on the same data. The
// rule depends on what is composed, and every rule is an upper bound on δ(ε):
//   - only μ-GDP guarantees: exactly μ-GDP with μ = √Σμᵢ² (ComposeGDP);
//   - only pure ε-DP guarantees with the same ε: the optimal composition (PureComposition);
//   - anything else (Gaussian, pure and Rényi-DP parts mixed, and (ε, δ) points): the Rényi-DP
//     curves of the Gaussian, pure and Rényi parts are added and converted with the CKS
//     conversion; the (εᵢ, δᵢ) points are added by basic composition, δ(ε) = Σδᵢ +
//     δ_RDP(ε − Σεᵢ); when the Rényi part holds only pure parts, δ_RDP is also at most the
//     profile of pure (Σεᵢ)-DP (basic composition), whichever is smaller.
//
// Sampler errors compose by adding: with WithSamplerError parts, the bases are composed as
// above and the total-variation errors summed (a coupling of the joint outputs).
func Compose(parts ...Curve) (Curve, error) {
	if len(parts) == 0 {
		return nil, errors.New("privacy: nothing to compose")
	}
	for _, p := range parts {
		if par, ok := p.(Parallel); ok {
			return composeParallel(par, parts)
		}
	}
	bases := make([]Curve, len(parts))
	tv := 0.0
	for i, p := range parts {
		if w, ok := p.(WithSamplerError); ok {
			bases[i], tv = w.Base, tv+w.TV
		} else {
			bases[i] = p
		}
	}
	c, err := composeBases(bases)
	if err != nil || tv == 0 {
		return c, err
	}
	return FoldSamplerError(c, math.Min(tv, math.Nextafter(1, 0)))
}

func composeBases(parts []Curve) (Curve, error) {
	var mus []float64
	var pures []PureComposition
	var rdps []RDP
	var points []ApproxDP
	for _, p := range parts {
		switch c := p.(type) {
		case GDP:
			mus = append(mus, c.Mu)
		case PureDP:
			pures = append(pures, PureComposition{Eps: c.Eps, K: 1})
		case PureComposition:
			pures = append(pures, c)
		case RDP:
			rdps = append(rdps, c)
		case ApproxDP:
			points = append(points, c)
		case Mixed:
			mus, pures = append(mus, c.Mus...), append(pures, c.Pures...)
			rdps, points = append(rdps, c.RDPs...), append(points, c.Points...)
		default:
			return nil, errors.New("privacy: cannot compose " + describe(p))
		}
	}
	switch {
	case len(mus) > 0 && len(pures) == 0 && len(rdps) == 0 && len(points) == 0:
		return ComposeGDP(mus...)
	case len(pures) > 0 && len(mus) == 0 && len(rdps) == 0 && len(points) == 0 && sameEps(pures):
		k := 0
		for _, p := range pures {
			k += p.K
		}
		return NewPureComposition(pures[0].Eps, k)
	}
	return Mixed{Mus: mus, Pures: pures, RDPs: rdps, Points: points}, nil
}

func sameEps(ps []PureComposition) bool {
	for _, p := range ps {
		if p.Eps != ps[0].Eps {
			return false
		}
	}
	return true
}

// Mixed is a composition of guarantees of different kinds; see Compose for the rule.
type Mixed struct {
	Mus    []float64         // μ-GDP parts
	Pures  []PureComposition // pure ε-DP parts, each k times
	RDPs   []RDP             // Rényi-DP parts
	Points []ApproxDP        // (ε, δ) parts
}

// rdp returns the sum of the Rényi-DP curves of the Gaussian, pure and Rényi parts, and
// whether there is any.
func (m Mixed) rdp() (RDP, bool) {
	var curves []RDP
	for _, mu := range m.Mus {
		curves = append(curves, GaussianRDP(mu))
	}
	for _, p := range m.Pures {
		one := PureRDP(p.Eps)
		k := float64(p.K)
		curves = append(curves, RDP{Eps: func(a float64) float64 { return k * one.Eps(a) }, Name: p.String()})
	}
	curves = append(curves, m.RDPs...)
	if len(curves) == 0 {
		return RDP{}, false
	}
	sum := curves[0].Sum(curves[1:]...)
	sum.Conversion = CKS
	return sum, true
}

// Delta returns the composed δ(ε) by the rule of Compose.
func (m Mixed) Delta(eps float64) float64 {
	pointsEps, pointsDelta := 0.0, 0.0
	for _, p := range m.Points {
		pointsEps += p.Eps
		pointsDelta += p.Del
	}
	rest := eps - pointsEps
	d := 1.0
	if r, ok := m.rdp(); ok {
		d = r.Delta(rest)
		if len(m.Mus) == 0 && len(m.RDPs) == 0 {
			var epss []float64
			for _, p := range m.Pures {
				epss = append(epss, p.Total())
			}
			basic, _ := ComposePure(epss...) // the parts were validated when they were made
			d = math.Min(d, basic.Delta(rest))
		}
	} else if rest >= 0 {
		d = 0
	}
	if pointsDelta+d == 0 {
		return 0 // exactly: pure parts, at or beyond their ε
	}
	return deltaUp(pointsDelta + d)
}

// Epsilon returns the smallest ε ≥ 0 with δ(ε) ≤ delta.
func (m Mixed) Epsilon(delta float64) (float64, error) { return epsilonByBisection(m, delta) }

// Tradeoff returns a lower bound on the tradeoff function from the profile.
func (m Mixed) Tradeoff(alpha float64) float64 { return tradeoffFromProfile(m, alpha) }

// String describes the composition.
func (m Mixed) String() string {
	var kinds []string
	if len(m.Mus) > 0 {
		kinds = append(kinds, strconv.Itoa(len(m.Mus))+" Gaussian")
	}
	if len(m.Pures) > 0 {
		kinds = append(kinds, strconv.Itoa(len(m.Pures))+" pure")
	}
	if len(m.RDPs) > 0 {
		kinds = append(kinds, strconv.Itoa(len(m.RDPs))+" Rényi")
	}
	if len(m.Points) > 0 {
		kinds = append(kinds, strconv.Itoa(len(m.Points))+" (ε, δ)")
	}
	return "composition of " + strings.Join(kinds, ", ") + " mechanisms (Rényi DP with the CKS conversion, basic composition for (ε, δ) parts)"
}

// Tightest is a mechanism's guarantee when several valid guarantees of it are known: at every
// point the best of them (the smallest δ(ε) and ε(δ), the largest T(α)), which is valid since
// each is. It cannot be composed further (Compose refuses it): compose the parts, then take
// the tightest.
type Tightest []Curve

// Delta returns the smallest δ(ε) of the guarantees.
func (t Tightest) Delta(eps float64) float64 {
	d := 1.0
	for _, c := range t {
		d = math.Min(d, c.Delta(eps))
	}
	return d
}

// Epsilon returns the smallest ε(δ) of the guarantees that have one.
func (t Tightest) Epsilon(delta float64) (float64, error) {
	best, err := math.Inf(1), error(nil)
	for _, c := range t {
		e, cerr := c.Epsilon(delta)
		if cerr != nil {
			err = cerr
			continue
		}
		best = math.Min(best, e)
	}
	if math.IsInf(best, 1) {
		if err == nil {
			err = errors.New("privacy: no guarantee to take the tightest of")
		}
		return 0, err
	}
	return best, nil
}

// Tradeoff returns the largest T(α) of the guarantees.
func (t Tightest) Tradeoff(alpha float64) float64 {
	v := 0.0
	for _, c := range t {
		v = math.Max(v, c.Tradeoff(alpha))
	}
	return v
}

// String describes the guarantees.
func (t Tightest) String() string {
	parts := make([]string, len(t))
	for i, c := range t {
		parts[i] = c.String()
	}
	return "the tighter at each point of: " + strings.Join(parts, "; and ")
}

// Parallel is the guarantee of mechanisms run on disjoint parts of the rows, each possibly
// reading the earlier ones' outputs, when the split into parts does not depend on the data (a
// uniform random split of public sizes under replace-one; a split by each row's content alone,
// with a random key, under add/remove): at every point the worst of the parts' guarantees, the
// largest δ(ε) and ε(δ). Composition distributes over it: Compose(Parallel{A, B}, C) is
// Parallel{Compose(A, C), Compose(B, C)}.
//
// Proof: fix the split's coins. Neighbouring datasets then differ in one part only; the parts
// before it see the same rows, the part itself is within its curve given their outputs, and
// the parts after it are the same kernel applied to the outputs, so the joint outputs are
// within that part's curve (post-processing and adaptive composition with identical parts).
// The hockey-stick divergence is jointly convex, so the mixture over the coins is within the
// worst curve: δ(ε) ≤ maxᵢ δᵢ(ε) for every ε. Composed with other mechanisms C on the same
// rows, before or after it, for fixed coins the pair differs in C's rows and in one part only,
// so it is within Compose(that part, C); the mixture is within the worst of those.
type Parallel []Curve

// renyi returns a Rényi-DP bound of k copies of p composed, with a sampler's error, when every
// part has one (Rényi, μ-GDP, either with a sampler's error): ε(λ) = k·maxᵢ εᵢ(λ), since the
// Rényi divergence is jointly quasi-convex (van Erven and Harremoës 2014, Theorem 13), so a
// mixture over the coins is within the worst part, and Rényi DP composes by adding; and k times
// the largest TV, by coupling each part's sampler with an exact one. It is looser than the
// composition of p's profiles, and as cheap to evaluate for every k.
func (p Parallel) renyi(k int) (WithSamplerError, bool) {
	var curves []RDP
	tv := 0.0
	for _, c := range p {
		if w, ok := c.(WithSamplerError); ok {
			c, tv = w.Base, math.Max(tv, w.TV)
		}
		switch v := c.(type) {
		case RDP:
			curves = append(curves, v)
		case GDP:
			curves = append(curves, GaussianRDP(v.Mu))
		default:
			return WithSamplerError{}, false
		}
	}
	n := float64(k)
	worst := RDP{Name: strconv.Itoa(k) + " times the worst of " + strconv.Itoa(len(curves)) + " Rényi-DP curves (disjoint parts of the rows)", Conversion: CKS,
		Eps: func(a float64) float64 {
			e := 0.0
			for _, c := range curves {
				e = math.Max(e, c.Eps(a))
			}
			return n * e
		}}
	return WithSamplerError{Base: worst, TV: math.Min(n*tv, math.Nextafter(1, 0))}, true
}

// composeParallel distributes the composition of parts over par, one of them, and over its
// copies among them (the same slice, as when one mechanism's guarantee is composed k times):
// for fixed coins of every copy the pair is within the composition of one part of each, and
// composition does not depend on the order, so one composition per multiset of par's parts
// of the copies' number suffices: k + 1 curves for a par of two parts, not 2^k.
func composeParallel(par Parallel, parts []Curve) (Curve, error) {
	if len(par) == 0 {
		return nil, errors.New("privacy: a Parallel with no part")
	}
	var others []Curve
	copies := 0
	for _, p := range parts {
		if q, ok := p.(Parallel); ok && len(q) == len(par) && &q[0] == &par[0] {
			copies++
		} else {
			others = append(others, p)
		}
	}
	if copies > 1 {
		if bound, ok := par.renyi(copies); ok {
			return Compose(append(others, bound)...)
		}
	}
	var out Parallel
	// chosen holds one part of par for each copy so far, in non-decreasing order of index.
	var multisets func(from int, chosen []Curve) error
	multisets = func(from int, chosen []Curve) error {
		if len(chosen) == copies {
			c, err := Compose(append(slices.Clone(chosen), others...)...)
			if err == nil {
				out = append(out, c)
			}
			return err
		}
		for i := from; i < len(par); i++ {
			if err := multisets(i, append(chosen, par[i])); err != nil {
				return err
			}
		}
		return nil
	}
	if err := multisets(0, nil); err != nil {
		return nil, err
	}
	return out, nil
}

// Delta returns the largest δ(ε) of the parts.
func (p Parallel) Delta(eps float64) float64 {
	d := 0.0
	for _, c := range p {
		d = math.Max(d, c.Delta(eps))
	}
	return d
}

// Epsilon returns the largest ε(δ) of the parts: δ(ε) falls as ε grows, so the smallest ε at
// which every part's δ is at most delta is the largest of the parts' own.
func (p Parallel) Epsilon(delta float64) (float64, error) {
	if len(p) == 0 {
		return 0, errors.New("privacy: no part to take the worst of")
	}
	worst := 0.0
	for _, c := range p {
		e, err := c.Epsilon(delta)
		if err != nil {
			return 0, err
		}
		worst = math.Max(worst, e)
	}
	return worst, nil
}

// Tradeoff returns a lower bound on the tradeoff function from the worst profile (the lowest of
// the parts' tradeoff functions need not be one: it need not be convex): the supremum over the
// profile's grid of tradeoffFromProfile, without its refinement, which would evaluate every
// part's profile a hundred times more (a smaller supremum never overstates privacy).
func (p Parallel) Tradeoff(alpha float64) float64 {
	if alpha <= 0 || alpha >= 1 {
		return tradeoffFromProfile(p, alpha)
	}
	return p.tradeoffOn(alpha, profileGrid(p))
}

// tradeoffOn is Tradeoff at α in (0, 1), given the profile on the grid; at the ends, it is
// tradeoffFromProfile's.
func (p Parallel) tradeoffOn(alpha float64, grid []profilePoint) float64 {
	if alpha <= 0 || alpha >= 1 {
		return tradeoffFromProfile(p, alpha)
	}
	best, _ := supOnGrid(alpha, grid)
	return best
}

// String describes the parts.
func (p Parallel) String() string {
	parts := make([]string, len(p))
	for i, c := range p {
		parts[i] = c.String()
	}
	return "the worst at each point of (disjoint parts of the rows): " + strings.Join(parts, "; and ")
}
