package probe

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
)

// VerifySHA256 reports whether the size bytes of r hash to want, a hex SHA-256
// digest, optionally prefixed "sha256=" (a PEP 503 link fragment) or "sha256:".
// Callers download a wheel for static mode, check it with VerifySHA256 and pass it
// on as Wheel{R: r, Size: size}.
func VerifySHA256(r io.ReaderAt, size int64, want string) error {
	want = strings.ToLower(strings.TrimSpace(want))
	want = strings.TrimPrefix(strings.TrimPrefix(want, "sha256="), "sha256:")
	if len(want) != sha256.Size*2 {
		return fmt.Errorf("probe: %q is not a SHA-256 digest", want)
	}
	if _, err := hex.DecodeString(want); err != nil {
		return fmt.Errorf("probe: %q is not a SHA-256 digest", want)
	}
	h := sha256.New()
	n, err := io.Copy(h, io.NewSectionReader(r, 0, size))
	if err != nil {
		return fmt.Errorf("probe: hashing: %w", err)
	}
	if n != size {
		return fmt.Errorf("probe: hashing: read %d of %d bytes", n, size)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		return fmt.Errorf("probe: SHA-256 mismatch: got %s, want %s", got, want)
	}
	return nil
}
