package pack

import (
	"io"

	"github.com/klauspost/compress/zlib"
)

func newZlib(w io.Writer) io.WriteCloser { return zlib.NewWriter(w) }
