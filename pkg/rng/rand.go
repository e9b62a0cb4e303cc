package rng

import (
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
)

// Source is a source of uniformly distributed 64-bit values, as in math/rand/v2.
// A Source need not be safe for concurrent use.
type Source interface {
	Uint64() uint64
}

// NotPrivateLabel is the text a privacy report shows for a release whose randomness came from
// a Rand with Seeded() == true: anyone who knows the seed can subtract the noise.
const NotPrivateLabel = "seeded: not private"

// ReseedPeriod is the number of 64-bit outputs after which the Rand returned by New rekeys its
// ChaCha8 generator from the operating system (8 MiB of output).
//
// Why: ChaCha8 alone already erases its key as it goes (math/rand/v2), so a state captured
// later does not reveal earlier outputs; rekeying from the OS also makes the outputs after the
// next rekey unpredictable to someone who captured the state (recovery from compromise), and it
// bounds how much output any one key produces. Each rekey costs one 32-byte read of the OS
// generator (about a microsecond natively, a few in the browser), below 1e-6 of the time spent
// generating the 2^20 outputs in between.
const ReseedPeriod = 1 << 20

// Rand draws random numbers and variates from a Source. Make one with New, Seeded or
// WithSource (the zero Rand has no Source). A Rand is not safe for concurrent use: give each
// goroutine its own, made with Split.
type Rand struct {
	src    Source
	seeded bool
	bitBuf uint64 // unused random bits for the exact samplers, consumed from the low end
	nBits  uint   // number of valid bits in bitBuf
}

// New returns a Rand for private releases: a ChaCha8 generator keyed from the operating
// system's CSPRNG (crypto/rand natively: getrandom(2) on Linux; crypto.getRandomValues under
// js/wasm, in the browser, node or a Worker) and rekeyed from it every ReseedPeriod outputs,
// each new key being the OS bytes XOR 32 bytes of the old generator's output. Seeded()
// reports false.
//
// If the OS generator fails, the program stops, so New never hands out a Rand without OS
// entropy.
func New() *Rand {
	s := &osSource{}
	s.rekey()
	return &Rand{src: s}
}

// Seeded returns a Rand whose stream is fully determined by seed: the ChaCha8 generator of
// math/rand/v2 keyed with the 8 little-endian bytes of seed followed by 24 zero bytes. The
// stream is the same on every platform (see the package documentation). For tests and
// reproducible demos only: Seeded() reports true and a release drawn from it must carry
// NotPrivateLabel.
func Seeded(seed uint64) *Rand {
	var key [32]byte
	binary.LittleEndian.PutUint64(key[:8], seed)
	return &Rand{src: rand.NewChaCha8(key), seeded: true}
}

// WithSource returns a Rand that draws from src (which must not be nil). The package cannot
// vouch for src, so Seeded() reports true (not private).
func WithSource(src Source) *Rand {
	return &Rand{src: src, seeded: true}
}

// Seeded reports whether r's stream is reproducible (made by Seeded or WithSource, or split
// from such a Rand). A release made with such a Rand is not private; its report must say
// NotPrivateLabel.
func (r *Rand) Seeded() bool { return r.seeded }

// Split returns a new Rand for an independent stream, for example for one of several parallel
// chains. For a Rand made by New, the child is a fresh New() (its own OS key and rekeying). For
// a seeded Rand, the child is the ChaCha8 generator keyed with the next 32 bytes of r's stream
// (four Uint64 draws): deterministic, so a seeded run with parallel chains is reproducible, and
// the streams are independent as far as ChaCha8 is a pseudorandom function. Split advances r;
// call it before handing Rands to goroutines.
func (r *Rand) Split() *Rand {
	if !r.seeded {
		return New()
	}
	var key [32]byte
	for i := 0; i < 4; i++ {
		binary.LittleEndian.PutUint64(key[8*i:], r.src.Uint64())
	}
	return &Rand{src: rand.NewChaCha8(key), seeded: true}
}

// Uint64 returns a uniformly distributed 64-bit value.
func (r *Rand) Uint64() uint64 { return r.src.Uint64() }

// Uint64N returns a uniform integer in [0, n), n > 0, from src, without bias: the high word
// of x·n for a uniform 64-bit x, rejecting the x whose low word falls below 2^64 mod n
// (Lemire, "Fast Random Integer Generation in an Interval", 2019).
func Uint64N(src Source, n uint64) uint64 {
	hi, lo := bits.Mul64(src.Uint64(), n)
	if lo < n {
		threshold := -n % n // 2^64 mod n
		for lo < threshold {
			hi, lo = bits.Mul64(src.Uint64(), n)
		}
	}
	return hi
}

// IntN returns a uniform integer in [0, n) (Uint64N); n must be positive.
func (r *Rand) IntN(n int) int { return int(Uint64N(r.src, uint64(n))) }

// Float64 returns a uniform variate on [0, 1): a multiple of 2^−53 from the top 53 bits of
// one Uint64 (exactly uniform on that grid).
func (r *Rand) Float64() float64 {
	return float64(r.src.Uint64()>>11) * 0x1p-53
}

// openFloat64 returns a uniform variate on (0, 1): an odd multiple of 2^−54, never 0, so that
// its logarithm is finite.
func (r *Rand) openFloat64() float64 {
	return (float64(r.src.Uint64()>>11) + 0.5) * 0x1p-53
}

// uint64n returns a uniform integer in [0, n) for n > 0, exactly (Lemire 2019: multiply and
// reject the biased low products).
func (r *Rand) uint64n(n uint64) uint64 {
	hi, lo := bits.Mul64(r.src.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(r.src.Uint64(), n)
		}
	}
	return hi
}

// bit returns one uniform random bit, buffering the other 63 bits of each Uint64.
func (r *Rand) bit() bool {
	if r.nBits == 0 {
		r.bitBuf = r.src.Uint64()
		r.nBits = 64
	}
	b := r.bitBuf&1 == 1
	r.bitBuf >>= 1
	r.nBits--
	return b
}

// osSource is ChaCha8 keyed from the operating system and rekeyed every ReseedPeriod outputs.
type osSource struct {
	c    *rand.ChaCha8
	left int
}

// rekey sets a fresh key: 32 bytes from the OS (osEntropy), XORed with 32 bytes of the current
// generator's output when there is one (so the new key is as unpredictable as the better of
// the two).
func (s *osSource) rekey() {
	var key [32]byte
	osEntropy(key[:])
	if s.c == nil {
		s.c = rand.NewChaCha8(key)
	} else {
		for i := 0; i < 4; i++ {
			v := binary.LittleEndian.Uint64(key[8*i:]) ^ s.c.Uint64()
			binary.LittleEndian.PutUint64(key[8*i:], v)
		}
		s.c.Seed(key)
	}
	s.left = ReseedPeriod
}

// Uint64 returns the next output, rekeying first when ReseedPeriod outputs have been used.
func (s *osSource) Uint64() uint64 {
	if s.left == 0 {
		s.rekey()
	}
	s.left--
	return s.c.Uint64()
}
