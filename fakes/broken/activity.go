package broken

import "github.com/codemode-conformance/codemode/reference/codemode"

// The nested-activity variants (issue 14, feature nested-activity,
// spec/protocol.md §4.2): the reference under v2 with one defect each, as a
// runtime that persists, replays or hooks nested activity wrongly would
// behave.
func init() {
	Variants = append(Variants,
		Variant{Name: "activity-replayed", Breaks: "CM-NEST-17", Spec: "the replay view holds only", Profile: "v2",
			Defect: "completed nested calls are replayed to the provider: the replay view lists the nested activity after the model's exec and wait calls, as synthetic tool calls",
			Serve:  withDefects(codemode.Defects{ReplayActivity: true})},
		Variant{Name: "nested-ids-collide", Breaks: "CM-NEST-18", Spec: "later assistant response", Profile: "v2",
			Defect: "nested call ids derive from the run and the exec call id only: a provider reusing an exec call id in a later assistant response gets the nested ids of the earlier one",
			Serve:  withDefects(codemode.Defects{ReplayIgnoresResponse: true})},
		Variant{Name: "replay-ignores-input", Breaks: "CM-NEST-18", Spec: "with other input are another call", Profile: "v2",
			Defect: "nested call ids derive from the run, the response and the exec call id but not its input: the same call ids sent again with other code get the first call's nested ids, and its activity rows replace the first call's",
			Serve:  withDefects(codemode.Defects{ReplayIgnoresInput: true})},
		Variant{Name: "replay-while-in-flight", Breaks: "CM-NEST-18", Spec: "whose cell is still in flight", Profile: "v2",
			Defect: "a replay of an exec call is accepted while the cell the first call started is still waiting on a nested call: the replay's nested call goes out under the same tool.invoke id as the one in flight",
			Serve:  withDefects(codemode.Defects{ReplayWhileLive: true})},
		Variant{Name: "activity-start-persisted", Breaks: "CM-NEST-18", Spec: "start events are not persisted", Profile: "v2",
			Defect: "a nested call's activity row is written when the call starts (status pending), so a call still in flight shows in the persisted history",
			Serve:  withDefects(codemode.Defects{PersistStarts: true})},
		Variant{Name: "suppressed-in-agent-end", Breaks: "CM-NEST-19", Profile: "v2",
			Defect: "a row a before_message_write hook suppressed is kept out of the transcript but still handed to hook.agentEnd as accepted activity",
			Serve:  withDefects(codemode.Defects{SuppressedInAgentEnd: true})},
	)
}
