//go:build slurm

// The Slurm check (make slurm-check): deploy/slurm's scripts submitted to a
// real scheduler, the one-node cluster deploy/slurm/local-cluster.sh starts,
// and what the jobs wrote compared with one run's by the commands the
// shards script uses (sameReports, sameRecords). The scripts in
// testdata/slurm get $AUDIT (the built binary, which the jobs run too),
// $DEPLOY (deploy/slurm) and SLURM_CONF from the environment.
package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestSlurm(t *testing.T) {
	bin, conf := os.Getenv("AUDIT_BIN"), os.Getenv("SLURM_CONF")
	if bin == "" || conf == "" {
		t.Skip("AUDIT_BIN or SLURM_CONF not set: run 'make slurm-check', which starts a cluster")
	}
	deploy, err := filepath.Abs("../../deploy/slurm")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir: "testdata/slurm",
		Setup: func(e *testscript.Env) error {
			e.Setenv("AUDIT", bin)
			e.Setenv("DEPLOY", deploy)
			e.Setenv("SLURM_CONF", conf)
			for _, k := range []string{"GOMAXPROCS", "SLURM_WAIT"} {
				if v, ok := os.LookupEnv(k); ok {
					e.Setenv(k, v)
				}
			}
			return nil
		},
		Cmds: map[string]func(*testscript.TestScript, bool, []string){
			"sameReports": sameReports,
			"sameRecords": sameRecords,
			"jobIDs":      jobIDs,
			"slurmWait":   slurmWait,
		},
	})
}

var submitted = regexp.MustCompile(`(?m)^Submitted batch job ([0-9]+)`)

// jobIDs VAR...: the job ids sbatch printed on the last command's stdout
// ("Submitted batch job N"), in order, into the variables named.
func jobIDs(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: jobIDs VAR...")
	}
	ids := submitted.FindAllStringSubmatch(ts.ReadFile("stdout"), -1)
	if len(ids) != len(args) {
		ts.Fatalf("want %d submitted jobs on stdout, found %d", len(args), len(ids))
	}
	for i, v := range args {
		ts.Setenv(v, ids[i][1])
	}
}

// terminal are the states a job does not leave.
var terminal = map[string]bool{"COMPLETED": true, "FAILED": true, "CANCELLED": true, "TIMEOUT": true,
	"NODE_FAIL": true, "OUT_OF_MEMORY": true, "PREEMPTED": true, "BOOT_FAIL": true, "DEADLINE": true}

// slurmWait JOB STATE [reason=R] [exit=N]: polls `scontrol show job` until
// every task of JOB (a job, an array, or ARRAY_i) is in STATE, with Reason
// R and exit code N where given, for at most $SLURM_WAIT seconds (300 by
// default). A task that ends in another state, or waits on a dependency
// that can never be met, fails at once, with the end of its log.
func slurmWait(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: slurmWait JOB STATE [reason=R] [exit=N]")
	}
	job, want := args[0], args[1]
	var reason, code string
	for _, a := range args[2:] {
		switch k, v, _ := strings.Cut(a, "="); k {
		case "reason":
			reason = v
		case "exit":
			code = v + ":0"
		default:
			ts.Fatalf("slurmWait: unknown argument %q", a)
		}
	}
	limit := 300 * time.Second
	if s := ts.Getenv("SLURM_WAIT"); s != "" {
		n, err := strconv.Atoi(s)
		ts.Check(err)
		limit = time.Duration(n) * time.Second
	}
	began := time.Now()
	for {
		tasks := slurmTasks(ts, job)
		done := true
		for _, t := range tasks {
			state := t["JobState"]
			stuck := state == "PENDING" && t["Reason"] == "DependencyNeverSatisfied" && reason != t["Reason"]
			switch {
			case state != want && (terminal[state] || stuck):
				ts.Fatalf("job %s: %s (reason %s, exit code %s), want %s%s", t["JobId"], state, t["Reason"], t["ExitCode"], want, logTail(t["StdOut"]))
			case state != want || reason != "" && t["Reason"] != reason:
				done = false
			case code != "" && t["ExitCode"] != code:
				ts.Fatalf("job %s: %s with exit code %s, want %s%s", t["JobId"], state, t["ExitCode"], code, logTail(t["StdOut"]))
			}
		}
		if done {
			ts.Logf("job %s: %s after %.1fs", job, want, time.Since(began).Seconds())
			return
		}
		if time.Since(began) > limit {
			ts.Fatalf("job %s: not %s after %s: %v", job, want, limit, tasks)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// slurmTasks is `scontrol show job --oneliner JOB`: one map of its
// Key=Value fields per task (pending tasks of an array may share one).
func slurmTasks(ts *testscript.TestScript, job string) []map[string]string {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "scontrol", "show", "job", "--oneliner", job)
	cmd.Env = []string{"PATH=" + ts.Getenv("PATH"), "SLURM_CONF=" + ts.Getenv("SLURM_CONF")}
	out, err := cmd.CombinedOutput()
	if err != nil {
		ts.Fatalf("scontrol show job %s: %v: %s", job, err, out)
	}
	var tasks []map[string]string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		t := map[string]string{}
		for _, f := range strings.Fields(line) {
			if k, v, ok := strings.Cut(f, "="); ok {
				t[k] = v
			}
		}
		tasks = append(tasks, t)
	}
	return tasks
}

// logTail is the end of a job's log, for a failure message.
func logTail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return fmt.Sprintf("\n--- end of %s:\n%s", path, strings.Join(lines[max(0, len(lines)-15):], "\n"))
}
