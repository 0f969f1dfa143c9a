package main

import (
	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/adjudicate/lexical"
	"github.com/claimaudit/claimaudit/adjudicate/onnx"
)

// backends is the one place verifier backends are listed.
func backends() (*adjudicate.Registry, error) {
	return adjudicate.NewRegistry(lexical.Backend(), onnx.Backend())
}
