package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/spf13/cobra"
)

// env is what every command gets instead of reaching for globals.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	log            *slog.Logger
	maxErrors      int
	backends       []adjudicate.Backend // the verifier backends --verifier can name
	getenv         func(string) string  // the environment (a scheduler's shard index)
	// argv0 is the program as invoked (bin/audit, ./audit), for commands
	// the output tells the user to run; "" means "audit".
	argv0 string
}

// run executes the CLI and returns the process exit code. Only main exits.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runWith(ctx, &env{stdin: stdin, stdout: stdout, stderr: stderr, backends: defaultBackends(), getenv: os.Getenv}, args)
}

// runWith executes the CLI in e (its writers and backend list).
func runWith(ctx context.Context, e *env, args []string) int {
	stdin, stdout, stderr := e.stdin, e.stdout, e.stderr
	if e.getenv == nil {
		e.getenv = os.Getenv
	}
	root := newRootCmd(e)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	ran := false
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		ran = true
		if err := finiteFloatFlags(cmd.Flags()); err != nil {
			return err
		}
		return e.setup(cmd)
	}
	err := root.ExecuteContext(ctx)
	if err != nil && !ran {
		// Cobra's own errors (unknown command or flag, bad flag value,
		// wrong argument count) are usage errors.
		var ee *exitError
		if !errors.As(err, &ee) {
			err = &exitError{code: exitInput, err: err}
		}
		fmt.Fprintf(stderr, "audit: %v\nRun 'audit --help' for usage.\n", err)
		return exitInput
	}
	return report(stderr, err, e.maxErrors)
}

func newRootCmd(e *env) *cobra.Command {
	root := &cobra.Command{
		Use:   "audit",
		Short: "Audit claims against a curated reference corpus and measure the verifier",
		Long: `audit checks the atomic claims a model or writer made against a curated reference
corpus: it retrieves evidence for each claim from a BM25 index, has a verifier label
it supported / unsupported / insufficient, and reports how far both the claims and
the verifier can be trusted.

Exit codes: 0 success; 1 a --fail-on gate failed; 2 usage or input error;
3 backend or internal failure; 130 interrupted.`,
		Example: `  audit run --corpus corpus.jsonl --claims claims.jsonl --gold gold.jsonl --out out
  audit diff nightly/2026-05-01 nightly/2026-05-02 --fail-on 'broken>fixed'
  audit export out --format csv > records.csv`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version(),
	}
	pf := root.PersistentFlags()
	pf.String("log-level", "info", "log verbosity on stderr: debug, info, warn or error")
	pf.String("log-format", "text", "log format on stderr: text or json")
	pf.IntVar(&e.maxErrors, "max-errors", 50, "input errors to print before summarising (0: all)")
	root.AddCommand(newValidateCmd(e), newIndexCmd(e), newSearchCmd(e), newExtractCmd(e), newNumcheckCmd(e), newLintCmd(e), newGenCmd(e), newTrainCmd(e), newRunCmd(e), newReportCmd(e), newCalibrateCmd(e), newDiffCmd(e), newTrendCmd(e), newExportCmd(e), newConvertCmd(e), newReviewCmd(e), newEstimateCmd(e), newCascadeCmd(e))
	return root
}

func (e *env) setup(cmd *cobra.Command) error {
	level, _ := cmd.Flags().GetString("log-level")
	format, _ := cmd.Flags().GetString("log-format")
	return e.setupLog(level, format, cmd.Flags().Changed("log-format"))
}

// setupLog makes e.log: every warning and log line goes to stderr in the
// chosen format (text, json; on a terminal, unless --log-format is given,
// readable lines between the stage lines), floats rounded to four
// significant digits (a fitted temperature is 0.5157, not
// 0.5157244771685017).
func (e *env) setupLog(level, format string, formatGiven bool) error {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return usageErrorf("--log-level: %q is not one of debug, info, warn, error", level)
	}
	opts := &slog.HandlerOptions{Level: lv, ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		a.Value = roundValue(a.Value)
		return a
	}}
	switch strings.ToLower(format) {
	case "text":
		e.log = slog.New(slog.NewTextHandler(e.stderr, opts))
		if isTerminal(e.stderr) && !formatGiven {
			// A person reads it, between stage lines and a progress bar.
			h := newTermHandler(e.stderr, lv, true)
			h.width = func() int { return termWidth(e.stderr) }
			e.log = slog.New(h)
		}
	case "json":
		e.log = slog.New(slog.NewJSONHandler(e.stderr, opts))
	default:
		return usageErrorf("--log-format: %q is not text or json", format)
	}
	return nil
}

// logDigits is the significant digits a logged float keeps.
const logDigits = 4

// roundValue rounds a float (or a duration's fraction of a millisecond)
// for a log line; other values are left as they are.
func roundValue(v slog.Value) slog.Value {
	switch v.Kind() {
	case slog.KindFloat64:
		f := v.Float64()
		if r, err := strconv.ParseFloat(strconv.FormatFloat(f, 'g', logDigits, 64), 64); err == nil {
			return slog.Float64Value(r)
		}
	case slog.KindDuration:
		return slog.DurationValue(v.Duration().Round(time.Millisecond))
	}
	return v
}

// isTerminal reports whether w is a terminal, for progress bars.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// requireFlags fails with a usage error naming every missing flag.
func requireFlags(cmd *cobra.Command, names ...string) error {
	var missing []string
	for _, n := range names {
		if v, _ := cmd.Flags().GetString(n); v == "" {
			missing = append(missing, "--"+n)
		}
	}
	if len(missing) > 0 {
		return usageErrorf("%s: required flag(s) %s not set", cmd.CommandPath(), strings.Join(missing, ", "))
	}
	return nil
}
