package input

import "fmt"

// InputError is a problem with a user-supplied file: an eval set, a run, a
// config. It names the file, the line (0 when unknown) and, when there is one,
// the field, so the user can go straight to it. The CLI maps it to exit code 2.
type InputError struct {
	File  string
	Line  int
	Field string
	Err   error
}

// Error implements error.
func (e *InputError) Error() string {
	loc := e.File
	if e.Line > 0 {
		loc = fmt.Sprintf("%s:%d", e.File, e.Line)
	}
	if e.Field != "" {
		return fmt.Sprintf("%s: %s: %v", loc, e.Field, e.Err)
	}
	return fmt.Sprintf("%s: %v", loc, e.Err)
}

// Unwrap returns the underlying error.
func (e *InputError) Unwrap() error { return e.Err }

// InfraError means a query could not be retrieved: a retriever failed, timed
// out or answered garbage. It is never scored as a miss; the CLI maps it to
// exit code 3.
type InfraError struct {
	QueryID string
	Err     error
}

// Error implements error.
func (e *InfraError) Error() string {
	if e.QueryID == "" {
		return fmt.Sprintf("retrieval failed: %v", e.Err)
	}
	return fmt.Sprintf("query %s: retrieval failed: %v", ClipID(e.QueryID), e.Err)
}

// Unwrap returns the underlying error.
func (e *InfraError) Unwrap() error { return e.Err }
