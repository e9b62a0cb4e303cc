//go:build linux

// Command scale makes the synthetic files of the scale benchmark and measures a command's time
// and peak memory; tests/scale.mjs runs it (./build.sh bench --scale, docs/benchmarks.md).
//
//	go run ./internal/bench/scale gen -n ROWS -out FILE.csv [-schema FILE.json] [-numeric K -categorical M]
//	go run ./internal/bench/scale run -- COMMAND [ARGS…]
//
// gen writes ROWS rows of 20 columns and a binary label: x0 … x9 numeric in [0, 100] with two
// decimals, c0 … c9 categorical with 8 levels each (k0 … k7), and y (0 or 1) drawn from a
// logistic model of the features, about 92 bytes a row; -schema writes the schema that declares
// those public bounds (D = 10 + 80 + 1 = 91 encoded features with the bias). -numeric and
// -categorical give other numbers of columns of each kind (-numeric 20 -categorical 0: 20
// numeric columns, held dense, about 120 bytes a row). The rows are a function of their index,
// so a file of n rows is the first n rows of every larger one of its shape.
//
// run runs the command and prints one line of JSON: its wall time, its CPU time (user and
// system) and its peak resident memory (the kernel's maximum resident set size of the process,
// getrusage's ru_maxrss), and its exit status and the end of its standard error when it failed.
// It runs on Linux (ru_maxrss in kilobytes).
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"
)

// Levels is the number of levels of each categorical column.
const Levels = 8

// shape is the numbers of numeric and categorical columns of a file.
type shape struct{ numeric, categorical int }

// Schema is the schema of the generated files of shape sh: each column's public bounds, the
// rows scaled into the unit ℓ2 ball with a bias of 1/√2, as examples/adult-lr.schema.json does.
func Schema(sh shape) []byte {
	var b bytes.Buffer
	b.WriteString(`{"privopt_schema": 1, "delimiter": ",", "norm": {"p": 2, "radius": 1, "bias": 0.7071067811865476, "fit": "scale"}, "columns": [`)
	for j := range sh.numeric {
		fmt.Fprintf(&b, "\n  {\"name\": \"x%d\", \"kind\": \"numeric\", \"min\": 0, \"max\": 100},", j)
	}
	for j := range sh.categorical {
		fmt.Fprintf(&b, "\n  {\"name\": \"c%d\", \"kind\": \"categorical\", \"categories\": [", j)
		for k := range Levels {
			if k > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "\"k%d\"", k)
		}
		b.WriteString("]},")
	}
	b.WriteString("\n  {\"name\": \"y\", \"kind\": \"binary-label\", \"positive\": [\"1\"], \"negative\": [\"0\"]}]}\n")
	return b.Bytes()
}

// write writes the header and n rows of shape sh.
func write(w io.Writer, n int, sh shape) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	for j := range sh.numeric {
		fmt.Fprintf(bw, "x%d,", j)
	}
	for j := range sh.categorical {
		fmt.Fprintf(bw, "c%d,", j)
	}
	bw.WriteString("y\n")
	// The model behind the label: a weight per numeric column and per level.
	wr := rand.New(rand.NewPCG(1, 2))
	wx, wc := make([]float64, sh.numeric), make([][Levels]float64, sh.categorical)
	for j := range wx {
		wx[j] = wr.NormFloat64() / 30
	}
	for j := range wc {
		for k := range wc[j] {
			wc[j][k] = wr.NormFloat64()
		}
	}
	var line []byte
	for i := range n {
		r := rand.New(rand.NewPCG(uint64(i), 20261201))
		line = line[:0]
		z := 0.0
		for j := range sh.numeric {
			v := math.Round(r.Float64()*10000) / 100
			z += wx[j] * (v - 50)
			line = strconv.AppendFloat(line, v, 'f', -1, 64)
			line = append(line, ',')
		}
		for j := range sh.categorical {
			k := r.IntN(Levels)
			z += wc[j][k] / 2
			line = append(line, 'k', byte('0'+k), ',')
		}
		y := byte('0')
		if r.Float64() < 1/(1+math.Exp(-z)) {
			y = '1'
		}
		line = append(line, y, '\n')
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	return bw.Flush()
}

func gen(args []string) error {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	n := fs.Int("n", 0, "the number of rows")
	out := fs.String("out", "", "the CSV file to write")
	schema := fs.String("schema", "", "the schema file to write (optional)")
	var sh shape
	fs.IntVar(&sh.numeric, "numeric", 10, "the number of numeric columns")
	fs.IntVar(&sh.categorical, "categorical", 10, "the number of categorical columns")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *n < 1 || *out == "" || sh.numeric < 0 || sh.categorical < 0 || sh.numeric+sh.categorical == 0 {
		return errors.New("gen: -n ROWS (at least 1) and -out FILE are required, and at least one column")
	}
	if *schema != "" {
		if err := os.WriteFile(*schema, Schema(sh), 0o644); err != nil {
			return err
		}
	}
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	if err := write(f, *n, sh); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// measurement is what run prints.
type measurement struct {
	Seconds     float64 `json:"seconds"`
	UserSeconds float64 `json:"user_seconds"`
	SysSeconds  float64 `json:"sys_seconds"`
	PeakRSS     int64   `json:"peak_rss_bytes"`
	Exit        int     `json:"exit"`
	Stderr      string  `json:"stderr,omitempty"`
}

// tail keeps the last 2,000 bytes written to it.
type tail struct{ b []byte }

func (t *tail) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > 2000 {
		t.b = append(t.b[:0], t.b[len(t.b)-2000:]...)
	}
	return len(p), nil
}

func run(args []string, stdout io.Writer) error {
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		return errors.New("run: no command")
	}
	var errs tail
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = io.Discard, &errs
	start := time.Now()
	err := cmd.Run()
	m := measurement{Seconds: time.Since(start).Seconds()}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		return err
	}
	st := cmd.ProcessState
	m.UserSeconds, m.SysSeconds = st.UserTime().Seconds(), st.SystemTime().Seconds()
	if ru, ok := st.SysUsage().(*syscall.Rusage); ok {
		m.PeakRSS = int64(ru.Maxrss) * 1024 // kilobytes on Linux
	}
	if m.Exit = st.ExitCode(); m.Exit != 0 {
		m.Stderr = string(errs.b)
	}
	return json.NewEncoder(stdout).Encode(m)
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: scale gen -n ROWS -out FILE.csv [-schema FILE.json] | scale run -- COMMAND [ARGS…]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "gen":
		err = gen(os.Args[2:])
	case "run":
		err = run(os.Args[2:], os.Stdout)
	default:
		err = fmt.Errorf("unknown subcommand %q (gen or run)", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "scale:", err)
		os.Exit(1)
	}
}
