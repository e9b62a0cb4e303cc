package rng

import (
	"math"

	"github.com/privopt/privopt/pkg/detmath"
)

// zigLayers is the number of layers of each ziggurat; a layer is chosen by 8 random bits.
const zigLayers = 256

// A ziggurat holds the tables of the Marsaglia–Tsang (2000) ziggurat method for a decreasing
// density f on [0, ∞) with f(0) = 1: 256 layers of equal area v, layer 0 being the base
// strip [0, r]×[0, f(r)] together with the tail beyond r.
//
// With x_0 = v/f(r), x_1 = r, x_{i+1} = f⁻¹(v/x_i + f(x_i)) and x_256 = 0, layer i is the
// rectangle [0, x_i]×[f(x_i), f(x_{i+1})] (for i ≥ 1). A draw picks i uniformly, sets
// x = u·x_i with u uniform on [0, 1) (53 bits) and accepts at once when x < x_{i+1}; otherwise
// it accepts x with probability given by the curve inside the layer (the wedge test), or, in
// layer 0, draws from the tail. The tables are in ziggurat_tables.go, written by
// TestZigguratTables (run it with -update to regenerate), so that every platform uses the
// same bits.
type ziggurat struct {
	r float64                // x_1, where the tail starts
	k [zigLayers]uint64      // ⌊2^53·x_{i+1}/x_i⌋: u < k[i] accepts without a wedge test
	w [zigLayers]float64     // x_i·2^−53, so that x = u·w[i] for a 53-bit integer u
	f [zigLayers + 1]float64 // f(x_i), with f[256] = f(0) = 1
}

// Normal returns a standard normal variate.
//
// Method: the ziggurat of Marsaglia and Tsang (2000) for the half-normal with 256 layers,
// one 64-bit draw per attempt (8 bits choose the layer, 1 bit the sign, 53 bits the abscissa;
// disjoint, so the layer and the abscissa are independent, as Doornik (2005) requires). The
// tail beyond r ≈ 3.654 uses Marsaglia's (1964) exact method with two exponential variates.
// Exactness: a rejection sampler whose only errors are the float64 rounding of its tables and
// of the wedge test (relative ~1e-16), and the 53-bit abscissa grid within each layer.
// 98.5% of attempts take the fast path (one Uint64, one multiply, one compare).
func (r *Rand) Normal() float64 {
	z := &normalZig
	for {
		b := r.src.Uint64()
		i := b & (zigLayers - 1)
		u := b >> 11
		x := float64(u) * z.w[i]
		if u >= z.k[i] {
			if i == 0 {
				x = z.r + r.normalTail()
			} else if z.f[i]+(z.f[i+1]-z.f[i])*r.Float64() >= detmath.Exp(-0.5*x*x) {
				continue
			}
		}
		// Bit 8 of b becomes the sign bit of x (branch-free: the sign is unpredictable).
		return math.Float64frombits(math.Float64bits(x) | (b&0x100)<<55)
	}
}

// normalTail returns a draw of X − r where X is a standard normal conditioned on X > r
// (Marsaglia 1964): with E₁, E₂ standard exponential, x = E₁/r is accepted when 2E₂ > x².
func (r *Rand) normalTail() float64 {
	for {
		x := r.Exp() / normalZig.r
		if 2*r.Exp() > x*x {
			return x
		}
	}
}

// NormalVec fills dst with independent standard normal variates (no allocation).
func (r *Rand) NormalVec(dst []float64) {
	for i := range dst {
		dst[i] = r.Normal()
	}
}

// Exp returns a standard exponential variate (rate 1, mean 1).
//
// Method: the Marsaglia–Tsang (2000) ziggurat for e^−x with 256 layers, one 64-bit draw per
// attempt (8 bits for the layer, 53 for the abscissa). The tail beyond r ≈ 7.697 is sampled
// exactly by memorylessness: r plus a fresh exponential. Exactness as for Normal: only the
// float64 rounding of the tables and of the wedge test; the tail is unbounded (no truncation).
// 97.8% of attempts take the fast path.
func (r *Rand) Exp() float64 {
	z := &expZig
	offset := 0.0
	for {
		b := r.src.Uint64()
		i := b & (zigLayers - 1)
		u := b >> 11
		x := float64(u) * z.w[i]
		if u < z.k[i] {
			return offset + x
		}
		if i == 0 {
			offset += z.r
			continue
		}
		if z.f[i]+(z.f[i+1]-z.f[i])*r.Float64() < detmath.Exp(-x) {
			return offset + x
		}
	}
}
