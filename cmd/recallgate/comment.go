package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/ghaction"
	"github.com/recallgate/recallgate/gate/ghclient"
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
			id := report.GateInfo{Config: "recallgate.toml"}
			if r.Gate != nil {
				id = *r.Gate
			}
			if *cfgName != "" {
				id.Config = *cfgName
			}
			if *name != "" {
				id.Name = *name
			}
			if id.Config == "" {
				id.Config = "recallgate.toml"
			}
			if err := checkGateName(id.Name); err != nil {
				return err
			}
			r.Gate = &id
			md, err := report.Render(r, report.Markdown)
			if err != nil {
				return err
			}
			rn := ghaction.ReadRunner(e.getenv)
			gh, err := ghclient.New(e.job().HTTPClient(), rn.APIURL, e.getenv("GITHUB_TOKEN"), rn.Repository)
			if err != nil {
				return usagef("%v", err)
			}
			number, err := ghaction.CommentTarget(ctx, rn, gh, r.HeadSHA, *in, *pr)
			if err != nil {
				return err
			}
			created, link, err := gh.UpsertComment(ctx, number, markers(id, legacyConfig(*cfgName)), md)
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

// checkGateName refuses a --name the marker and title cannot carry.
func checkGateName(name string) error {
	if name == "" {
		return nil
	}
	if err := gate.CheckGateName(name); err != nil {
		return usagef("--name: %v", err)
	}
	return nil
}

// legacyConfig is the config name earlier releases keyed the comment by:
// the --config flag, recallgate.toml by default.
func legacyConfig(flagValue string) string {
	if flagValue == "" {
		return "recallgate.toml"
	}
	return flagValue
}
