package ui

import "github.com/privopt/privopt/internal/curves"

// Root is the page: the app, the privacy-curve widget of Gaussian differential privacy and
// the About view. (The widget alone, for an iframe, is the light page widget.html.)
type Root struct {
	// Widget is the privacy-curve widget; App the app; About the About view.
	Widget *curves.Widget
	App    *App
	About  *About
}

// NewRoot returns the page for the parameters of its URL's query, decoded (a map, not
// url.Values: net/url would add 130 kB to app.wasm), talking to the engine through host. The
// query configures the app (see ApplyQuery).
func NewRoot(q map[string]string, host Host) *Root {
	r := &Root{Widget: curves.New(), App: NewApp(host), About: NewAbout()}
	r.App.ApplyQuery(q)
	return r
}
