package targets_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/codemode-conformance/codemode/suites/framework"
	"github.com/codemode-conformance/codemode/targets"
)

// One syntax: exec: and tcp: become a command line and an address, a
// registered name an in-process server, a prefix its own endpoint; anything
// else is ErrUnknown listing the forms.
func TestOpenParsesTheTargetSyntax(t *testing.T) {
	targets.Register("test-inproc", "a test target", func(context.Context, io.Reader, io.WriteCloser) error { return nil })
	closed := false
	targets.RegisterPrefix(targets.Prefix{Prefix: "testpfx:", Syntax: "testpfx:<n>", Help: "a test prefix",
		Open: func(_ context.Context, spec string, _ framework.OpenOptions) (framework.Endpoint, error) {
			if spec == "testpfx:bad" {
				return framework.Endpoint{}, errors.New("no such n")
			}
			return framework.Endpoint{Address: "127.0.0.1:" + strings.TrimPrefix(spec, "testpfx:"), Close: func(bool) error { closed = true; return nil }}, nil
		}})
	ctx := context.Background()
	for spec, want := range map[string]framework.Endpoint{
		"exec: ./bin/ref serve --stdio": {Command: "./bin/ref serve --stdio"},
		"tcp:127.0.0.1:7070":            {Address: "127.0.0.1:7070"},
		"testpfx:9":                     {Address: "127.0.0.1:9"},
	} {
		got, err := targets.Open(ctx, spec, framework.OpenOptions{})
		if err != nil || got.Command != want.Command || got.Address != want.Address {
			t.Errorf("Open(%q) = %+v, %v; want %+v", spec, got, err, want)
		}
	}
	if ep, err := targets.Open(ctx, "test-inproc", framework.OpenOptions{}); err != nil || ep.Serve == nil {
		t.Errorf("Open of a registered name = %+v, %v; want its in-process server", ep, err)
	}
	if ep, _ := targets.Open(ctx, "testpfx:1", framework.OpenOptions{}); ep.Close == nil || ep.Close(true) != nil || !closed {
		t.Errorf("a prefix's endpoint must keep its Close")
	}
	if _, err := targets.Open(ctx, "testpfx:bad", framework.OpenOptions{}); err == nil || !strings.Contains(err.Error(), "no such n") {
		t.Errorf("a prefix's error must come through, got %v", err)
	}
	for _, bad := range []string{"nope", "exec:  ", "tcp:localhost", ""} {
		if err := targets.Check(bad); err == nil {
			t.Errorf("Check(%q) accepted a spec that names no target", bad)
		}
	}
	err := targets.Check("nope")
	if !errors.Is(err, targets.ErrUnknown) || !strings.Contains(err.Error(), "exec:<command line>, tcp:<host:port>") || !strings.Contains(err.Error(), "openclaw:<version>") {
		t.Errorf("Check(nope) = %v; want ErrUnknown listing the syntax", err)
	}
	targets.Register("testfam:one", "", func(context.Context, io.Reader, io.WriteCloser) error { return nil })
	if err := targets.Check("testfam:two"); !errors.Is(err, targets.ErrUnknown) || !strings.Contains(err.Error(), "known: one") {
		t.Errorf("Check of an unknown member of a registered family = %v; want the known names", err)
	}
	if u := targets.Usage(); !strings.Contains(u, "testpfx:<n>") || !strings.Contains(u, "a test prefix") {
		t.Errorf("Usage does not describe a registered prefix:\n%s", u)
	}
}
