package engine

import (
	"bytes"
	"errors"

	"github.com/privopt/privopt/internal/release"
)

// Scores answers "score": a model's predictions for the rows of a file the person chose.
// They are computed in the worker from the person's own data, which is not sent anywhere:
// the scores are that data's, not a private release.
type Scores struct {
	// CSV holds the predictions, one line per row (release.File.WriteCSV); Rows counts the rows.
	CSV  string `json:"csv"`
	Rows int    `json:"rows"`
}

// readRelease reads and checks the release file posted with a request.
func readRelease(f File) (Response, error) {
	if err := posted(f); err != nil {
		return Response{}, err
	}
	r, err := f.Open()
	if err != nil {
		return Response{}, err
	}
	rf, err := release.Read(r)
	if err != nil {
		return Response{}, err
	}
	return Response{Kind: "release-file", ReleaseFile: rf}, nil
}

// score predicts with model req.Model of the release file req.Release for every row of the
// CSV file posted with the request. A bad row is an error naming its line and column, as
// in a fit.
func (e *Engine) score(req Request, f File) (Response, error) {
	if err := posted(f); err != nil {
		return Response{}, err
	}
	if len(req.Release) == 0 {
		return Response{}, errors.New("engine: score needs a release file")
	}
	rf, err := release.Read(bytes.NewReader(req.Release))
	if err != nil {
		return Response{}, err
	}
	r, err := f.Open()
	if err != nil {
		return Response{}, err
	}
	var out bytes.Buffer
	diag, err := rf.WriteCSV(req.Model, e.reading(req.ID, r, f.Size()), &out)
	if err != nil {
		return Response{}, err
	}
	return Response{Kind: "scores", Scores: &Scores{CSV: out.String(), Rows: diag.Rows}}, nil
}
