// Package history keeps recallgate's runs over time and draws the trend a
// team looks at: `history add` turns a JSON compare report (read only
// through report.ReadCompareReport, error reports included) into one line
// of a bounded JSONL file written atomically, and `history render` draws
// that file as an HTML page of inline SVG line charts (gate/chart), as
// Markdown with a Mermaid line chart, or as JSON. The history file may come
// back from a cache or a branch anyone could push to, so it is read as
// strictly as a report: unknown keys, duplicate keys and values out of
// their range are refused, naming the file and the line.
package history

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/atomicfile"
	"github.com/recallgate/recallgate/gate/report"
)

// MaxEntries is how many entries a history keeps: adding one to a full
// history drops the oldest. Ten thousand nightly runs are 27 years of one
// gate, or a year of 27 gates.
const MaxEntries = 10000

// MaxLineBytes bounds one line of a history file; an entry recallgate
// writes is about 500 bytes (its error message is cut to MaxMessage
// characters).
const MaxLineBytes = 4096

// MaxMessage bounds, in characters, the error message an error entry keeps.
const MaxMessage = 300

// TimeLayout is how an entry writes its time: RFC 3339 in UTC, to the second.
const TimeLayout = "2006-01-02T15:04:05Z"

// maxCount bounds a count an entry reads back (queries, depths, facts).
const maxCount = 100_000_000

// VerdictError is the verdict of an entry of a run that could not finish.
const VerdictError = report.VerdictError

// Entry is one run of one gate, one line of the history file. A value
// that is not known is null, never zero: an error entry has no metric,
// depth, count or set fingerprint at all.
type Entry struct {
	// Time is when the run was (TimeLayout).
	Time string `json:"time"`
	// Gate is the gate's label as reports title it (report.GateInfo.Label):
	// its name, else its config's folder or path; "" is the repository's
	// one recallgate.toml.
	Gate string `json:"gate"`
	// Commit is the commit the run tested (the report's head_sha).
	Commit *string `json:"commit"`
	// Verdict is pass, fail, inconclusive or error.
	Verdict string `json:"verdict"`
	// Set is the eval set's fingerprint: runs on different sets (or at
	// different depths) are not comparable.
	Set *string `json:"set"`
	// Candidates and Context are the depths N and k.
	Candidates *int `json:"candidates"`
	Context    *int `json:"context"`
	// Queries is how many answerable queries the means are over.
	Queries *int `json:"queries"`
	// RecallAtN, PrecisionAtK and NDCGAtK are the head side's means.
	RecallAtN    *float64 `json:"recall_at_n"`
	PrecisionAtK *float64 `json:"precision_at_k"`
	NDCGAtK      *float64 `json:"ndcg_at_k"`
	// ZeroRecall counts the queries that found no relevant document.
	ZeroRecall *int `json:"zero_recall"`
	// FactsFound of FactsTotal required facts reached the final context
	// (null without a final context).
	FactsFound *int `json:"facts_found"`
	FactsTotal *int `json:"facts_total"`
	// LatencyP95 is the head retriever's 95th percentile latency in
	// milliseconds (null when it was not timed).
	LatencyP95 *float64 `json:"latency_p95_ms"`
	// Error is why an error entry's run could not finish; null otherwise.
	Error *Failure `json:"error"`
	// Digest identifies what the run measured (its verdict and what the
	// head side retrieved, or its error), so the same run is not added twice.
	Digest string `json:"digest"`
}

// Failure is what an error entry keeps of an error report.
type Failure struct {
	// ExitCode is the run's exit code: 2 bad input, 3 infrastructure.
	ExitCode int `json:"exit_code"`
	// Stage is where the run stopped, e.g. "retrieve" or "run file".
	Stage string `json:"stage"`
	// Message is the error on one line, cut to MaxMessage characters.
	Message string `json:"message"`
}

// IsError reports whether the entry is a run that could not finish.
func (e *Entry) IsError() bool { return e.Verdict == VerdictError }

// When is the entry's time (valid after Read or FromReport).
func (e *Entry) When() time.Time {
	t, _ := time.Parse(TimeLayout, e.Time)
	return t
}

// FromReport is the entry of one compare report (an error report gives an
// error entry), run at t.
func FromReport(r *report.CompareReport, t time.Time) Entry {
	e := Entry{Time: t.UTC().Format(TimeLayout), Gate: r.Gate.Label(), Verdict: r.Verdict}
	if r.HeadSHA != "" {
		e.Commit = ptr(r.HeadSHA)
	}
	if r.Verdict == VerdictError && r.Error != nil {
		msg := strings.Join(strings.Fields(r.Error.Message), " ")
		if utf8.RuneCountInString(msg) > MaxMessage {
			msg = string([]rune(msg)[:MaxMessage-1]) + "…"
		}
		e.Error = &Failure{ExitCode: r.Error.ExitCode, Stage: r.Error.Stage, Message: msg}
		e.Digest = digest(struct {
			Code               int
			Stage, Side, Error string
		}{r.Error.ExitCode, r.Error.Stage, r.Error.Side, r.Error.Message})
		return e
	}
	h := r.Summary.Head
	if fp, ok := r.Fingerprints["set"]; ok {
		e.Set = ptr(fp)
	}
	e.Candidates, e.Context, e.Queries = ptr(r.Depth.Candidates), ptr(r.Depth.Context), ptr(h.Queries)
	e.RecallAtN, e.PrecisionAtK, e.NDCGAtK = ptr(h.RecallAtN), ptr(h.PrecisionAtK), ptr(h.NDCGAtK)
	e.ZeroRecall = ptr(len(h.ZeroRecall))
	if c := h.Context; c != nil {
		e.FactsFound, e.FactsTotal = ptr(c.FactsFound), ptr(c.FactsTotal)
	}
	if r.Latency != nil && r.Latency.Head != nil {
		e.LatencyP95 = ptr(r.Latency.Head.P95)
	}
	type retrieved struct {
		ID, Change string
		Docs       []string
	}
	qs := make([]retrieved, len(r.Queries))
	for i, q := range r.Queries {
		qs[i] = retrieved{q.ID, q.Change, q.Head.Docs}
	}
	e.Digest = digest(struct {
		Verdict string
		Depth   report.DepthInfo
		Means   [3]float64
		Queries []retrieved
	}{r.Verdict, r.Depth, [3]float64{h.RecallAtN, h.PrecisionAtK, h.NDCGAtK}, qs})
	return e
}

func ptr[T any](v T) *T { return &v }

// digest is the first 16 hex digits of the SHA-256 of v's JSON.
func digest(v any) string {
	b, _ := json.Marshal(v) // plain structs of strings and numbers: cannot fail
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// Same reports whether two entries are the same run: the same gate,
// commit, set fingerprint and digest on the same UTC day. A re-run that
// measured the same, or a report added twice, is the same; a nightly run
// of an unchanged commit (another day) or a re-run that measured
// something else is not.
func (e *Entry) Same(o *Entry) bool {
	return e.Gate == o.Gate && eq(e.Commit, o.Commit) && eq(e.Set, o.Set) && e.Digest == o.Digest && e.Time[:10] == o.Time[:10]
}

func eq(a, b *string) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// Read reads a history file; a file that does not exist is an empty
// history. name is used in messages.
func Read(path string) ([]Entry, error) {
	if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if _, err := gate.CheckInputFile(path); err != nil {
		return nil, &gate.InputError{File: path, Err: fmt.Errorf("open history: %w", err)}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, &gate.InputError{File: path, Err: fmt.Errorf("open history: %w", err)}
	}
	defer f.Close()
	return Parse(f, path)
}

// Parse reads a history's JSONL from rd, strictly: each line one entry,
// unknown or duplicate keys refused, every value checked (Entry.check),
// at most MaxEntries entries of MaxLineBytes each. The entries come back
// in time order (entries of the same time in file order).
func Parse(rd io.Reader, name string) ([]Entry, error) {
	br := bufio.NewReaderSize(rd, 64<<10)
	var out []Entry
	for line := 1; ; line++ {
		data, err := readLine(br)
		if errors.Is(err, io.EOF) && len(data) == 0 {
			break
		}
		if errors.Is(err, bufio.ErrBufferFull) || len(data) > MaxLineBytes {
			return nil, &gate.InputError{File: name, Line: line, Err: fmt.Errorf("line longer than %d bytes: not an entry recallgate wrote", MaxLineBytes)}
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, &gate.InputError{File: name, Line: line, Err: fmt.Errorf("read history: %w", err)}
		}
		if len(bytes.TrimSpace(data)) == 0 {
			continue
		}
		if len(out) == MaxEntries {
			return nil, &gate.InputError{File: name, Line: line, Err: fmt.Errorf("more than %d entries: not a history recallgate wrote", MaxEntries)}
		}
		e, perr := parseEntry(data)
		if perr != nil {
			return nil, &gate.InputError{File: name, Line: line, Err: perr}
		}
		out = append(out, e)
	}
	slices.SortStableFunc(out, func(a, b Entry) int { return strings.Compare(a.Time, b.Time) })
	return out, nil
}

// readLine reads one line without its line break, at most MaxLineBytes+1
// bytes of it held at a time (a longer line gives bufio.ErrBufferFull).
func readLine(br *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		buf = append(buf, chunk...)
		if len(buf) > MaxLineBytes+1 {
			return buf, bufio.ErrBufferFull
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(buf, "\r\n"), err
	}
}

// parseEntry decodes and checks one line.
func parseEntry(data []byte) (Entry, error) {
	var e Entry
	if err := gate.DecodeStrict(data, &e); err != nil {
		return e, fmt.Errorf("not a history entry: %w", err)
	}
	return e, e.check()
}

var (
	fingerprint = regexp.MustCompile(`^(sha256:)?[0-9a-f]{1,64}$`)
	digestForm  = regexp.MustCompile(`^[0-9a-f]{16}$`)
	stageForm   = regexp.MustCompile(`^[a-z][a-z ]{0,31}$`)
	verdicts    = []string{string(gate.Pass), string(gate.Fail), string(gate.Inconclusive), VerdictError}
)

// check validates an entry read back: closed fields hold one of their
// values, an error entry holds no metric and a run entry every one, and
// numbers are in their range.
func (e *Entry) check() error {
	if t, err := time.Parse(TimeLayout, e.Time); err != nil || t.Format(TimeLayout) != e.Time {
		return fmt.Errorf("time %.40q: want RFC 3339 in UTC, like 2026-12-01T02:00:00Z", e.Time)
	}
	if len(e.Gate) > 512 || !utf8.ValidString(e.Gate) || strings.ContainsFunc(e.Gate, unicode.IsControl) {
		return fmt.Errorf("gate %.40q: not a gate label", e.Gate)
	}
	if e.Commit != nil && !report.IsCommitSHA(*e.Commit) {
		return fmt.Errorf("commit %.40q: not a commit SHA", *e.Commit)
	}
	if !slices.Contains(verdicts, e.Verdict) {
		return fmt.Errorf("verdict %.40q: want one of %v", e.Verdict, verdicts)
	}
	if !digestForm.MatchString(e.Digest) {
		return fmt.Errorf("digest %.40q: want 16 hex digits", e.Digest)
	}
	if e.Set != nil && !fingerprint.MatchString(*e.Set) {
		return fmt.Errorf("set %.40q: not a fingerprint", *e.Set)
	}
	type count struct {
		key string
		v   *int
	}
	type score struct {
		key string
		v   *float64
	}
	ints := [...]count{{"candidates", e.Candidates}, {"context", e.Context}, {"queries", e.Queries}, {"zero_recall", e.ZeroRecall}}
	scores := [...]score{{gate.MetricRecall, e.RecallAtN}, {gate.MetricPrecision, e.PrecisionAtK}, {gate.MetricNDCG, e.NDCGAtK}}
	if e.IsError() {
		if e.Error == nil {
			return errors.New("error: an error entry says why (exit_code, stage, message)")
		}
		none := e.Set == nil && e.FactsFound == nil && e.FactsTotal == nil && e.LatencyP95 == nil
		for _, c := range ints {
			none = none && c.v == nil
		}
		for _, c := range scores {
			none = none && c.v == nil
		}
		if !none {
			return errors.New("an error entry has no set, metric or count: each is null")
		}
		return e.Error.check()
	}
	if e.Error != nil {
		return fmt.Errorf("error: a %s entry has none (null)", e.Verdict)
	}
	for _, c := range ints {
		if c.v == nil || *c.v < 0 || *c.v > maxCount {
			return fmt.Errorf("%s: want a count (0 … %d), got %s", c.key, maxCount, show(c.v))
		}
	}
	if *e.Candidates < 1 || *e.Context < 1 || *e.ZeroRecall > *e.Queries {
		return fmt.Errorf("depths %d, %d and zero_recall %d of %d queries do not fit", *e.Candidates, *e.Context, *e.ZeroRecall, *e.Queries)
	}
	for _, c := range scores {
		if c.v == nil || !(*c.v >= 0 && *c.v <= 1) {
			return fmt.Errorf("%s: want a mean score (0 … 1), got %s", c.key, show(c.v))
		}
	}
	if (e.FactsFound == nil) != (e.FactsTotal == nil) || e.FactsFound != nil && (*e.FactsFound < 0 || *e.FactsFound > *e.FactsTotal || *e.FactsTotal > maxCount) {
		return fmt.Errorf("facts_found %s of facts_total %s: do not fit", show(e.FactsFound), show(e.FactsTotal))
	}
	if v := e.LatencyP95; v != nil && !(*v >= 0 && *v < math.MaxInt32) {
		return fmt.Errorf("latency_p95_ms %v: want milliseconds", *v)
	}
	return nil
}

func (f *Failure) check() error {
	switch {
	case f.ExitCode != 2 && f.ExitCode != 3:
		return fmt.Errorf("error.exit_code %d: an error is exit 2 or 3", f.ExitCode)
	case !stageForm.MatchString(f.Stage):
		return fmt.Errorf("error.stage %.40q: not a stage", f.Stage)
	case f.Message == "" || utf8.RuneCountInString(f.Message) > MaxMessage || !utf8.ValidString(f.Message):
		return fmt.Errorf("error.message: want 1 to %d characters", MaxMessage)
	}
	return nil
}

func show[T any](v *T) string {
	if v == nil {
		return "null"
	}
	return fmt.Sprint(*v)
}

// Added says what Add did.
type Added struct {
	// Entry is the entry of the report.
	Entry Entry
	// Duplicate: the history already held it, nothing was written.
	Duplicate bool
	// Dropped is how many of the oldest entries made room (MaxEntries).
	Dropped int
	// TooOld: the history is full and the entry is older than every entry
	// it holds, so it would be the one dropped: nothing was written.
	TooOld bool
	// Entries is how many the history holds now.
	Entries int
}

// Add puts e into the history at path, in time order, unless the history
// already holds the same run (Entry.Same); a full history drops its oldest
// entries to keep MaxEntries, and is left as it is when e is older than
// every entry (Added.TooOld). A missing file is a new history, made with
// its folder. The file is written atomically: a reader sees the old
// history or the new one.
func Add(path string, e Entry) (Added, error) {
	if err := e.check(); err != nil {
		return Added{}, fmt.Errorf("history entry: %w", err)
	}
	old, err := Read(path)
	if err != nil {
		return Added{}, err
	}
	for i := range old {
		if old[i].Same(&e) {
			return Added{Entry: e, Duplicate: true, Entries: len(old)}, nil
		}
	}
	at, _ := slices.BinarySearchFunc(old, e, func(a, b Entry) int {
		if a.Time <= b.Time {
			return -1 // after every entry of the same time
		}
		return 1
	})
	if at == 0 && len(old) >= MaxEntries {
		return Added{Entry: e, TooOld: true, Entries: len(old)}, nil
	}
	all := slices.Insert(old, at, e)
	dropped := max(0, len(all)-MaxEntries)
	all = all[dropped:]
	// The first night of a cached history has no folder yet: the cache
	// restored nothing, and its save needs the folder to exist.
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return Added{}, fmt.Errorf("write history: %w", err)
	}
	err = atomicfile.Write(path, 0o644, func(w io.Writer) error { return writeLines(w, all) })
	if err != nil {
		return Added{}, fmt.Errorf("write history: %w", err)
	}
	return Added{Entry: e, Dropped: dropped, Entries: len(all)}, nil
}

// writeLines writes entries as JSONL.
func writeLines(w io.Writer, entries []Entry) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(true)
	for i := range entries {
		if err := enc.Encode(&entries[i]); err != nil {
			return err
		}
	}
	return nil
}

// AddReport adds the report at reportPath (read with
// report.ReadCompareReport) to the history at historyPath, run at t.
func AddReport(historyPath, reportPath string, t time.Time) (Added, error) {
	r, err := report.ReadCompareReportFile(reportPath)
	if err != nil {
		return Added{}, err
	}
	return Add(historyPath, FromReport(r, t))
}
