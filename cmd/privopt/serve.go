package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/privopt/privopt/internal/site"
)

// defaultAddr is where serve listens without --addr or PORT: loopback only.
const defaultAddr = "127.0.0.1:8080"

func runServe(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("serve [--dir DIR] [--addr HOST:PORT] [--prefix /PATH/]",
		"Serves the built page (./build.sh build writes it to dist/) with privopt's security headers.\n"+
			"It listens on loopback unless --addr names another host. Stop it with Ctrl-C.", stdout)
	dir := fs.String("dir", "dist", "directory of the built page")
	addr := fs.String("addr", "", "listen address HOST:PORT (default 127.0.0.1:$PORT, or "+defaultAddr+" without PORT; port 0 picks a free one)")
	prefix := fs.String("prefix", "/", "serve the page under this URL path, like a static host that puts it in a subdirectory (e.g. /course/privopt/)")
	if err := fs.parse(args); err != nil {
		return err
	}
	if err := site.CheckPrefix(*prefix); err != nil {
		return usageError{"--prefix: " + err.Error()}
	}
	listen, err := listenAddr(*addr, os.Getenv("PORT"))
	if err != nil {
		return usageError{err.Error()}
	}
	// An os.Root, unlike os.DirFS, refuses a symlink that leads out of the directory.
	root, err := os.OpenRoot(*dir)
	if err != nil {
		return fmt.Errorf("%s/index.html not found: build the page first (./build.sh build)", *dir)
	}
	defer root.Close()
	if info, err := root.Stat("index.html"); err != nil || info.IsDir() {
		return fmt.Errorf("%s/index.html not found: build the page first (./build.sh build)", *dir)
	}
	files := site.NewHandler(root.FS())
	handler, err := site.Under(*prefix, files)
	if err != nil {
		return err // CheckPrefix accepted the prefix
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	if host, _, _ := net.SplitHostPort(listen); !isLoopback(host) {
		fmt.Fprintf(stderr, "privopt serve: warning: listening on %s, which other machines may reach\n", host)
	}
	fmt.Fprintf(stdout, "privopt: serving %s on http://%s%s\n", *dir, ln.Addr(), *prefix)
	go files.Warm() // compress the files now rather than on their first request

	srv := site.NewServer(handler)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(shutdown); err != nil {
			return err
		}
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}
}

// listenAddr picks the listen address: --addr, else loopback with $PORT, else defaultAddr.
func listenAddr(flagAddr, port string) (string, error) {
	switch {
	case flagAddr != "":
		if _, _, err := net.SplitHostPort(flagAddr); err != nil {
			return "", fmt.Errorf("--addr %q: %v", flagAddr, err)
		}
		return flagAddr, nil
	case port != "":
		return net.JoinHostPort("127.0.0.1", port), nil
	default:
		return defaultAddr, nil
	}
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
