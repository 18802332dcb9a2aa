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
	"io"
	"net"
	"os"
	"os/signal"
	"strings"

	"github.com/codemode-conformance/codemode/reference/codemode"
	"github.com/codemode-conformance/codemode/reference/engine"
	refmcp "github.com/codemode-conformance/codemode/reference/mcp"
	"github.com/codemode-conformance/codemode/reference/server"
	"github.com/codemode-conformance/codemode/spec"
	"github.com/codemode-conformance/codemode/spec/protocol"
)

func main() {
	if len(os.Args) < 2 || os.Args[1] != "serve" {
		fmt.Fprintf(os.Stderr, "usage: %s serve (--stdio | --listen HOST:PORT) [--unavailable] [--max-message-bytes N] [--max-live-vms N] [--max-suspended-runs N] [--max-running-vms N] [--profile v1|v2] [--continuations]\n", os.Args[0])
		os.Exit(2)
	}
	fs := flag.NewFlagSet("serve", flag.ExitOnError)
	stdio := fs.Bool("stdio", false, "speak the driver protocol on stdin/stdout")
	listen := fs.String("listen", "", "accept driver protocol connections on this TCP address (one session per connection)")
	unavailable := fs.Bool("unavailable", false, "simulate a runtime that cannot be loaded (every enabled run fails closed with runtime_unavailable)")
	maxMessage := fs.Int("max-message-bytes", protocol.DefaultMaxMessageBytes, "longest message read from a peer, in bytes without the newline; a longer one is dropped and answered with error -32011 (spec/protocol.md §1)")
	maxLiveVMs := fs.Int("max-live-vms", codemode.DefaultMaxLiveVMs, "live VMs (a cell's VM from its start to its end) at once over all sessions of the process; a cell waits for a free one within its timeoutMs, then fails with runtime_unavailable")
	maxRunning := fs.Int("max-running-vms", 0, "VMs executing guest code at the same moment over the process (0: GOMAXPROCS); the others wait, time-sliced every few ms, so control requests keep the CPU they need")
	maxSuspended := fs.Int("max-suspended-runs", codemode.DefaultMaxSuspendedRuns, "cells waiting in a snapshot at once over all sessions of the process (CM-RUN-05); one more suspension fails with snapshot_limit_exceeded")
	profile := fs.String("profile", spec.DefaultProfile, "contract profile to serve: "+strings.Join(spec.ProfileNames(), " or ")+" (spec/requirements.yaml profiles:)")
	maxMemory := fs.Int64("max-memory", 0, "process memory budget in bytes: the memoryLimitBytes of all live VMs together (0: none); a cell whose VM does not fit waits within its timeoutMs, then fails with runtime_unavailable")
	allowRemote := fs.Bool("allow-remote", false, "with --listen, accept a non-loopback address (then a token is required: --token-file or "+server.TokenEnv+")")
	tokenFile := fs.String("token-file", "", "with --listen, a file whose first line is the session token every peer must send in initialize params.token (default: $"+server.TokenEnv+"; none: no token)")
	noToken := fs.Bool("insecure-no-token", false, "with --allow-remote, accept peers without a token (only for a container whose port is published on the host's loopback; anyone who reaches the port can run what --mcp-allow lets through)")
	maxMCP := fs.Int("max-mcp-processes", refmcp.DefaultMaxProcesses, "MCP stdio server processes alive at once over the process (0: no cap); one more waits for a place within the connect timeout, then is left out of its run")
	mcpAllow := fs.String("mcp-allow", "", "comma-separated MCP servers a peer may use: http:// or https:// entries are URL prefixes, others globs on the stdio command, \"*\" everything (default: everything with --stdio, nothing with --listen)")
	continuations := fs.Bool("continuations", false, "keep a waiting cell's live VM instead of a snapshot (no snapshot-executor declared; spec/protocol.md §8, targets without snapshots), and wait the whole timeoutMs for nested calls before suspending")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: %s serve (--stdio | --listen HOST:PORT) [--unavailable] [--max-message-bytes N] [--max-live-vms N] [--max-suspended-runs N] [--max-running-vms N] [--profile v1|v2] [--continuations] [--allow-remote --token-file F] [--mcp-allow LIST] [--max-mcp-processes N] [--max-memory BYTES]\n\nServes the reference code mode runtime over the driver protocol (JSON-RPC 2.0, one message per line).\n\nA peer can make this process start MCP stdio commands, fetch MCP URLs and allocate up to memoryLimitBytes per live VM.\n--mcp-allow, --max-mcp-processes and --max-memory bound that; --listen binds loopback only unless --allow-remote\nnames another address, and then every peer must send the token (--token-file or $%s) as initialize params.token.\n\n", os.Args[0], server.TokenEnv)
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
	if *maxMessage <= 0 {
		fmt.Fprintln(os.Stderr, "codemode-reference: --max-message-bytes must be positive")
		os.Exit(2)
	}
	if *maxRunning < 0 {
		fmt.Fprintln(os.Stderr, "codemode-reference: --max-running-vms must not be negative")
		os.Exit(2)
	}
	engine.SetMaxRunning(*maxRunning)
	if *maxMCP < 0 {
		fmt.Fprintln(os.Stderr, "codemode-reference: --max-mcp-processes must not be negative")
		os.Exit(2)
	}
	refmcp.SetPolicy(refmcp.Policy{Allow: allowList(*mcpAllow, *listen != ""), MaxProcesses: *maxMCP})
	opts := server.Options{Unavailable: *unavailable, MaxMessageBytes: *maxMessage, Runtime: codemode.Options{Profile: *profile}}
	if *continuations {
		opts.Runtime.Suspender = codemode.ContinuationSuspender{}
		opts.Runtime.DrainFraction = 1 // and wait the whole budget before suspending (protocol.md §10)
	}
	if *maxMemory < 0 {
		fmt.Fprintln(os.Stderr, "codemode-reference: --max-memory must not be negative")
		os.Exit(2)
	}
	opts.Runtime.Admission = codemode.NewAdmission(codemode.Limits{MaxLiveVMs: *maxLiveVMs, MaxSuspendedRuns: *maxSuspended, MaxMemoryBytes: *maxMemory})
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
	token, err := readToken(*tokenFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "codemode-reference:", err)
		os.Exit(2)
	}
	if *noToken && token != "" {
		fmt.Fprintln(os.Stderr, "codemode-reference: --insecure-no-token and a token (--token-file or "+server.TokenEnv+") exclude each other")
		os.Exit(2)
	}
	if err := server.CheckListen(*listen, *allowRemote, token != "" || *noToken); err != nil {
		fmt.Fprintln(os.Stderr, "codemode-reference:", err)
		os.Exit(2)
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintln(os.Stderr, "codemode-reference:", err)
		os.Exit(1)
	}
	fmt.Fprintln(os.Stderr, "codemode-reference: listening on", ln.Addr())
	if *noToken {
		fmt.Fprintln(os.Stderr, "codemode-reference: warning: --insecure-no-token: any peer that reaches", ln.Addr(), "is served without a token")
	}
	go func() { <-ctx.Done(); ln.Close() }()
	for {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			var r io.Reader = conn
			if token != "" {
				var err error
				if r, err = server.RequireToken(conn, token); err != nil {
					fmt.Fprintln(os.Stderr, "codemode-reference: session from", conn.RemoteAddr(), "refused:", err)
					conn.Close()
					return
				}
			}
			if err := server.Serve(ctx, r, conn, opts); err != nil {
				fmt.Fprintln(os.Stderr, "codemode-reference: session:", err)
			}
		}()
	}
}

// readToken is the session token of serve --listen: the first line of
// file, else $CODEMODE_REFERENCE_TOKEN, else none. An empty token file is an
// error (a forgotten secret must not mean "no token").
func readToken(file string) (string, error) {
	if file == "" {
		return strings.TrimSpace(os.Getenv(server.TokenEnv)), nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("--token-file: %w", err)
	}
	tok, _, _ := strings.Cut(string(b), "\n")
	if tok = strings.TrimSpace(tok); tok == "" {
		return "", fmt.Errorf("--token-file %s: the first line is empty", file)
	}
	return tok, nil
}

// allowList is --mcp-allow as a refmcp.Policy.Allow: nil (everything) when
// empty under --stdio, whose one peer is trusted; empty (nothing) when
// empty under --listen, whose peers are any local process.
func allowList(flag string, listening bool) []string {
	var out []string
	for _, e := range strings.Split(flag, ",") {
		if e = strings.TrimSpace(e); e != "" {
			out = append(out, e)
		}
	}
	if out == nil && listening {
		return []string{}
	}
	return out
}
