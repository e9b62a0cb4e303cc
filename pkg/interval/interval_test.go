package interval

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestConstants checks containment of reference values, and the width (below 2^−(p−20)
// relative), at precisions p from 24 to 512 bits. The references are mpmath 1.3.0's values at
// 400 digits, rounded to 170 significant digits (565 bits, more than the 512 tested), of the
// named function at the exact float64 argument: mpmath.nstr(f(mpmath.mpf(x)), 170) with
// mp.dps = 400, f one of log, exp and lambda x: log1p(exp(x)); exp(1/3) is at 1/3 itself, which
// third encloses here.
func TestConstants(t *testing.T) { constants(t, true) }

// TestConstantsWithoutGuards repeats TestConstants' containment checks without guard bits.
func TestConstantsWithoutGuards(t *testing.T) {
	withoutGuards(t)
	constants(t, false)
}

// withoutGuards sets the guard bits to zero until the end of the test.
func withoutGuards(t *testing.T) {
	saved := guard
	guard.exp, guard.reduce, guard.log = 0, 0, 0
	t.Cleanup(func() { guard = saved })
}

func constants(t *testing.T, widths bool) {
	// Precisions in mixed order, so that ln 2 is both computed afresh and rounded from its cache.
	for _, p := range []uint{300, 64, 128, 24, 200, 512} {
		cases := []struct {
			name string
			got  I
			want string
		}{
			{"ln 2", Log(Point(2, 53), p), "0.69314718055994530941723212145817656807550013436025525412068000949339362196969471560586332699641868754200148102057068573368552023575813055703267075163507596193072757082837"},
			{"e", Exp(Point(1, 53), p), "2.7182818284590452353602874713526624977572470936999595749669676277240766303535475945713821785251664274274663919320030599218174135966290435729003342952605956307381323286279"},
			{"exp(1/3)", Exp(third(p), p), "1.3956124250860895286281253196025868375979065151994069826175167060317390156459518469697888172958302241352111844104188620961221232927778929393063493941717478924937462122727"},
			{"log(10)", Log(Point(10, 53), p), "2.3025850929940456840179914546843642076011014886287729760333279009675726096773524802359972050895982983419677840422862486334095254650828067566662873690987816894829072083256"},
			{"exp(-1e6)", Exp(Point(-1e6, 53), p), "3.2968314780885585789689079691077242085614015066583701596470884898953492503795547270550772252633288295001568311583139812218536144974457205259298330398186425072409155885859e-434295"},
			{"exp(-745.25)", Exp(Point(-745.25, 53), p), "2.1980489589936961366417986473893293803918528065024773877327046927914156139209974780638818722073102667499141714536862254781252169890289171938860051473271668917011877551131e-324"},
			{"exp(-0.75)", Exp(Point(-0.75, 53), p), "0.47236655274101470713804655094326791297020357913647668239565794414120094563308094968358754425933446395014229674637141493919388519746153086479859047588703269920592811935029"},
			{"exp(1e-10)", Exp(Point(1e-10, 53), p), "1.0000000001000000000050000036433863985807669644230816443131671805292383782828052027926122371088711338007167044349069517301563982954951493809516190946356954707108458362128"},
			{"exp(0.1)", Exp(Point(0.1, 53), p), "1.10517091807564763094663882345877965774166341637421962084148346131070925705335550156832536920054745720121546690075354158037019734991020576492586674555369981860205070525"},
			{"exp(10)", Exp(Point(10, 53), p), "22026.465794806716516957900645284244366353512618556781074235426355225202818570792575199120968164525895451555501092457836652423291606522895166222480137728972873485577837847"},
			{"exp(700.5)", Exp(Point(700.5, 53), p), "1.6721859620674985572410360793021203111449422613713041352496415947763492920228458780798191734909370650694357627813606284245351984509828816930484835636341464796075951298528e+304"},
			{"log(1e-300)", Log(Point(1e-300, 53), p), "-690.77552789821370518033834457010050290861334158364134406254720179008713544892719756278724792570177539721963232623332474907949831121817414001948795943082762228285430860019"},
			{"log(0.1)", Log(Point(0.1, 53), p), "-2.3025850929940456285068402234265387271634735938763827768352000020713503339838117705145850039756111058052972789591979817071520493872761063035156374767236382051430316452889"},
			{"log(0.75)", Log(Point(0.75, 53), p), "-0.28768207245178092743921900599382743150350971089776105650666568534929295072078046433811089917910528629603293297518350572500303624558574129301253963250287451325829237247336"},
			{"log(1.0000000001)", Log(Point(1.0000000001, 53), p), "0.00000000010000000826903709908196694080357637786121654138771523974618597008731224917984448544489930762767395939066619033451385561518111565011506237804100554748754071003732442276833"},
			{"log(3)", Log(Point(3, 53), p), "1.0986122886681096913952452369225257046474905578227494517346943336374942932186089668736157548137320887879700290659578657423680042259305198210528018707672774106031627691834"},
			{"log(1e300)", Log(Point(1e300, 53), p), "690.77552789821370525790219666051368115065999044149323155039437648317130871261464541638661731844450646679912710632691335833224028142329804695625344223414515067816117305937"},
			{"log1p(e^-1e6)", Log1pExp(Point(-1e6, 53), p), "3.2968314780885585789689079691077242085614015066583701596470884898953492503795547270550772252633288295001568311583139812218536144974457205259298330398186425072409155885859e-434295"},
			{"log1p(e^-745.25)", Log1pExp(Point(-745.25, 53), p), "2.1980489589936961366417986473893293803918528065024773877327046927914156139209974780638818722073102667499141714536862254781252169890289171938860051473271668917011877551131e-324"},
			{"log1p(e^-40)", Log1pExp(Point(-40, 53), p), "0.0000000000000000042483542552915889863049778436315821818777506798229745422054513754587839239746028813070527562263143587419543177492516489203470574543989556654762205210524099234624733213761"},
			{"log1p(e^-1)", Log1pExp(Point(-1, 53), p), "0.31326168751822283404899549496785564191528008567034837471906351483719490150918722093620040627729239138902104681546435352195525970607847589722553959087104964492794331698269"},
			{"log1p(e^-1e-10)", Log1pExp(Point(-1e-10, 53), p), "0.69314718050994530941848211963656670239169302785738892311433391485488866486093926971672898088577085259452800955037697958019803202416979351924810978708036299651809035497431"},
			{"log1p(e^0)", Log1pExp(Point(0, 53), p), "0.69314718055994530941723212145817656807550013436025525412068000949339362196969471560586332699641868754200148102057068573368552023575813055703267075163507596193072757082837"},
			{"log1p(e^0.5)", Log1pExp(Point(0.5, 53), p), "0.97407698418010668087299735508117074975559619466786284120081527509919353273949597481544519377161590807440537116996367517343451644033533972539666368739123769821414737765706"},
			{"log1p(e^3)", Log1pExp(Point(3, 53), p), "3.0485873515737420587589259198546899979418816428281086205308469804875198186614667820245997891943858599581849912561028655172159107902928838904123438501979570251032305562445"},
			{"log1p(e^40)", Log1pExp(Point(40, 53), p), "40.000000000000000004248354255291588986304977843631582181877750679822974542205451375458783923974602881307052756226314358741954317749251648920347057454398955665476220521052"},
			{"log1p(e^100)", Log1pExp(Point(100, 53), p), "100.00000000000000000000000000000000000000000003720075976020835962959695803863118337358892223181955630283737344229217626941581448004741377735161830910261680307816569627598"},
		}
		for _, c := range cases {
			want, _, err := big.ParseFloat(c.want, 10, 1000, big.ToNearestEven)
			if err != nil {
				t.Fatal(err)
			}
			if c.got.Lo.Cmp(want) > 0 || c.got.Hi.Cmp(want) < 0 {
				t.Errorf("prec %d: %s = %s, not in [%s, %s]", p, c.name, c.want[:40], show(c.got.Lo), show(c.got.Hi))
			}
			if widths && p >= 53 { // below 53, Point rounds the argument
				checkWidth(t, c.name, c.got, p)
			}
		}
	}
}

// third returns an enclosure of 1/3 of precision p.
func third(p uint) I {
	return I{lower(p).quo(one, big.NewFloat(3)), upper(p).quo(one, big.NewFloat(3))}
}

// checkWidth reports an error when a is wider than 2^−(p−20) relative to its smaller end, and
// returns the width in units of 2^−p relative.
func checkWidth(t *testing.T, name string, a I, p uint) float64 {
	t.Helper()
	w := a.Width()
	if w.Sign() == 0 {
		return 0
	}
	m := new(big.Float).Abs(a.Lo)
	if h := new(big.Float).Abs(a.Hi); h.Cmp(m) < 0 {
		m = h
	}
	rel := new(big.Float).Quo(w, m)
	rel.SetMantExp(rel, int(p))
	units, _ := rel.Float64()
	if !(units <= 1<<20) {
		t.Errorf("prec %d: %s = [%s, %s] is %.3g·2^−%d wide", p, name, show(a.Lo), show(a.Hi), units, p)
	}
	return units
}

// TestLn2 checks ln2's bounds against the reference for every precision up to 560 bits,
// computed afresh in increasing order and then rounded from the cache in decreasing order.
func TestLn2(t *testing.T) {
	want, _, _ := big.ParseFloat(ln2Digits, 10, 1000, big.ToNearestEven)
	ln2Cache.Lock()
	ln2Cache.lo, ln2Cache.hi = nil, nil
	ln2Cache.Unlock()
	for i := range 2 * 560 {
		p := uint(1 + i)
		if i >= 560 {
			p = uint(2*560 - i)
		}
		lo, hi := ln2(p)
		if lo.Cmp(want) > 0 || hi.Cmp(want) < 0 || lo.Prec() != p || hi.Prec() != p {
			t.Fatalf("prec %d: ln 2 not in [%s, %s] of precision %d and %d", p, show(lo), show(hi), lo.Prec(), hi.Prec())
		}
	}
}

// ln2Digits is ln 2 from mpmath, as in TestConstants.
const ln2Digits = "0.69314718055994530941723212145817656807550013436025525412068000949339362196969471560586332699641868754200148102057068573368552023575813055703267075163507596193072757082837"

// TestBounds checks each one-sided bound function at its working precision, without guard
// bits, where a rounding in the wrong direction is least likely to be absorbed by the slack of
// later roundings: for random precisions from 1 to 100 bits and random arguments, the lower
// and upper bounds enclose the bounds computed 100 bits tighter.
func TestBounds(t *testing.T) {
	withoutGuards(t)
	r := rand.New(rand.NewPCG(9, 10))
	// small returns a number in [0, 1/2]: a small multiple of a power of two or up to 100 bits.
	small := func() *big.Float {
		if r.IntN(2) == 0 {
			return big.NewFloat(math.Ldexp(float64(1+r.IntN(16)), -5-r.IntN(20)))
		}
		x := new(big.Float).SetPrec(uint(1 + r.IntN(100))).SetFloat64(r.Float64() / 2)
		return x.SetMantExp(x, -r.IntN(20))
	}
	wide := func() *big.Float {
		x := small()
		x.SetMantExp(x, r.IntN(40)-8)
		if r.IntN(2) == 0 {
			x.Neg(x)
		}
		return x
	}
	fns := []struct {
		name string
		f    func(*big.Float, rounding) *big.Float
		arg  func() *big.Float
	}{
		{"expSeries", expSeries, small},
		{"atanhBound", atanhBound, func() *big.Float { return neg(small()) }},
		{"atanhBound", atanhBound, small},
		{"log1pBound", log1pBound, func() *big.Float { return new(big.Float).SetMantExp(small(), 1) }},
		{"logBound", logBound, func() *big.Float { return new(big.Float).Abs(wide()) }},
		{"expBound", expBound, wide},
		{"log1pExpBound", log1pExpBound, wide},
	}
	for range 4000 {
		p := uint(1 + r.IntN(100))
		for _, fn := range fns {
			x := fn.arg()
			if x.Sign() == 0 && fn.name == "logBound" {
				continue
			}
			lo, hi := fn.f(x, rounding{p, false}), fn.f(x, rounding{p, true})
			rlo, rhi := fn.f(x, rounding{p + 100, false}), fn.f(x, rounding{p + 100, true})
			if lo.Cmp(rlo) > 0 || hi.Cmp(rhi) < 0 {
				t.Fatalf("prec %d: %s(%s) in [%s, %s], not [%s, %s]", p, fn.name, show(x), show(rlo), show(rhi), show(lo), show(hi))
			}
		}
	}
}

// TestPoint checks that Point rounds outward at precisions below 53 bits.
func TestPoint(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for range 10000 {
		p := uint(1 + r.IntN(60))
		x := math.Ldexp(r.Float64()-0.5, r.IntN(200)-100)
		a, b := Point(x, p), big.NewFloat(x)
		if a.Lo.Cmp(b) > 0 || a.Hi.Cmp(b) < 0 || a.Lo.Prec() != p || a.Hi.Prec() != p {
			t.Fatalf("Point(%v, %d) = [%v, %v]", x, p, a.Lo, a.Hi)
		}
	}
}

// fns are the elementary functions with their float64 counterparts and a random argument
// over a wide range of their domain. The ranges leave out what the amd64 assembly of Go 1.26
// gets wrong (the generic Go code, as on 386, gets them right): math.Exp overflows to +Inf from
// x ≈ 709.44 (the limit is 709.78), and math.Log of a subnormal is off (math.Log(0x1p-1023)
// is −708.68, not −709.09; golang/go#56600).
var fns = []struct {
	name string
	f    func(I, uint) I
	f64  func(float64) float64
	arg  func(*rand.Rand) float64
}{
	{"Exp", Exp, math.Exp, func(r *rand.Rand) float64 {
		if r.IntN(2) == 0 {
			return -745 + 1454.4*r.Float64()
		}
		return math.Copysign(math.Ldexp(1+r.Float64(), -60+r.IntN(69)), r.Float64()-0.5)
	}},
	{"Log", Log, math.Log, func(r *rand.Rand) float64 {
		if r.IntN(4) == 0 {
			return 1 + math.Ldexp(r.Float64()-0.5, -r.IntN(53))
		}
		return math.Ldexp(1+r.Float64(), -1022+r.IntN(2045))
	}},
	{"Log1pExp", Log1pExp, func(x float64) float64 {
		if x > 0 {
			return x + math.Log1p(math.Exp(-x))
		}
		return math.Log1p(math.Exp(x))
	}, func(r *rand.Rand) float64 {
		if r.IntN(2) == 0 {
			return -745 + 1490*r.Float64()
		}
		return math.Copysign(math.Ldexp(1+r.Float64(), -60+r.IntN(70)), r.Float64()-0.5)
	}},
}

// TestFloat64 checks that the float64 library's value (for Log1pExp, a careful float64
// formula) lies within 2 ulps of the enclosure at 64 bits, for 20,000 random arguments each.
func TestFloat64(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, fn := range fns {
		for range 20000 {
			x := fn.arg(r)
			want, got := fn.f64(x), fn.f(Point(x, 53), 64)
			_, e := math.Frexp(want)
			ulp := big.NewFloat(math.Ldexp(2, max(e-53, -1074))) // two ulps
			lo := new(big.Float).SetPrec(2000).Sub(big.NewFloat(want), ulp)
			hi := new(big.Float).SetPrec(2000).Add(big.NewFloat(want), ulp)
			if got.Hi.Cmp(lo) < 0 || got.Lo.Cmp(hi) > 0 {
				t.Errorf("%s(%v) = %v, more than 2 ulps from [%s, %s]", fn.name, x, want, show(got.Lo), show(got.Hi))
			}
		}
	}
}

// TestWidth checks that point arguments give enclosures narrower than 2^−(prec−20) relative at
// 128, 256 and 512 bits, over 2,000 random arguments each, and logs the widest.
func TestWidth(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, p := range []uint{128, 256, 512} {
		for _, fn := range fns {
			worst := 0.0
			for range 2000 {
				x := fn.arg(r)
				worst = max(worst, checkWidth(t, fn.name, fn.f(Point(x, 53), p), p))
			}
			t.Logf("prec %d: %s at most %.3g·2^−%d wide", p, fn.name, worst, p)
		}
	}
}

// TestInclusion checks, at random precisions from 2 to 80 bits, that the enclosure of f over
// a random interval contains the enclosures, 64 bits tighter, of f at both ends and at random
// points inside. A lower end above the exact value would be above the tighter enclosure's
// lower end too (unless the exact value were within 2^−(prec+60) of a prec-bit number).
func TestInclusion(t *testing.T) { inclusion(t) }

// TestInclusionWithoutGuards repeats TestInclusion without guard bits.
func TestInclusionWithoutGuards(t *testing.T) {
	withoutGuards(t)
	inclusion(t)
}

func inclusion(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, fn := range fns {
		for range 4000 {
			p := uint(2 + r.IntN(79))
			x, y := fn.arg(r), fn.arg(r)
			if r.IntN(2) == 0 {
				y = x + math.Abs(x)*math.Ldexp(r.Float64(), -r.IntN(60))
			}
			x, y = min(x, y), max(x, y)
			got := fn.f(I{Point(x, 53).Lo, Point(y, 53).Hi}, p)
			for _, z := range []float64{x, y, x + (y-x)*r.Float64()} {
				if z < x || z > y { // rounding of the interior point
					continue
				}
				ref := fn.f(Point(z, 53), p+64)
				if got.Lo.Cmp(ref.Lo) > 0 || got.Hi.Cmp(ref.Hi) < 0 {
					t.Errorf("prec %d: %s([%v, %v]) = [%s, %s] misses %s(%v) ∈ [%s, %s]", p, fn.name, x, y,
						show(got.Lo), show(got.Hi), fn.name, z, show(ref.Lo), show(ref.Hi))
				}
			}
		}
	}
}

// TestArithmetic checks Add, Sub, Mul, MulFloat and Neg on random intervals of mixed signs at
// random precisions from 1 to 60 bits against the exact results at corners and interior points
// (exact at 300 bits for these arguments), and that each end is a single rounding away from
// the exact extreme.
func TestArithmetic(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	arg := func() float64 { return math.Ldexp(r.Float64()-0.3, r.IntN(40)-20) }
	exact := func(op string, x, y float64) *big.Float {
		z, a, b := new(big.Float).SetPrec(300), big.NewFloat(x), big.NewFloat(y)
		switch op {
		case "Add":
			return z.Add(a, b)
		case "Sub":
			return z.Sub(a, b)
		case "Neg":
			return z.Neg(a)
		}
		return z.Mul(a, b)
	}
	ops := map[string]func(a, b I, c float64, p uint) I{
		"Add":      func(a, b I, c float64, p uint) I { return Add(a, b, p) },
		"Sub":      func(a, b I, c float64, p uint) I { return Sub(a, b, p) },
		"Mul":      func(a, b I, c float64, p uint) I { return Mul(a, b, p) },
		"MulFloat": func(a, b I, c float64, p uint) I { return MulFloat(a, c, p) },
		"Neg":      func(a, b I, c float64, p uint) I { return Neg(a) },
	}
	for name, op := range ops {
		for range 5000 {
			p := uint(1 + r.IntN(60))
			x0, x1, y0, y1 := arg(), arg(), arg(), arg()
			x0, x1, y0, y1 = min(x0, x1), max(x0, x1), min(y0, y1), max(y0, y1)
			if name == "MulFloat" {
				y1 = y0
			}
			got := op(I{big.NewFloat(x0), big.NewFloat(x1)}, I{big.NewFloat(y0), big.NewFloat(y1)}, y0, p)
			base := name
			if name == "MulFloat" {
				base = "Mul"
			}
			lo, hi := exact(base, x0, y0), exact(base, x0, y0)
			for _, x := range []float64{x0, x1, x0 + (x1-x0)*r.Float64()} {
				for _, y := range []float64{y0, y1, y0 + (y1-y0)*r.Float64()} {
					v := exact(base, x, y)
					if v.Cmp(got.Lo) < 0 || v.Cmp(got.Hi) > 0 {
						t.Fatalf("prec %d: %s([%v, %v], [%v, %v]) = [%v, %v] misses %v", p, name, x0, x1, y0, y1, got.Lo, got.Hi, v)
					}
					if v.Cmp(lo) < 0 {
						lo = v
					}
					if v.Cmp(hi) > 0 {
						hi = v
					}
				}
			}
			if name == "Neg" { // exact
				p = 53
			}
			if got.Lo.Cmp(lower(p).set(lo)) != 0 || got.Hi.Cmp(upper(p).set(hi)) != 0 {
				t.Fatalf("prec %d: %s([%v, %v], [%v, %v]) = [%v, %v], not [%v, %v] rounded outward", p, name, x0, x1, y0, y1, got.Lo, got.Hi, lo, hi)
			}
		}
	}
}

// show formats x for a message: in decimal unless its exponent is so large that conversion
// would take seconds.
func show(x *big.Float) string {
	if e := x.MantExp(nil); e > -4000 && e < 4000 {
		return x.Text('g', 30)
	}
	return x.Text('p', 0)
}

// TestExtremes checks arguments far outside float64's range of results and the ends of
// big.Float's exponent range, where big.Float gives 0 or ±Inf whatever the rounding mode. Each
// call is quick: without the stand-in in add, 10^300 + e^−10^300 alone would take gigabytes.
func TestExtremes(t *testing.T) {
	const p = 128
	smallest := new(big.Float).SetMantExp(one, big.MinExp-1)

	// e^−10^9 ≈ 2^−1.44·10^9 is representable: a positive, tight Lo.
	e := Exp(Point(-1e9, 53), p)
	if e.Lo.Sign() <= 0 {
		t.Errorf("Exp(-1e9) = [%s, %s], not positive", show(e.Lo), show(e.Hi))
	}
	checkWidth(t, "Exp(-1e9)", e, p)
	// log(1 + y) ∈ (y − y²/2, y) and y²/2 is far below 2^−p·y, so the enclosures overlap.
	l := Log1pExp(Point(-1e9, 53), p)
	if l.Lo.Sign() <= 0 || l.Hi.Cmp(e.Lo) < 0 || l.Lo.Cmp(e.Hi) > 0 {
		t.Errorf("Log1pExp(-1e9) = [%s, %s], Exp(-1e9) = [%s, %s]", show(l.Lo), show(l.Hi), show(e.Lo), show(e.Hi))
	}
	checkWidth(t, "Log1pExp(-1e9)", l, p)

	// Beyond the exponent range: the representable bounds on the right side.
	if e := Exp(Point(-3e9, 53), p); e.Lo.Sign() != 0 || e.Hi.Cmp(smallest) != 0 {
		t.Errorf("Exp(-3e9) = [%s, %s], want [0, 2^(MinExp−1)]", show(e.Lo), show(e.Hi))
	}
	huge := Exp(Point(3e9, 53), p)
	if huge.Lo.Cmp(new(big.Float).SetMantExp(one, big.MaxExp-1)) != 0 || !huge.Hi.IsInf() {
		t.Errorf("Exp(3e9) = [%s, %s], want [2^(MaxExp−1), +Inf]", show(huge.Lo), show(huge.Hi))
	}
	if l := Log1pExp(Point(-1e300, 53), p); l.Lo.Sign() != 0 || l.Hi.Sign() <= 0 || l.Hi.MantExp(nil) > big.MinExp+4 {
		t.Errorf("Log1pExp(-1e300) = [%s, %s], want [0, a few times 2^(MinExp−1)]", show(l.Lo), show(l.Hi))
	}
	x := big.NewFloat(1e300)
	if l := Log1pExp(Point(1e300, 53), p); l.Lo.Cmp(x) != 0 || l.Hi.Cmp(x) <= 0 {
		t.Errorf("Log1pExp(1e300) = [%s, %s], want [1e300, its successor]", show(l.Lo), show(l.Hi))
	} else {
		checkWidth(t, "Log1pExp(1e300)", l, p)
	}

	// An infinite end in the operations.
	if m := Mul(I{new(big.Float), one}, huge, p); m.Lo.Sign() != 0 || !m.Hi.IsInf() {
		t.Errorf("[0, 1]·Exp(3e9) = [%s, %s], want [0, +Inf]", show(m.Lo), show(m.Hi))
	}
	if g := Log(huge, p); g.Lo.Cmp(big.NewFloat(3e9)) > 0 || !g.Hi.IsInf() {
		t.Errorf("Log(Exp(3e9)) = [%s, %s], want Lo ≤ 3e9 and Hi = +Inf", show(g.Lo), show(g.Hi))
	}
	if e := Exp(Neg(huge), p); e.Lo.Sign() != 0 || e.Hi.Cmp(smallest) != 0 {
		t.Errorf("Exp(−Exp(3e9)) = [%s, %s], want [0, 2^(MinExp−1)]", show(e.Lo), show(e.Hi))
	}
	if g := Log(I{big.NewFloat(-1), big.NewFloat(1)}, p); !g.Lo.IsInf() || g.Hi.Sign() != 0 {
		t.Errorf("Log([-1, 1]) = [%s, %s], want [-Inf, 0]", show(g.Lo), show(g.Hi))
	}
	defer func() {
		if recover() == nil {
			t.Error("Log([-2, -1]) did not panic")
		}
	}()
	Log(I{big.NewFloat(-2), big.NewFloat(-1)}, p)
}

// TestCmp checks the three answers and the undecided touching case.
func TestCmp(t *testing.T) {
	a := I{big.NewFloat(1), big.NewFloat(2)}
	for x, want := range map[float64]int{0.5: 1, 1: 0, 1.5: 0, 2: 0, 3: -1} {
		if got := a.Cmp(big.NewFloat(x)); got != want {
			t.Errorf("[1, 2].Cmp(%v) = %d, want %d", x, got, want)
		}
	}
}

func BenchmarkExp256(b *testing.B) { benchmark(b, Exp, -3.7) }
func BenchmarkLog256(b *testing.B) { benchmark(b, Log, 3.7) }

// BenchmarkLog1pExp256 at x = −0.25 (e^x near 1: the slowest series) and x = −3.7.
func BenchmarkLog1pExp256(b *testing.B) {
	for _, x := range []float64{-0.25, -3.7} {
		b.Run(fmt.Sprint(x), func(b *testing.B) { benchmark(b, Log1pExp, x) })
	}
}

func benchmark(b *testing.B, f func(I, uint) I, x float64) {
	a := Point(x, 53)
	for b.Loop() {
		f(a, 256)
	}
}

// TestAbs: |x| over an interval above, below and across zero.
func TestAbs(t *testing.T) {
	for _, c := range []struct{ lo, hi, wantLo, wantHi float64 }{
		{1, 2, 1, 2}, {-3, -1, 1, 3}, {-3, 2, 0, 3}, {-1, 4, 0, 4},
	} {
		a := Abs(I{Lo: big.NewFloat(c.lo), Hi: big.NewFloat(c.hi)})
		lo, _ := a.Lo.Float64()
		hi, _ := a.Hi.Float64()
		if lo != c.wantLo || hi != c.wantHi {
			t.Errorf("Abs([%g, %g]) = [%g, %g], want [%g, %g]", c.lo, c.hi, lo, hi, c.wantLo, c.wantHi)
		}
	}
}
