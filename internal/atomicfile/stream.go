package atomicfile

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
)

// WriteStream replaces path, atomically, with what write writes, and
// gives it the mode perm: the bytes go to a temporary file beside path as
// write gives them (so it need not hold them), are synced, and only then
// take the name. When write fails, path is left as it was.
func WriteStream(path string, perm os.FileMode, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), tempPrefix(path)+"*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	w := bufio.NewWriterSize(f, 64<<10)
	err = write(w)
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
