// Package subcmd parses the flags of a codemode-conformance subcommand the
// one way every subcommand answers them (tools/codemode-conformance and
// tools/bench share it).
package subcmd

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// Parse parses args into fs. -h/--help prints fs.Usage on stdout and
// exits 0; a bad flag prints the flag package's error and "see
// codemode-conformance <fs.Name()> -h" on fs's output (stderr) and exits
// 2, without the usage. done is true when the command must return code at
// once.
func Parse(fs *flag.FlagSet, args []string, stdout io.Writer) (code int, done bool) {
	usage := fs.Usage
	fs.Usage = func() {} // the flag package calls it on every error
	err := fs.Parse(args)
	fs.Usage = usage
	switch {
	case err == nil:
		return 0, false
	case errors.Is(err, flag.ErrHelp):
		fs.SetOutput(stdout)
		if fs.Usage != nil {
			fs.Usage()
		} else {
			fs.PrintDefaults()
		}
		return 0, true
	default:
		fmt.Fprintf(fs.Output(), "see codemode-conformance %s -h\n", fs.Name())
		return 2, true
	}
}
