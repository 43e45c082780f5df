package main

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// devtools drives a headless Chromium through the DevTools protocol over
// a minimal WebSocket client (RFC 6455 text frames, enough for CDP), so a
// test can press real keys: Input.dispatchKeyEvent goes through the
// browser's input pipeline, as a keyboard does.
type devtools struct {
	cmd  *exec.Cmd
	conn net.Conn
	br   *bufio.Reader
	next int
}

// startDevtools launches Chromium with remote debugging on a free port and
// attaches to its one page.
func startDevtools(t *testing.T, browser, profile string) *devtools {
	t.Helper()
	cmd := exec.Command(browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+profile, "--remote-debugging-port=0", "--remote-debugging-address=127.0.0.1",
		"--window-size=1100,900", "about:blank")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its helpers too are stopped at the end
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
		// Helpers may still be closing files in the profile for a moment.
		for i := 0; i < 40; i++ {
			if os.RemoveAll(profile) == nil {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := regexp.MustCompile(`DevTools listening on (ws://\S+)`).FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	var browserWS string
	select {
	case browserWS = <-found:
	case <-time.After(30 * time.Second):
		t.Fatal("chromium did not open its DevTools port")
	}
	u, _ := url.Parse(browserWS)
	var targets []struct {
		Type, WebSocketDebuggerURL string
	}
	for i := 0; i < 50 && len(targets) == 0; i++ {
		resp, err := http.Get("http://" + u.Host + "/json/list")
		if err == nil {
			json.NewDecoder(resp.Body).Decode(&targets)
			resp.Body.Close()
		}
		var pages = targets[:0]
		for _, tg := range targets {
			if tg.Type == "page" {
				pages = append(pages, tg)
			}
		}
		targets = pages
		if len(targets) == 0 {
			time.Sleep(100 * time.Millisecond)
		}
	}
	if len(targets) == 0 {
		t.Fatal("chromium has no page target")
	}
	d := &devtools{cmd: cmd}
	if err := d.dial(targets[0].WebSocketDebuggerURL); err != nil {
		t.Fatal(err)
	}
	return d
}

func (d *devtools) dial(wsURL string) error {
	u, err := url.Parse(wsURL)
	if err != nil {
		return err
	}
	conn, err := net.DialTimeout("tcp", u.Host, 10*time.Second)
	if err != nil {
		return err
	}
	key := make([]byte, 16)
	rand.Read(key)
	fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n",
		u.RequestURI(), u.Host, base64.StdEncoding.EncodeToString(key))
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		return fmt.Errorf("websocket upgrade: %s", resp.Status)
	}
	d.conn, d.br = conn, br
	return nil
}

// send writes one masked text frame.
func (d *devtools) send(payload []byte) error {
	var h bytes.Buffer
	h.WriteByte(0x81)
	switch n := len(payload); {
	case n < 126:
		h.WriteByte(0x80 | byte(n))
	case n < 1<<16:
		h.WriteByte(0x80 | 126)
		binary.Write(&h, binary.BigEndian, uint16(n))
	default:
		h.WriteByte(0x80 | 127)
		binary.Write(&h, binary.BigEndian, uint64(n))
	}
	mask := make([]byte, 4)
	rand.Read(mask)
	h.Write(mask)
	masked := make([]byte, len(payload))
	for i, b := range payload {
		masked[i] = b ^ mask[i%4]
	}
	h.Write(masked)
	_, err := d.conn.Write(h.Bytes())
	return err
}

// receive reads one message, joining continuation frames.
func (d *devtools) receive() ([]byte, error) {
	var msg []byte
	for {
		var hdr [2]byte
		if _, err := io.ReadFull(d.br, hdr[:]); err != nil {
			return nil, err
		}
		n := uint64(hdr[1] & 0x7f)
		switch n {
		case 126:
			var l uint16
			binary.Read(d.br, binary.BigEndian, &l)
			n = uint64(l)
		case 127:
			binary.Read(d.br, binary.BigEndian, &n)
		}
		if hdr[1]&0x80 != 0 {
			return nil, errors.New("masked frame from the server")
		}
		payload := make([]byte, n)
		if _, err := io.ReadFull(d.br, payload); err != nil {
			return nil, err
		}
		switch hdr[0] & 0x0f {
		case 0x8:
			return nil, errors.New("the browser closed the connection")
		case 0x9, 0xA:
			continue // ping, pong
		}
		msg = append(msg, payload...)
		if hdr[0]&0x80 != 0 {
			return msg, nil
		}
	}
}

// call sends a CDP command and returns its result, skipping events.
func (d *devtools) call(method string, params any) (json.RawMessage, error) {
	d.next++
	id := d.next
	req, _ := json.Marshal(map[string]any{"id": id, "method": method, "params": params})
	d.conn.SetDeadline(time.Now().Add(30 * time.Second))
	if err := d.send(req); err != nil {
		return nil, err
	}
	for {
		raw, err := d.receive()
		if err != nil {
			return nil, err
		}
		var m struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct{ Message string }
		}
		if json.Unmarshal(raw, &m) != nil || m.ID != id {
			continue
		}
		if m.Error != nil {
			return nil, fmt.Errorf("%s: %s", method, m.Error.Message)
		}
		return m.Result, nil
	}
}

// eval evaluates a JavaScript expression in the page and returns its
// value as JSON.
func (d *devtools) eval(expr string) (string, error) {
	res, err := d.call("Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true})
	if err != nil {
		return "", err
	}
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
	}
	json.Unmarshal(res, &r)
	return string(r.Result.Value), nil
}

// waitFor polls a JavaScript condition until it is true.
func (d *devtools) waitFor(t *testing.T, expr string) {
	t.Helper()
	var v string
	var err error
	for i := 0; i < 100; i++ {
		if v, err = d.eval(expr); err == nil && v == "true" {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s (last: %s %v)", expr, v, err)
}

// press types one key through the browser's input pipeline.
func (d *devtools) press(t *testing.T, key string) {
	t.Helper()
	down := map[string]any{"type": "keyDown", "key": key}
	if len(key) == 1 {
		down["text"] = key
		down["code"] = "Key" + strings.ToUpper(key)
		if key[0] >= '0' && key[0] <= '9' {
			down["code"] = "Digit" + key
		}
		down["windowsVirtualKeyCode"] = int(strings.ToUpper(key)[0])
	}
	if _, err := d.call("Input.dispatchKeyEvent", down); err != nil {
		t.Fatal(err)
	}
	if _, err := d.call("Input.dispatchKeyEvent", map[string]any{"type": "keyUp", "key": key}); err != nil {
		t.Fatal(err)
	}
}

// click presses and releases the left mouse button on the middle of the
// first element matching selector, as a person would.
func (d *devtools) click(t *testing.T, selector string) {
	t.Helper()
	v, err := d.eval(fmt.Sprintf(`(function(){var e=document.querySelector(%q); if(!e) return null; e.scrollIntoView({block:"center"}); var r=e.getBoundingClientRect(); return [r.left+r.width/2, r.top+r.height/2];})()`, selector))
	var xy []float64
	if err != nil || json.Unmarshal([]byte(v), &xy) != nil || len(xy) != 2 {
		t.Fatalf("no element %s to click (%s %v)", selector, v, err)
	}
	for _, typ := range []string{"mousePressed", "mouseReleased"} {
		if _, err := d.call("Input.dispatchMouseEvent", map[string]any{"type": typ, "x": xy[0], "y": xy[1], "button": "left", "clickCount": 1}); err != nil {
			t.Fatal(err)
		}
	}
}

func (d *devtools) navigate(t *testing.T, u string) {
	t.Helper()
	if _, err := d.call("Page.navigate", map[string]any{"url": u}); err != nil {
		t.Fatal(err)
	}
}

func (d *devtools) screenshot(t *testing.T, path string) {
	t.Helper()
	res, err := d.call("Page.captureScreenshot", map[string]any{"format": "png"})
	if err != nil {
		t.Fatal(err)
	}
	var r struct{ Data string }
	json.Unmarshal(res, &r)
	png, _ := base64.StdEncoding.DecodeString(r.Data)
	os.WriteFile(filepath.Clean(path), png, 0o644)
}
