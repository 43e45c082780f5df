package main

import (
	"context"
	"embed"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/recallgate/recallgate/gate/cijob"
	"github.com/recallgate/recallgate/gate/cli"
	"github.com/recallgate/recallgate/gate/ghaction"
	"github.com/recallgate/recallgate/gate/nodump"
	"github.com/recallgate/recallgate/gate/pipeline"
	"github.com/recallgate/recallgate/internal/gitexec"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

// Exit codes, as documented in README.md.
const (
	exitPass       = 0 // the gate passed, or the command succeeded
	exitRegression = 1 // the gate failed: recall dropped beyond a threshold
	exitInput      = 2 // usage, config or input error
	exitInfra      = 3 // a query could not be retrieved
)

// errRegression is returned by a command whose verdict is fail.
var errRegression = cijob.ErrRegression

// usagef is a mistake on the command line (exit 2, with a pointer to --help).
func usagef(format string, args ...any) error { return cli.Usagef(format, args...) }

// env bundles what a command may touch of the world, so tests replace it.
type env struct {
	getenv func(string) string
	stdout io.Writer
	stderr io.Writer
	client *http.Client     // nil means a default client
	now    func() time.Time // nil means time.Now
	// commands, rawStderr: the raw streams, for recallgate's own workflow commands and fence.
	commands, rawStderr io.Writer
	// fence, in action mode, fences output recallgate does not control
	// (a subprocess's stderr) in ::stop-commands:: blocks; nil elsewhere.
	fence *ghaction.Fence
}

// job is the gate job's view of the environment; its Warn and HTTPClient
// serve the commands too.
func (e *env) job() *pipeline.Env {
	return &pipeline.Env{Getenv: e.getenv, Stderr: e.stderr, Stdout: e.stdout, Client: e.client, Now: e.now, Fence: e.fence.Open}
}

// command is one subcommand, run with the env.
type command = cli.Command[*env]

func commands() []command {
	return []command{initCommand, gateCommand, driftCommand, retrieveCommand, mergeCommand, scoreCommand, compareCommand, experimentCommand, validateCommand, sampleCommand, labelCommand, judgeCommand, reverifyCommand, reportCommand, commentCommand, exportCommand, historyCommand, actionCommand, ciCommand}
}

// run is the whole program: it closes its /proc files to the programs it will
// start (nodump), parses args, runs the subcommand and maps the outcome to an exit code.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	_ = nodump.Set() // cannot fail on Linux; a no-op elsewhere
	// Everything printed may carry text recallgate did not write (set ids,
	// retriever answers, error bodies): no line of it may act as a
	// workflow command. recallgate's own commands go to the raw streams.
	rawOut, rawErr := ghaction.Serialized(stdout), ghaction.Serialized(stderr)
	stdout, stderr = ghaction.NewInertWriter(rawOut), ghaction.NewInertWriter(rawErr)
	e := &env{getenv: getenv, stdout: stdout, stderr: stderr, commands: rawOut, rawStderr: rawErr}
	// One run reads its checkout's top and HEAD once (gitexec.Remember).
	return program().Run(gitexec.Remember(ctx), e, args, stdout, stderr)
}

// program is recallgate: its commands, help pages and exit codes.
func program() cli.Program[*env] {
	return cli.Program[*env]{Name: "recallgate", Version: version, Page: examples("main"), Commands: commands(), Metavars: cli.Metavars,
		ExitCode: exitCode, Usage: exitInput, Quiet: exitRegression, Explain: noSetIsUsage}
}

// noSetIsUsage says what to give when a command found no set.
func noSetIsUsage(err error) error {
	if errors.Is(err, pipeline.ErrNoSet) {
		return usagef("--set is required (or --config with set = \"…\")")
	}
	return err
}

// exitCode maps an error to the documented exit code.
func exitCode(err error) int {
	switch {
	case err == nil:
		return exitPass
	case errors.Is(err, errRegression):
		return exitRegression
	}
	return pipeline.ExitCode(err)
}

// helpFiles hold the help texts: each command's examples, and the top page.
//
//go:embed help/*.txt
var helpFiles embed.FS

// examples is a command's help text from help/NAME.txt.
func examples(name string) string {
	b, _ := helpFiles.ReadFile("help/" + name + ".txt") // embedded at build time; TestHelpGolden sees every one
	return string(b)
}
