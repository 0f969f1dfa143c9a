package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every command's --help opens with copy-pasteable examples of itself.
func TestEveryCommandHasExamples(t *testing.T) {
	root := newRootCmd(&env{backends: defaultBackends()})
	for _, c := range root.Commands() {
		if c.Hidden || c.Name() == "help" || c.Name() == "completion" {
			continue
		}
		lines := 0
		for _, l := range strings.Split(c.Example, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "audit "+c.Name()) || strings.Contains(l, "| audit "+c.Name()) {
				lines++
			}
		}
		assert.GreaterOrEqual(t, lines, 2, "%s: want two or more examples, got %q", c.Name(), c.Example)
	}
}

// run --help groups its flags by purpose, each backend's options under
// their backend, and no flag's line runs on: the --verifier line names the
// backends and leaves their descriptions to their headings.
func TestRunHelpGroupsFlags(t *testing.T) {
	var out, errb bytes.Buffer
	require.Equal(t, 0, run(context.Background(), []string{"run", "--help"}, strings.NewReader(""), &out, &errb), errb.String())
	h := out.String()
	at := func(s string) int {
		i := strings.Index(h, s)
		require.GreaterOrEqual(t, i, 0, "%q missing from run --help", s)
		return i
	}
	assert.Less(t, at("Examples:"), at("\nInputs:\n"))
	assert.Less(t, at("\nInputs:\n"), at("\nCalibration:\n"))
	assert.Less(t, at("\nCalibration:\n"), at("\n--verifier onnx: "))
	assert.Less(t, at("\n--verifier onnx: "), at("--device string"), "a backend's options under it")
	assert.Less(t, at("Extraction (with --outputs):"), at("--extract-model string"))
	assert.Less(t, at("\nInputs:\n"), at("--corpus string"))
	assert.Greater(t, at("--corpus string"), at("\nInputs:\n"))
	assert.Less(t, at("--corpus string"), at("\nOutput and gates:\n"), "--corpus among the inputs, not sorted in among the backends'")
	for _, l := range strings.Split(h, "\n") {
		assert.LessOrEqual(t, len([]rune(l)), 110, "a help line runs on: %q", l)
	}
	assert.NotContains(t, h, "\nOther:\n", "every flag has a group")
}
