package judge

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/config"
)

// MaxGuidelineBytes bounds a guideline file.
const MaxGuidelineBytes = 1 << 20

// maxFileBytes bounds each file a judge's command names, as hashed.
const maxFileBytes = 64 << 20

// Identity is the judge a config names: its name, its fingerprint and
// the guideline it is sent.
type Identity struct {
	Name, Fingerprint, Guideline string
	// Grades name the grades, 0 first.
	Grades []string
}

// Labeller is the set's labeller name of the judge: "judge:<name>".
func (id Identity) Labeller() string { return gate.JudgePrefix + id.Name }

// DefaultGrades name the grades a judge is sent without [label] grades:
// grade i is the i-th name.
var DefaultGrades = []string{"not relevant", "related but not answering", "relevant", "highly relevant: answers it"}

// Identify reads the config's [judge] guideline (the [label] guideline
// when it gives none) and fingerprints the judge: the table as written,
// every file its command names (an argument that is a regular file from
// the table's folder, its path as written and its bytes), the guideline's
// text and the grade names. A changed model, prompt, script or guideline
// is another judge; the folder the config sits in is not.
func Identify(cfg *config.Config) (Identity, error) {
	j := cfg.Judge
	id := Identity{Name: j.Name, Guideline: strings.TrimSpace(j.Guideline), Grades: cfg.GradeNames}
	if id.Grades == nil {
		id.Grades = DefaultGrades
	}
	if j.Guideline == "" && j.GuidelineFile == "" {
		id.Guideline = cfg.Guideline
	}
	if j.GuidelineFile != "" {
		b, err := gate.ReadInputFile(j.GuidelineFile, "judge guideline", MaxGuidelineBytes)
		if err != nil {
			return id, err
		}
		id.Guideline = strings.TrimSpace(string(b))
	}
	h := sha256.New()
	fmt.Fprintf(h, "table %s\n", j.Sum)
	for i, arg := range j.Command {
		p := arg
		if !filepath.IsAbs(p) {
			p = filepath.Join(j.Dir, p)
		}
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() {
			continue // a program on PATH, a flag, a model name
		}
		b, err := gate.ReadInputFile(p, fmt.Sprintf("judge.command[%d]", i), maxFileBytes)
		if err != nil {
			return id, err
		}
		sum := sha256.Sum256(b)
		fmt.Fprintf(h, "file %q %s\n", arg, hex.EncodeToString(sum[:]))
	}
	sum := sha256.Sum256([]byte(id.Guideline))
	fmt.Fprintf(h, "guideline %s\n", hex.EncodeToString(sum[:]))
	fmt.Fprintf(h, "grades %q\n", id.Grades)
	id.Fingerprint = "sha256:" + hex.EncodeToString(h.Sum(nil))
	return id, nil
}
