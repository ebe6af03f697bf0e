package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Blobs are large public records kept in files beside the database
// (<database>.blobs/<name>) instead of in it: a committee's Galois keys,
// ≈ 16 MB each on BGVN14. bbolt keeps a value inside its leaf page, and
// every later write to a neighbouring key copies that leaf — the whole
// value — out of the memory map into a new page: the process would hold
// each such record in its heap at each commit and in its mapped pages
// after (a member's resident set grew by the size of its keys). A blob is
// read with read(2), never mapped. Blobs hold public, digest-checked data
// only: the caller verifies what it reads (the key material's digest is in
// the database).

// ErrBadBlobName is returned for a blob name that is not a plain file
// name of letters, digits, '-', '_' and '.'.
var ErrBadBlobName = errors.New("store: bad blob name")

func (s *Store) blobDir() string { return s.path + ".blobs" }

func (s *Store) blobPath(name string) (string, error) {
	if name == "" || name[0] == '.' || len(name) > 128 {
		return "", fmt.Errorf("%w: %q", ErrBadBlobName, name)
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return "", fmt.Errorf("%w: %q", ErrBadBlobName, name)
		}
	}
	return filepath.Join(s.blobDir(), name), nil
}

// PutBlob writes val as blob name, durably: a temporary file fsync'd,
// renamed over the old blob, and the directory fsync'd.
func (s *Store) PutBlob(name string, val []byte) error {
	path, err := s.blobPath(name)
	if err != nil {
		return err
	}
	dir := s.blobDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".tmp-"+name+"-")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(val)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("store: blob %s: %w", name, err)
	}
	if d, err := os.Open(dir); err == nil {
		err = d.Sync()
		d.Close()
		if err != nil {
			return fmt.Errorf("store: blob %s: %w", name, err)
		}
	}
	return nil
}

// GetBlob reads blob name, or returns ErrNotFound.
func (s *Store) GetBlob(name string) ([]byte, error) {
	path, err := s.blobPath(name)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: blob %s", ErrNotFound, name)
	}
	return b, err
}
