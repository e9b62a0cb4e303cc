// Command privopt is privopt's native command line: it serves the built page, fits private
// models and accounts for their privacy with the same core the page runs in WebAssembly.
//
// Usage:
//
//	privopt audit [--mech NAMES] [--long] [--runs N] [--level L] [--seed N] [--json]
//	privopt account [--mu M] [--eps E] [--delta D] [--sensitivity S] [--compose-mu M1,M2] [--tradeoff --alpha A] [--pure-eps E0]
//	privopt export --model RELEASE.json --onnx MODEL.onnx [--run K]
//	privopt fit --data FILE --schema SCHEMA.json --mech NAME --eps E [--delta D] [--loss NAME] [--test FILE] [--seed N] [--out FILE] [--progress] [--radius D]
//	privopt predict --model RELEASE.json --data FILE [--out FILE] [--run K]
//	privopt serve [--dir DIR] [--addr HOST:PORT] [--prefix /PATH/]
//	privopt version
//	privopt help [COMMAND]
//
// Every command takes --help. Invalid usage exits with status 2 and a one-line message.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
)

// command is one subcommand of privopt.
type command struct {
	summary string
	// run executes the command with its arguments (after the command name).
	run func(args []string, stdout, stderr io.Writer) error
}

var commands = map[string]command{
	"account": {summary: "privacy accounting: curves, calibration, composition (JSON)", run: runAccount},
	"audit":   {summary: "empirical privacy audits of every mechanism (exit 1 on a violation)", run: runAudit},
	"bench":   {summary: "the adult-lr benchmark: every mechanism at every ε (markdown, JSON, SVG)", run: runBench},
	"export":  {summary: "write a released model as an ONNX model (for onnxruntime)", run: runExport},
	"fit":     {summary: "fit a differentially private model to a CSV file (JSON)", run: runFit},
	"predict": {summary: "score a CSV file with a released model (CSV)", run: runPredict},
	"serve":   {summary: "serve the built page (dist/) on a loopback address", run: runServe},
	"version": {summary: "print privopt's version", run: runVersion},
}

// usageError marks an error in how privopt was invoked; it exits with status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes privopt with its arguments and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	name, rest := args[0], args[1:]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(rest) == 1 {
			if _, ok := commands[rest[0]]; ok {
				return run([]string{rest[0], "--help"}, stdout, stderr)
			}
		}
		usage(stdout)
		return 0
	}
	cmd, ok := commands[name]
	if !ok {
		fmt.Fprintf(stderr, "privopt: unknown command %q (run 'privopt help')\n", name)
		return 2
	}
	err := cmd.run(rest, stdout, stderr)
	var ue usageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "privopt %s: %s\n", name, ue.msg)
		return 2
	default:
		fmt.Fprintf(stderr, "privopt %s: %v\n", name, err)
		return 1
	}
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "privopt: differentially private convex optimization on your own machine")
	fmt.Fprintln(w, "\nUsage: privopt COMMAND [options]\n\nCommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-8s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'privopt COMMAND --help' for a command's options.")
}

// given returns the flags set on the command line, after parse, and a usage error naming the
// first of required that is not among them.
func (fs *flagSet) given(required ...string) (map[string]bool, error) {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	for _, name := range required {
		if !set[name] {
			return set, usageError{fmt.Sprintf("--%s is required", name)}
		}
	}
	return set, nil
}

// flagSet is a subcommand's flags with the text --help prints.
type flagSet struct {
	*flag.FlagSet
	synopsis string
	stdout   io.Writer
}

// newFlags returns the flag set of a subcommand; use is its usage line after "privopt".
func newFlags(use, synopsis string, stdout io.Writer) *flagSet {
	fs := flag.NewFlagSet(use, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {} // errors become one line on stderr; --help is printed by parse
	return &flagSet{FlagSet: fs, synopsis: synopsis, stdout: stdout}
}

// parse parses args. --help prints the usage to stdout and returns flag.ErrHelp; a bad flag or
// a positional argument is a usage error.
func (fs *flagSet) parse(args []string) error { return fs.parseArgs(args, 0) }

// parseArgs is parse allowing up to maxArgs positional arguments (fs.Args()).
func (fs *flagSet) parseArgs(args []string, maxArgs int) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(fs.stdout, "Usage: privopt %s\n\n%s\n", fs.Name(), fs.synopsis)
			hasFlags := false
			fs.VisitAll(func(*flag.Flag) { hasFlags = true })
			if hasFlags {
				fmt.Fprintln(fs.stdout, "\nOptions:")
				fs.SetOutput(fs.stdout)
				fs.PrintDefaults()
				fs.SetOutput(io.Discard)
			}
			return err
		}
		return usageError{err.Error()}
	}
	if fs.NArg() > maxArgs {
		return usageError{fmt.Sprintf("unexpected argument %q", fs.Arg(maxArgs))}
	}
	return nil
}
