package engine

import (
	"math"
	"time"

	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/loss"
	"github.com/privopt/privopt/pkg/rng"
)

// Rate is the measured speed of per-example loss queries (one example's loss value or
// gradient at one point) and of Gaussian draws on this machine: a query with p parameters
// takes about PerQuery + PerParam·p seconds and a draw PerDraw. Calibrate measures them on
// synthetic data.
type Rate struct {
	// PerQuery, PerParam and PerDraw are in seconds.
	PerQuery float64 `json:"per_query"`
	PerParam float64 `json:"per_param"`
	PerDraw  float64 `json:"per_draw"`
	// Measured are the measured rates, in queries per second, at the dimensions measured.
	Measured []Measured `json:"measured"`
}

// Measured is one measured rate.
type Measured struct {
	// Dim is the dimension measured and QueriesPerSecond the rate there.
	Dim              int     `json:"dim"`
	QueriesPerSecond float64 `json:"queries_per_second"`
}

// Seconds predicts how long queries per-example queries with p parameters and draws Gaussian
// draws take.
func (r Rate) Seconds(queries, draws float64, p int) float64 {
	return queries*(r.PerQuery+r.PerParam*float64(p)) + draws*r.PerDraw
}

// calibrationDims are the dimensions Calibrate measures; calibrationRows the rows of its
// synthetic data; calibrationTime the least time each timing takes and calibrationRepeats
// how many timings each measurement keeps the fastest of.
var calibrationDims = [2]int{16, 128}

const (
	calibrationRows    = 256
	calibrationTime    = 15 * time.Millisecond
	calibrationRepeats = 3
)

// sink keeps the calibration's results alive, so the compiler cannot drop the queries.
var sink float64

// Calibrate measures the rate of per-example queries of the logistic loss on synthetic data
// (fixed rows of norm at most 1, never the person's data) at two dimensions, and fits the
// affine cost per query. Each timing doubles its number of queries until it takes at least
// 15 ms, and each measurement keeps the fastest of three timings (the others were slowed by
// whatever else the machine did), after a first round of measurements that is discarded (a
// browser runs WebAssembly with a quick baseline compiler first and recompiles hot code
// later); the whole calibration takes about 0.2 to 0.4 s, in the engine's worker. Its
// result is a prediction, not a guarantee: a mechanism's queries may cost more or less than
// the logistic loss's.
func Calibrate() *Rate {
	r := &Rate{}
	var secs [2]float64
	for _, d := range calibrationDims {
		secondsPerQuery(d) // warm-up: a WebAssembly engine compiles hot code again, faster
	}
	for k, d := range calibrationDims {
		secs[k] = secondsPerQuery(d)
		r.Measured = append(r.Measured, Measured{Dim: d, QueriesPerSecond: 1 / secs[k]})
	}
	d0, d1 := float64(calibrationDims[0]), float64(calibrationDims[1])
	r.PerParam = (secs[1] - secs[0]) / (d1 - d0)
	r.PerQuery = secs[0] - r.PerParam*d0
	if !(r.PerParam > 0) || r.PerQuery < 0 { // timer noise: fall back to a cost proportional to p
		r.PerParam, r.PerQuery = secs[1]/d1, 0
	}
	r.PerDraw = secondsPerDraw()
	return r
}

// secondsPerDraw measures the time of one Gaussian draw (the proposals' coordinates), as
// secondsPerQuery does: the fastest of three timings of at least 15 ms.
func secondsPerDraw() float64 {
	r := rng.Seeded(1) // a fixed stream: a calibration, not a release
	buf := make([]float64, 128)
	measure := func(n int) time.Duration {
		start := time.Now()
		for range n / len(buf) {
			r.NormalVec(buf)
			sink += buf[0]
		}
		return time.Since(start)
	}
	n := 1 << 14
	for measure(n) < calibrationTime {
		n *= 2
	}
	best := measure(n)
	for range calibrationRepeats - 1 {
		best = min(best, measure(n))
	}
	return best.Seconds() / float64(n)
}

// secondsPerQuery measures the time of one query of the logistic loss at dimension d.
func secondsPerQuery(d int) float64 {
	ds := &data.Dataset{N: calibrationRows, D: d, X: make([]float64, calibrationRows*d), Y: make([]float64, calibrationRows)}
	scale := 1 / (6 * math.Sqrt(float64(d))) // every entry is at most 1/√d in magnitude
	for i := range ds.N {
		for j := range d {
			ds.X[i*d+j] = float64((i*31+j*17)%13-6) * scale
		}
		ds.Y[i] = float64(1 - 2*(i%2))
	}
	l, err := loss.NewLinear(loss.Logistic{}, ds, loss.Bounds{X: 1, XNorm: 2, Y: 1})
	if err != nil {
		panic(err) // the synthetic rows are within the bound by construction
	}
	w, g := make([]float64, d), make([]float64, d)
	for j := range w {
		w[j] = 0.1 * float64(j%5-2)
	}
	measure := func(n int) time.Duration {
		start := time.Now()
		s := 0.0
		for q := range n / 2 {
			s += l.Value(w, q%calibrationRows)
			l.Grad(g, w, q%calibrationRows)
			s += g[0]
		}
		sink += s
		return time.Since(start)
	}
	n := 1024
	for measure(n) < calibrationTime {
		n *= 2
	}
	best := measure(n)
	for range calibrationRepeats - 1 {
		best = min(best, measure(n))
	}
	return best.Seconds() / float64(n)
}
