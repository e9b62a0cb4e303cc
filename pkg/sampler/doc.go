// Package sampler draws from log-concave distributions π(x) ∝ exp(−f(x) − (m/2)‖x − c‖²) on
// convex domains, as the regularized exponential mechanism needs, with a total-variation
// error certified from public constants before any data is touched, or an explicit statement
// that mixing is not certified.
package sampler
