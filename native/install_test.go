// Package native holds the composite action that runs recallgate on the
// runner itself; its tests check the install script against a fake release
// server on loopback.
package native

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// release serves a fake release: one "binary" per supported OS/CPU (a
// shell script that prints a version) and SHA256SUMS, under both
// /download/TAG/ and /latest/download/.
func release(t *testing.T, tamper bool) *httptest.Server {
	t.Helper()
	files := map[string]string{}
	var sums strings.Builder
	for _, os := range []string{"linux", "darwin"} {
		for _, arch := range []string{"amd64", "arm64"} {
			name := fmt.Sprintf("recallgate_%s_%s", os, arch)
			body := "#!/bin/sh\necho recallgate v9.1.0\n"
			sum := sha256.Sum256([]byte(body))
			fmt.Fprintf(&sums, "%s  %s\n", hex.EncodeToString(sum[:]), name)
			if tamper {
				body = "#!/bin/sh\necho pwned\n"
			}
			files[name] = body
		}
	}
	files["SHA256SUMS"] = sums.String()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := filepath.Base(r.URL.Path)
		dir := filepath.Dir(r.URL.Path)
		body, ok := files[name]
		if !ok || (dir != "/download/v9.1.0" && dir != "/latest/download") {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func install(t *testing.T, base string, args ...string) (string, error) {
	t.Helper()
	for _, tool := range []string{"bash", "curl"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	cmd := exec.Command("bash", append([]string{"install.sh"}, args...)...)
	cmd.Env = append(os.Environ(), "RECALLGATE_DOWNLOAD_BASE="+base)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func TestInstallChecksTheChecksum(t *testing.T) {
	srv := release(t, false)
	for _, version := range []string{"v9.1.0", "latest"} {
		dest := filepath.Join(t.TempDir(), "bin")
		out, err := install(t, srv.URL, version, dest)
		if err != nil || !strings.Contains(out, "recallgate v9.1.0") {
			t.Fatalf("%s: %v\n%s", version, err, out)
		}
		if fi, err := os.Stat(filepath.Join(dest, "recallgate")); err != nil || fi.Mode().Perm()&0o100 == 0 {
			t.Errorf("%s: not installed as an executable: %v", version, err)
		}
	}

	bad := release(t, true)
	dest := filepath.Join(t.TempDir(), "bin")
	out, err := install(t, bad.URL, "v9.1.0", dest)
	if err == nil || !strings.Contains(out, "checksum mismatch") || strings.Contains(out, "pwned") {
		t.Errorf("a tampered binary must be refused: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dest, "recallgate")); !os.IsNotExist(err) {
		t.Error("a refused binary was installed")
	}

	out, err = install(t, srv.URL, "v0.0.1", filepath.Join(t.TempDir(), "bin"))
	if err == nil || !strings.Contains(out, "cannot download") {
		t.Errorf("a missing release: %v\n%s", err, out)
	}
}
