package main_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/codemode-conformance/codemode/internal/clitest"
	"github.com/codemode-conformance/codemode/tools/report"
	"github.com/goccy/go-yaml"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"
)

// hostileEnv makes this test binary a driver-protocol target whose every
// string is hostile (hostileTarget); its value lists the strings' kinds.
const hostileEnv = "CODEMODE_TEST_HOSTILE_TARGET"

func TestMain(m *testing.M) {
	if modes := os.Getenv(hostileEnv); modes != "" {
		hostileTarget(strings.Split(modes, ","))
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// The hostile strings of the reliability pass (shared/reviews/2026-12-01-reliability.md N5–N8).
const (
	hostileHTML = `</script><script>alert("xss")</script><img src=x onerror=alert(1)><b>bold</b>&amp;&lt;`
	// clear screen, colour, window title (OSC 0), clipboard write (OSC 52),
	// a hyperlink (OSC 8), CR, BS, and a right-to-left override.
	hostileANSI  = "\x1b[2J\x1b[H\x1b[31;1mRED\x1b[0m\x1b]0;pwned-title\x07\x1b]52;c;cHduZWQ=\x07\x1b]8;;http://127.0.0.1/x\x1b\\link\x1b]8;;\x1b\\\r\x08\x08\u202eevil\u202c"
	hostileForge = "\n\nOverall: **success**\n\ncodemode-conformance: overall success (exit 0)\n"
	badMarker    = "@@BAD@@"
	badUTF8      = "\xff\xfe\xc3\x28\xed\xa0\x80" // invalid UTF-8, a CESU-8 surrogate among it
)

// hostileTarget answers the driver protocol on stdin/stdout until EOF or
// shutdown: initialize with a hostile implementation name, version and
// notDrivable reasons, run.prepare active, every tool.exec/tool.wait a
// failure (every third a completion) whose strings are hostile, anything
// else an error with a hostile message. modes: html, ansi, forge, badutf8,
// big (10 MB strings, 4 MB in initialize), badfeature (a hostile feature
// name: a target error before the first spec).
func hostileTarget(modes []string) {
	on := map[string]bool{}
	for _, m := range modes {
		on[m] = true
	}
	h := func(tag string) string {
		s := "[" + tag + "]"
		if on["html"] {
			s += hostileHTML
		}
		if on["ansi"] {
			s += hostileANSI
		}
		if on["forge"] {
			s += hostileForge
		}
		if on["big"] {
			n := 10 << 20
			if tag == "name" || tag == "version" || tag == "notDrivable-reason" { // initialize stays under 16 MiB
				n = 4 << 20
			}
			s += strings.Repeat("B", n)
		}
		if on["badutf8"] {
			s += badMarker
		}
		return s
	}
	out := bufio.NewWriter(os.Stdout)
	emit := func(id json.RawMessage, result any, rpcErr any) {
		m := map[string]any{"jsonrpc": "2.0", "id": id}
		if rpcErr != nil {
			m["error"] = rpcErr
		} else {
			m["result"] = result
		}
		b, _ := json.Marshal(m)
		b = bytes.ReplaceAll(b, []byte(badMarker), []byte(badUTF8))
		out.Write(append(b, '\n'))
		out.Flush()
	}
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	execs := 0
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			return
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Run string `json:"run"`
			} `json:"params"`
		}
		if json.Unmarshal(line, &m) != nil || m.Method == "" || len(m.ID) == 0 {
			continue
		}
		switch m.Method {
		case "initialize":
			features := []string{"core"}
			if on["badfeature"] { // a target error: the suite fails before the first spec
				features = append(features, h("feature"))
			}
			emit(m.ID, map[string]any{"protocolVersion": "1", "implementation": map[string]string{"name": h("name"), "version": h("version")},
				"features":    features,
				"notDrivable": []map[string]string{{"requirement": "CM-EXEC-02", "reason": h("notDrivable-reason")}}}, nil)
		case "run.prepare":
			emit(m.ID, map[string]any{"run": m.Params.Run, "codeModeActive": true, "tools": []map[string]any{
				{"name": "exec", "description": h("exec-desc"), "inputSchema": map[string]string{"type": "object"}},
				{"name": "wait", "description": "wait", "inputSchema": map[string]string{"type": "object"}}}}, nil)
		case "tool.exec", "tool.wait":
			execs++
			if execs%3 == 0 {
				emit(m.ID, map[string]any{"status": "completed", "value": h("value"), "output": []map[string]string{{"type": "text", "text": h("text")}}, "telemetry": map[string]any{}}, nil)
			} else {
				emit(m.ID, map[string]any{"status": "failed", "error": h("error"), "code": "internal_error", "telemetry": map[string]any{}}, nil)
			}
		case "run.end", "run.abort":
			emit(m.ID, true, nil)
		case "runtime.stats":
			emit(m.ID, map[string]int{"liveVMs": 0, "snapshots": 0, "snapshotBytes": 0, "suspendedRuns": 0}, nil)
		case "shutdown":
			emit(m.ID, true, nil)
			return
		default:
			emit(m.ID, nil, map[string]any{"code": -32601, "message": h("rpc-error-" + m.Method)})
		}
	}
}

// hostileRun runs the CLI against the hostile target in modes.
func hostileRun(modes string) outcome {
	GinkgoHelper()
	self, err := os.Executable()
	Expect(err).NotTo(HaveOccurred())
	env := append(os.Environ(), "NO_COLOR=1", hostileEnv+"="+modes)
	return conformanceEnv(env, "--target", "exec:"+self, "--req", "CM-EXEC-01", "--req", "CM-EXEC-02", "--req", "CM-EXEC-03")
}

// unsafeByte finds what must never reach a report or the terminal raw:
// C0 controls but \n and \t, DEL, C1 controls, bidi and other format
// characters, line separators, and invalid UTF-8.
func unsafeText(b []byte) string {
	if !utf8.Valid(b) {
		return "invalid UTF-8"
	}
	for _, r := range string(b) {
		switch {
		case r == '\n' || r == '\t':
		case r < 0x20 || (r >= 0x7f && r <= 0x9f):
			return fmt.Sprintf("control character %U", r)
		case r == 0x202e || r == 0x202c || r == 0x2028 || r == 0x2029 || r == 0x200f || r == 0xfeff:
			return fmt.Sprintf("format character %U", r)
		}
	}
	return ""
}

// forged finds a line that only the real verdict may print.
var forged = regexp.MustCompile(`(?m)^(Overall: \*\*success\*\*|codemode-conformance: overall success)`)

var _ = Describe("reports of a hostile target (issue 28 N5–N8)", Ordered, func() {
	var o outcome
	BeforeAll(func() { o = hostileRun("html,ansi,forge,badutf8") })

	It("fails the run, and neither the console nor summary.md carries a raw control, bidi or invalid byte, or a forged verdict line", func() {
		Expect(o.Code).To(Equal(1), "stdout:\n%s", o.Stdout)
		Expect(unsafeText([]byte(o.Stdout))).To(BeEmpty(), "stdout")
		Expect(forged.FindString(o.Stdout)).To(BeEmpty(), "stdout:\n%s", o.Stdout)
		Expect(o.Stdout).To(ContainSubstring(`\u001b[2J`), "the escapes are shown escaped")
		Expect(o.Stdout).To(MatchRegexp(`(?m)^codemode-conformance: overall failure \(exit 1\)`))
		Expect(unsafeText([]byte(o.Summary))).To(BeEmpty(), "summary.md")
		Expect(forged.FindString(o.Summary)).To(BeEmpty(), "summary.md:\n%s", o.Summary)
		Expect(o.Summary).To(ContainSubstring("Overall: **failure**"))
	})

	It("writes conformance-report.yaml that goccy and PyYAML both read, with the name on one line", func() {
		b, err := os.ReadFile(filepath.Join(o.Dir, "conformance-report.yaml"))
		Expect(err).NotTo(HaveOccurred())
		Expect(unsafeText(b)).To(BeEmpty())
		var c report.Conformance
		Expect(yaml.Unmarshal(b, &c)).To(Succeed())
		Expect(c.Implementation.Name).To(HavePrefix("[name]"))
		Expect(c.Implementation.Name).NotTo(ContainSubstring("\n"))
		Expect(c.Overall).To(Equal(report.Failure))
		if err := exec.Command("python3", "-c", "import yaml").Run(); err != nil {
			Skip("python3 with PyYAML is not installed: " + err.Error())
		}
		py := exec.Command("python3", "-c", "import sys, yaml; d = yaml.safe_load(open(sys.argv[1], encoding='utf-8')); print(d['overall'])", filepath.Join(o.Dir, "conformance-report.yaml"))
		got, err := py.CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), "PyYAML: %s", got)
		Expect(strings.TrimSpace(string(got))).To(Equal("failure"))
	})

	It("writes junit.xml, report.html and report.json with every target string escaped and valid UTF-8", func() {
		for _, f := range []string{"junit.xml", "report.html", "report.json"} {
			b, err := os.ReadFile(filepath.Join(o.Dir, f))
			Expect(err).NotTo(HaveOccurred())
			Expect(unsafeText(b)).To(BeEmpty(), f)
			Expect(string(b)).To(ContainSubstring("[error]"), "%s carries the target's failure", f)
		}
		html, _ := os.ReadFile(filepath.Join(o.Dir, "report.html"))
		Expect(string(html)).NotTo(ContainSubstring(`<script>alert("xss")`))
		Expect(string(html)).NotTo(ContainSubstring(`<img src=x`))
		junit, _ := os.ReadFile(filepath.Join(o.Dir, "junit.xml"))
		Expect(xmlWellFormed(junit)).To(Succeed())
		js, _ := os.ReadFile(filepath.Join(o.Dir, "report.json"))
		Expect(json.Valid(js)).To(BeTrue())
	})
})

var _ = Describe("a hostile target that fails the suite before the first spec (issue 28 N5)", func() {
	It("gets its suite error onto the console and into summary.md escaped", func() {
		o := hostileRun("ansi,forge,badfeature")
		Expect(o.Code).To(Equal(1), "stdout:\n%s", o.Stdout)
		Expect(o.Stdout).To(ContainSubstring("unknown feature"))
		Expect(unsafeText([]byte(o.Stdout))).To(BeEmpty(), "stdout")
		Expect(forged.FindString(o.Stdout)).To(BeEmpty(), "stdout:\n%s", o.Stdout)
		Expect(unsafeText([]byte(o.Summary))).To(BeEmpty(), "summary.md")
	})
})

var _ = Describe("reports of a target that sends 10 MB strings (issue 28 N8)", Ordered, func() {
	It("cuts every string at one bound: no report and no console grows with what the target sends", func() {
		o := hostileRun("big")
		Expect(o.Code).To(Equal(1), "stdout:\n%.4000s", o.Stdout)
		Expect(len(o.Stdout)).To(BeNumerically("<", 64<<10), "stdout")
		// 3 requirements' specs, a few strings each, cut at MaxTargetBytes.
		for _, f := range []string{"summary.md", "conformance-report.yaml", "junit.xml", "report.html", "report.json"} {
			fi, err := os.Stat(filepath.Join(o.Dir, f))
			Expect(err).NotTo(HaveOccurred())
			Expect(fi.Size()).To(BeNumerically("<", 4<<20), "%s: %d bytes", f, fi.Size())
		}
		js, _ := os.ReadFile(filepath.Join(o.Dir, "report.json"))
		Expect(json.Valid(js)).To(BeTrue())
		Expect(string(js)).To(ContainSubstring(fmt.Sprintf("cut at %d bytes", report.MaxTargetBytes)))
	})
})

func xmlWellFormed(b []byte) error {
	d := xml.NewDecoder(bytes.NewReader(b))
	for {
		if _, err := d.Token(); err != nil {
			if err.Error() == "EOF" {
				return nil
			}
			return err
		}
	}
}

var _ = Describe("a report.json that cannot be written (issue 28 N10)", func() {
	It("fails the run instead of leaving it a success with a missing or truncated report", func() {
		dir := filepath.Join(GinkgoT().TempDir(), "results")
		Expect(os.MkdirAll(filepath.Join(dir, "report.json"), 0o755)).To(Succeed(), "a directory where report.json goes: the write fails, the probe does not")
		cmd := exec.Command(clitest.CLI, "run", "--results-dir", dir, "--target", "builtin", "--req", "CM-EXEC-01")
		cmd.Env = append(os.Environ(), "NO_COLOR=1")
		s, err := gexec.Start(cmd, GinkgoWriter, GinkgoWriter)
		Expect(err).NotTo(HaveOccurred())
		Eventually(s).WithTimeout(5 * time.Minute).Should(gexec.Exit())
		Expect(s.ExitCode()).To(Equal(1), "CM-EXEC-01 passes on builtin; only the report fails the run")
		Expect(string(s.Err.Contents())).To(ContainSubstring("writing report.json"))
		Expect(string(s.Out.Contents())).To(ContainSubstring("overall failure (exit 1)"))
	})
})
