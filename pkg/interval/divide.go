package interval

import "math/big"

// Quo returns an interval of precision prec enclosing {x/y : x ∈ a, y ∈ b} for b > 0
// (b.Lo > 0; it panics otherwise).
func Quo(a, b I, prec uint) I {
	if b.Lo.Sign() <= 0 {
		panic("interval: Quo by an interval that is not positive")
	}
	// For y > 0, x/y is increasing in x and monotone in y with the sign of x: the extremes
	// are at the corners, as for Mul.
	return corners(a, b, lower(prec).quo, upper(prec).quo)
}

// Sqrt returns an interval of precision prec enclosing {√x : x ∈ a} for a ≥ 0 (a.Lo ≥ 0; it
// panics otherwise). √ is increasing. big.Float's Sqrt does not report its accuracy, so each
// end is computed with 64 extra bits (an error of at most an ulp there) and then moved
// outward by a relative 2^−(prec+8) before its directed rounding to prec bits.
func Sqrt(a I, prec uint) I {
	if a.Lo.Sign() < 0 {
		panic("interval: Sqrt of an interval that is not non-negative")
	}
	return I{lower(prec).sqrt(a.Lo), upper(prec).sqrt(a.Hi)}
}

func (r rounding) sqrt(x *big.Float) *big.Float {
	if x.Sign() == 0 {
		return r.new()
	}
	root := new(big.Float).SetPrec(r.prec + 64).Sqrt(x)
	widen := new(big.Float).SetMantExp(one, -int(r.prec)-8)
	if r.up {
		widen.Add(one, widen)
	} else {
		widen.Sub(one, widen)
	}
	return r.mul(root, widen)
}

// Ends returns a's ends as integers scaled by a common power of two: a.Lo = lo·2^exp and
// a.Hi = hi·2^exp exactly. With FromEnds it carries an interval across an interface without
// naming big.Float (whose formatting code a WebAssembly binary then need not keep).
func (a I) Ends() (lo, hi *big.Int, exp int) {
	exp = 0
	first := true
	for _, x := range []*big.Float{a.Lo, a.Hi} {
		if x.Sign() == 0 {
			continue
		}
		e := x.MantExp(nil) - int(x.Prec())
		if first || e < exp {
			exp, first = e, false
		}
	}
	scaled := func(x *big.Float) *big.Int {
		y := new(big.Float).SetPrec(x.Prec()+64).SetMantExp(x, -exp) // an integer: exact
		n, _ := y.Int(nil)
		return n
	}
	return scaled(a.Lo), scaled(a.Hi), exp
}

// FromEnds returns [lo·2^exp, hi·2^exp] rounded outward to prec bits.
func FromEnds(lo, hi *big.Int, exp int, prec uint) I {
	at := func(n *big.Int, r rounding) *big.Float {
		x := r.new().SetInt(n)
		return r.fix(x.SetMantExp(x, exp))
	}
	return I{at(lo, lower(prec)), at(hi, upper(prec))}
}
