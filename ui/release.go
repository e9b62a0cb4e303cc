package ui

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/vugu/vugu"

	"github.com/privopt/privopt/internal/fit"
	"github.com/privopt/privopt/internal/onnx"
	"github.com/privopt/privopt/internal/release"
	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/wasm/engine"
)

// releaseState is the release file of the finished runs, and the settings taken from a
// release file or a link.
type releaseState struct {
	// rel is the release file of the finished runs (nil until they end), or relErr says why
	// it could not be made.
	rel    *release.File
	relErr string
	// DownloadErr says why a download could not be made.
	DownloadErr string
	// SettingsNote says which release file's settings the page took; SettingsErr why a
	// release file's settings, or a link's schema, could not be taken.
	SettingsNote, SettingsErr string
	settingsName              string
}

// SettingsText states the settings taken from a release file or a link: why they could not be
// taken, or which were taken, and which data a schema of theirs waits for.
func (a *App) SettingsText() string {
	if a.SettingsErr != "" {
		return a.SettingsErr
	}
	text := a.SettingsNote
	if s := a.pendingSchema; s != nil {
		names := make([]string, len(s.Columns))
		for i, c := range s.Columns {
			names[i] = c.Name
		}
		text += " The schema of the settings applies to the next file whose columns are exactly: " + strings.Join(names, ", ") + "."
	}
	return strings.TrimSpace(text)
}

// makeRelease makes the release file of the finished runs (release.New): the schema as the
// runs used it (the one the data was checked with, and the private ranges they shared, if
// any), the spec and public facts the runs were planned with, the ranges, and for each finished
// run its model, privacy report, utility bound, planned parameters and private evaluation,
// never its diagnostics. The "Use the model" panel then starts afresh with the selected run's
// model.
func (a *App) makeRelease() {
	a.rel, a.relErr = nil, ""
	s, err := data.LoadSchema(bytes.NewReader(a.runUsed))
	if err == nil {
		var models []release.Model
		for _, r := range a.DoneRuns() {
			rel := r.Result.Release
			models = append(models, release.Model{Model: rel.Model, Report: rel.Report, Utility: rel.Utility, Parameters: rel.Parameters,
				Evaluation: r.Result.Private, HeldOut: r.Result.HeldOut})
		}
		a.rel, err = release.New(s, a.runSpec, a.runFacts, a.runRanges, models)
	}
	if err != nil {
		a.relErr = "The release file cannot be made: " + err.Error()
		return
	}
	a.useRelease(a.rel, a.model(), "")
}

// ReleasedText states what releasing every finished run's model certifies (the release
// file's Together), or why the release file could not be made.
func (a *App) ReleasedText() string {
	if a.rel == nil {
		return a.relErr
	}
	return a.rel.Together
}

// releaseJSON is release file f in its JSON form (release.File.Write).
func releaseJSON(f *release.File) ([]byte, error) {
	var b bytes.Buffer
	if err := f.Write(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// StatementParagraphs lists the paragraphs of the release's plain-language privacy statement
// (release.File.Statements, after NIST SP 800-226); none before there is a release file.
func (a *App) StatementParagraphs() []string {
	if a.rel == nil || a.rel.Statements.Plain == "" {
		return nil
	}
	return strings.Split(a.rel.Statements.Plain, "\n\n")
}

// RegistryEntry is the release's entry for the Differential Privacy Deployments Registry, in
// YAML ("" before there is a release file).
func (a *App) RegistryEntry() string {
	if a.rel == nil {
		return ""
	}
	return a.rel.Statements.Registry
}

// Download saves the release file of the finished runs (format release.Format).
func (a *App) Download() {
	a.DownloadErr = ""
	if a.rel == nil {
		a.DownloadErr = "There is no release file: " + a.relErr
		return
	}
	b, err := releaseJSON(a.rel)
	if err != nil {
		a.DownloadErr = err.Error()
		return
	}
	a.Host.Download("privopt-release.json", "application/json", b)
}

// DownloadONNX saves the selected run's model as an ONNX model (internal/onnx), with which any
// ONNX runtime scores raw rows as privopt does.
func (a *App) DownloadONNX() {
	var b bytes.Buffer
	a.DownloadErr = ""
	if a.rel == nil {
		a.DownloadErr = "There is no release file: " + a.relErr
		return
	}
	if err := onnx.Export(a.rel, a.model(), &b); err != nil {
		a.DownloadErr = "The ONNX model cannot be written: " + err.Error()
		return
	}
	a.Host.Download("privopt-run-"+itoa(a.Selected+1)+".onnx", "application/octet-stream", b.Bytes())
}

// model is the number, from 1, of the selected run's model in the release file, or 0 when the
// selected run has none.
func (a *App) model() int {
	for k, r := range a.DoneRuns() {
		if r.Index == a.Selected {
			return k + 1
		}
	}
	return 0
}

// LoadSettings reads the release file of a file-input change event, in a worker, for its
// settings and its models (not while runs are in progress): its schema as declared (see
// takeSchema and declaredSchema) and its spec replace the page's, the number of runs becomes
// its number of models, and the "Use the model" panel uses its models. A release file holds no
// data.
func (a *App) LoadSettings(e vugu.DOMEvent) {
	if a.Running {
		a.SettingsErr = "Wait for the runs to end, or cancel them, before loading other settings."
		return
	}
	name, _, ok := a.Host.TakeFile(e, settingsSource)
	if !ok {
		return
	}
	a.SettingsNote, a.SettingsErr, a.settingsName = "", "", name
	a.send(0, engine.Request{Kind: "read-release", Source: settingsSource})
}

// receiveSettings takes the engine's reading of a release file the person loaded: the
// configuration starts from the page's defaults, so that nothing of the previous one remains,
// and the "Use the model" panel starts afresh with the file's first model.
func (a *App) receiveSettings(r engine.Response) {
	if r.Kind != "release-file" {
		a.SettingsErr = "The settings cannot be read from " + a.settingsName + ": " + r.Error
		return
	}
	f := r.ReleaseFile
	a.modelState, a.privacyState = modelState{}, privacyState{}
	a.initModel()
	a.initPrivacy()
	a.takeSchema(declaredSchema(f))
	q := specQuery(f.Settings)
	q["runs"] = itoa(len(f.Models))
	q["f32"] = "0" // the values held as the file's were
	if f.Facts.Float32 {
		q["f32"] = "1"
	}
	a.ApplyQuery(q)
	a.SettingsNote = fmt.Sprintf("The settings of %s are set: its schema, model, mechanism and budget, and %d runs (one per model it holds). It holds no data. Its models predict in “Models of %s” below.",
		a.settingsName, len(f.Models), a.settingsName)
	a.useRelease(f, 1, a.settingsName)
}

// specQuery returns the link parameters that set the page's choices to spec: the inverse of
// App.spec (which leaves out the mechanism's settings at their defaults, as spec does).
func specQuery(s fit.Spec) map[string]string {
	q := map[string]string{}
	set := func(when bool, kv ...string) {
		for i := 0; when && i < len(kv); i += 2 {
			q[kv[i]] = kv[i+1]
		}
	}
	set(true, "loss", s.Loss, "domain", s.Domain, "radius", exactText(s.Radius), "mech", s.Mechanism,
		"eps", exactText(s.Budget.Epsilon), "delta", exactText(s.Budget.Delta), "nb", string(s.Budget.Neighbouring))
	set(s.LossParam != 0, "lossp", exactText(s.LossParam))
	set(s.Tilt != 0, "mod", Tilted, "tilt", exactText(s.Tilt))
	set(s.Robust != 0, "mod", Adversarial, "rho", exactText(s.Robust), "rnorm", s.RobustNorm.String())
	set(s.PublicN != 0, "pn", itoa(s.PublicN))
	set(s.EvalShare != 0, "eval", strconv.FormatFloat(100*s.EvalShare, 'g', 15, 64)) // 15 digits: 7, not 7.000000000000001
	set(true, "scale", strconv.FormatFloat(100*s.ScaleShare, 'g', 15, 64))           // 0 too, which is not the page's default
	for k, v := range s.Options {
		q[optionPrefix+k] = v
	}
	return q
}
