package data

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// numericScale is how a numeric column (feature or label) encodes its numbers: every place
// that scales a numeric value (Encode, EncodeForPrediction, Validate's check of a missing-value
// replacement, ColumnValues, Rescale) goes through it.
type numericScale struct {
	min, max float64 // the declared range
	lo, hi   float64 // its ends on the transformed scale: min and max, or their log1p
	log1p    bool
	label    bool
	r        *Range // the private range, or nil
}

// numericScale returns the scale of a valid numeric column.
func (c *Column) numericScale() numericScale {
	n := numericScale{min: c.Min, max: c.Max, lo: c.Min, hi: c.Max, label: c.Kind == NumericLabel, r: c.Range}
	if c.Transform == Log1p {
		n.log1p, n.lo, n.hi = true, math.Log1p(c.Min), math.Log1p(c.Max)
	}
	return n
}

// declared returns v on the column's declared scale: z = (t(clip(v, Min, Max)) − t(Min)) /
// (t(Max) − t(Min)) ∈ [0, 1] for the transform t, and whether v was outside [Min, Max].
func (n *numericScale) declared(v float64) (z float64, clipped bool) {
	x := min(max(v, n.min), n.max)
	if n.log1p {
		x = math.Log1p(x)
	}
	// Without a transform min ≤ x ≤ max gives 0 ≤ x − lo ≤ hi − lo in floating point too
	// (rounding is monotonic), so the clip changes nothing; it keeps z in [0, 1] whatever the
	// rounding of Log1p.
	return min(max((x-n.lo)/(n.hi-n.lo), 0), 1), v < n.min || v > n.max
}

// encode returns the encoded value of a number v of the column: for a feature, z on the
// declared scale, rescaled to the private range if any; for a label, v clipped to [Min, Max]
// in its own units, or with a private range 2·rescale(z) − 1 ∈ [−1, 1]. The note says whether
// v was clipped to the declared range, or else to the private range.
func (n *numericScale) encode(v float64) (float64, note) {
	if n.label && n.r == nil {
		x := min(max(v, n.min), n.max)
		return x, clippedIf(x != v, clipped)
	}
	z, outside := n.declared(v)
	what := clippedIf(outside, clipped)
	if n.r != nil {
		var inside bool
		z, inside = n.r.rescale(z)
		if !inside && !outside {
			what = clippedToRange
		}
	}
	if n.label {
		return 2*z - 1, what
	}
	return z, what
}

// clippedIf returns what when cond holds, asIs otherwise.
func clippedIf(cond bool, what note) note {
	if cond {
		return what
	}
	return asIs
}

// rescale returns (clip(z, Lo, Hi) − Lo)/(Hi − Lo) ∈ [0, 1] (clipping first, so that the
// quotient cannot overflow), and whether z was within [Lo, Hi].
func (r *Range) rescale(z float64) (float64, bool) {
	c := min(max(z, r.Lo), r.Hi)
	return (c - r.Lo) / (r.Hi - r.Lo), c == z
}

// ScaleEnds returns the ends of a valid numeric column's declared scale in transformed units:
// Min and Max, or log1p(Min) and log1p(Max) under Log1p. A value v sits at
// z = (t(clip(v, Min, Max)) − lo)/(hi − lo) on that scale, for the transform t.
func (c *Column) ScaleEnds() (lo, hi float64) {
	n := c.numericScale()
	return n.lo, n.hi
}

// Unscale returns the value of a valid numeric column that sits at z ∈ [0, 1] of its declared
// scale, in the column's own units: Min + z·(Max − Min), or expm1(log1p(Min) + z·(log1p(Max) −
// log1p(Min))) under Log1p, within [Min, Max]. It gives a private range's ends in units.
func (c *Column) Unscale(z float64) float64 {
	n := c.numericScale()
	v := n.lo + float64(z*(n.hi-n.lo)) // float64(): never fused into an FMA, the same bits everywhere
	if n.log1p {
		v = math.Expm1(v)
	}
	return min(max(v, c.Min), c.Max)
}

// labelMap returns the affine map from a ranged label's encoded value Y ∈ [−1, 1] back to its
// units, raw = offset + unit·Y: the midpoint and half-width of the private range in units.
func (c *Column) labelMap() (offset, unit float64) {
	a, b := c.Unscale(c.Range.Lo), c.Unscale(c.Range.Hi)
	unit = (b - a) / 2
	return a + unit, unit
}

// validateScale checks a numeric column's transform, scale and private range (see
// Schema.Validate).
func (c *Column) validateScale() error {
	switch c.Transform {
	case NoTransform:
	case Log1p:
		if !(c.Min > -1) {
			return schemaError(c.Name, "transform \"log1p\" needs min > −1 (log(1 + v) is undefined for v ≤ −1), and min is %v", c.Min)
		}
		if !(math.Log1p(c.Min) < math.Log1p(c.Max)) {
			return schemaError(c.Name, "the range [%v, %v] is too narrow for transform \"log1p\" in float64: log(1 + min) and log(1 + max) are equal", c.Min, c.Max)
		}
	default:
		return schemaError(c.Name, "unknown transform %q (the transform is \"log1p\", or none)", c.Transform)
	}
	switch c.Scale {
	case ScalePrivate, ScaleDeclared:
	default:
		return schemaError(c.Name, "scale %q is not \"declared\" (leave it out to let a fit scale the column privately)", c.Scale)
	}
	if c.Range == nil {
		return nil
	}
	if !(c.Range.Lo >= 0 && c.Range.Lo < c.Range.Hi && c.Range.Hi <= 1) {
		return schemaError(c.Name, "private_range [%v, %v]: the ends are fractions of the declared scale with 0 ≤ lo < hi ≤ 1", c.Range.Lo, c.Range.Hi)
	}
	if c.Scale == ScaleDeclared {
		return schemaError(c.Name, "a private_range on a column whose scale is \"declared\"")
	}
	if _, unit := c.labelMap(); c.Kind == NumericLabel && !(unit > 0) {
		return schemaError(c.Name, "private_range [%v, %v] is too narrow for the declared range [%v, %v] in float64: its ends are equal in the label's units", c.Range.Lo, c.Range.Hi, c.Min, c.Max)
	}
	return nil
}

// DescribeScale states in words how a valid numeric column's values are scaled, for a release
// file's description, for example
//
//	clipped to [0, 15,024] (a private estimate, inside the declared [0, 99,999]), then log(1 + v) scaled to [0, 1]
//
// (numbers rounded to 6 significant digits; a private range's exact ends are in the schema;
// the range [0, 1], which rescales nothing, is not called an estimate). It is "" for a column
// of another kind.
func (c *Column) DescribeScale() string {
	if c.Kind != Numeric && c.Kind != NumericLabel {
		return ""
	}
	declared := fmt.Sprintf("[%s, %s]", formatNumber(c.Min), formatNumber(c.Max))
	clip := "clipped to the declared " + declared
	if c.Range != nil && *c.Range != (Range{Lo: 0, Hi: 1}) { // the full range clips nothing more
		clip = fmt.Sprintf("clipped to [%s, %s] (a private estimate, inside the declared %s)",
			formatNumber(c.Unscale(c.Range.Lo)), formatNumber(c.Unscale(c.Range.Hi)), declared)
	}
	switch {
	case c.Kind == NumericLabel && c.Range != nil:
		return clip + ", then mapped to [−1, 1]"
	case c.Kind == NumericLabel:
		return clip + ", in its own units"
	case c.Transform == Log1p:
		return clip + ", then log(1 + v) scaled to [0, 1]"
	}
	return clip + ", then scaled to [0, 1]"
}

// suggestBelow is the share of its declared scale below which a column's private range
// suggests a change of the schema (RangeSuggestion).
const suggestBelow = 0.01

// RangeSuggestion returns a one-line suggestion for the numeric feature column c, given its
// private range r (released, so the suggestion is too), or "" when r covers at least 1 % of
// the declared scale. It suggests declaring "transform": "log1p" when c has no transform, Min
// ≥ 0, and r's upper end lies below 1 % of the declared scale and at least at 1 in the
// column's units: all but the top few values (the range's upper quantile) then sit two orders
// of magnitude or more below the declared maximum, so a linear scale either clips the large
// values (the private range) or crowds the others into a sliver of [0, 1] (the declared
// range), where log(1 + v), which is close to v only below 1, spreads them over the scale.
// Otherwise (most values at one point, such as 0, which no transform spreads) it says that the
// values outside r are read as its nearer end, so that the model sees little more than on
// which side of r a value lies, and that declaring "scale": "declared" keeps their sizes.
func RangeSuggestion(c Column, r Range) string {
	if c.Kind != Numeric || !(r.Hi-r.Lo < suggestBelow) {
		return ""
	}
	lo, hi, share := formatNumber(c.Unscale(r.Lo)), formatNumber(c.Unscale(r.Hi)), strconv.FormatFloat(100*(r.Hi-r.Lo), 'g', 2, 64)
	if c.Transform == NoTransform && c.Min >= 0 && r.Hi < suggestBelow && c.Unscale(r.Hi) >= 1 {
		return fmt.Sprintf("%s's private range [%s, %s] is %s %% of its declared range, and its values span orders of magnitude: declaring \"transform\": \"log1p\" may help",
			c.Name, lo, hi, share)
	}
	return fmt.Sprintf("%s's private range [%s, %s] is %s %% of its declared range: the values outside it are read as its nearer end, so the model sees little more than on which side of it a value lies; declaring \"scale\": \"declared\" for the column keeps their sizes",
		c.Name, lo, hi, share)
}

// formatNumber writes v for a person: a whole number below 10^15 exactly, with its thousands
// grouped ("99,999"), any other number to 6 significant digits ("15,023.7", "0.00123457",
// "1.5e+20").
func formatNumber(v float64) string {
	v += 0 // −0 is written "0"
	var s string
	switch {
	case v == math.Trunc(v) && math.Abs(v) < 1e15:
		s = strconv.FormatFloat(v, 'f', 0, 64)
	case math.Abs(v) >= 1e-4 && math.Abs(v) < 1e15:
		digits := int(math.Floor(math.Log10(math.Abs(v)))) + 1
		s = strconv.FormatFloat(v, 'f', max(0, 6-digits), 64)
		if strings.Contains(s, ".") {
			s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
		}
	default:
		return strconv.FormatFloat(v, 'g', 6, 64)
	}
	sign, whole, frac := "", s, ""
	if strings.HasPrefix(whole, "-") {
		sign, whole = "-", whole[1:]
	}
	if k := strings.IndexByte(whole, '.'); k >= 0 {
		whole, frac = whole[:k], whole[k:]
	}
	var b strings.Builder
	for i, d := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(d)
	}
	return sign + b.String() + frac
}
