package main

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// TestSecondInterruptEndsTheProgram: after interruptible's context is cancelled by a first
// SIGINT, a second SIGINT ends the process even when the work ignores the context. The test
// runs itself in a child process (PRIVOPT_TEST_INTERRUPT) that prints "ready" and then works
// for 30 s without looking at the context.
func TestSecondInterruptEndsTheProgram(t *testing.T) {
	if os.Getenv("PRIVOPT_TEST_INTERRUPT") == "1" {
		ctx, stop := interruptible()
		defer stop()
		os.Stdout.WriteString("ready\n")
		<-ctx.Done()
		os.Stdout.WriteString("cancelled\n")
		time.Sleep(30 * time.Second) // work that does not watch the context
		os.Exit(0)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSecondInterruptEndsTheProgram$")
	cmd.Env = append(os.Environ(), "PRIVOPT_TEST_INTERRUPT=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	expect := func(want string) {
		t.Helper()
		if !lines.Scan() || lines.Text() != want {
			t.Fatalf("the child printed %q, want %q", lines.Text(), want)
		}
	}
	expect("ready")
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	expect("cancelled")
	time.Sleep(100 * time.Millisecond) // let the handler be restored after the cancellation
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGINT {
			t.Errorf("the child ended with %v, want killed by the second SIGINT", err)
		}
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the second SIGINT did not end the child")
	}
}
