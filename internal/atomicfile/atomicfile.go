// Package atomicfile writes files whole or not at all: the bytes go to a
// temporary file (mode 0600) in the same directory, are synced, and only
// then take the file's name. Write and Create are for small secret files
// held whole; WriteStream for outputs written as they are made.
package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Write replaces path with data, atomically.
func Write(path string, data []byte) error {
	tmp, err := temp(path, data)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	return os.Rename(tmp, path)
}

// Create writes data at path unless a file is there already, atomically:
// of writers racing, the first one wins and the others leave its file as
// it is. It reports whether this call created the file.
func Create(path string, data []byte) (bool, error) {
	tmp, err := temp(path, data)
	if err != nil {
		return false, err
	}
	defer os.Remove(tmp)
	// A hard link fails if the file exists.
	if err := os.Link(tmp, path); err != nil {
		if os.IsExist(err) {
			return false, nil
		}
		return false, err
	}
	return true, nil
}

// Lock takes an exclusive lock on path+".lock" (created 0600), waiting
// for it, so that read-modify-write cycles of path by several processes
// run one at a time. unlock releases it.
func Lock(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}

// RemoveLeftovers removes the temporary files of path that a writer killed
// before its rename left behind. Only a caller that holds path's Lock,
// which every writer of path takes, may call it: no other write is under
// way.
func RemoveLeftovers(path string) {
	entries, _ := os.ReadDir(filepath.Dir(path))
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), tempPrefix(path)) {
			os.Remove(filepath.Join(filepath.Dir(path), e.Name()))
		}
	}
}

// tempPrefix starts the names of path's temporary files.
func tempPrefix(path string) string { return "." + filepath.Base(path) + ".tmp-" }

// temp writes data to a new temporary file beside path, mode 0600, synced,
// and returns its name.
func temp(path string, data []byte) (string, error) {
	f, err := os.CreateTemp(filepath.Dir(path), tempPrefix(path)+"*")
	if err != nil {
		return "", err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}
