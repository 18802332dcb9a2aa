package main

import (
	"errors"
	"flag"
	"io"
)

// parseSubcommand parses a subcommand's flags the one way every subcommand
// answers them: -h/--help prints its usage on stdout and exits 0, a bad
// flag (already reported on the flag set's output, stderr) exits 2. done is
// true when the command must return code at once.
func parseSubcommand(fs *flag.FlagSet, args []string, stdout io.Writer) (code int, done bool) {
	err := fs.Parse(args)
	switch {
	case err == nil:
		return 0, false
	case errors.Is(err, flag.ErrHelp):
		fs.SetOutput(stdout)
		fs.Usage()
		return 0, true
	default:
		return 2, true
	}
}
