// Command codemode-reference serves the reference code mode runtime over the
// driver protocol (spec/protocol.md).
//
//	codemode-reference serve --stdio
//	codemode-reference serve --listen 127.0.0.1:7070
//	codemode-reference serve --stdio --profile v2
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strings"

	"github.com/codemode-conformance/codemode/reference/codemode"
	"github.com/codemode-conformance/codemode/reference/engine"
	"github.com/codemode-conformance/codemode/reference/server"
	"github.com/codemode-conformance/codemode/spec"
)

func main() {
	if len(os.Args) < 2 || os.Args[1] != "serve" {
		fmt.Fprintf(os.Stderr, "usage: %s serve (--stdio | --listen HOST:PORT) [--unavailable] [--profile v1|v2]\n", os.Args[0])
		os.Exit(2)
	}
	fs := flag.NewFlagSet("serve", flag.ExitOnError)
	stdio := fs.Bool("stdio", false, "speak the driver protocol on stdin/stdout")
	listen := fs.String("listen", "", "accept driver protocol connections on this TCP address (one session per connection)")
	unavailable := fs.Bool("unavailable", false, "simulate a runtime that cannot be loaded (every enabled run fails closed with runtime_unavailable)")
	profile := fs.String("profile", spec.DefaultProfile, "contract profile to serve: "+strings.Join(spec.ProfileNames(), " or ")+" (spec/requirements.yaml profiles:)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: %s serve (--stdio | --listen HOST:PORT) [--unavailable] [--profile v1|v2]\n\nServes the reference code mode runtime over the driver protocol (JSON-RPC 2.0, one message per line).\n\n", os.Args[0])
		fs.PrintDefaults()
	}
	fs.Parse(os.Args[2:])
	if *stdio == (*listen != "") {
		fs.Usage()
		os.Exit(2)
	}
	if _, err := spec.LookupProfile(*profile); err != nil {
		fmt.Fprintln(os.Stderr, "codemode-reference: --profile:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	opts := server.Options{Unavailable: *unavailable, Runtime: codemode.Options{Profile: *profile}}
	if *stdio {
		if err := server.Serve(ctx, os.Stdin, os.Stdout, opts); err != nil {
			fmt.Fprintln(os.Stderr, "codemode-reference:", err)
			os.Exit(1)
		}
		return
	}
	if !*unavailable {
		eng, err := engine.New(ctx)
		if err != nil {
			fmt.Fprintln(os.Stderr, "codemode-reference:", err)
			os.Exit(1)
		}
		opts.Engine = eng
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintln(os.Stderr, "codemode-reference:", err)
		os.Exit(1)
	}
	fmt.Fprintln(os.Stderr, "codemode-reference: listening on", ln.Addr())
	go func() { <-ctx.Done(); ln.Close() }()
	for {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			if err := server.Serve(ctx, conn, conn, opts); err != nil {
				fmt.Fprintln(os.Stderr, "codemode-reference: session:", err)
			}
		}()
	}
}
