package pipeline

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/basetree"
	"github.com/recallgate/recallgate/gate/config"
	"github.com/recallgate/recallgate/internal/confine"
)

// policyFile is where the base commit keeps the gate's config.
type policyFile struct {
	// At is the file in the base tree, Rel its path from the repository's
	// top (slashes); both "" when the base commit has no recallgate
	// config at all (the change adopts recallgate).
	At, Rel string
	// Moved says the change moved, renamed or linked the config: the job
	// names another path, or reaches Rel through a link the base lacks.
	Moved bool
}

// findPolicyFile finds the base commit's config for a gate whose job names
// named (a path of the head's checkout, as the job gave it). The policy's
// file is found by where the config was, never by what the change points
// at: the base commit's file at the named path (no link of the head's
// checkout followed); else the one recallgate config the change removed,
// moved, renamed or replaced by a link, or the base branch's workflows
// name; else, when there is none of those, the one recallgate config of
// the base tree. What the base commit holds is its own listing's (see
// basetree.Tree.Files). Only a base commit with no recallgate config at
// all adopts recallgate. Several candidates and none at the named path is
// refused, whichever of them the change moved: which one is the gate's
// policy cannot be told. So is a named config new beside the base's
// configs when the change moved, removed or linked none of them (the
// base's workflows still name theirs): a second gate, or a config named
// in place of the base's, cannot be told apart.
func findPolicyFile(tree *basetree.Tree, named string) (policyFile, error) {
	at, rel, err := tree.Named(named)
	if err != nil {
		return policyFile{}, &gate.InputError{File: named, Err: err}
	}
	short := ShortSHA(tree.Commit)
	if _, sub := tree.Lists(rel); sub != "" {
		return policyFile{}, &gate.InputError{File: rel + "@" + short, Err: fmt.Errorf("%s is a submodule of the base commit (another repository's commit): a config of another repository is refused; name a config of this repository's own", sub)}
	}
	if _, err := os.Lstat(at); err == nil {
		if !tree.Inside(at) {
			return policyFile{}, &gate.InputError{File: rel + "@" + short, Err: errors.New("the base commit's config is a link out of its own tree: refused")}
		}
		return policyFile{At: at, Rel: rel, Moved: tree.Linked(rel)}, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return policyFile{}, &gate.InputError{File: rel + "@" + short, Err: err}
	}
	var gone, wf []string
	if err := tree.Gone(collectConfigs(tree, &gone)); err != nil {
		return policyFile{}, fmt.Errorf("compare the base commit's tree with the checkout: %w", err)
	}
	baseNamed, baseDefault := workflowConfigs(tree.Dir)
	headNamed, headDefault := workflowConfigs(tree.Head())
	renamed := false // a config the base's workflows name that the head's no longer do
	for _, r := range append(slices.Clone(baseNamed), baseDefault...) {
		if looksLikeConfig(tree, filepath.Join(tree.Dir, filepath.FromSlash(r))) {
			wf = append(wf, r)
			if slices.Contains(baseNamed, r) {
				renamed = renamed || !slices.Contains(headNamed, r)
			} else {
				renamed = renamed || !slices.Contains(headNamed, r) && !slices.Contains(headDefault, r)
			}
		}
	}
	all := slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(gone), wf...))))
	if len(all) == 0 {
		// No config was moved away and the workflows name none: the base
		// commit may still gate from a path only a Makefile, an included
		// CI file or a runner's settings name. Any recallgate config of
		// its tree keeps the change from judging itself.
		if err := tree.Files(collectConfigs(tree, &all)); err != nil {
			return policyFile{}, fmt.Errorf("look for the base commit's recallgate configs: %w", err)
		}
	}
	moved := len(gone) > 0 || renamed || tree.Linked(rel)
	switch {
	case len(all) == 0:
		return policyFile{}, nil
	case !moved:
		return policyFile{}, &gate.InputError{File: named, Err: fmt.Errorf("the base commit %s has no config at %s, and this change moves, removes or links none of its recallgate configs (%s): %s is new beside them (a second gate, or a config named in place of the base's), and which one is its policy cannot be told. A second gate: land its config first (a change that adds %s and no job naming it, judged by the gates there are), then the job that names it; moving the gate's config: git mv it, so the base's config judges the move",
			short, rel, gate.JoinFirst(all, 10), rel, rel)}
	case len(all) == 1:
		if !slices.Contains(wf, all[0]) {
			// Only what the change removed names it: with another
			// recallgate config of the base left untouched (the gate's,
			// named where its workflows do not say), the change would pick
			// its own judge by which config it deletes.
			var others []string
			if err := tree.Files(collectConfigs(tree, &others)); err != nil {
				return policyFile{}, fmt.Errorf("look for the base commit's recallgate configs: %w", err)
			}
			others = slices.DeleteFunc(others, func(r string) bool { return r == all[0] })
			if len(others) > 0 {
				return policyFile{}, &gate.InputError{File: named, Err: fmt.Errorf("the base commit %s has no config at %s; this change removes or moves its recallgate config %s but leaves %s untouched, and the base's workflows name none of them: which one is this gate's policy cannot be told (removing a loose config would make it the judge). Moving the gate's config: keep a link at its old path in this change (ln -s), which the base's config judges, and name the new path in the next",
					short, rel, all[0], gate.JoinFirst(others, 10))}
			}
		}
		return policyFile{At: filepath.Join(tree.Dir, filepath.FromSlash(all[0])), Rel: all[0], Moved: true}, nil
	}
	// Several: none may be preferred, not even the one this change moved
	// away, since a change can move the base's loosest config as easily
	// as its gate's.
	return policyFile{}, &gate.InputError{File: named, Err: fmt.Errorf("the base commit %s has no config at %s but has recallgate configs at %s: which one is this gate's policy cannot be told; run the gate with the config at its path on the base branch",
		short, rel, gate.JoinFirst(all, 10))}
}

// collectConfigs is a walk of the base tree that adds to out every
// recallgate config it passes.
func collectConfigs(tree *basetree.Tree, out *[]string) func(rel, at string) error {
	return func(rel, at string) error {
		if looksLikeConfig(tree, at) {
			*out = append(*out, rel)
		}
		return nil
	}
}

// retrieverTable is a recallgate config's retriever table header, or its
// gate table's (a config for run files alone has no retriever).
var retrieverTable = regexp.MustCompile(`(?mi)^[ \t]*\[[ \t]*(?:(?:(?:base|head)[ \t]*\.[ \t]*)?retriever|gate)[ \t]*\][ \t]*(?:#.*)?$`)

// looksLikeConfig reports whether p, a file of the base tree, is a
// recallgate config: a regular file (links followed only inside the tree)
// of at most gate.MaxConfigBytes with a retriever table, or with what a
// config for run files alone has instead (config.DeclaresPolicy): the
// base's policy all the same. Whether it
// parses is the loader's to say, so a base config this release refuses is
// refused, never taken for no config; so is a .toml file that is a Git
// LFS pointer.
func looksLikeConfig(tree *basetree.Tree, p string) bool {
	if !tree.Inside(p) {
		return false
	}
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	if fi.Size() > gate.MaxConfigBytes {
		// Too large for the loader, which refuses it: a base config padded
		// past the limit is still the base's config, never no config.
		return headsRetrieverTable(p)
	}
	data, err := gate.ReadInputFile(p, "config", gate.MaxConfigBytes)
	if gate.IsInfra(err) && strings.HasSuffix(p, ".toml") {
		// A Git LFS pointer: what it points at cannot be read, so it
		// counts, and its loader says why it cannot be read.
		return true
	}
	return err == nil && (retrieverTable.Match(data) || config.DeclaresRetriever(data) || config.DeclaresPolicy(data))
}

// maxScanBytes bounds the scan of a file too large to be read as a config.
const maxScanBytes = 64 << 20

// headsRetrieverTable reports whether a file too large to load has a
// retriever table header on a line of its first maxScanBytes, however
// long the lines around it.
func headsRetrieverTable(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	rd := bufio.NewReaderSize(io.LimitReader(f, maxScanBytes), 64<<10)
	whole := true // the next piece starts a line
	for {
		piece, more, err := rd.ReadLine()
		if whole && !more && retrieverTable.Match(piece) {
			return true
		}
		whole = !more
		if err != nil {
			return false
		}
	}
}

// maxWorkflowBytes bounds each workflow file read for config paths.
const maxWorkflowBytes = 1 << 20

var (
	// workflowConfig finds a config path a workflow gives recallgate: the
	// action's config input, --config, RECALLGATE_CONFIG.
	workflowConfig = regexp.MustCompile(`(?:^\s*(?:-\s*)?config\s*:|--config(?:=|\s+)|RECALLGATE_CONFIG\s*[:=])\s*(\S+)`)
	// workflowDir finds the folder such a path is relative to.
	workflowDir = regexp.MustCompile(`(?:^\s*(?:-\s*)?working-directory\s*:|RECALLGATE_WORKING_DIRECTORY\s*[:=])\s*(\S+)`)
)

// workflowConfigs are the config paths (from the top, slashes) the
// workflows of the tree at dir name: .github/workflows/*.yml|*.yaml and
// .gitlab-ci.yml, each path also under every working folder its file
// names; byDefault are those the default recallgate.toml gives a workflow
// that runs recallgate. Read line by line, not parsed: a path that is no
// recallgate config is dropped by the caller.
func workflowConfigs(dir string) (named, byDefault []string) {
	files, _ := filepath.Glob(filepath.Join(dir, ".github", "workflows", "*.y*ml"))
	files = append(files, filepath.Join(dir, ".gitlab-ci.yml"))
	for _, f := range files {
		fi, err := os.Lstat(f)
		if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxWorkflowBytes {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var paths []string
		dirs := []string{"."}
		sc := bufio.NewScanner(strings.NewReader(string(data)))
		sc.Buffer(nil, maxWorkflowBytes)
		for sc.Scan() {
			line := sc.Text()
			if m := workflowConfig.FindStringSubmatch(line); m != nil {
				paths = append(paths, unquote(m[1]))
			}
			if m := workflowDir.FindStringSubmatch(line); m != nil {
				dirs = append(dirs, unquote(m[1]))
			}
		}
		named = append(named, under(dirs, paths)...)
		if strings.Contains(string(data), "recallgate") {
			byDefault = append(byDefault, under(dirs, []string{"recallgate.toml"})...)
		}
	}
	return named, byDefault
}

// under is every path under every folder, kept when local and plain.
func under(dirs, paths []string) []string {
	var out []string
	for _, p := range paths {
		for _, d := range dirs {
			if c := path.Join(d, p); !strings.Contains(c, "$") && confine.Local(c) {
				out = append(out, c)
			}
		}
	}
	return out
}

// unquote strips a YAML value's quotes.
func unquote(s string) string {
	return strings.Trim(s, `"'`)
}
