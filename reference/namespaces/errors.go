package namespaces

import "errors"

// Errors, matched with errors.Is. The ones a scope or registration fails
// with (CM-NS-07) fail every exec of the run before guest code runs; the
// ones a guest call fails with (CM-NS-03) reach the guest as a catchable
// invalid_input error and nothing is dispatched.
var (
	// ErrInvalidRegistration: a registration lacks a required member.
	ErrInvalidRegistration = errors.New("invalid namespace registration")
	// ErrGlobalName: globalName is not a JavaScript identifier.
	ErrGlobalName = errors.New("namespace globalName is not a JavaScript identifier")
	// ErrBuiltinCollision: globalName collides with a code mode built-in
	// global (or a standard global, or another visible namespace).
	ErrBuiltinCollision = errors.New("namespace globalName collides with a built-in global")
	// ErrRawFunction: the scope holds a raw host function.
	ErrRawFunction = errors.New("namespace scope holds a raw function")
	// ErrCycle: the scope's object graph is circular.
	ErrCycle = errors.New("namespace scope is circular")
	// ErrUnsafeSegment: a scope key is __proto__, constructor, prototype,
	// empty, or contains the path separator.
	ErrUnsafeSegment = errors.New("namespace scope has an unsafe path segment")
	// ErrBadScope: the scope description is malformed (unknown marker,
	// dangling ref, bad mapper, too large).
	ErrBadScope = errors.New("namespace scope description is malformed")
	// ErrUndeclaredTool: a callable targets a tool not in requiredToolNames.
	ErrUndeclaredTool = errors.New("namespace callable targets a tool not in requiredToolNames")
	// ErrForged: a guest call names a namespace that is not visible in this
	// run or a path that is not one of its callables.
	ErrForged = errors.New("forged namespace call")
	// ErrNotOwned: the callable's tool is not in the run catalog with
	// sourceName equal to the plugin id (checked again at every call).
	ErrNotOwned = errors.New("namespace tool is not owned by the namespace's plugin in this run")
	// ErrBadArgs: the guest's arguments are not a JSON array.
	ErrBadArgs = errors.New("namespace call arguments are not an array")
)
