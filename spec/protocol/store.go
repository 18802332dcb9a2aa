package protocol

import "encoding/json"

// Session binds a run to a session branch for the session store (feature
// session-store, CM-STO-01..04; spec/protocol.md §5.7). The store a run
// reads and commits to is the one of (sessionId, sessionKey, Branch): another
// branch or another session never sees its values (CM-STO-03). A run without
// a Session has no bound session, and store/load are unavailable to its
// cells (CM-STO-04), as they are when Headless is true (headless or
// restart-safe execution).
type Session struct {
	// Branch names the session branch the run continues (the transcript
	// leaf it extends). Required and non-empty when Session is sent.
	Branch string `json:"branch"`
	// Headless marks headless or restart-safe execution: store/load are
	// unavailable (CM-STO-04).
	Headless bool `json:"headless,omitempty"`
	// Transcript, when sent, is the branch's transcript as the session
	// manager (the harness) holds it, oldest first, ancestry included:
	// entries of type StoreEntryType (StoreEntry, as run.trajectory reported
	// them) and any other objects with a string "type" (messages,
	// compactions), which the target skips. The target replays every store
	// entry, however old, to rebuild the branch's committed values
	// (CM-STO-08). At most MaxTranscriptEntries entries.
	Transcript []json.RawMessage `json:"transcript,omitempty"`
}

// MaxTranscriptEntries bounds Session.Transcript.
const MaxTranscriptEntries = 65536

// StoreEntryType is the type of the custom transcript entry a session store
// commit appends (CM-STO-05).
const StoreEntryType = "openclaw.code-mode-store"

// StoreEntry is one openclaw.code-mode-store custom transcript entry: the
// write set of one completed cell (CM-STO-05), as run.trajectory reports it
// (spec/protocol.md §5.7).
type StoreEntry struct {
	// Type is StoreEntryType.
	Type string `json:"type"`
	// ToolCallID is the exec or wait call whose cell completed and committed.
	ToolCallID string `json:"toolCallId"`
	// Branch is the session branch (Session.Branch) the entry belongs to.
	Branch string `json:"branch"`
	// Sets are the keys the cell stored, with their values (a value over
	// 2 KiB may be reported as {"omitted": …, "bytes": n}); never null.
	Sets map[string]json.RawMessage `json:"sets"`
	// Deletes are the keys the cell deleted, sorted; never null.
	Deletes []string `json:"deletes"`
	// NetworkContent lists the keys whose value came from network-controlled
	// content (per-key provenance, CM-STO-11); absent when none did.
	NetworkContent []string `json:"networkContent,omitempty"`
}
