package protocol

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"testing"
)

// nopCloser is a writer that discards and closes as a no-op.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// memSample is the process's memory right now: RSS from /proc/self/status
// (0 where that file does not exist) and the Go runtime's mapped memory
// minus what it released to the OS.
func memSample() (rss, goMapped uint64) {
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
				kb, _ := strconv.ParseUint(f[1], 10, 64)
				rss = kb << 10
			}
		}
	}
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	return rss, s[0].Value.Uint64() - s[1].Value.Uint64()
}

// flood is a reader of n bytes of 'a' with no newline, then tail; every
// 16 MiB it samples the process's memory (the peak is kept).
type flood struct {
	left            int64
	tail            *strings.Reader
	block           []byte
	read            int64
	peakRSS, peakGo uint64
}

func newFlood(n int64, tail string) *flood {
	return &flood{left: n, tail: strings.NewReader(tail), block: bytes.Repeat([]byte{'a'}, 64<<10)}
}

func (f *flood) Read(p []byte) (int, error) {
	if f.left == 0 {
		return f.tail.Read(p)
	}
	n := copy(p, f.block[:min(int64(len(f.block)), f.left)])
	f.left -= int64(n)
	if f.read/(16<<20) != (f.read+int64(n))/(16<<20) {
		rss, g := memSample()
		f.peakRSS, f.peakGo = max(f.peakRSS, rss), max(f.peakGo, g)
	}
	f.read += int64(n)
	return n, nil
}

// A 1 GiB line with no newline is read to its end without being kept: the
// process grows by far less than 100 MB, Recv reports its size, and the
// next message is read normally (spec/protocol.md §1, issue 11).
func TestOneGiBUnterminatedLineStaysBounded(t *testing.T) {
	runtime.GC()
	baseRSS, baseGo := memSample()
	const size = 1 << 30
	src := newFlood(size, "\n"+`{"jsonrpc":"2.0","id":2,"method":"runtime.stats"}`+"\n")
	ch := NewLineChannel(src, nopCloser{io.Discard}, 0)
	_, err := ch.Recv()
	var big *OversizedError
	if !errors.As(err, &big) || big.Size != size || big.Limit != DefaultMaxMessageBytes || !big.Terminated {
		t.Fatalf("Recv of a 1 GiB line = %v, want an OversizedError of %d bytes over the %d-byte default", err, size, DefaultMaxMessageBytes)
	}
	msg, err := ch.Recv()
	if err != nil || string(msg) != `{"jsonrpc":"2.0","id":2,"method":"runtime.stats"}` {
		t.Fatalf("the message after the oversized line: %q, %v; want the runtime.stats request", msg, err)
	}
	const budget = 100 << 20
	if baseRSS > 0 && src.peakRSS > baseRSS+budget {
		t.Errorf("RSS grew from %d to %d bytes while reading a 1 GiB line: more than 100 MB", baseRSS, src.peakRSS)
	}
	if src.peakGo > baseGo+budget {
		t.Errorf("Go runtime memory grew from %d to %d bytes while reading a 1 GiB line: more than 100 MB", baseGo, src.peakGo)
	}
	t.Logf("1 GiB line: RSS %d → peak %d MB, Go memory %d → peak %d MB", baseRSS>>20, src.peakRSS>>20, baseGo>>20, src.peakGo>>20)
}

func TestOversizedLineKeepsItsIDWhenReadable(t *testing.T) {
	long := strings.Repeat("x", 5000)
	in := `{"jsonrpc":"2.0","id":7,"method":"tool.exec","params":{"code":"` + long + `"}}` + "\n" +
		`{"jsonrpc":"2.0","params":{"code":"` + long + `"},"id":8,"method":"tool.exec"}` + "\n" +
		`{"jsonrpc":"2.0","id":"r1","result":"` + long + `"}` + "\n" +
		`{"jsonrpc":"2.0","id":9` // a short unterminated last line
	ch := NewLineChannel(strings.NewReader(in), nopCloser{io.Discard}, 1024)
	for _, want := range []struct {
		id, method string
		response   bool
	}{{"7", "tool.exec", false}, {"", "", false}, {`"r1"`, "", true}} {
		_, err := ch.Recv()
		var big *OversizedError
		if !errors.As(err, &big) {
			t.Fatalf("Recv = %v, want an OversizedError", err)
		}
		if string(big.ID) != want.id || big.Method != want.method || big.Response != want.response || big.Size < 5000 {
			t.Errorf("OversizedError %+v: want id %q, method %q, response %v (the id is read only when it comes before the long member)", big, want.id, want.method, want.response)
		}
	}
	msg, err := ch.Recv()
	if string(msg) != `{"jsonrpc":"2.0","id":9` || err != io.EOF {
		t.Errorf("last unterminated line: %q, %v; want it with io.EOF", msg, err)
	}
}

func TestSendFramesAndUnescapes(t *testing.T) {
	var buf bytes.Buffer
	pr, pw := io.Pipe()
	done := make(chan struct{})
	go func() { io.Copy(&buf, pr); close(done) }()
	ch := NewLineChannel(strings.NewReader(""), pw, 0)
	if err := ch.Send([]byte(`{"a":"\u003cb\u003e"}`)); err != nil {
		t.Fatal(err)
	}
	if err := ch.Send([]byte("{\n}")); err == nil {
		t.Error("Send of a message with a newline succeeded")
	}
	ch.Close()
	<-done
	if got := buf.String(); got != `{"a":"<b>"}`+"\n" {
		t.Errorf("wire = %q, want one unescaped line", got)
	}
	if err := ch.Send([]byte(`{}`)); err == nil {
		t.Error("Send after Close succeeded")
	}
}

// Close drains what is queued to a slow reader before closing the writer.
func TestCloseDrainsTheQueue(t *testing.T) {
	pr, pw := io.Pipe()
	ch := NewLineChannel(strings.NewReader(""), pw, 0)
	for i := range 100 {
		if err := ch.Send([]byte(`{"n":` + strconv.Itoa(i) + `}`)); err != nil {
			t.Fatal(err)
		}
	}
	lines := make(chan int)
	go func() {
		n := 0
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			n++
		}
		lines <- n
	}()
	ch.Close()
	if n := <-lines; n != 100 {
		t.Errorf("the peer read %d lines, want all 100 queued before Close", n)
	}
}
