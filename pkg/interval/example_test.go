package interval_test

import (
	"fmt"
	"math"
	"math/big"

	"github.com/privopt/privopt/pkg/interval"
)

// A decision "accept if u < e^{−G}" that float64 cannot make: G = c·[log(1 + e^{−m}) −
// log(1 + e^{−m′})] for two margins one ulp apart, and u is the float64 value of e^{−G}
// computed in float64, so that float64's own error decides nothing. At 256 bits the enclosure
// of e^{−G} is a few times 2^−256 wide and lies entirely on one side of u.
func Example() {
	const prec = 256
	c, m, m2 := 3.0, 0.75, math.Nextafter(0.75, 1)
	g := interval.MulFloat(interval.Sub(
		interval.Log1pExp(interval.Point(-m, prec), prec),
		interval.Log1pExp(interval.Point(-m2, prec), prec), prec), c, prec)
	e := interval.Exp(interval.Neg(g), prec)

	u := math.Exp(-c * (math.Log1p(math.Exp(-m)) - math.Log1p(math.Exp(-m2))))
	fmt.Printf("u      = %.25f\n", u)
	fmt.Printf("e^{−G} ≈ %.25f, enclosed in an interval %.2g wide\n", e.Lo, e.Width())
	switch e.Cmp(big.NewFloat(u)) {
	case 1:
		fmt.Println("accept: u < e^{−G}")
	case -1:
		fmt.Println("reject: u > e^{−G}")
	default:
		fmt.Println("undecided: raise the precision")
	}
	// Output:
	// u      = 0.9999999999999997779553951
	// e^{−G} ≈ 0.9999999999999998931450415, enclosed in an interval 3.5e-77 wide
	// accept: u < e^{−G}
}
