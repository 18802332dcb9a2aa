package subcmd

import (
	"bytes"
	"flag"
	"testing"
)

func TestParse(t *testing.T) {
	newFS := func() (*flag.FlagSet, *bytes.Buffer) {
		var stderr bytes.Buffer
		fs := flag.NewFlagSet("smoke", flag.ContinueOnError)
		fs.SetOutput(&stderr)
		fs.String("target", "", "the target")
		fs.Usage = func() { fs.Output().Write([]byte("usage: codemode-conformance smoke\n")) }
		return fs, &stderr
	}
	fs, stderr := newFS()
	var stdout bytes.Buffer
	if code, done := Parse(fs, []string{"-h"}, &stdout); code != 0 || !done {
		t.Errorf("-h: code %d done %v, want 0 true", code, done)
	}
	if stdout.String() != "usage: codemode-conformance smoke\n" || stderr.Len() != 0 {
		t.Errorf("-h: stdout %q stderr %q, want the usage on stdout only", stdout.String(), stderr.String())
	}

	fs, stderr = newFS()
	stdout.Reset()
	if code, done := Parse(fs, []string{"--bogus"}, &stdout); code != 2 || !done {
		t.Errorf("--bogus: code %d done %v, want 2 true", code, done)
	}
	if want := "flag provided but not defined: -bogus\nsee codemode-conformance smoke -h\n"; stderr.String() != want || stdout.Len() != 0 {
		t.Errorf("--bogus: stderr %q stdout %q, want %q on stderr only", stderr.String(), stdout.String(), want)
	}

	fs, _ = newFS()
	if code, done := Parse(fs, []string{"--target", "builtin", "x"}, &stdout); code != 0 || done || fs.Arg(0) != "x" {
		t.Errorf("good flags: code %d done %v args %v, want 0 false [x]", code, done, fs.Args())
	}
}
