package loss

import (
	"fmt"
	"github.com/privopt/privopt/pkg/detmath"
	"math"

	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/geom"
)

// Multinomial is the multinomial logistic (softmax cross-entropy) loss over K classes:
// ℓ_i(W) = log Σ_k exp(⟨W_k, x_i⟩) − ⟨W_{y_i}, x_i⟩, with W the K×D weight matrix stored
// row-major (row k, W[k·D:(k+1)·D], holds class k's weights; its Schatten norms are those of
// the D×K matrix of the issue). Labels are class indices 0..K−1. The gradient is the rank-one
// matrix (p − e_y)·xᵀ with p = softmax(Wx).
//
// It keeps references to the dataset's rows and Y and holds scratch vectors for Value and
// Grad, which are not safe for concurrent use (Mean is). It reads every row dense (rows held
// sparse written out one at a time), with the dense loops' bits.
type Multinomial struct {
	x       denseRows // the rows held dense, when they are
	y       []float64
	sparse  *data.Sparse // the rows when they are held sparse
	n, d, k int
	b       Bounds
	z, row  []float64 // scratch: the K scores, a row written out
}

// NewMultinomial returns the multinomial logistic loss over ds with k ≥ 2 classes and the
// declared bounds b (b.Y is ignored). It returns an error (naming the row, numbered from 0)
// when ds is malformed, an entry is not finite, a row exceeds the feature bound or a label is
// not an integer in [0, k).
func NewMultinomial(ds *data.Dataset, k int, b Bounds) (*Multinomial, error) {
	if k < 2 {
		return nil, fmt.Errorf("loss: multinomial: %d classes, need at least 2", k)
	}
	err := checkData(ds, b, func(y float64) error {
		if y != math.Trunc(y) || y < 0 || y >= float64(k) {
			return fmt.Errorf("label %v is not a class index in 0..%d", y, k-1)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("loss: multinomial: %w", err)
	}
	return &Multinomial{x: denseOf(ds), y: ds.Y, sparse: entriesOf(ds), n: ds.N, d: ds.D, k: k, b: b, z: make([]float64, k), row: make([]float64, ds.D)}, nil
}

// Dim returns K·D.
func (m *Multinomial) Dim() int { return m.k * m.d }

// Len returns N.
func (m *Multinomial) Len() int { return m.n }

// Classes returns K.
func (m *Multinomial) Classes() int { return m.k }

// scores fills zs (K long) with the scores ⟨W_k, x⟩ of a row x and returns log Σ_k exp(z_k)
// (computed after subtracting the largest score, so it never overflows).
func (m *Multinomial) scores(zs, w, row []float64) float64 {
	zmax := math.Inf(-1)
	for c := range zs {
		z := dot(row, w[c*m.d:(c+1)*m.d])
		zs[c] = z
		zmax = math.Max(zmax, z)
	}
	s := 0.0
	for _, z := range zs {
		s += detmath.Exp(z - zmax)
	}
	return zmax + detmath.Log(s)
}

// Value returns log Σ_k exp(⟨W_k, x_i⟩) − ⟨W_{y_i}, x_i⟩.
func (m *Multinomial) Value(w []float64, i int) float64 {
	checkLen(w, m.k*m.d)
	lse := m.scores(m.z, w, denseRow(m.x, m.sparse, i, m.d, m.row))
	return lse - m.z[int(m.y[i])]
}

// Grad writes (p − e_{y_i})·x_iᵀ into grad (row k is (p_k − [k = y_i])·x_i) and returns ℓ_i(W).
func (m *Multinomial) Grad(grad, w []float64, i int) float64 {
	checkLen(w, m.k*m.d)
	checkLen(grad, m.k*m.d)
	row := denseRow(m.x, m.sparse, i, m.d, m.row)
	lse := m.scores(m.z, w, row)
	y := int(m.y[i])
	v := lse - m.z[y]
	for c, z := range m.z {
		g := detmath.Exp(z - lse)
		if c == y {
			g--
		}
		scaleTo(grad[c*m.d:(c+1)*m.d], g, row)
	}
	return v
}

// Mean returns (1/N)Σ ℓ_i(W) (N as in Loss.Mean) and, if grad is not nil, writes the mean
// gradient into it; more than one chunk of rows is summed on up to Workers() goroutines,
// or by the Runner set (sumChunks). It uses no scratch of m's, so passes may run
// concurrently (Value and Grad may not).
func (m *Multinomial) Mean(grad, w []float64) float64 {
	checkLen(w, m.k*m.d)
	if grad != nil {
		checkLen(grad, m.k*m.d)
	}
	return meanOver(m, m.n, m.b, grad, w)
}

// addRowTerms returns Σ ℓ_i(W) over the rows lo to hi − 1 and, unless grad is empty, adds their
// gradients into it. It uses scratch of its own (the scores on the stack for up to 16 classes,
// and a row when they are held sparse or as float32).
func (m *Multinomial) addRowTerms(grad, w []float64, lo, hi int) float64 {
	var zb [16]float64
	zs := zb[:min(m.k, len(zb))]
	if m.k > len(zb) {
		zs = make([]float64, m.k)
	}
	var buf []float64
	if !m.x.held() || m.x.float32() {
		buf = make([]float64, m.d)
	}
	sum := 0.0
	for i := lo; i < hi; i++ {
		row := denseRow(m.x, m.sparse, i, m.d, buf)
		lse := m.scores(zs, w, row)
		y := int(m.y[i])
		sum += lse - zs[y]
		if len(grad) == 0 {
			continue
		}
		for c, z := range zs {
			p := detmath.Exp(z - lse)
			if c == y {
				p--
			}
			if p != 0 {
				axpy(grad[c*m.d:(c+1)*m.d], p, row)
			}
		}
	}
	return sum
}

// Constants returns the constants in the Schatten-p norm of W (any p ∈ [1, ∞]; Schatten-2 is
// the Frobenius norm, the ℓ2 norm of the stored vector), with X₂ = NormBound(X, XNorm, 2, D)
// (feature bound inflated by 2·Slack):
//   - Lipschitz G = √2·X₂ for every p: the gradient (p − e_y)xᵀ has rank one, so all its
//     Schatten norms equal ‖p − e_y‖₂‖x‖₂, and ‖p − e_y‖₂² = (1 − p_y)² + Σ_{k≠y} p_k² ≤
//     2(1 − p_y)² ≤ 2 (approached when p concentrates on a wrong class);
//   - Smoothness β = X₂²/2 for every p: the Hessian form is Var_p(Vx) ≤ ½‖Vx‖₂² ≤
//     ½‖V‖²_op‖x‖₂² ≤ ½‖V‖²_{S_p}‖x‖₂² (a variance is at most a quarter of the squared range);
//   - StrongConvexity 0.
//
// The domain only needs the right dimension. It returns an error for an infinite feature
// bound.
func (m *Multinomial) Constants(dom geom.Domain, p float64) (Constants, error) {
	if err := checkDomain(dom, m.k*m.d, p); err != nil {
		return Constants{}, fmt.Errorf("loss: constants: %w", err)
	}
	x2 := geom.NormBound(m.b.xBound(), m.b.XNorm, 2, m.d)
	if math.IsInf(x2, 1) {
		return Constants{}, fmt.Errorf("loss: constants: the feature bound is infinite; declare a finite bound")
	}
	return Constants{Norm: p, Lipschitz: math.Sqrt2 * x2, Smoothness: x2 * x2 / 2}, nil
}
