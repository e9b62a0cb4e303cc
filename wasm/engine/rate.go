package engine

import (
	"math"
	"time"

	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/loss"
	"github.com/privopt/privopt/pkg/rng"
)

// Rate is the measured speed of per-example loss queries (one example's loss value or
// gradient at one point) and of Gaussian draws on this machine: a query that reads p dense
// entries (one per parameter) takes about PerQuery + PerParam·p seconds, one that reads k
// non-zero entries of a row held sparse (one-hot data: see loss.RowWidth) PerQuery +
// PerNonZero·k, and a draw PerDraw. Calibrate measures them on synthetic data.
type Rate struct {
	// PerQuery, PerParam, PerNonZero and PerDraw are in seconds.
	PerQuery   float64 `json:"per_query"`
	PerParam   float64 `json:"per_param"`
	PerNonZero float64 `json:"per_non_zero"`
	PerDraw    float64 `json:"per_draw"`
	// Measured are the measured rates, in queries per second, on the rows measured.
	Measured []Measured `json:"measured"`
}

// Measured is one measured rate.
type Measured struct {
	// Dim is the dimension measured, NonZeros the non-zero entries of each row when the rows
	// were sparse (0 for dense rows), and QueriesPerSecond the rate there.
	Dim              int     `json:"dim"`
	NonZeros         int     `json:"non_zeros,omitempty"`
	QueriesPerSecond float64 `json:"queries_per_second"`
}

// Seconds predicts how long queries per-example queries that each read a row of width w
// (mech.Problem.QueryWidth) and draws Gaussian draws take.
func (r Rate) Seconds(queries, draws float64, w loss.Width) float64 {
	perEntry := r.PerParam
	if w.Sparse {
		perEntry = r.PerNonZero
	}
	return queries*(r.PerQuery+perEntry*w.Entries) + draws*r.PerDraw
}

// calibrationDims are the dimensions of the dense rows Calibrate measures, and
// calibrationNonZeros the non-zero entries of each of its sparse rows, of dimension
// calibrationDims[1]; calibrationRows the rows of its synthetic data; calibrationTime the
// least time each timing takes and calibrationRepeats how many timings each measurement keeps
// the fastest of.
var calibrationDims = [2]int{16, 128}

const (
	calibrationNonZeros = 16
	calibrationRows     = 256
	calibrationTime     = 15 * time.Millisecond
	calibrationRepeats  = 3
)

// sink keeps the calibration's results alive, so the compiler cannot drop the queries.
var sink float64

// Calibrate measures the rate of per-example queries of the logistic loss on synthetic data
// (fixed rows of norm at most 1, never the person's data): on dense rows at two dimensions, to
// fit the affine cost per query, and on sparse rows (calibrationNonZeros non-zero entries per
// row, which the loss holds sparse), for the cost of a non-zero entry. Each timing doubles its
// number of queries until it takes at least 15 ms, and each measurement keeps the fastest of
// three timings (the others were slowed by whatever else the machine did), after a first round
// of measurements that is discarded (a browser runs WebAssembly with a quick baseline compiler
// first and recompiles hot code later); the whole calibration takes about 0.3 to 0.6 s, in the
// engine's worker. Its result is a prediction, not a guarantee: a mechanism's queries may cost
// more or less than the logistic loss's.
func Calibrate() *Rate {
	r := &Rate{}
	var secs [2]float64
	sparseDim := calibrationDims[1]
	for _, d := range calibrationDims {
		secondsPerQuery(d, d) // warm-up: a WebAssembly engine compiles hot code again, faster
	}
	secondsPerQuery(sparseDim, calibrationNonZeros)
	for k, d := range calibrationDims {
		secs[k] = secondsPerQuery(d, d)
		r.Measured = append(r.Measured, Measured{Dim: d, QueriesPerSecond: 1 / secs[k]})
	}
	sparse := secondsPerQuery(sparseDim, calibrationNonZeros)
	r.Measured = append(r.Measured, Measured{Dim: sparseDim, NonZeros: calibrationNonZeros, QueriesPerSecond: 1 / sparse})
	d0, d1 := float64(calibrationDims[0]), float64(calibrationDims[1])
	r.PerParam = (secs[1] - secs[0]) / (d1 - d0)
	r.PerQuery = secs[0] - r.PerParam*d0
	if !(r.PerParam > 0) || r.PerQuery < 0 { // timer noise: fall back to a cost proportional to p
		r.PerParam, r.PerQuery = secs[1]/d1, 0
	}
	r.PerNonZero = (sparse - r.PerQuery) / calibrationNonZeros
	if !(r.PerNonZero > 0) { // timer noise: a non-zero costs at least a dense entry
		r.PerNonZero = r.PerParam
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

// secondsPerQuery measures the time of one query of the logistic loss at dimension d, on
// rows with k ≤ d non-zero entries (dense rows when k = d; sparse ones, at spread columns that
// shift from row to row, when loss.SparseRows says the loss holds them sparse). A query is what
// the mechanisms ask: a value of one example, or its share of a full-batch gradient.
func secondsPerQuery(d, k int) float64 {
	ds := &data.Dataset{N: calibrationRows, D: d, X: make([]float64, calibrationRows*d), Y: make([]float64, calibrationRows)}
	scale := 1 / (6 * math.Sqrt(float64(k))) // every entry is at most 1/√k in magnitude
	for i := range ds.N {
		for j := range k {
			v := float64((i*31+j*17)%13 - 6)
			if v == 0 {
				v = 1
			}
			ds.X[i*d+(j*(d/k)+i)%d] = v * scale
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
	measure := func(n int) time.Duration { // n/(2·rows) passes of a value per row and a gradient
		start := time.Now()
		s := 0.0
		for range n / (2 * calibrationRows) {
			for i := range calibrationRows {
				s += l.Value(w, i)
			}
			l.MeanGrad(g, w)
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
