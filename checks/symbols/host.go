package symbols

import (
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pinbot-dev/pinbot/internal/repofs"
)

// ResolveHost returns the paths one symbols.host entry names, in glob order:
// entry is a file, a directory or a glob (filepath.Match syntax), absolute
// ("/usr/lib/x86_64-linux-gnu/libprotobuf.so.32*") or relative to the
// repository root ("build/lib/*.so"). A relative entry's matches must stay
// inside root once symbolic links are resolved (internal/repofs): a link out
// of the repository is refused, as is "../", and each is returned as the
// file it leads to. An entry that matches nothing is an error, never an empty
// set. Several names of one file (a symbolic link and its target) may be
// returned; Scan reads such a file once.
func ResolveHost(root, entry string) ([]string, error) {
	if strings.TrimSpace(entry) == "" {
		return nil, errors.New("empty entry (expected a library file, directory or glob)")
	}
	pattern := filepath.FromSlash(entry)
	relative := !filepath.IsAbs(pattern)
	if relative {
		pattern = filepath.Join(root, pattern)
	}
	matches, err := filepath.Glob(pattern)
	if err != nil {
		return nil, fmt.Errorf("%q: %w", entry, err)
	}
	if len(matches) == 0 {
		where := "on this machine"
		if relative {
			where = "in the repository"
		}
		return nil, fmt.Errorf("%q matches no file %s", entry, where)
	}
	if !relative {
		return matches, nil
	}
	// A relative entry is the repository's: each match is resolved, links
	// and all, by the one confinement rule (internal/repofs), and scanned at
	// the file it leads to.
	repo, err := repofs.Open(root)
	if err != nil {
		return nil, fmt.Errorf("the repository root: %w", err)
	}
	defer repo.Close()
	out := make([]string, 0, len(matches))
	for _, m := range matches {
		rel, err := filepath.Rel(root, m)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", entry, err)
		}
		real, err := repo.Resolve(filepath.ToSlash(rel))
		if err != nil {
			return nil, fmt.Errorf("%q: %w (an absolute entry names a library of the machine)", entry, err)
		}
		out = append(out, filepath.Join(repo.Dir(), filepath.FromSlash(real)))
	}
	return out, nil
}

// CheckELF reports whether the file at path reads as an ELF object, with a
// clear error when it does not (a text file, a truncated library). A
// directory is not checked: Scan walks it for shared objects.
func CheckELF(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if st.IsDir() {
		return nil
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	ef, err := safeNewELF(f)
	if err != nil {
		return fmt.Errorf("%s cannot be read as ELF: %w", path, err)
	}
	if ef.Type != elf.ET_DYN {
		return fmt.Errorf("%s is an ELF %s, not a shared object", path, strings.ToLower(strings.TrimPrefix(ef.Type.String(), "ET_")))
	}
	return nil
}

// safeNewELF is elf.NewFile with its panics on malformed input turned into
// errors.
func safeNewELF(f *os.File) (ef *elf.File, err error) {
	defer func() {
		if p := recover(); p != nil {
			ef, err = nil, fmt.Errorf("malformed ELF: %v", p)
		}
	}()
	return elf.NewFile(f)
}
