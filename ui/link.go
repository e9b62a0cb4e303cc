package ui

import (
	"bytes"
	"encoding/base64"
	"slices"
	"strings"

	"github.com/privopt/privopt/internal/fit"
	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/mech"
	"github.com/privopt/privopt/pkg/core/privacy"
)

// A link to the page encodes the configuration, never the data: the choices of the model,
// mechanism and privacy steps, whether the built-in demo is loaded, and the schema once the
// person has confirmed it (it is then public by declaration). Opening it sets each field as
// if typed, so an invalid value shows the field's error.

// linkParam is one parameter of a link: get returns its value and whether the link holds it
// (a field's text is held as typed, even blank or invalid, so that the link reproduces the
// page), set applies it.
type linkParam struct {
	name string
	get  func(*App) (string, bool)
	set  func(*App, string)
}

// optionPrefix starts the name of a link parameter that sets a mechanism's setting.
const optionPrefix = "opt."

var linkParams = []linkParam{
	{"data", func(a *App) (string, bool) { return "demo", a.demoData() }, func(a *App, v string) { a.wantDemo = v == "demo" }},
	{"loss", func(a *App) (string, bool) { return a.Loss, true }, func(a *App, v string) {
		for _, k := range []data.LabelKind{data.LabelBinary, data.LabelNumeric, data.LabelClass} {
			if slices.Contains(fit.Losses(k), v) {
				a.Loss = v
			}
		}
	}},
	{"lossp", func(a *App) (string, bool) { return a.LossParam.Text, a.HasLossParam() }, (*App).SetLossParam},
	{"mod", func(a *App) (string, bool) { return a.Modifier, a.Modifier != NoModifier }, func(a *App, v string) {
		if v == Tilted || v == Adversarial {
			a.Modifier = v
		}
	}},
	{"tilt", func(a *App) (string, bool) { return a.Tilt.Text, a.Modifier == Tilted }, (*App).SetTilt},
	{"rho", func(a *App) (string, bool) { return a.Robust.Text, a.Modifier == Adversarial }, (*App).SetRobust},
	{"rnorm", func(a *App) (string, bool) { return a.RobustNorm, a.Modifier == Adversarial }, func(a *App, v string) {
		if v == "1" || v == "2" || v == "inf" {
			a.RobustNorm = v
		}
	}},
	{"domain", func(a *App) (string, bool) { return a.Domain, true }, func(a *App, v string) {
		if v == fit.Whole || v == fit.Ball || v == fit.Box {
			a.Domain, a.domainChosen = v, true
		}
	}},
	{"radius", func(a *App) (string, bool) { return a.Radius.Text, true }, (*App).SetRadius},
	{"mech", func(a *App) (string, bool) { return a.Mechanism, true }, func(a *App, v string) {
		if slices.Contains(mech.Names(), v) {
			a.SetMechanism(v)
		}
	}},
	{"eps", func(a *App) (string, bool) { return a.Eps.Text, true }, (*App).SetEps},
	{"delta", func(a *App) (string, bool) { return a.Delta.Text, true }, (*App).SetDelta},
	{"nb", func(a *App) (string, bool) { return a.Neighbouring, true }, func(a *App, v string) {
		if privacy.Neighbouring(v).Validate() == nil {
			a.SetNeighbouring(v) // checks the data again when the relation changes its split
		}
	}},
	// N as the person typed it: one the page filled from a schema is read from a file.
	{"pn", func(a *App) (string, bool) {
		return a.PublicN.Text, a.AddRemove() && a.PublicN.Text != "" && !a.publicNFromSchema
	}, (*App).SetPublicN},
	{"runs", func(a *App) (string, bool) { return a.Runs.Text, true }, (*App).SetRuns},
	{"seed", func(a *App) (string, bool) { return a.Seed.Text, a.Seed.Text != "" }, (*App).SetSeed},
	{"holdout", func(a *App) (string, bool) { return a.Holdout.Text, !a.demoData() }, (*App).SetHoldout},
	{"f32", func(a *App) (string, bool) { return "1", a.Float32 && !a.demoData() }, func(a *App, v string) { a.SetFloat32(v == "1") }},
	{"eval", func(a *App) (string, bool) {
		return a.EvalShare.Text, a.EvalOffered() && strings.TrimSpace(a.EvalShare.Text) != "0"
	}, (*App).SetEvalShare},
	{"scale", func(a *App) (string, bool) {
		return a.ScaleShare.Text, a.ScaleOffered() && strings.TrimSpace(a.ScaleShare.Text) != exactText(100*fit.DefaultScaleShare)
	}, (*App).SetScaleShare},
	{"schema", (*App).linkSchema, (*App).setLinkSchema},
}

// demoData reports whether the page holds, or is about to load, the demo data.
func (a *App) demoData() bool { return a.IsDemo() || (a.Loaded == nil && a.wantDemo) }

// Query returns the query string ("k=v&…", percent-encoded) of the current configuration.
// It holds no data: no value, bound or name read from a file.
func (a *App) Query() string {
	var parts []string
	for _, p := range linkParams {
		if v, ok := p.get(a); ok {
			parts = append(parts, queryEscape(p.name)+"="+queryEscape(v))
		}
	}
	keys := make([]string, 0, len(a.OptionText))
	for k := range a.OptionText {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		parts = append(parts, queryEscape(optionPrefix+k)+"="+queryEscape(a.OptionText[k]))
	}
	return strings.Join(parts, "&")
}

// Link is the page's address with the current configuration (BaseURL, then the query).
func (a *App) Link() string { return a.BaseURL + "?" + a.Query() }

// ApplyQuery sets the configuration from a link's decoded query parameters; unknown
// parameters are ignored. The mechanism is set first, so that its settings apply to it; the
// mechanisms are planned once, for the whole configuration.
func (a *App) ApplyQuery(q map[string]string) {
	a.holdPlans = true
	defer func() {
		a.holdPlans = false
		a.specChanged()
	}()
	if v, ok := q["mech"]; ok {
		for _, p := range linkParams {
			if p.name == "mech" {
				p.set(a, v)
			}
		}
	}
	for _, p := range linkParams {
		if v, ok := q[p.name]; ok && p.name != "mech" {
			p.set(a, v)
		}
	}
	for k, v := range q {
		if field, ok := strings.CutPrefix(k, optionPrefix); ok {
			a.SetOption(field, v)
		}
	}
}

// queryEscape percent-encodes s for a URL's query: every byte but the unreserved characters
// of RFC 3986 (letters, digits, "-", ".", "_", "~"). (net/url would add 130 kB to app.wasm.)
func queryEscape(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '.', c == '_', c == '~':
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}

// linkSchema is the schema a link holds, encoded (encodeSchema): the loaded data's schema
// once it is valid and the person has confirmed every value read from the data, unless it is
// the demo's own; or else a schema from a link or a release file that waits for its data.
// A schema with a value still to confirm is never in a link: that value is a statistic of
// the private data.
func (a *App) linkSchema() (string, bool) {
	s := a.pendingSchema
	if a.Schema != nil && a.Unconfirmed() == 0 && a.Schema.Validate() == nil {
		if a.IsDemo() && a.schemaJSON() == string(a.Loaded.Schema) {
			return "", false
		}
		s = a.Schema
	}
	if s == nil {
		return "", false
	}
	text, err := encodeSchema(s)
	return text, err == nil
}

// setLinkSchema takes the schema of a link (see takeSchema); one that does not read back is
// reported in SettingsErr and ignored.
func (a *App) setLinkSchema(text string) {
	s, err := decodeSchema(text)
	if err != nil {
		a.SettingsErr = "The link's schema cannot be read, so the page suggests one from the data: " + err.Error()
		return
	}
	a.takeSchema(s)
}

// encodeSchema writes a schema for a link: its JSON form (data.Schema.MarshalJSON) in
// unpadded base64url, which a URL's query holds as it is. (Compressing it with
// compress/flate would halve a link's length, at the cost of 43 kB of gzipped app.wasm.)
func encodeSchema(s *data.Schema) (string, error) {
	js, err := s.MarshalJSON()
	if err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(js), nil
}

// decodeSchema reads what encodeSchema writes and checks the schema as data.LoadSchema does
// (its size included).
func decodeSchema(text string) (*data.Schema, error) {
	js, err := base64.RawURLEncoding.DecodeString(text)
	if err != nil {
		return nil, err
	}
	return data.LoadSchema(bytes.NewReader(js))
}
