// Command wasmsize lists what the functions of a WebAssembly module take: each function's body
// in bytes, and compressed on its own (zlib at level 9: an estimate of what it adds to the
// module's gzip), largest first; given an older module first, the functions whose bodies differ
// in the newer, by how much. The page's app.wasm must stay under a gzip budget (build.sh), and this says where its
// bytes go. The module needs its name section: build it as build.sh does, without -s -w:
//
//	GOOS=js GOARCH=wasm go build -tags demofetched -gcflags=... -o /tmp/app.wasm ./wasm/app
//	go run ./internal/build/wasmsize [-n 40] [/tmp/old.wasm] /tmp/app.wasm
//
// ./build.sh wasm-sizes [OLD.wasm] does both.
package main

import (
	"bytes"
	"cmp"
	"compress/zlib"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
)

func main() {
	n := flag.Int("n", 40, "how many functions to list")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: wasmsize [-n N] [OLD.wasm] NEW.wasm")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() < 1 || flag.NArg() > 2 {
		flag.Usage()
		os.Exit(2)
	}
	var mods []map[string]size
	for _, path := range flag.Args() {
		b, err := os.ReadFile(path)
		if err == nil {
			var m map[string]size
			if m, err = functions(b); err == nil {
				mods = append(mods, m)
				continue
			}
		}
		fmt.Fprintf(os.Stderr, "wasmsize: %s: %v\n", path, err)
		os.Exit(1)
	}
	if len(mods) == 1 {
		mods = append([]map[string]size{{}}, mods[0])
	}
	rows := diff(mods[0], mods[1])
	fmt.Printf("%d functions, %+d bytes, %+d compressed\n", len(rows), total(rows).raw, total(rows).packed)
	for _, r := range rows[:min(*n, len(rows))] {
		fmt.Printf("%+9d %+8d  %s\n", r.raw, r.packed, r.name)
	}
}

// size is what a function's body takes: its bytes, and compressed on its own.
type size struct{ raw, packed int }

// row is a function's change of size between two modules.
type row struct {
	name string
	size
}

// diff returns the functions whose sizes differ from a to b (every function of b, when a is
// empty), with b's size less a's, the largest changes of compressed size first.
func diff(a, b map[string]size) []row {
	var rows []row
	for name, s := range b {
		if d := (size{s.raw - a[name].raw, s.packed - a[name].packed}); d != (size{}) {
			rows = append(rows, row{name, d})
		}
	}
	for name, s := range a {
		if _, ok := b[name]; !ok {
			rows = append(rows, row{name, size{-s.raw, -s.packed}})
		}
	}
	abs := func(x int) int { return max(x, -x) }
	slices.SortFunc(rows, func(x, y row) int {
		return cmp.Or(cmp.Compare(abs(y.packed), abs(x.packed)), cmp.Compare(abs(y.raw), abs(x.raw)), cmp.Compare(x.name, y.name))
	})
	return rows
}

// total sums the rows' sizes.
func total(rows []row) size {
	var t size
	for _, r := range rows {
		t.raw += r.raw
		t.packed += r.packed
	}
	return t
}

// functions returns the size of each function body of module b by its name (from the name
// section; "#k" for a function it does not name, k counting the imported functions first).
func functions(b []byte) (map[string]size, error) {
	if len(b) < 8 || !bytes.Equal(b[:4], []byte("\x00asm")) {
		return nil, errors.New("not a WebAssembly module")
	}
	r := &reader{b: b, at: 8}
	imported := 0
	var bodies [][]byte
	names := map[int]string{}
	for r.at < len(r.b) {
		id := r.byte()
		end := r.uint() + r.at
		if r.err != nil || end > len(r.b) {
			return nil, errors.New("a section runs past the end of the module")
		}
		s := &reader{b: r.b[:end], at: r.at}
		switch id {
		case 2: // imports: count the functions
			for range s.uint() {
				s.skip(s.uint()) // module
				s.skip(s.uint()) // name
				switch s.byte() {
				case 0:
					s.uint()
					imported++
				case 1: // a table: its element type and limits
					s.byte()
					s.limits()
				case 2:
					s.limits()
				case 3: // a global: its type and mutability
					s.skip(2)
				}
			}
		case 10: // code
			for range s.uint() {
				n := s.uint()
				bodies = append(bodies, s.bytes(n))
			}
		case 0:
			if string(s.bytes(s.uint())) != "name" {
				break
			}
			for s.at < end && s.err == nil {
				sub, n := s.byte(), s.uint()
				if sub != 1 { // 1: the function names
					s.skip(n)
					continue
				}
				for range s.uint() {
					k := s.uint()
					names[k] = string(s.bytes(s.uint()))
				}
			}
		}
		if s.err != nil {
			return nil, fmt.Errorf("section %d: %w", id, s.err)
		}
		r.at = end
	}
	if len(names) == 0 {
		return nil, errors.New("no function names: build it without -ldflags=-s")
	}
	out := make(map[string]size, len(bodies))
	for k, body := range bodies {
		name, ok := names[imported+k]
		if !ok {
			name = "#" + strconv.Itoa(imported+k)
		}
		var z bytes.Buffer
		w, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
		w.Write(body)
		w.Close()
		s := out[name]
		out[name] = size{s.raw + len(body), s.packed + z.Len()}
	}
	return out, nil
}

// reader reads a module's bytes; its first error stops it.
type reader struct {
	b   []byte
	at  int
	err error
}

func (r *reader) byte() byte {
	if r.at >= len(r.b) {
		r.err = io.ErrUnexpectedEOF
		return 0
	}
	r.at++
	return r.b[r.at-1]
}

// uint reads an unsigned LEB128 number.
func (r *reader) uint() int {
	v := 0
	for shift := 0; shift < 35; shift += 7 {
		c := r.byte()
		v |= int(c&0x7f) << shift
		if c < 0x80 {
			return v
		}
	}
	r.err = errors.New("a number longer than 5 bytes")
	return 0
}

func (r *reader) bytes(n int) []byte {
	if n < 0 || r.at+n > len(r.b) {
		r.err = io.ErrUnexpectedEOF
		return nil
	}
	r.at += n
	return r.b[r.at-n : r.at]
}

func (r *reader) skip(n int) { r.bytes(n) }

// limits reads a table's or memory's limits: a flag, the minimum and, when the flag says so,
// the maximum.
func (r *reader) limits() {
	if r.byte()&1 != 0 {
		r.uint()
	}
	r.uint()
}
