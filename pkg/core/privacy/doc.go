// Package privacy holds privopt's privacy accounting: numbers in, numbers out, never data.
//
// It evaluates privacy curves δ(ε) and tradeoff functions T(α) of the mechanisms privopt
// implements, converts between them, calibrates a mechanism's noise to a target (ε, δ),
// and describes what a release certifies. Every function here is deterministic and free of
// side effects, so the same code runs natively, in the browser's Web Worker and in the
// Cloudflare Worker.
package privacy
