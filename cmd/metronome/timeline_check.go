package main

import (
	"errors"
	"io/fs"
	"os"
)

// checkWritable fails now, before a run, when path could not be written
// after it: --timeline writes only at the end. A file the check creates is
// removed again, so a run that stops early leaves nothing behind.
func checkWritable(path string) error {
	_, statErr := os.Stat(path)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if errors.Is(statErr, fs.ErrNotExist) {
		return os.Remove(path)
	}
	return nil
}
