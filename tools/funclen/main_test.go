package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// source is a Go file with a function F, a method (*T).M and a generic
// method G[E].N, each of body lines of statements, and a short function.
func source(body int) string {
	stmts := strings.Repeat("\t_ = 1\n", body)
	return fmt.Sprintf("package p\n\ntype T struct{}\n\ntype G[E any] struct{}\n\nfunc F() {\n%s}\n\nfunc (t *T) M() {\n%s}\n\nfunc (g G[E]) N() {\n%s}\n\nfunc short() {}\n", stmts, stmts, stmts)
}

func TestFuncLen(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "p.go")
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name   string
		body   int    // lines of each function's body: it spans body+2
		known  string // the list of known long functions
		code   int
		output string
	}{
		{"at the limit", 8, "", 0, ""},
		{"one over the limit", 9, "", 1, path + ":7: F is 11 lines (at most 10: split it by what each part decides)\n" +
			path + ":19: (*T).M is 11 lines (at most 10: split it by what each part decides)\n" +
			path + ":31: G.N is 11 lines (at most 10: split it by what each part decides)\n"},
		{"known at their length", 9, path + " F 11\n" + path + " (*T).M 11\n# a comment\n" + path + " G.N 11 # trailing\n", 0, ""},
		{"a known one grew", 10, path + " F 11\n" + path + " (*T).M 12\n" + path + " G.N 12\n", 1,
			path + ":7: F grew from 11 to 12 lines (at most 10 for new code: split it rather than grow it)\n"},
		{"known in another file only", 9, filepath.Join(dir, "q.go") + " F 11\n" + path + " (*T).M 11\n" + path + " G.N 11\n", 1,
			path + ":7: F is 11 lines (at most 10: split it by what each part decides)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			write("p.go", source(tt.body))
			args := []string{"-max", "10"}
			if tt.known != "" {
				args = append(args, "-known", write("known.txt", tt.known))
			}
			var out, errOut bytes.Buffer
			if code := run(append(args, path), &out, &errOut); code != tt.code {
				t.Errorf("exit %d, want %d; stderr: %s", code, tt.code, errOut.String())
			}
			if out.String() != tt.output {
				t.Errorf("output:\n%s\nwant:\n%s", out.String(), tt.output)
			}
		})
	}
}

func TestKnownListErrors(t *testing.T) {
	dir := t.TempDir()
	for _, bad := range []string{"p.go F\n", "p.go F many\n", "p.go F 0\n"} {
		known := filepath.Join(dir, "known.txt")
		if err := os.WriteFile(known, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		var out, errOut bytes.Buffer
		if code := run([]string{"-known", known}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "known.txt:1:") {
			t.Errorf("%q: exit %d, stderr %q: want exit 2 naming known.txt:1", bad, code, errOut.String())
		}
	}
}
