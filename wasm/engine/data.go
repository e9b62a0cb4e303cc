package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/privopt/privopt/pkg/core/mech"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/privopt/privopt/internal/demo"
	"github.com/privopt/privopt/internal/fit"
	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/loss"
	"github.com/privopt/privopt/pkg/rng"
)

// File is a file the page posted with a request: the engine reads it in its worker, so the
// page never holds the bytes.
type File interface {
	// Name is the file's name and Size its length in bytes.
	Name() string
	Size() int64
	// Open returns a reader of the file's bytes from the start.
	Open() (io.Reader, error)
}

// Loaded answers "load": what the page shows before the person confirms a schema.
type Loaded struct {
	// Source is "demo" or "file"; Name and Bytes describe the file.
	Source string `json:"source"`
	Name   string `json:"name"`
	Bytes  int64  `json:"bytes"`
	// Header and Rows are the file's header and first rows, as text (local: never released).
	Header []string   `json:"header"`
	Rows   [][]string `json:"rows"`
	// Schema is the starting schema in its JSON form: the demo's public schema, or one
	// suggested from a file's first rows, whose every value read from the data is listed in
	// its column's "derived" and must be confirmed before the data can be encoded.
	Schema json.RawMessage `json:"schema"`
	// Suggested is true when Schema was suggested from the data.
	Suggested bool `json:"suggested"`
	// Ignored lists the columns the suggestion ignores, with the reason, for the page to ask
	// the person what to do with each.
	Ignored []data.Ignored `json:"ignored,omitempty"`
	// Attribution credits the demo's data.
	Attribution string `json:"attribution,omitempty"`
}

// PreviewRows is how many rows "load" shows; SuggestRows how many it reads to suggest a schema.
const (
	PreviewRows = 8
	SuggestRows = 1000
)

// previewBytes is how much of a file the preview reads.
const previewBytes = 256 << 10

// Dataset answers "dataset": the public facts of the training set that plans use, and local
// diagnostics for the data's owner (not private: never part of a release).
type Dataset struct {
	// Facts are the training set's public facts; Features names its columns.
	Facts    fit.Facts `json:"facts"`
	Features []string  `json:"features"`
	// Test is the number of held-out rows.
	Test int `json:"test"`
	// Rows is the number of data rows read, ClippedRows how many were shrunk onto the
	// declared norm ball, and Columns the values replaced, clipped or put in an other bucket,
	// all files together (local diagnostics).
	Rows        int                      `json:"rows"`
	ClippedRows int                      `json:"clipped_rows"`
	Columns     []data.ColumnDiagnostics `json:"columns"`
	// Delimiter is the field delimiter read.
	Delimiter string `json:"delimiter"`
	// RowWidth is what a linear-model loss's query reads of a training row (loss.RowWidth: the
	// mean non-zero entries per row when it holds them sparse). It is the data's density, so it
	// is local too: the page scales the run times it predicts by it, never a plan or a release.
	RowWidth loss.Width `json:"row_width"`
}

// dataset is an encoded dataset held by the engine: the training rows, and the held-out rows
// (nil when none are held out; empty when a split by content held out none), encoded with
// schema; and the rows last prepared for a run (see scaledFor), or nil.
type dataset struct {
	key         string
	schema      *data.Schema
	train, test *data.Dataset
	summary     *Dataset
	rescaled    *dataset
	part, parts int // the range of the chunks this worker helps with (Request.Parts), parts 0 for none
}

// source is the data a request names.
type source struct {
	name string
	size int64
	open func() (io.Reader, error)
	demo bool
}

func sourceOf(req Request, f File) (source, error) {
	switch req.Source {
	case "demo":
		if err := demo.Available(); err != nil {
			return source{}, err
		}
		return source{name: demo.Name, size: demo.TrainSize(), demo: true,
			open: func() (io.Reader, error) { return demo.Train(), nil }}, nil
	case "file":
		if err := posted(f); err != nil {
			return source{}, err
		}
		return source{name: f.Name(), size: f.Size(), open: f.Open}, nil
	}
	return source{}, fmt.Errorf("engine: unknown source %q (demo or file)", req.Source)
}

// posted returns an error when no file was posted with a request that reads one.
func posted(f File) error {
	if f == nil {
		return errors.New("engine: no file was posted with the request")
	}
	return nil
}

// load previews a file and suggests a schema, or previews the demo with its schema.
func (e *Engine) load(req Request, f File) (Response, error) {
	src, err := sourceOf(req, f)
	if err != nil {
		return Response{}, err
	}
	var schema *data.Schema
	var ignored []data.Ignored
	if src.demo {
		schema, err = data.LoadSchema(demo.Schema())
	} else {
		var r io.Reader
		if r, err = src.open(); err == nil {
			schema, ignored, err = data.SuggestSchema(r, SuggestRows)
		}
	}
	if err != nil {
		return Response{}, err
	}
	r, err := src.open()
	if err != nil {
		return Response{}, err
	}
	header, rows, delim, err := preview(r, schema)
	if err != nil {
		return Response{}, err
	}
	if schema.Delimiter == 0 {
		schema.Delimiter = delim // the suggestion states the delimiter it was read with
	}
	js, err := schema.MarshalJSON()
	if err != nil {
		return Response{}, err
	}
	l := &Loaded{Source: req.Source, Name: src.name, Bytes: src.size, Header: header, Rows: rows, Schema: js, Suggested: !src.demo, Ignored: ignored}
	if src.demo {
		l.Attribution = demo.Attribution
	}
	return Response{Kind: "loaded", Loaded: l}, nil
}

// preview reads the header and the first PreviewRows rows of a CSV file whose columns the
// schema names, with the schema's delimiter or, when it has none, the one of comma,
// semicolon and tab that splits the header into exactly the schema's columns, read as Encode
// reads them (data.Preview). The preview is for display only: encoding checks the whole file.
func preview(r io.Reader, s *data.Schema) (header []string, rows [][]string, delim byte, err error) {
	head, err := io.ReadAll(io.LimitReader(r, previewBytes))
	if err != nil {
		return nil, nil, 0, fmt.Errorf("engine: reading the file: %w", err)
	}
	head = bytes.TrimPrefix(head, []byte{0xEF, 0xBB, 0xBF})
	names := make([]string, len(s.Columns))
	for i, c := range s.Columns {
		names[i] = c.Name
	}
	slices.Sort(names)
	for _, d := range []byte{',', ';', '\t'} {
		if s.Delimiter != 0 && d != s.Delimiter {
			continue
		}
		h, rows, err := data.Preview(bytes.NewReader(head), d, PreviewRows)
		if err != nil || !slices.Equal(slices.Sorted(slices.Values(h)), names) {
			continue
		}
		return h, rows, d, nil
	}
	return nil, nil, 0, errors.New("engine: the file's header does not name the schema's columns with a comma, semicolon or tab delimiter")
}

// dataset encodes the data with the request's schema and holds out rows for evaluation. A
// request with the same source, schema and split as the data held returns its summary.
func (e *Engine) dataset(req Request, f File) (Response, error) {
	src, err := sourceOf(req, f)
	if err != nil {
		return Response{}, err
	}
	if !(req.Holdout >= 0 && req.Holdout <= 0.5) {
		return Response{}, fmt.Errorf("engine: the held-out fraction %v is not in [0, 0.5]", req.Holdout)
	}
	part, err := partOf(req, src)
	if err != nil {
		return Response{}, err
	}
	key := strings.Join([]string{req.Source, src.name, strconv.FormatInt(src.size, 10), string(req.Schema),
		strconv.FormatFloat(req.Holdout, 'g', -1, 64), strconv.FormatUint(req.SplitSeed, 10), strconv.FormatBool(req.SplitByContent), strconv.FormatBool(req.Float32),
		fmt.Sprint(req.Part, req.Parts, req.TrainRows, req.TestRows)}, "\x00")
	e.mu.Lock()
	held := e.data
	e.mu.Unlock()
	if held != nil && held.key == key {
		return Response{Kind: "dataset", Dataset: held.summary}, nil
	}
	if !req.Check { // the rows held are replaced: drop them first, so that the worker never holds both
		e.mu.Lock()
		e.data = nil
		e.mu.Unlock()
	}
	schema, err := data.LoadSchema(bytes.NewReader(req.Schema))
	if err != nil {
		return Response{}, err
	}
	if err := e.fits(src, schema, req.Float32); err != nil {
		return Response{}, err
	}
	r, err := src.open()
	if err != nil {
		return Response{}, err
	}
	// A check of a file under replace-one reads the rows without keeping them (its random
	// held-out subset needs only their number), so that the planning worker holds no copy.
	summarize := req.Check && !req.SplitByContent && !src.demo
	encode, opts := data.EncodeWith, data.Options{Float32: req.Float32, Part: part}
	if summarize {
		encode = data.Summarize
	}
	train, diag, err := encode(e.reading(req.ID, r, src.size), schema, opts)
	if err != nil {
		return Response{}, err
	}
	var test *data.Dataset
	var inTest []bool // the rows held out of train, when they are still in it (a check)
	sum := &Dataset{Rows: diag.Rows, ClippedRows: diag.ClippedRows, Columns: diag.Columns, Delimiter: delimiterName(diag.Delimiter)}
	switch {
	case part != nil:
		// A helper holds the training rows of its range only, and no held-out row.
		if train.N != req.TrainRows {
			return Response{}, fmt.Errorf("engine: the file has %d training rows, not the %d it had when it was checked", train.N, req.TrainRows)
		}
		sum.Test = req.TestRows
	case src.demo:
		var tdiag *data.Diagnostics
		if test, tdiag, err = data.EncodeWith(demo.Test(), schema, data.Options{Float32: req.Float32}); err != nil {
			return Response{}, fmt.Errorf("engine: the demo's held-out file: %w", err)
		}
		sum.Rows += tdiag.Rows
		sum.ClippedRows += tdiag.ClippedRows
		for i := range sum.Columns {
			sum.Columns[i].Missing += tdiag.Columns[i].Missing
			sum.Columns[i].Clipped += tdiag.Columns[i].Clipped
			sum.Columns[i].Other += tdiag.Columns[i].Other
		}
	case req.Holdout > 0:
		// The split moves the rows (Divide) rather than copying them, so that it never holds
		// more than the file's rows; a check summarises the training rows where they are. When
		// every row hashes to the training side under a split by content, the held-out set is
		// empty and kept: a private evaluation then releases its noisy sums of no rows, since
		// whether any row is held out is private under add/remove.
		if req.SplitByContent {
			inTest, err = data.ContentHoldout(train, req.Holdout, req.SplitSeed)
		} else {
			inTest, err = data.RandomHoldout(train.N, req.Holdout, rng.Seeded(req.SplitSeed))
		}
		if err != nil {
			return Response{}, err
		}
		for _, t := range inTest {
			if t {
				sum.Test++
			}
		}
		if !req.Check {
			train, test = train.Divide(inTest)
			inTest = nil
		}
	}
	if sum.Facts, err = fit.FactsOf(train, schema); err != nil {
		return Response{}, err
	}
	if inTest != nil {
		sum.Facts.N -= sum.Test // a check's held-out rows are still among train's
	}
	sum.Features = train.Features
	switch {
	case part != nil: // its rows' width is the planning worker's to report
	case summarize:
		sum.RowWidth = loss.WidthOf(diag.Rows, train.D, diag.NonZero) // all the rows'
	default:
		sum.RowWidth = loss.RowWidth(train, inTest)
	}
	if test != nil {
		sum.Test = test.N
	}
	if !req.Check {
		e.mu.Lock()
		e.data = &dataset{key: key, schema: schema, train: train, test: test, summary: sum, part: req.Part, parts: req.Parts}
		e.mu.Unlock()
	}
	return Response{Kind: "dataset", Dataset: sum}, nil
}

// partOf returns the part of the training rows that a helper of range req.Part keeps while it
// reads the file (Request.Parts): its range's blocks, and with a random held-out split the
// rows held out, drawn from the counted rows before reading (none for the demo, whose held-out
// rows are its own file). It returns nil, to keep every training row, when the request asks for
// no range or the held-out rows are chosen by content (which needs every row's copy index). A
// request for a range that does not exist is an error.
func partOf(req Request, src source) (*data.Part, error) {
	if req.Parts == 0 {
		return nil, nil
	}
	if req.Parts < 2 || req.Part < 0 || req.Part >= req.Parts-1 || req.Check || !(req.TrainRows > 0 && req.TestRows >= 0) {
		return nil, fmt.Errorf("engine: a helper's range %d of %d parts of %d training rows and %d held out is not one", req.Part, req.Parts, req.TrainRows, req.TestRows)
	}
	if req.SplitByContent {
		return nil, nil
	}
	chunks := (req.TrainRows + data.BlockRows - 1) / data.BlockRows
	p := &data.Part{First: req.Part * chunks / req.Parts, Last: (req.Part + 1) * chunks / req.Parts}
	if req.Holdout > 0 && !src.demo {
		var err error
		if p.HeldOut, err = data.RandomHoldout(req.TrainRows+req.TestRows, req.Holdout, rng.Seeded(req.SplitSeed)); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// WorkerMemory is the memory that the data may take in one worker: a worker's WebAssembly
// memory is at most 4 GiB (its addresses have 32 bits), of which the module, the Go runtime and
// what a run computes need a part.
const WorkerMemory = 3 << 30

// fits returns an error, before the data is read, when a worker that runs fits on it would need
// more memory than the worker may (e.memory): estimated from the file's size, the schema
// (data.Footprint) and the length of its first lines, with the collector's slack (gcPercent):
// the rows' peak while being encoded, the held-out split's indices, and the rows with their
// values rescaled to private ranges. A check refuses what a run could not hold. Each worker
// running fits keeps its own copy of the rows, and the planning worker one under add/remove
// (whose split needs the rows' content). f32 holds the values as float32 (data.Options.Float32);
// without it, the error says when they would fit so.
func (e *Engine) fits(src source, s *data.Schema, f32 bool) error {
	r, err := src.open()
	if err != nil {
		return err
	}
	head, err := io.ReadAll(io.LimitReader(r, previewBytes))
	if err != nil {
		return fmt.Errorf("engine: reading the file: %w", err)
	}
	header := bytes.IndexByte(head, '\n') + 1
	lines := head[header : bytes.LastIndexByte(head, '\n')+1]
	lineBytes := float64(len(head) - header) // when no line ends in the head, at least that
	if n := bytes.Count(lines, []byte{'\n'}); n > 0 {
		lineBytes = float64(len(lines)) / float64(n)
	}
	footprint := func(f32 bool) (data.Footprint, int64) {
		f := s.Footprint(src.size-int64(header), lineBytes, f32)
		n := max(f.Peak, f.Bytes+24*f.Rows, f.Bytes+f.Values) // the split's indices: 24 bytes a row at most
		return f, n + n*gcPercent/100
	}
	f, need := footprint(f32)
	if need <= e.memory {
		return nil
	}
	gb := func(b int64) string {
		switch {
		case b < 1e6:
			return strconv.FormatInt(b/1e3, 10) + " kB"
		case b < 1e9:
			return strconv.FormatInt(b/1e6, 10) + " MB"
		}
		return strconv.FormatFloat(float64(b)/1e9, 'f', 1, 64) + " GB"
	}
	instead := ""
	if _, n := footprint(true); !f32 && n <= e.memory {
		instead = ". Held as float32 (the option below the held-out rows; privopt fit --float32), its values would take about " + gb(n) + ", which fits"
	}
	return fmt.Errorf("engine: the data is too large for the page: its %s hold about %d rows (%.0f bytes a line in its first rows), which would take about %s of a worker's memory, %.1f times the %s a worker can hold (WebAssembly's memory is at most 4 GB, and each worker that runs fits keeps its own copy). Use fewer columns (declare some \"ignore\"), a sample of at most about %d rows, or the command line (privopt fit), which has no such limit%s",
		gb(src.size), f.Rows, lineBytes, gb(need), float64(need)/float64(e.memory), gb(e.memory), f.Rows*e.memory/need, instead)
}

// reading returns a reader of r, a file of size bytes, that posts the reading's progress as
// answers to request id.
func (e *Engine) reading(id int, r io.Reader, size int64) io.Reader {
	start := time.Now()
	return data.ProgressReader(r, size, progressInterval, func(fraction float64) {
		e.post(Response{ID: id, Kind: "progress", Progress: &Progress{Progress: mech.Progress{Fraction: fraction, Stage: "reading"}, Seconds: time.Since(start).Seconds()}})
	})
}

// delimiterName names a delimiter for the page.
func delimiterName(d byte) string {
	switch d {
	case '\t':
		return "tab"
	case ';':
		return "semicolon"
	}
	return "comma"
}

// errorResponse describes an error, with its line and column when it is an error in a file.
func errorResponse(err error) Response {
	resp := Response{Kind: "error", Error: err.Error()}
	var de *data.Error
	if errors.As(err, &de) {
		resp.Line, resp.Column = de.Line, de.Column
	}
	return resp
}
