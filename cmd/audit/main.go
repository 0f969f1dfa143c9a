package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		// The first SIGINT/SIGTERM cancels ctx: every stage stops, nothing
		// is committed, exit 130. A second one ends the process at once
		// (the default action): an output folder commits as a whole, so
		// even that leaves no mixed folder.
		<-ctx.Done()
		stop()
	}()
	stopProfile := startHeapProfile()
	stopCPU := startCPUProfile()
	code := runWith(ctx, &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, backends: defaultBackends(), getenv: os.Getenv, argv0: os.Args[0]}, os.Args[1:])
	stopCPU()
	stopProfile()
	stop()
	os.Exit(code)
}
