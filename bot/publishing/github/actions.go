package github

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"unicode/utf16"

	"github.com/pinbot-dev/pinbot/internal/escape"
)

// GitHub Actions workflow commands and files
// (https://docs.github.com/actions/using-workflows/workflow-commands-for-github-actions).

// MaxSummary is the most bytes a step summary may hold (GitHub's limit is
// 1 MiB per step).
const MaxSummary = 1 << 20

// A Workflow writes workflow commands (::add-mask::, ::warning, ::error) to
// the step's log. Give it stderr: the runner reads both streams, and stdout
// carries only the report a command was asked for, which a workflow may
// redirect to a file and upload. A nil Workflow (outside Actions) writes
// nothing. Its methods may be called from several goroutines.
type Workflow struct {
	mu   sync.Mutex
	w    io.Writer
	mask bool // ::add-mask:: may be written to w
}

// NewWorkflow returns a Workflow writing to w. It writes no ::add-mask:: when
// w is a regular file (2> log.txt): the runner reads masks only from the log
// it captures, so a mask there would do nothing but put the secret on disk.
func NewWorkflow(w io.Writer) *Workflow {
	return &Workflow{w: w, mask: !regularFile(w)}
}

// regularFile reports whether w is an open regular file.
func regularFile(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode().IsRegular()
}

// Mask writes ::add-mask:: for every line of secret, so that the runner hides
// it from the log from then on; call it before anything could print the
// secret. Mask only what pinbot made itself (an installation token, an App
// JWT): the runner masks the secrets it hands a step already, and echoing one
// here would put it wherever the stream goes.
func (c *Workflow) Mask(secret string) {
	if c == nil || !c.mask {
		return
	}
	var b strings.Builder
	for _, line := range strings.Split(secret, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "-----") {
			continue
		}
		fmt.Fprintf(&b, "::add-mask::%s\n", escapeData(line))
	}
	c.write(b.String())
}

// An Annotation is a ::warning or ::error workflow command.
type Annotation struct {
	Level string // "warning" or "error"
	File  string // optional, relative to the repository root
	Line  int    // optional
	Title string
	Text  string // may hold several lines
}

// Annotate writes the annotation as a workflow command. The runner shows it
// in the log, where escapes would act: the file, title and text are escaped
// as every text for a terminal is (escape.Text), line breaks in the text
// kept, so that no ESC or BEL from outside reaches the line.
func (c *Workflow) Annotate(a Annotation) {
	if c == nil {
		return
	}
	var props []string
	if a.File != "" {
		props = append(props, "file="+escapeProperty(escape.Text(a.File)))
		if a.Line > 0 {
			props = append(props, fmt.Sprintf("line=%d", a.Line))
		}
	}
	if a.Title != "" {
		props = append(props, "title="+escapeProperty(escape.Text(a.Title)))
	}
	cmd := "::" + a.Level
	if len(props) > 0 {
		cmd += " " + strings.Join(props, ",")
	}
	c.write(fmt.Sprintf("%s::%s\n", cmd, escapeData(escape.TextLines(a.Text))))
}

// write writes s in one call, so that commands from several goroutines do
// not interleave.
func (c *Workflow) write(s string) {
	if s == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	io.WriteString(c.w, s)
}

func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// AppendSummary appends Markdown to the step summary file at path, cut to
// MaxSummary bytes with a note.
func AppendSummary(path, markdown string) error {
	info, err := os.Stat(path)
	used := int64(0)
	if err == nil {
		used = info.Size()
	}
	room := MaxSummary - int(used)
	if room <= 0 {
		return nil
	}
	text := Truncate(markdown, room, "\n\n_The report was cut to fit the step summary's 1 MiB limit; run `pinbot check` for all of it._\n")
	return appendFile(path, text)
}

// SetOutputs appends step outputs (name=value, one line each; values must not
// hold newlines) to the file at path, $GITHUB_OUTPUT.
func SetOutputs(path string, kv [][2]string) error {
	var b strings.Builder
	for _, p := range kv {
		if strings.ContainsAny(p[1], "\r\n") {
			return fmt.Errorf("output %s: value holds a newline", p[0])
		}
		fmt.Fprintf(&b, "%s=%s\n", p[0], p[1])
	}
	return appendFile(path, b.String())
}

// MaxJobOutputs is the most a job's outputs may hold together: GitHub
// allows 1 MB, and counts it in UTF-16.
const MaxJobOutputs = 1_000_000

// OutputsSize returns what outputs (name and value pairs, as SetOutputs
// takes them) count against MaxJobOutputs: their names and values in
// UTF-16, two bytes a code unit.
func OutputsSize(kv [][2]string) int {
	n := 0
	for _, p := range kv {
		for _, s := range p {
			for _, r := range s {
				n += 2 * utf16.RuneLen(r)
			}
		}
	}
	return n
}

func appendFile(path, text string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
