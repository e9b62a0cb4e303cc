package rng

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// MultiNormal is the multivariate normal law N(mean, cov) with a positive definite covariance,
// factored once and sampled many times. Its methods do not modify it, so one MultiNormal may be
// shared by goroutines that each use their own Rand.
type MultiNormal struct {
	mean []float64
	l    []float64 // the Cholesky factor L (cov = L·Lᵀ), lower triangle, row-major d×d
}

// NewMultiNormal returns N(mean, cov). It returns an error wrapping ErrInvalid when the
// dimensions differ, d = 0, an entry of mean or cov is NaN or ±Inf, or cov is not (numerically)
// positive definite, which gonum's mat.Cholesky reports; a singular covariance is refused
// rather than regularised silently.
func NewMultiNormal(mean []float64, cov mat.Symmetric) (*MultiNormal, error) {
	d := len(mean)
	if d == 0 || cov.SymmetricDim() != d {
		return nil, fmt.Errorf("rng: NewMultiNormal: mean has length %d, covariance is %d×%d: %w",
			d, cov.SymmetricDim(), cov.SymmetricDim(), ErrInvalid)
	}
	for i, m := range mean {
		if math.IsNaN(m) || math.IsInf(m, 0) {
			return nil, fmt.Errorf("rng: NewMultiNormal: mean[%d] = %v: %w", i, m, ErrInvalid)
		}
		for j := 0; j <= i; j++ {
			if c := cov.At(i, j); math.IsNaN(c) || math.IsInf(c, 0) {
				return nil, fmt.Errorf("rng: NewMultiNormal: cov[%d][%d] = %v: %w", i, j, c, ErrInvalid)
			}
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(cov) {
		return nil, fmt.Errorf("rng: NewMultiNormal: covariance is not positive definite: %w", ErrInvalid)
	}
	var lt mat.TriDense
	ch.LTo(&lt)
	m := &MultiNormal{mean: append([]float64(nil), mean...), l: make([]float64, d*d)}
	for i := 0; i < d; i++ {
		for j := 0; j <= i; j++ {
			m.l[i*d+j] = lt.At(i, j)
		}
	}
	return m, nil
}

// Dim returns the dimension d.
func (m *MultiNormal) Dim() int { return len(m.mean) }

// Sample fills dst (length d) with a draw mean + L·z, z a standard normal vector (NormalVec),
// cov = L·Lᵀ. It does not allocate: the product is formed in place from the last row up, in
// O(d²). It returns an error wrapping ErrInvalid if len(dst) ≠ d.
//
// Exactness: that of Normal, plus the rounding of the factorisation (gonum's, whose kernels are
// assembly on amd64, so a seeded stream can differ from js/wasm in the last bits) and of the
// product.
func (m *MultiNormal) Sample(r *Rand, dst []float64) error {
	d := len(m.mean)
	if len(dst) != d {
		return fmt.Errorf("rng: MultiNormal.Sample: dst has length %d, want %d: %w", len(dst), d, ErrInvalid)
	}
	r.NormalVec(dst)
	for i := d - 1; i >= 0; i-- {
		row := m.l[i*d : i*d+i+1]
		s := 0.0
		for j, lij := range row {
			s += lij * dst[j]
		}
		dst[i] = m.mean[i] + s
	}
	return nil
}
