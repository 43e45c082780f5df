package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate/cli"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestHelpGolden renders every command's --help and compares it with
// testdata/help/<command>.golden (go test -update rewrites them). Each
// flag must appear in the command's usage line as --name, and no flag's
// text may hold a back-quoted word, which Go's flag package would take
// for the flag's value name.
func TestHelpGolden(t *testing.T) {
	cmds := append(commands(), command{Name: "main"})
	for _, c := range cmds {
		t.Run(c.Name, func(t *testing.T) {
			var got string
			if c.Name == "main" {
				got = cli.MainHelp(commands(), examples("main"))
			} else {
				code, out, errs := rg(t, c.Name, "--help")
				if code != 0 || errs != "" {
					t.Fatalf("exit %d %s", code, errs)
				}
				got = out
				fs := flag.NewFlagSet(c.Name, flag.ContinueOnError)
				c.Setup(fs)
				fs.VisitAll(func(f *flag.Flag) {
					if !strings.Contains(c.Usage+" ", "--"+f.Name+" ") && !strings.Contains(c.Usage, "--"+f.Name+"]") {
						t.Errorf("usage line %q lacks --%s", c.Usage, f.Name)
					}
					if strings.Contains(f.Usage, "`") {
						t.Errorf("--%s: a back-quoted word in %q becomes the value name", f.Name, f.Usage)
					}
				})
			}
			path := filepath.Join("testdata", "help", c.Name+".golden")
			if *update {
				os.MkdirAll(filepath.Dir(path), 0o755)
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("--help differs from %s (go test -update after reading the diff):\n%s", path, got)
			}
		})
	}
}
