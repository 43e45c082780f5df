package command

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/recallgate/recallgate/gate"
)

// TestMain turns the test binary into a fake retriever when asked, so the
// tests need nothing but Go.
func TestMain(m *testing.M) {
	if mode := os.Getenv("RG_FAKE_RETRIEVER"); mode != "" {
		fake(mode)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func fake(mode string) {
	fmt.Fprintln(os.Stderr, "fake retriever: model loaded")
	in := bufio.NewScanner(os.Stdin)
	n := 0
	for in.Scan() {
		n++
		var req struct {
			ID, Query string
			K         int
		}
		json.Unmarshal(in.Bytes(), &req)
		switch {
		case mode == "crash" && n == 2:
			fmt.Fprintln(os.Stderr, "fake retriever: out of memory")
			os.Exit(7)
		case mode == "garbage":
			fmt.Println("this is not json")
			continue
		case mode == "wrongid":
			req.ID = "someone-else"
		case mode == "hang" && n == 2:
			time.Sleep(time.Hour)
		}
		fmt.Printf(`{"id":%q,"hits":[{"doc":"doc-for-%s","score":%d}]}`+"\n", req.ID, strings.ReplaceAll(req.Query, " ", "-"), req.K)
	}
}

func start(t *testing.T, mode string, stderr *bytes.Buffer) *Retriever {
	t.Helper()
	t.Setenv("RG_FAKE_RETRIEVER", mode)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	r, err := Start([]string{exe}, "", []string{"RG_FAKE_RETRIEVER=" + mode}, stderr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(time.Second) })
	return r
}

func ask(r *Retriever, id string) ([]gate.Hit, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return r.Retrieve(ctx, &gate.Query{ID: id, Text: "query " + id}, 5)
}

func TestProtocol(t *testing.T) {
	var stderr bytes.Buffer
	r := start(t, "ok", &stderr)
	for _, id := range []string{"q1", "q2", "q3"} {
		hits, err := ask(r, id)
		if err != nil || len(hits) != 1 || hits[0].Doc != "doc-for-query-"+id || hits[0].Score != 5 {
			t.Fatalf("%s: %+v %v", id, hits, err)
		}
	}
	r.Close(time.Second)
	if !strings.Contains(stderr.String(), "model loaded") {
		t.Errorf("stderr not passed through: %q", stderr.String())
	}
}

func TestFaults(t *testing.T) {
	tests := []struct{ mode, want string }{
		{"crash", "exited before answering (exit status 7)"},
		{"garbage", "malformed answer"},
		{"wrongid", `answer is for query "someone-else", not "q1"`},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			var stderr bytes.Buffer
			r := start(t, tt.mode, &stderr)
			var err error
			for _, id := range []string{"q1", "q2"} {
				if _, err = ask(r, id); err != nil {
					break
				}
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err %v, want %q", err, tt.want)
			}
			if _, err2 := ask(r, "q3"); err2 == nil {
				t.Error("a broken retriever answered again")
			}
		})
	}
}

func TestHangTimesOut(t *testing.T) {
	var stderr bytes.Buffer
	r := start(t, "hang", &stderr)
	if _, err := ask(r, "q1"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	startT := time.Now()
	_, err := r.Retrieve(ctx, &gate.Query{ID: "q2", Text: "x"}, 5)
	if err == nil || time.Since(startT) > 2*time.Second {
		t.Fatalf("err %v after %v", err, time.Since(startT))
	}
	if _, err := ask(r, "q3"); err == nil || !strings.Contains(err.Error(), "did not answer an earlier query in time") {
		t.Errorf("after a timeout: %v", err)
	}
}

func TestStartErrors(t *testing.T) {
	if _, err := Start(nil, "", nil, os.Stderr); err == nil {
		t.Error("empty argv: want an error")
	}
	if _, err := Start([]string{"/nonexistent/retriever"}, "", nil, os.Stderr); err == nil {
		t.Error("missing program: want an error")
	}
}
