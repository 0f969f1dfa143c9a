// Command funclen fails when a function grows past a length: it keeps the
// pipeline readable in one screen. make lint runs it over every Go file but
// the tests:
//
//	funclen [-max 80] [-known FILE] FILE.go...
//
// Each function (or method) whose declaration spans more than -max lines,
// from func to its closing brace, is an error unless FILE lists it with its
// length ("path name lines", as funclen prints them), and a listed one
// fails when it grows past that length. The list is of functions written
// before the check: split one and drop its line; never add one.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"strconv"
	"strings"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("funclen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	limit := fs.Int("max", 80, "most lines a function may span")
	knownPath := fs.String("known", "", "functions longer than -max written before the check: \"path name lines\" per line")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	known := map[string]int{}
	if *knownPath != "" {
		var err error
		if known, err = readKnown(*knownPath); err != nil {
			fmt.Fprintln(stderr, "funclen:", err)
			return 2
		}
	}
	fset := token.NewFileSet()
	failed := false
	for _, path := range fs.Args() {
		funcs, err := long(fset, path, *limit)
		if err != nil {
			fmt.Fprintln(stderr, "funclen:", err)
			return 2
		}
		for _, f := range funcs {
			key := path + " " + f.name
			was, ok := known[key]
			switch {
			case !ok:
				fmt.Fprintf(stdout, "%s:%d: %s is %d lines (at most %d: split it by what each part decides)\n", path, f.line, f.name, f.lines, *limit)
				failed = true
			case f.lines > was:
				fmt.Fprintf(stdout, "%s:%d: %s grew from %d to %d lines (at most %d for new code: split it rather than grow it)\n", path, f.line, f.name, was, f.lines, *limit)
				failed = true
			}
		}
	}
	if failed {
		return 1
	}
	return 0
}

// function is a function declaration longer than the limit.
type function struct {
	name        string // F, T.M or (*T).M
	line, lines int
}

// long returns the functions of the file at path spanning more than limit
// lines.
func long(fset *token.FileSet, path string, limit int) ([]function, error) {
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var out []function
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		start, end := fset.Position(fd.Pos()).Line, fset.Position(fd.End()).Line
		if n := end - start + 1; n > limit {
			out = append(out, function{name: funcName(fd), line: start, lines: n})
		}
	}
	return out, nil
}

// funcName is F for a function, T.M or (*T).M for a method.
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	star := false
	if s, ok := t.(*ast.StarExpr); ok {
		star, t = true, s.X
	}
	switch x := t.(type) { // a generic type's parameters are left out
	case *ast.IndexExpr:
		t = x.X
	case *ast.IndexListExpr:
		t = x.X
	}
	name := "?"
	if id, ok := t.(*ast.Ident); ok {
		name = id.Name
	}
	if star {
		return "(*" + name + ")." + fd.Name.Name
	}
	return name + "." + fd.Name.Name
}

// readKnown reads the list of functions longer than the limit written
// before the check; # starts a comment.
func readKnown(path string) (map[string]int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	known := map[string]int{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line, _, _ := strings.Cut(sc.Text(), "#")
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if len(fields) != 3 {
			return nil, fmt.Errorf("%s:%d: want \"path name lines\", got %q", path, n, sc.Text())
		}
		lines, err := strconv.Atoi(fields[2])
		if err != nil || lines < 1 {
			return nil, fmt.Errorf("%s:%d: lines %q is not a positive number", path, n, fields[2])
		}
		known[fields[0]+" "+fields[1]] = lines
	}
	return known, sc.Err()
}
