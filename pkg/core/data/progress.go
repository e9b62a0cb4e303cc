package data

import (
	"io"
	"time"
)

// ProgressReader returns a reader of r, a file of size bytes, that calls report with the
// fraction read so far (at most 1) on its first read and then at most once per interval, so
// that encoding a large file can show its progress. A size ≤ 0 reports nothing.
func ProgressReader(r io.Reader, size int64, interval time.Duration, report func(fraction float64)) io.Reader {
	return &progressReader{r: r, size: size, interval: interval, report: report}
}

type progressReader struct {
	r        io.Reader
	size     int64
	read     int64
	interval time.Duration
	last     time.Time
	report   func(fraction float64)
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.read += int64(n)
	if p.size > 0 {
		if now := time.Now(); p.last.IsZero() || now.Sub(p.last) >= p.interval {
			p.last = now
			p.report(min(1, float64(p.read)/float64(p.size)))
		}
	}
	return n, err
}
