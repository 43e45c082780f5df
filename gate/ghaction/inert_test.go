package ghaction

import (
	"bytes"
	"strings"
	"testing"
)

func TestInertWriter(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain line\n", "plain line\n"},
		{"::error::injected\n", "\u200b::error::injected\n"},
		{"  ::set-output name=verdict::pass\n", "  \u200b::set-output name=verdict::pass\n"},
		{"\t::add-mask::zzz", "\t\u200b::add-mask::zzz"},
		{"boom\n::error::x\r\n::warning::y\n", "boom\n\u200b::error::x\r\n\u200b::warning::y\n"},
		{"q1: a::b and ::error:: mid-line\n", "q1: a::b and ::error:: mid-line\n"},
		{":single colon\n", ":single colon\n"},
		{": :spaced\n", ": :spaced\n"},
		{"old ##[error]form and ##[set-output name=x;]y\n", "old ##\u200b[error]form and ##\u200b[set-output name=x;]y\n"},
		{"recall@5 # [x]\n", "recall@5 # [x]\n"},
		{"", ""},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		w := NewInertWriter(&b)
		if n, err := w.Write([]byte(tt.in)); err != nil || n != len(tt.in) {
			t.Errorf("%q: wrote %d, %v", tt.in, n, err)
		}
		if b.String() != tt.want {
			t.Errorf("%q → %q, want %q", tt.in, b.String(), tt.want)
		}
		// Byte by byte, the same.
		b.Reset()
		w = NewInertWriter(&b)
		for i := 0; i < len(tt.in); i++ {
			w.Write([]byte{tt.in[i]})
		}
		if b.String() != tt.want {
			t.Errorf("%q byte by byte → %q, want %q", tt.in, b.String(), tt.want)
		}
	}
}

func TestStopCommands(t *testing.T) {
	var b bytes.Buffer
	resume := StopCommands(&b)
	b.WriteString("::error::from the retriever\n")
	resume()
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "::stop-commands::recallgate-") || lines[2] != "::"+strings.TrimPrefix(lines[0], "::stop-commands::")+"::" || len(lines[0]) < len("::stop-commands::recallgate-")+32 {
		t.Errorf("block %q", lines)
	}
	var c bytes.Buffer
	StopCommands(&c)
	if strings.SplitN(c.String(), "\n", 2)[0] == lines[0] {
		t.Error("two blocks share a token")
	}
}
