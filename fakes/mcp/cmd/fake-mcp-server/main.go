// Command fake-mcp-server runs one of the conformance harness's fake MCP
// servers (package fakes/mcp) outside the harness, so an implementation in
// any language can be tried against the same servers.
//
//	fake-mcp-server --server docs --stdio                 # MCP over stdin/stdout
//	fake-mcp-server --server hostile --http 127.0.0.1:0   # prints the URL, serves until SIGINT/SIGTERM
//
// Exit status: 0 on a clean end, 2 on bad flags or a failed server.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	fakemcp "github.com/codemode-conformance/codemode/fakes/mcp"
)

func main() {
	fakemcp.ServeFromEnv()
	kind := flag.String("server", string(fakemcp.KindDocs), fmt.Sprintf("server kind, one of %v", fakemcp.Kinds()))
	stdio := flag.Bool("stdio", false, "serve MCP over stdin/stdout")
	addr := flag.String("http", "", "serve the MCP streamable HTTP transport on this host:port and print its URL")
	flag.Parse()
	if *stdio == (*addr != "") {
		fmt.Fprintln(os.Stderr, "fake-mcp-server: give exactly one of --stdio and --http host:port")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *stdio {
		if err := fakemcp.ServeStdio(ctx, fakemcp.Kind(*kind)); err != nil {
			fmt.Fprintln(os.Stderr, "fake-mcp-server:", err)
			os.Exit(2)
		}
		return
	}
	srv, err := fakemcp.StartHTTP(fakemcp.Kind(*kind), *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fake-mcp-server:", err)
		os.Exit(2)
	}
	fmt.Println(srv.URL)
	<-ctx.Done()
	if err := srv.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "fake-mcp-server:", err)
		os.Exit(2)
	}
}
