package explorer

import (
	"net/http"
	"time"
)

// Write deadlines: every write of an answer must make progress within
// writeIdle, and the deadline moves on with every writeChunk bytes that go
// out. A download that progresses never dies; a client that stops reading
// is dropped after writeIdle, and with it what its answer holds.
var writeIdle = 30 * time.Second

// writeChunk is the most bytes written under one deadline.
const writeChunk = 256 << 10

// deadlineWriter sets the connection's write deadline before each chunk
// it writes (and before the header): see writeIdle.
type deadlineWriter struct {
	http.ResponseWriter
	rc *http.ResponseController
}

func newDeadlineWriter(w http.ResponseWriter) *deadlineWriter {
	return &deadlineWriter{ResponseWriter: w, rc: http.NewResponseController(w)}
}

// extend moves the write deadline to writeIdle from now. A writer
// without deadlines (a test's recorder) is left as it is.
func (d *deadlineWriter) extend() { d.rc.SetWriteDeadline(time.Now().Add(writeIdle)) }

func (d *deadlineWriter) WriteHeader(code int) {
	d.extend()
	d.ResponseWriter.WriteHeader(code)
}

func (d *deadlineWriter) Write(p []byte) (int, error) {
	n := 0
	for len(p) > 0 {
		c := p[:min(len(p), writeChunk)]
		d.extend()
		m, err := d.ResponseWriter.Write(c)
		n += m
		if err != nil {
			return n, err
		}
		p = p[len(c):]
	}
	return n, nil
}

// Unwrap returns the wrapped writer, for http.ResponseController.
func (d *deadlineWriter) Unwrap() http.ResponseWriter { return d.ResponseWriter }
