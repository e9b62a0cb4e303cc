package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"text/tabwriter"

	"github.com/privopt/privopt/pkg/audit"
	"github.com/privopt/privopt/pkg/core/mech"
)

const auditSynopsis = `Audits the privacy claims of the mechanisms empirically (package pkg/audit): for each
mechanism, runs it many times on two neighbouring datasets on which its guarantee is tight (one
record flipped to the opposite extreme), projects the outputs on the direction that separates
them, and compares the empirical tradeoff curve (Clopper–Pearson bounds) with the claimed one.
A violation is a privacy bug: for a correct mechanism each audit reports one with probability at
most --level. Also prints a high-confidence lower bound on ε at the claimed δ. The default size
is the one CI runs; --long runs ten times as many. Exits with status 1 on any violation.`

func runAudit(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("audit [options]", auditSynopsis, stdout)
	mechs := fs.String("mech", "", "comma-separated mechanisms (default: every registered mechanism)")
	long := fs.Bool("long", false, "ten times the runs: 20,000 per dataset instead of 2,000, plus a tenth as many to calibrate the test (22,000 instead of 2,200)")
	runs := fs.Int("runs", 0, "runs per dataset, plus a tenth as many to calibrate (overrides --long)")
	level := fs.Float64("level", 1e-3, "probability that the audit of a correct mechanism reports a violation")
	seed := fs.Uint64("seed", 1, "seed (≥ 1) of the audit's randomness (its runs are not private releases)")
	jsonOut := fs.Bool("json", false, "print the outcomes as JSON instead of a table")
	if err := fs.parseArgs(args, 0); err != nil {
		return err
	}
	cfg := audit.Config{Runs: 2000, Calibration: 200, Level: *level, Seed: *seed}
	if *long {
		cfg.Runs, cfg.Calibration = 20000, 2000
	}
	if *runs != 0 {
		if *runs < 10 {
			return usageError{fmt.Sprintf("--runs must be at least 10, got %d", *runs)}
		}
		cfg.Runs, cfg.Calibration = *runs, max(*runs/10, 1)
	}
	if *seed == 0 {
		return usageError{"--seed must be at least 1"}
	}
	if !(*level > 0 && *level < 1) {
		return usageError{fmt.Sprintf("--level must be in (0, 1), got %g", *level)}
	}
	cases := audit.Cases()
	if *mechs != "" {
		var chosen []audit.Case
		for _, name := range strings.Split(*mechs, ",") {
			name = strings.TrimSpace(name)
			n := len(chosen)
			for _, c := range cases {
				if c.Mechanism == name {
					chosen = append(chosen, c)
				}
			}
			if len(chosen) == n {
				return usageError{fmt.Sprintf("--mech: no audit for %q (known: %s)", name, strings.Join(mech.Names(), ", "))}
			}
		}
		cases = chosen
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var outcomes []audit.Outcome
	violations := 0
	for _, c := range cases {
		fmt.Fprintf(stderr, "auditing %s (%d runs on each dataset)...\n", c.Name(), cfg.Runs+cfg.Calibration)
		out, err := c.Audit(ctx, cfg)
		if err != nil {
			return err
		}
		outcomes = append(outcomes, out)
		if out.Violation {
			violations++
		}
	}
	if *jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(outcomes); err != nil {
			return err
		}
	} else {
		printAudit(stdout, outcomes, cfg.Level)
	}
	if violations > 0 {
		return fmt.Errorf("%d of %d audits found a violation: a privacy bug", violations, len(outcomes))
	}
	return nil
}

// printAudit prints the outcomes as a table.
func printAudit(w io.Writer, outcomes []audit.Outcome, level float64) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "mechanism\tbudget\tpair\truns\tclaimed ε at δ\tε lower bound\tμ lower bound\tworst test (α⁺, β⁺, claimed T(α⁺))\tverdict\ttime")
	for _, o := range outcomes {
		verdict := "pass"
		if o.Violation {
			verdict = "VIOLATION"
		}
		fmt.Fprintf(tw, "%s\tε=%g δ=%g\t%s %s\t%d\t%.3f at %g\t%.3f\t%.3f\t(%.4f, %.4f, %.4f)\t%s\t%.1fs\n",
			o.Name(), o.Budget.Epsilon, o.Budget.Delta, o.PairName, o.Sizes(), o.Runs,
			o.ClaimedEpsilon, o.Delta, o.EpsilonLower, o.MuLower, o.Worst.AlphaUpper, o.Worst.BetaUpper, o.Worst.Claimed, verdict, o.Seconds)
	}
	tw.Flush()
	fmt.Fprintf(w, "\nEach audit of a correct mechanism reports a violation with probability at most %g.\n", level)
}
