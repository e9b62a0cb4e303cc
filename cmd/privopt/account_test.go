package main

import (
	"strings"
	"testing"
)

// A query whose answer is not a finite number is a usage error naming the parameter, never
// "json: unsupported value" (issue 20, item 8).
func TestAccountOutOfRange(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--mu", "1", "--delta", "1e-320"}, "delta must be at least"},
		{[]string{"--mu", "1e155", "--delta", "1e-6"}, "mu is so large"},
		{[]string{"--eps", "1", "--delta", "1e-5", "--sensitivity", "1e308"}, "sensitivity/μ is so large"},
		{[]string{"--compose-mu", "1e308,1e308", "--delta", "1e-6"}, "compose-mu is so large"},
	} {
		code, out, errOut := runCLI(append([]string{"account"}, tc.args...)...)
		if code != 2 || out != "" || !strings.Contains(errOut, tc.want) || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
			t.Errorf("privopt account %q: code %d, stdout %q, stderr %q; want code 2 and a one-line error with %q", tc.args, code, out, errOut, tc.want)
		}
	}
}
