//go:build !(js && wasm)

package rng

import crand "crypto/rand"

// osEntropy fills key from the operating system's CSPRNG (crypto/rand: getrandom(2) on Linux).
// crypto/rand.Read never returns an error (Go ≥ 1.24): if the OS generator fails, the program
// stops.
func osEntropy(key []byte) {
	if _, err := crand.Read(key); err != nil {
		// Unreachable (see above). Going on without OS entropy would silently break privacy.
		panic("rng: crypto/rand failed: " + err.Error())
	}
}
