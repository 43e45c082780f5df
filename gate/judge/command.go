package judge

import (
	"context"
	"io"

	"github.com/recallgate/recallgate/gate/retriever/command"
)

// commandJudge is a judge program speaking one JSON line each way over
// the command retriever's hardened pipe (command.Retriever.Exchange).
type commandJudge struct {
	p *command.Retriever
}

// startCommand starts a command judge: argv run in dir with exactly env.
func startCommand(argv []string, dir string, env []string, stderr io.Writer) (*commandJudge, error) {
	p, err := command.Start(argv, command.Options{Dir: dir, Env: env, Stderr: stderr, Noun: "judge"})
	if err != nil {
		return nil, err
	}
	return &commandJudge{p: p}, nil
}

// Grade implements Transport.
func (c *commandJudge) Grade(ctx context.Context, req Request) (Answer, error) {
	var a Answer
	err := c.p.Exchange(ctx, req.ID(), marshalRequest(req), func(rd io.Reader) error {
		var err error
		a, err = decodeAnswer(rd, req)
		return err
	})
	return a, err
}

// Close implements Transport.
func (c *commandJudge) Close() error { return c.p.Close(command.StopGrace) }
