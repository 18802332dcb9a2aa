package protocol

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
}
