package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// linkReportFolder makes the change commit the report folder .recallgate
// as a link to a folder outside the workspace, and returns that folder.
func linkReportFolder(t *testing.T, ws string) string {
	t.Helper()
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(ws, ".recallgate")); err != nil {
		t.Fatal(err)
	}
	(&fixture{t: t, dir: ws}).commit("the report folder, a link")
	return outside
}

// outsideWritten lists what the job wrote in the folder outside.
func outsideWritten(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestActionReportFolderLinkRefused: in the Docker action the report goes
// to .recallgate/ in the workspace; a pull request that commits that
// folder as a link out of the workspace gets no report written there: the
// step ends in exit 2 and says why.
func TestActionReportFolderLinkRefused(t *testing.T) {
	ws, base := frozenRunsRepo(t)
	outside := linkReportFolder(t, ws)
	g := &fakeGitHub{}
	srv := g.server(t)
	ae := runFilesAction(t, srv.URL, ws, base)
	ae.vars["RECALLGATE_DOCKER_ACTION"] = "1"
	code, out, errs := ae.run(t)
	if names := outsideWritten(t, outside); len(names) != 0 {
		t.Errorf("the action wrote %v outside the workspace, through the link", names)
	}
	if code != 2 || !strings.Contains(out, "is outside the workspace") {
		t.Errorf("exit %d, want 2 naming the link's way out\n%s\n%s", code, out, errs)
	}
	if o := ae.outputs(t); o["verdict"] != "error" || o["report"] != "" {
		t.Errorf("outputs %v: want verdict error and no report", o)
	}
}

// TestCIGitLabReportFolderLinkRefused: the same for `recallgate ci`, whose
// report goes to .recallgate/ in CI_PROJECT_DIR.
func TestCIGitLabReportFolderLinkRefused(t *testing.T) {
	ws, base := frozenRunsRepo(t)
	outside := linkReportFolder(t, ws)
	g := &fakeGitLab{}
	srv := g.server(t)
	vars := glRunFilesJob(srv.URL, ws, base)
	code, out, errs := runCI(t, vars)
	if names := outsideWritten(t, outside); len(names) != 0 {
		t.Errorf("the job wrote %v outside the project folder, through the link", names)
	}
	if code != 2 || !strings.Contains(out+errs, "is outside the workspace") {
		t.Errorf("exit %d, want 2 naming the link's way out\n%s\n%s", code, out, errs)
	}
	if len(g.notes) != 1 || !strings.Contains(g.notes[0]["body"].(string), "could not run") {
		t.Errorf("the note must say the job could not run: %v", g.notes)
	}
}
