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
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stopCPU()
	stopProfile()
	stop()
	os.Exit(code)
}
