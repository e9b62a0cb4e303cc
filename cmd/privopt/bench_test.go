package main

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestBenchDevsuiteFlags(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--suite", "devsuite", "--devsuite", missing}, "--devsuite " + missing + ": not a folder"},
		{[]string{"--suite", "nope"}, `--suite: unknown benchmark "nope"`},
		{[]string{"--devsuite", missing}, "--devsuite, --unscaled and --tasks go with --suite devsuite"},
		{[]string{"--tasks", "adult"}, "--devsuite, --unscaled and --tasks go with --suite devsuite"},
		{[]string{"--suite", "devsuite", "--mech", "outpert,rem"}, "--mech with --suite devsuite is one mechanism"},
		{[]string{"--suite", "devsuite", "--mech", "nope"}, "--mech with --suite devsuite is one mechanism"},
		{[]string{"--suite", "devsuite", "--tasks", "adult,nope"}, `--tasks: unknown task "nope"`},
		{[]string{"--suite", "devsuite", "--radius", "3"}, "--radius applies to the adult-lr benchmark"},
		{[]string{"--suite", "devsuite", "--runs", "0"}, "--runs must be at least 1"},
		{[]string{"--suite", "devsuite", "--eps", "1,-2"}, `--eps: "-2" is not a positive number`},
		{[]string{"--suite", "devsuite", "--delta", "1"}, "--delta must be in [0, 1)"},
		{[]string{"--suite", "devsuite", "stray"}, `unexpected argument "stray"`},
		{[]string{"--suite", "devsuite", "--eps", "1", "--svg", "b.svg"}, "--svg plots accuracy against ε: give --eps at least two values"},
		{[]string{"--eps", "1", "--svg", "b.svg"}, "--svg plots accuracy against ε: give --eps at least two values"},
	} {
		code, out, errOut := runCLI(append([]string{"bench"}, tc.args...)...)
		if code != 2 || out != "" || !strings.Contains(errOut, tc.want) || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
			t.Errorf("privopt bench %q: code %d, stdout %q, stderr %q; want code 2 and one line with %q", tc.args, code, out, errOut, tc.want)
		}
	}
}
