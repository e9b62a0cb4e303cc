package engine

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/privopt/privopt/internal/demo"
	"github.com/privopt/privopt/internal/release"
	"github.com/privopt/privopt/pkg/core/data"
)

// demoRelease fits the demo once (seeded) and returns its release file in JSON form.
func demoRelease(t *testing.T) []byte {
	t.Helper()
	e, posted := newEngine()
	d := demoDataset(t, e, posted, false)
	seed := uint64(3)
	if r := e.Handle(Request{ID: 5, Kind: "run", Spec: demoSpec(), Seed: &seed}, nil); r.Kind != "started" {
		t.Fatalf("run: %+v", r)
	}
	r, _ := await(t, posted, 5)
	if r.Kind != "release" {
		t.Fatalf("run: %+v", r)
	}
	s, err := data.LoadSchema(demo.Schema())
	if err != nil {
		t.Fatal(err)
	}
	rel := r.Result.Release
	f, err := release.New(s, *demoSpec(), d.Facts, nil, []release.Model{{Model: rel.Model, Report: rel.Report, Utility: rel.Utility, Parameters: rel.Parameters}})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := f.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// "read-release" reads the release file posted with it, and refuses a first-format file with
// what it lacks.
func TestReadRelease(t *testing.T) {
	text := demoRelease(t)
	e, _ := newEngine()
	r := e.Handle(Request{ID: 1, Kind: "read-release", Source: "settings"}, memFile{"privopt-release.json", text})
	if r.Kind != "release-file" || r.ID != 1 || r.ReleaseFile.Settings.Mechanism != "rem" || len(r.ReleaseFile.Models) != 1 {
		t.Fatalf("read-release: %+v", r)
	}
	// The file survives the JSON trip to the page.
	var back Response
	if err := json.Unmarshal([]byte(Encode(r)), &back); err != nil || !slices.Equal(back.ReleaseFile.Models[0].Model.Weights, r.ReleaseFile.Models[0].Model.Weights) ||
		back.ReleaseFile.Schema == nil || back.ReleaseFile.Together != r.ReleaseFile.Together {
		t.Errorf("JSON round trip: %v", err)
	}
	for _, tc := range []struct {
		file File
		want string
	}{
		{nil, "no file was posted"},
		{memFile{"old.json", []byte(`{"format": "privopt-release/1"}`)}, "first format"},
		{memFile{"data.csv", []byte("a,b\n1,2\n")}, "not a privopt release file"},
	} {
		if r := e.Handle(Request{ID: 2, Kind: "read-release"}, tc.file); r.Kind != "error" || !strings.Contains(r.Error, tc.want) {
			t.Errorf("%v: %+v, want an error containing %q", tc.file, r, tc.want)
		}
	}
}

// "score" predicts every row of the posted file with a model of the release file: the
// predictions are release.File.WriteCSV's, with progress while reading; a bad row is an error
// with its line and column.
func TestScore(t *testing.T) {
	text := demoRelease(t)
	f, err := release.Read(bytes.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	test, err := io.ReadAll(demo.Test())
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if _, err := f.WriteCSV(1, bytes.NewReader(test), &want); err != nil {
		t.Fatal(err)
	}
	e, posted := newEngine()
	r := e.Handle(Request{ID: 3, Kind: "score", Source: "score", Release: text, Model: 1}, memFile{"adult-test.csv", test})
	if r.Kind != "scores" || r.Scores.CSV != want.String() || r.Scores.Rows != 1000 || len(posted) == 0 {
		t.Fatalf("score: %s %s, %d progress reports", r.Kind, r.Error, len(posted))
	}
	if p := <-posted; p.ID != 3 || p.Kind != "progress" || p.Progress.Stage != "reading" {
		t.Errorf("progress %+v", p)
	}
	bad := strings.Replace(string(test), "\n25, Private,", "\nyoung, Private,", 1)
	for _, tc := range []struct {
		req    Request
		file   File
		want   string
		line   int
		column string
	}{
		{Request{ID: 4, Kind: "score", Release: text, Model: 1}, memFile{"bad.csv", []byte(bad)}, `"young" is not a number`, 2, "age"},
		{Request{ID: 5, Kind: "score", Release: text, Model: 2}, memFile{"adult-test.csv", test}, "there is no model 2", 0, ""},
		{Request{ID: 6, Kind: "score", Model: 1}, memFile{"adult-test.csv", test}, "needs a release file", 0, ""},
		{Request{ID: 7, Kind: "score", Release: text, Model: 1}, nil, "no file was posted", 0, ""},
	} {
		r := e.Handle(tc.req, tc.file)
		if r.Kind != "error" || r.ID != tc.req.ID || !strings.Contains(r.Error, tc.want) || r.Line != tc.line || r.Column != tc.column {
			t.Errorf("request %d: %+v, want an error containing %q at line %d, column %q", tc.req.ID, r, tc.want, tc.line, tc.column)
		}
	}
}
