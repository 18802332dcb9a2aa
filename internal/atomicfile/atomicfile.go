// Package atomicfile replaces a file all at once, so that a write that fails
// part way (a full disk, a file size limit, a crash) leaves the old file as
// it was: the baseline --update and triage rewrites of a hand-edited file.
package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
)

// Write writes data to path as os.WriteFile does, but into a temporary file
// in path's directory that is then renamed over path (a rename within a
// directory replaces a file atomically). A symbolic link at path is
// followed: the file it names is replaced, the link stays. The new file
// keeps the old one's permission bits (perm when there is none). On an
// error path is unchanged and the temporary file removed; the error is the
// write's, the close's or the rename's.
func Write(path string, data []byte, perm os.FileMode) (err error) {
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if st, err := os.Stat(path); err == nil {
		perm = st.Mode().Perm()
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = os.Remove(f.Name())
		}
	}()
	if _, err = f.Write(data); err != nil {
		_ = f.Close()
		var pe *os.PathError
		if errors.As(err, &pe) {
			return &os.PathError{Op: "write", Path: path, Err: pe.Err} // the file's name, not the temporary one's
		}
		return err
	}
	if err = f.Chmod(perm); err != nil {
		_ = f.Close()
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
