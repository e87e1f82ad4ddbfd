package archive

import (
	"archive/tar"
	"bufio"
	"compress/bzip2"
	"fmt"
	"io"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

// MaxZstdWindow is the largest zstd window a stream may ask for: 128 MiB,
// what zstd's strongest levels use on large inputs (conda packages are made
// at levels 19 to 22).
const MaxZstdWindow = 1 << 27

// tarball walks a compressed or plain tarball read from the start of r.
func (w *walker) tarball(r io.ReaderAt, size int64, kind Kind) error {
	if kind == TarXz {
		if err := checkXZ(r, size); err != nil {
			return err
		}
	}
	return w.stream(io.NewSectionReader(r, 0, size), kind)
}

// stream walks the tarball in src, decompressed as kind says. The bytes the
// decompressor yields count against MaxTotalSize and, against the bytes it
// consumed, MaxRatio.
func (w *walker) stream(src io.Reader, kind Kind) error {
	in := &counter{r: bufio.NewReaderSize(src, 64<<10)}
	var dec io.Reader
	switch kind {
	case Tar:
		dec = in
	case TarGz:
		zr, err := gzip.NewReader(in)
		if err != nil {
			return fmt.Errorf("not a readable gzip stream: %w", err)
		}
		defer zr.Close()
		dec = zr
	case TarBz2:
		dec = bzip2.NewReader(in)
	case TarXz:
		xr, err := xz.ReaderConfig{}.NewReader(in)
		if err != nil {
			return fmt.Errorf("not a readable xz stream: %w", err)
		}
		dec = xr
	case TarZst:
		zr, err := zstd.NewReader(in, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
			zstd.WithDecoderMaxWindow(MaxZstdWindow))
		if err != nil {
			return fmt.Errorf("not a readable zstd stream: %w", err)
		}
		defer zr.Close()
		dec = zr
	default:
		return fmt.Errorf("not a tarball kind (%q)", kind)
	}
	out := &limited{r: dec, in: in, lim: w.lim}
	tr := tar.NewReader(out)
	for {
		hdr, err := tr.Next()
		if out.err != nil {
			return out.err
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("not a readable %s: %w", kind, err)
		}
		if hdr.Typeflag == tar.TypeXGlobalHeader {
			continue // PAX settings for what follows, already applied by archive/tar
		}
		if err := w.count(); err != nil {
			return err
		}
		name, err := cleanName(hdr.Name)
		if err != nil {
			return err
		}
		if name == "" {
			continue
		}
		m := &Member{Name: strings.TrimSuffix(name, "/"), Size: hdr.Size}
		switch hdr.Typeflag {
		case tar.TypeReg:
			m.Type = Regular
			if isSparse(hdr) {
				m.Type = Other // holes inflate to zeros no limit sees; never read
			}
		case tar.TypeDir:
			m.Type = Dir
		case tar.TypeSymlink:
			m.Type, m.Link = Symlink, hdr.Linkname
			if err := checkSymlink(name, hdr.Linkname); err != nil {
				return err
			}
		case tar.TypeLink:
			m.Type = Hardlink
			if m.Link, err = cleanName(hdr.Linkname); err != nil || m.Link == "" {
				return refused("hard link %q points outside the archive (%q)", name, hdr.Linkname)
			}
			m.Link = strings.TrimSuffix(m.Link, "/")
		default:
			m.Type = Other
		}
		if m.Type == Regular {
			if hdr.Size > w.lim.MaxMemberSize {
				m.Err = fmt.Errorf("member is %d bytes uncompressed (limit %d)", hdr.Size, w.lim.MaxMemberSize)
			} else {
				m.open = func() (io.ReadCloser, error) { return io.NopCloser(tr), nil }
			}
		}
		err = w.call(m)
		if out.err != nil {
			return out.err // a limit hit while fn read: the walk's error, not fn's
		}
		if err != nil {
			return err
		}
	}
}

// isSparse reports whether a header describes a sparse file (GNU or PAX).
func isSparse(hdr *tar.Header) bool {
	if hdr.Typeflag == tar.TypeGNUSparse {
		return true
	}
	for k := range hdr.PAXRecords {
		if strings.HasPrefix(k, "GNU.sparse.") {
			return true
		}
	}
	return false
}

// counter counts the bytes read through it.
type counter struct {
	r io.Reader
	n int64
}

func (c *counter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// limited is a decompressor's output, failing once it has yielded more than
// MaxTotalSize bytes or more than MaxRatio times what it consumed (past
// RatioFloor). The failure is kept in err, so the walk reports it rather
// than what archive/tar or the caller made of it.
type limited struct {
	r   io.Reader
	in  *counter
	lim Limits
	n   int64
	err error
}

func (l *limited) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	n, err := l.r.Read(p)
	l.n += int64(n)
	switch {
	case l.n > l.lim.MaxTotalSize:
		l.err = refused("the stream inflates to more than %d bytes", l.lim.MaxTotalSize)
	case l.n > RatioFloor && l.n/max(l.in.n, 1) > l.lim.MaxRatio:
		l.err = refused("the stream compresses more than %d:1: refusing a likely decompression bomb", l.lim.MaxRatio)
	}
	if l.err != nil {
		return 0, l.err
	}
	return n, err
}
