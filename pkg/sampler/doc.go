// Package sampler draws from strongly log-concave distributions
// π(x) ∝ exp(−f(x) − (m/2)‖x − c‖²) on the whole space, a box or an ℓ2 ball, as the regularized
// exponential mechanism needs.
//
// The certified mode is the proximal (alternating) sampler of Lee, Shen and Tian with one of
// three restricted Gaussian oracles (value rejection, a stochastic per-example Poisson
// estimator whose cost per step does not grow with the number of examples, and exact envelope
// rejection with subgradients). NewPlan fixes its step size, number of steps and every loop
// cap from public constants before any data is touched, and states the total-variation error
// it certifies for every dataset, with the expected cost. The fast modes, MALA and projected
// Langevin, say "mixing not certified".
//
// Runs take a context (cancellation), report progress through a callback, keep no global
// state, allocate nothing in their inner loops, and are deterministic for a seeded rng.Rand;
// RunChains runs independent chains in parallel goroutines.
package sampler
