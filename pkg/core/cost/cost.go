// Package cost is privopt's model of a fit's work: what a plan predicts it will do (Cost), how
// fast a machine does it (Rates), and the time that makes. Every mechanism's plan states its
// Cost from public quantities before the data is read; the page turns it into a predicted time
// with the rates it measured on the person's machine.
package cost

import "github.com/privopt/privopt/pkg/core/loss"

// Cost is the expected work of a run: outer steps, per-example value queries (one query
// evaluates one example's term at one point), per-example gradient queries, and Gaussian
// coordinates drawn (a sampler's proposals cost d draws each).
type Cost struct {
	Steps     float64 `json:"steps"`
	Queries   float64 `json:"queries"`
	Gradients float64 `json:"gradients"`
	Draws     float64 `json:"draws"`
}

// Rates are throughputs, per second, of the operations a Cost counts.
type Rates struct {
	Queries, Gradients, Draws float64
}

// Seconds predicts the run time at the given rates.
func (c Cost) Seconds(r Rates) float64 {
	return c.Queries/r.Queries + c.Gradients/r.Gradients + c.Draws/r.Draws
}

// Reference are round native figures on dense rows at d = 92 (see the benchmarks of
// pkg/core/loss and pkg/sampler), for comparing plans, which never depend on the data;
// predictions of run times should use measured rates, or ReferenceFor the data's rows.
var Reference = Rates{Queries: 1e7, Gradients: 7e6, Draws: 1e8}

// The model of ReferenceFor, from BenchmarkQueryWidth of pkg/core/loss (natively, logistic
// loss): a query's time at 92 dense entries is about 30 % fixed (the scalar loss's exponential
// and logarithm, the loop) and 70 % proportional to the entries read, and a non-zero entry of a
// row held sparse costs about two dense entries (an indexed load, and an indexed store for a
// gradient).
const (
	referenceWidth   = 92
	referenceFixed   = 0.3
	referenceNonZero = 2
)

// ReferenceFor returns Reference for queries that read a row of width w (see loss.RowWidth
// and mech.Problem.QueryWidth) instead of 92 dense entries: values and gradients take
// referenceFixed of their time at 92 entries plus the rest scaled by the entries read (each
// non-zero of a sparse row counting as referenceNonZero dense entries). Draws are per
// coordinate and do not change.
func ReferenceFor(w loss.Width) Rates {
	entries := w.Entries
	if w.Sparse {
		entries *= referenceNonZero
	}
	scale := referenceFixed + (1-referenceFixed)*entries/referenceWidth
	return Rates{Queries: Reference.Queries / scale, Gradients: Reference.Gradients / scale, Draws: Reference.Draws}
}
