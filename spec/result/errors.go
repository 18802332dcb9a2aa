package result

// ErrorCode is one of the 16 codes a failed result may carry.
// Source: 000 [Codici di errore].
type ErrorCode string

// The code mode error codes, in the order of the source document.
const (
	CodeRuntimeUnavailable        ErrorCode = "runtime_unavailable"
	CodeInvalidConfig             ErrorCode = "invalid_config"
	CodeInvalidInput              ErrorCode = "invalid_input"
	CodeUnsupportedLanguage       ErrorCode = "unsupported_language"
	CodeTypeScriptTransformFailed ErrorCode = "typescript_transform_failed"
	CodeModuleAccessDenied        ErrorCode = "module_access_denied"
	CodeTimeout                   ErrorCode = "timeout"
	CodeMemoryLimitExceeded       ErrorCode = "memory_limit_exceeded"
	CodeOutputLimitExceeded       ErrorCode = "output_limit_exceeded"
	CodeSnapshotLimitExceeded     ErrorCode = "snapshot_limit_exceeded"
	CodeSnapshotExpired           ErrorCode = "snapshot_expired"
	CodeSnapshotRestoreFailed     ErrorCode = "snapshot_restore_failed"
	CodeTooManyPendingToolCalls   ErrorCode = "too_many_pending_tool_calls"
	CodeNestedToolFailed          ErrorCode = "nested_tool_failed"
	CodeAborted                   ErrorCode = "aborted"
	CodeInternalError             ErrorCode = "internal_error"
)

// ErrorCodes lists all 16 codes in source order.
var ErrorCodes = []ErrorCode{
	CodeRuntimeUnavailable, CodeInvalidConfig, CodeInvalidInput, CodeUnsupportedLanguage,
	CodeTypeScriptTransformFailed, CodeModuleAccessDenied, CodeTimeout, CodeMemoryLimitExceeded,
	CodeOutputLimitExceeded, CodeSnapshotLimitExceeded, CodeSnapshotExpired, CodeSnapshotRestoreFailed,
	CodeTooManyPendingToolCalls, CodeNestedToolFailed, CodeAborted, CodeInternalError,
}

// Valid reports whether c is one of the 16 codes.
func (c ErrorCode) Valid() bool {
	for _, k := range ErrorCodes {
		if k == c {
			return true
		}
	}
	return false
}
