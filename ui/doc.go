// Package ui holds privopt's Vugu components: the page a person uses, rendered in the
// browser by wasm/app. The components hold no JavaScript: interaction with the browser
// (the engine Web Worker, files) goes through interfaces that wasm/app implements, so every
// component can be rendered and tested natively with Vugu's static renderer.
package ui
