package ui

// Root is the page: the app, and the privacy-curve widget of Gaussian differential privacy;
// or, in the embed mode, the widget alone.
type Root struct {
	// Embed selects the embed mode: only the privacy-curve widget (the fields, the results
	// and the two plots), with no header, footer or explanation, for an iframe in a course page.
	Embed bool
	// Widget is the privacy-curve widget; App the app (nil in the embed mode).
	Widget *GDPWidget
	App    *App
	// About is the About view (nil in the embed mode).
	About *About
}

// NewRoot returns the page for the parameters of its URL's query, decoded (a map, not
// url.Values: net/url would add 130 kB to app.wasm), talking to the engine through host.
// embed=curve selects the embed mode, where mu, eps and delta are entered in the widget's
// fields as if typed (an invalid value keeps the field's default and shows its error) and no
// engine is used. Otherwise the query configures the app (see ApplyQuery). Other parameters
// are ignored.
func NewRoot(q map[string]string, host Host) *Root {
	r := &Root{Embed: q["embed"] == "curve", Widget: NewGDPWidget()}
	if r.Embed {
		r.Widget.Embed = true
		for _, f := range []struct {
			name string
			set  func(string)
		}{{"mu", r.Widget.SetMu}, {"eps", r.Widget.SetEps}, {"delta", r.Widget.SetDelta}} {
			if v, ok := q[f.name]; ok {
				f.set(v)
			}
		}
		return r
	}
	r.App = NewApp(host)
	r.App.ApplyQuery(q)
	r.About = NewAbout()
	return r
}

// AppClass is the class of the page's outer element: "app", or "app embed" in the embed mode.
func (c *Root) AppClass() string {
	if c.Embed {
		return "app embed"
	}
	return "app"
}
