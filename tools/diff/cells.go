package diff

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/codemode-conformance/codemode/suites/security/corpus"
)

// DefaultCells is the hostile-case corpus of the security and limits
// suites (CM-SEC, CM-LIM cases), relative to the top of a checkout.
const DefaultCells = "suites/security/cases"

// Cell is one guest cell every target runs: a corpus case (its fixture
// tools, policy and limits come from its front matter) or a plain .js file,
// which runs with the echo tool and default limits.
type Cell struct {
	Name string
	Case corpus.Case
}

// LoadCells reads every *.js file of dir, sorted by name. A file that
// starts with a /*--- front-matter block must parse as a corpus case
// (corpus.Parse); any other file is a plain cell. An empty folder is an
// error.
func LoadCells(dir string) ([]Cell, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.js"))
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no *.js cell in %s", dir)
	}
	sort.Strings(names)
	out := make([]Cell, 0, len(names))
	for _, n := range names {
		src, err := os.ReadFile(n)
		if err != nil {
			return nil, err
		}
		base := filepath.Base(n)
		if bytes.HasPrefix(bytes.TrimSpace(src), []byte("/*---")) {
			c, err := corpus.Parse(base, src)
			if err != nil {
				return nil, err
			}
			out = append(out, Cell{Name: base, Case: c})
			continue
		}
		code := strings.TrimSpace(string(src))
		if code == "" {
			return nil, fmt.Errorf("%s: no guest code", n)
		}
		out = append(out, Cell{Name: base, Case: corpus.Case{File: base, Code: code}})
	}
	return out, nil
}
