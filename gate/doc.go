// Package gate holds recallgate's domain: the frozen evaluation set, retrieval
// runs, document-level scoring at the candidate and context depths, the paired
// comparison of a base and a head run, and the verdict of the gate.
//
// It is pure logic: it reads from io.Readers, never from the network, and
// imports no third-party module. Adapters (config, retrievers, reports, the
// GitHub client) live in sub-packages and depend on it, not the other way.
package gate
