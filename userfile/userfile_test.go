package userfile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func TestReadFileRefusesDevicesFIFOsAndLargeFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "p")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "zero-link")
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, make([]byte, 101), 0o600); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]error{"/dev/zero": ErrNotRegular, "/dev/urandom": ErrNotRegular, fifo: ErrNotRegular, link: ErrNotRegular, big: ErrTooLarge} {
		if _, err := ReadFile(path, 100); !errors.Is(err, want) {
			t.Errorf("ReadFile(%s) = %v, want %v", path, err, want)
		}
	}
	if b, err := ReadFile(big, 101); err != nil || len(b) != 101 {
		t.Errorf("a file at the cap: %d bytes, %v", len(b), err)
	}
}

func TestOpenRefusesAFIFOWithoutBlocking(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "p")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := Open(context.Background(), fifo)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotRegular) {
			t.Errorf("Open(FIFO) = %v, want ErrNotRegular", err)
		}
	case <-time.After(time.Minute): // a guard against a hang, not a timing assertion
		t.Fatal("Open blocked on a FIFO")
	}
}
