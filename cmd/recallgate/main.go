// Command recallgate gates pull requests on the retrieval quality of RAG
// systems: it scores a frozen, hand-labelled query set against a base and a
// head retriever run, compares them query by query and fails when recall
// drops. See README.md for the full guide.
package main

import (
	"os"

	"github.com/recallgate/recallgate/gate/cli"
)

func main() { os.Exit(run(cli.SignalContext(), os.Args[1:], os.Getenv, os.Stdout, os.Stderr)) }
