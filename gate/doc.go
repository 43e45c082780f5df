// Package gate holds recallgate's domain: the frozen evaluation set, retrieval
// runs, document-level scoring at the candidate and context depths, the paired
// comparison of a base and a head run, and the verdict of the gate.
//
// It is pure logic and imports no third-party module. The eval set and run
// file formats are read and written above it, by gate/setfile and
// gate/runfile; it scores the sets and results it is given. What it reads, it reads
// as files the user named: eval sets (JSONL or TREC qrels, with the queries'
// texts), runs (JSONL or TREC), corpora (a folder of text and Markdown files,
// or JSONL), each a regular file that must not be a device, a FIFO or under
// /proc; it never touches the network or the environment beyond what callers
// pass in. Adapters (config, retrievers, reports, the CI clients) live in
// sub-packages and depend on it, not the other way; docs/ARCHITECTURE.md
// draws the rooms.
package gate

//go:generate go test ./registrydocs -run TestRegistryDocs -write-docs
