package protocol

import "time"

// ToolCallSlack is what the harness adds to a run's timeoutMs to bound one
// tool.exec or tool.wait (spec/protocol.md §1, "Harness bounds"): the most a
// conformant target may take to answer it, measured from when the request
// was sent. protocol.md §14.7 lets a target start its budget when the guest's
// code starts, as long as the answer arrives within this bound; CM-EXEC-07
// ("never hangs") is judged against it.
const ToolCallSlack = 15 * time.Second
