//go:build js && wasm

package rng

import "syscall/js"

// osEntropy fills key from the JavaScript host's CSPRNG, crypto.getRandomValues (the browser's,
// node's or a Worker's): the generator crypto/rand itself reads on js/wasm, called directly so
// that the page's WebAssembly does not link crypto/rand's other machinery (about 54 kB
// compressed). A host without it stops the program: going on without OS entropy would
// silently break privacy.
func osEntropy(key []byte) {
	c := js.Global().Get("crypto")
	if c.Type() != js.TypeObject || c.Get("getRandomValues").Type() != js.TypeFunction {
		panic("rng: the JavaScript host has no crypto.getRandomValues: no private randomness")
	}
	a := js.Global().Get("Uint8Array").New(len(key)) // at most 65,536 bytes a call; a key is 32
	c.Call("getRandomValues", a)
	if js.CopyBytesToGo(key, a) != len(key) {
		panic("rng: crypto.getRandomValues returned too few bytes")
	}
}
