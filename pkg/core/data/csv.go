package data

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// The CSV dialect read here (RFC 4180, with the additions below):
//   - the first non-empty line is the header, naming every column; names are unique and
//     non-empty;
//   - the delimiter is a comma, a semicolon or a tab: declared by the schema, or else the one
//     that occurs most often outside quotes in the header line (a tie is an error);
//   - a UTF-8 byte-order mark at the start is skipped; lines end with LF or CRLF (a carriage
//     return anywhere else in an unquoted field is an error); empty lines are skipped;
//   - spaces (and tabs, unless the delimiter is a tab) around a field are removed, so
//     "a, b" reads as the fields "a" and "b" (the UCI files separate fields by ", ");
//   - a field may be quoted with double quotes, inside which delimiters, line breaks and
//     doubled quotes ("") stand for themselves; a line break inside quotes reads as "\n";
//     spaces between the delimiters and the quotes are removed, the quoted text is kept;
//   - a quote inside an unquoted field, or text after a closing quote, is an error;
//   - every field is valid UTF-8;
//   - no physical line (without its line ending) and no record is longer than maxRecord
//     bytes, so garbage input (an unclosed quote in a large file) cannot make the reader hold
//     more than that;
//   - a compressed file (gzip, zip, bzip2, xz, zstd), recognised by its first bytes, and a
//     first line with a NUL byte (binary data, UTF-16 text) are errors that say so.

// maxRecord is the longest physical line and the longest record, in bytes.
const maxRecord = 1 << 20

// bufferSize is the size of the reader's buffer: the longest line and its CRLF.
const bufferSize = maxRecord + len("\r\n")

// compressedFormats are the first bytes of the compressed files people give for a CSV file.
var compressedFormats = []struct {
	magic, what, fix string
}{
	{"\x1f\x8b", "gzip-compressed", "decompress it first"},
	{"PK\x03\x04", "a zip archive", "extract the CSV file from it first"},
	{"BZh", "bzip2-compressed", "decompress it first"},
	{"\xfd7zXZ\x00", "xz-compressed", "decompress it first"},
	{"\x28\xb5\x2f\xfd", "zstd-compressed", "decompress it first"},
}

// utf8BOM is the UTF-8 encoding of U+FEFF, which some programs write at the start of a file.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// recordReader reads the records of a CSV input one at a time into buffers it reuses: after
// the first records it allocates nothing.
type recordReader struct {
	br    *bufio.Reader
	delim byte
	line  int  // physical lines read so far
	atEOF bool // the underlying reader is exhausted

	start  int      // line where the current record starts
	buf    []byte   // the fields of the current record, back to back
	ends   []int    // ends[k] is the end of field k in buf
	starts []int    // starts[k] is the line where field k starts
	fields [][]byte // fields[k] = buf[ends[k-1]:ends[k]]
}

// openCSV starts reading a CSV input: it refuses a compressed or binary file, skips a
// byte-order mark, settles the delimiter (delim, or detected from the header line when delim
// is 0) and reads the header. It returns the reader, positioned at the first data record, and
// the column names.
func openCSV(r io.Reader, delim byte) (*recordReader, []string, error) {
	br := bufio.NewReaderSize(r, bufferSize)
	head, err := br.Peek(bufferSize)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, nil, lineError(1, "reading the input: %w", err)
	}
	if err := checkText(head); err != nil {
		return nil, nil, err
	}
	bom := 0
	if bytes.HasPrefix(head, utf8BOM) {
		bom = len(utf8BOM)
	}
	if delim == 0 {
		if delim, err = detectDelimiter(head[bom:]); err != nil {
			return nil, nil, err
		}
	}
	if _, err := br.Discard(bom); err != nil {
		return nil, nil, lineError(1, "reading the input: %w", err)
	}
	rr := &recordReader{br: br, delim: delim}
	ok, err := rr.read()
	if err != nil {
		return nil, nil, err
	}
	if !ok {
		return nil, nil, lineError(rr.line+1, "empty input: no header line")
	}
	names := make([]string, len(rr.fields))
	index := make(map[string]int, len(rr.fields))
	for k, f := range rr.fields {
		name := string(f)
		if name == "" {
			return nil, nil, fieldError(rr.starts[k], k+1, "empty column name")
		}
		if j, dup := index[name]; dup {
			return nil, nil, fieldError(rr.starts[k], k+1, "duplicate column name %q (also column %d)", name, j)
		}
		index[name] = k + 1
		names[k] = name
	}
	return rr, names, nil
}

// Preview reads the header and at most maxRows records of a CSV input as Encode reads them
// (delimiter delim, or detected from the header line when 0; the spaces around fields
// removed), for a person to look at. It returns the header's error; after the header, it
// stops without an error at the end of the input or at the first record Encode would refuse
// (which encoding the file reports).
func Preview(r io.Reader, delim byte, maxRows int) (header []string, rows [][]string, err error) {
	rr, header, err := openCSV(r, delim)
	if err != nil {
		return nil, nil, err
	}
	for len(rows) < maxRows {
		if ok, err := rr.next(header); !ok || err != nil {
			break
		}
		row := make([]string, len(rr.fields))
		for k, f := range rr.fields {
			row[k] = string(f)
		}
		rows = append(rows, row)
	}
	return header, rows, nil
}

// checkText returns an error when head, the start of the input, is not text: a compressed
// file, or a first line with a NUL byte.
func checkText(head []byte) error {
	for _, f := range compressedFormats {
		// bzip2's "BZh" is followed by its block size, a digit 1–9 (a header may start "BZh…").
		if bytes.HasPrefix(head, []byte(f.magic)) && (f.magic != "BZh" || len(head) > 3 && head[3] >= '1' && head[3] <= '9') {
			return lineError(1, "the file is %s, not CSV text: %s", f.what, f.fix)
		}
	}
	first, _, _ := bytes.Cut(head, []byte("\n"))
	if bytes.IndexByte(first, 0) >= 0 {
		return lineError(1, "the first line has a NUL byte: the file is binary, or UTF-16 text, not CSV text")
	}
	return nil
}

// detectDelimiter returns the comma, semicolon or tab that occurs most often outside quotes in
// the first non-empty line of head, or a comma when none occurs (a one-column file). A tie
// between the most frequent is an error.
func detectDelimiter(head []byte) (byte, error) {
	line := 1
	for {
		if bytes.HasPrefix(head, []byte("\n")) {
			head = head[1:]
		} else if bytes.HasPrefix(head, []byte("\r\n")) {
			head = head[2:]
		} else {
			break
		}
		line++
	}
	candidates := []byte{',', ';', '\t'}
	var count [3]int
	inQuotes := false
scan:
	for _, c := range head {
		switch c {
		case '"':
			inQuotes = !inQuotes // a doubled quote toggles twice
		case '\n':
			if !inQuotes {
				break scan
			}
		default:
			if !inQuotes {
				if k := bytes.IndexByte(candidates, c); k >= 0 {
					count[k]++
				}
			}
		}
	}
	best := 0
	for k := 1; k < len(candidates); k++ {
		if count[k] > count[best] {
			best = k
		}
	}
	for k := range candidates {
		if k != best && count[k] == count[best] && count[k] > 0 {
			return 0, lineError(line, "cannot tell the delimiter: the header line has %d commas, %d semicolons and %d tabs (declare \"delimiter\" in the schema)",
				count[0], count[1], count[2])
		}
	}
	return candidates[best], nil
}

// nextLine returns the next physical line without its line ending (LF, or CRLF; a final CR
// at the end of the input is dropped too), and ok = false at the end of the input.
func (r *recordReader) nextLine() (line []byte, ok bool, err error) {
	if r.atEOF {
		return nil, false, nil
	}
	b, err := r.br.ReadSlice('\n')
	switch {
	case err == nil:
	case errors.Is(err, io.EOF):
		r.atEOF = true
		if len(b) == 0 {
			return nil, false, nil
		}
	case errors.Is(err, bufio.ErrBufferFull):
		return nil, false, lineError(r.line+1, "line longer than %d bytes", maxRecord)
	default:
		return nil, false, lineError(r.line+1, "reading the input: %w", err)
	}
	b = bytes.TrimSuffix(b, []byte("\n"))
	b = bytes.TrimSuffix(b, []byte("\r"))
	if len(b) > maxRecord {
		return nil, false, lineError(r.line+1, "line longer than %d bytes", maxRecord)
	}
	r.line++
	return b, true, nil
}

// isSpace reports whether c is removed around fields: a space, or a tab unless the
// delimiter is a tab.
func (r *recordReader) isSpace(c byte) bool {
	return c == ' ' || (c == '\t' && r.delim != '\t')
}

// trim removes the spaces around f.
func (r *recordReader) trim(f []byte) []byte {
	for len(f) > 0 && r.isSpace(f[0]) {
		f = f[1:]
	}
	for len(f) > 0 && r.isSpace(f[len(f)-1]) {
		f = f[:len(f)-1]
	}
	return f
}

// endField closes the field that started on line fieldLine.
func (r *recordReader) endField(fieldLine int) {
	r.ends = append(r.ends, len(r.buf))
	r.starts = append(r.starts, fieldLine)
}

// read reads the next record into r.fields (valid until the next call), skipping empty
// lines. It returns false at the end of the input.
func (r *recordReader) read() (bool, error) {
	r.buf, r.ends, r.starts = r.buf[:0], r.ends[:0], r.starts[:0]
	var line []byte
	for {
		l, ok, err := r.nextLine()
		if err != nil || !ok {
			return false, err
		}
		if len(l) > 0 {
			line = l
			break
		}
	}
	r.start = r.line
	for pos := 0; ; {
		fieldLine := r.line
		i := pos
		for i < len(line) && r.isSpace(line[i]) {
			i++
		}
		if i < len(line) && line[i] == '"' {
			// A quoted field: copy up to the closing quote, across lines if need be.
			i++
			for {
				q := bytes.IndexByte(line[i:], '"')
				if q < 0 {
					r.buf = append(r.buf, line[i:]...)
					r.buf = append(r.buf, '\n')
					if len(r.buf) > maxRecord {
						return false, lineError(r.start, "record longer than %d bytes (is a quote left open?)", maxRecord)
					}
					next, ok, err := r.nextLine()
					if err != nil {
						return false, err
					}
					if !ok {
						return false, fieldError(fieldLine, len(r.ends)+1, "quoted field never closes: the input ends inside it")
					}
					line, i = next, 0
					continue
				}
				r.buf = append(r.buf, line[i:i+q]...)
				i += q + 1
				if i < len(line) && line[i] == '"' {
					r.buf = append(r.buf, '"')
					i++
					continue
				}
				break
			}
			for i < len(line) && r.isSpace(line[i]) {
				i++
			}
			r.endField(fieldLine)
			if i == len(line) {
				break
			}
			if line[i] != r.delim {
				return false, fieldError(fieldLine, len(r.ends), "unexpected %s after the closing quote", quote(line[i:i+1]))
			}
			pos = i + 1
			continue
		}
		// An unquoted field: one pass to its end, looking for quotes and carriage returns
		// (fields are short: a byte loop beats three calls of bytes.IndexByte).
		end, bad := pos, byte(0)
		for ; end < len(line) && line[end] != r.delim; end++ {
			if c := line[end]; c == '"' || c == '\r' {
				bad = c
			}
		}
		switch bad {
		case '"':
			return false, fieldError(fieldLine, len(r.ends)+1, "quote character inside an unquoted field (quote the whole field and double the quotes inside it)")
		case '\r':
			return false, fieldError(fieldLine, len(r.ends)+1, "carriage return inside a field (lines must end with LF or CRLF)")
		}
		f := r.trim(line[pos:end])
		r.buf = append(r.buf, f...)
		r.endField(fieldLine)
		if end == len(line) {
			break
		}
		pos = end + 1
	}
	if len(r.buf) > maxRecord {
		return false, lineError(r.start, "record longer than %d bytes", maxRecord)
	}
	r.fields = r.fields[:0]
	from := 0
	for _, to := range r.ends {
		r.fields = append(r.fields, r.buf[from:to:to])
		from = to
	}
	if !utf8.Valid(r.buf) {
		for k, f := range r.fields {
			if !utf8.Valid(f) {
				return false, fieldError(r.starts[k], k+1, "invalid UTF-8 %s", quote(f))
			}
		}
	}
	return true, nil
}

// next reads the next data record into r.fields, like read, and checks that it has one field
// per column of the header names; an error about a field names its column.
func (r *recordReader) next(names []string) (bool, error) {
	ok, err := r.read()
	if err != nil {
		var e *Error
		if errors.As(err, &e) && e.Index > 0 && e.Index <= len(names) {
			e.Column = names[e.Index-1]
		}
		return false, err
	}
	if ok && len(r.fields) != len(names) {
		return false, lineError(r.start, "%d fields, but the header has %d (the delimiter is a %s)", len(r.fields), len(names), delimiterName(r.delim))
	}
	return ok, nil
}

// delimiterName names the delimiter d for messages.
func delimiterName(d byte) string {
	switch d {
	case ',':
		return "comma"
	case ';':
		return "semicolon"
	case '\t':
		return "tab"
	}
	return fmt.Sprintf("%q", d)
}
