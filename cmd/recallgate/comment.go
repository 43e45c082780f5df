package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/recallgate/recallgate/gate/ghclient"
	"github.com/recallgate/recallgate/gate/report"
)

var commentCommand = command{
	name:    "comment",
	summary: "Post (or update) the sticky PR comment from a saved JSON report.",
	usage:   "recallgate comment --report report.json --pr N [--config NAME]",
	examples: `  # in a workflow_run workflow that may write to pull requests, after
  # downloading the report artifact the pull_request workflow uploaded:
  recallgate comment --report report.json --pr "$(cat pr-number)"

Reads GITHUB_TOKEN, GITHUB_REPOSITORY and GITHUB_API_URL from the environment.
`,
	setup: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
		in := fs.String("report", "", "JSON report written by compare, gate or the action (required)")
		pr := fs.Int("pr", 0, "pull request number (required)")
		name := fs.String("config", "recallgate.toml", "config name the sticky comment is keyed by (the action's config input)")
		return func(ctx context.Context, e *env, args []string) error {
			if err := noArgs(args); err != nil {
				return err
			}
			if *in == "" || *pr <= 0 {
				return usagef("--report and --pr are required")
			}
			f, err := os.Open(*in)
			if err != nil {
				return fmt.Errorf("open report: %w", err)
			}
			defer f.Close()
			r, err := report.ReadCompareReport(f, *in)
			if err != nil {
				return err
			}
			var md bytes.Buffer
			if err := report.WriteCompareReport(&md, r, report.Markdown); err != nil {
				return err
			}
			gh, err := ghclient.New(e.httpClient(), e.getenv("GITHUB_API_URL"), e.getenv("GITHUB_TOKEN"), e.getenv("GITHUB_REPOSITORY"))
			if err != nil {
				return usagef("%v", err)
			}
			marker := ghclient.Marker(*name)
			created, link, err := gh.UpsertComment(ctx, *pr, marker, md.String())
			var pe *ghclient.PermissionError
			if errors.As(err, &pe) {
				e.warn("%v", err)
				return nil
			}
			if err != nil {
				return err
			}
			verb := "updated"
			if created {
				verb = "posted"
			}
			fmt.Fprintf(e.stdout, "recallgate: %s %s\n", verb, link)
			return nil
		}
	},
}
