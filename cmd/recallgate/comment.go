package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/ghaction"
	"github.com/recallgate/recallgate/gate/ghclient"
	"github.com/recallgate/recallgate/gate/publish"
	"github.com/recallgate/recallgate/gate/report"
)

var commentCommand = command{
	Name:     "comment",
	Summary:  "Post (or update) the sticky PR comment from a saved JSON report.",
	Usage:    "recallgate comment --report report.json [--pr N] [--config PATH] [--name NAME]",
	Examples: examples("comment"),
	Setup: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
		in := fs.String("report", "", "JSON report written by compare, gate or the action (required)")
		pr := fs.Int("pr", 0, "pull request number (found from the event in a workflow_run job)")
		cfgName := fs.String("config", "", "config path the sticky comment is keyed by, relative to the workspace (default: the report's, else recallgate.toml)")
		name := fs.String("name", "", "gate name the sticky comment is keyed by (default: the report's)")
		return func(ctx context.Context, e *env, args []string) error {
			if err := noArgs(args); err != nil {
				return err
			}
			if *in == "" {
				return usagef("--report is required")
			}
			r, err := report.ReadCompareReportFile(*in)
			if err != nil {
				return err
			}
			if err := gate.CheckGateName(*name); *name != "" && err != nil {
				return usagef("--name: %v", err)
			}
			id := r.SetGate(*cfgName, *name)
			md, err := report.Render(r, report.Markdown)
			if err != nil {
				return err
			}
			rn := ghaction.ReadRunner(e.getenv)
			if err := rn.CommentEnv(e.getenv("GITHUB_TOKEN")); err != nil {
				return usagef("%v", err)
			}
			gh, err := ghclient.New(e.job().HTTPClient(), rn.APIURL, e.getenv("GITHUB_TOKEN"), rn.Repository)
			if err != nil {
				return usagef("%v", err)
			}
			number, err := ghaction.CommentTarget(ctx, rn, gh, r.HeadSHA, *in, *pr)
			if err != nil {
				return err
			}
			created, link, err := gh.UpsertComment(ctx, number, publish.Markers(id.Config, id.Name, *cfgName), md)
			var pe *ghclient.PermissionError
			if errors.As(err, &pe) {
				e.job().Warn("%v", err)
				return nil
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "recallgate: %s %s\n", map[bool]string{true: "posted", false: "updated"}[created], link)
			return nil
		}
	},
}
