package main

import (
	"github.com/codemode-conformance/codemode/tools/report"
	"github.com/codemode-conformance/codemode/tools/sources"
)

// The sources of CONFORMANCE.md live in tools/sources, shared with the
// comparison site (tools/site); these names keep this command's code short.
type (
	// Peer is sources.Peer: a committed report of another implementation.
	Peer = sources.Peer
	// ProfileRun is sources.ProfileRun: a reference run under one profile.
	ProfileRun = sources.ProfileRun
)

// DefaultPeers is sources.DefaultPeers.
var DefaultPeers = sources.DefaultPeers

// LoadPeers is sources.LoadPeers.
func LoadPeers(root string, entries []string) ([]Peer, error) {
	return sources.LoadPeers(root, entries)
}

// readSpecs is sources.ReadSpecs.
func readSpecs(path string) ([]report.SpecResult, error) { return sources.ReadSpecs(path) }
