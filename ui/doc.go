// Package ui holds privopt's Vugu components: the page a person uses, rendered in the
// browser by wasm/app. The page's state and logic are plain Go (App, and internal/curves'
// Widget, which widget.html shows alone) and its components are views of them. Nothing here
// holds JavaScript: the engine's Web Workers, the chosen file and downloads are reached
// through the Host interface that wasm/app implements, so the whole app can be rendered and
// tested natively with Vugu's static renderer and engines in the same process. The *_gen.go files are generated from the .vugu files by
// `go generate ./ui` (./build.sh build runs the same, and says when they changed).
package ui

//go:generate go tool vugugen -skip-go-mod -skip-main .
