// Package retrieval runs an eval set's queries through a retriever: each
// query once, a bounded number at a time, each under its own timeout and
// an optional rate limit shared between sides, its queue wait (MarkSent)
// kept apart from its latency, every failure named in one
// *gate.RetrievalError. It imports only gate.
package retrieval
