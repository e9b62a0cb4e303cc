// Package rng is where every random number privopt draws comes from: a small Source
// interface, a default source seeded from the operating system's CSPRNG, a seeded source for
// reproducible tests and demos (releases made from it are marked not private), and the
// distributions the mechanisms need, including noise that is safe against floating-point
// attacks for released values.
package rng
