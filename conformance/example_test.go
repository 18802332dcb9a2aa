package conformance_test

import (
	"errors"
	"fmt"

	"github.com/codemode-conformance/codemode/conformance"
)

// A Config names the target in package targets' syntax; Check rejects what
// cannot run before anything starts. conformance.Test(t, c) then runs the
// suites (see examples/embed for a whole test).
func ExampleConfig_Check() {
	c := conformance.Config{
		Target:       "exec:./bin/codemode-reference serve --stdio",
		Requirements: []string{"CM-EXEC-01", "CM-LIM-03"},
		ResultsDir:   "results",
	}
	_, err := c.Check()
	fmt.Println("valid:", err == nil)
	fmt.Println("label filter:", c.Filter())

	c.Features = []string{"yeild"}
	_, err = c.Check()
	fmt.Println("typo rejected:", errors.Is(err, conformance.ErrConfig))
	// Output:
	// valid: true
	// label filter: req:CM-EXEC-01 || req:CM-LIM-03
	// typo rejected: true
}
