package agent

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"

	"github.com/codemode-conformance/codemode/spec/protocol"
)

// MaxResponse bounds a provider answer (bytes), streamed or not.
const MaxResponse = 8 << 20

// ErrProvider wraps every failure to get an answer from the provider.
var ErrProvider = errors.New("model provider")

// Complete sends req to baseURL + "/chat/completions" and returns the
// assistant message. With req.Stream it reads the server-sent events and
// joins the deltas (text, and each tool call's id, name and arguments by
// index); otherwise it reads one chat.completion.
func Complete(ctx context.Context, hc *http.Client, baseURL string, req protocol.ChatRequest) (protocol.ChatMessage, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return protocol.ChatMessage{}, fmt.Errorf("%w: request: %w", ErrProvider, err)
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(baseURL, "/")+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return protocol.ChatMessage{}, fmt.Errorf("%w: %w", ErrProvider, err)
	}
	hr.Header.Set("Content-Type", "application/json")
	if req.Stream {
		hr.Header.Set("Accept", "text/event-stream")
	}
	resp, err := hc.Do(hr)
	if err != nil {
		return protocol.ChatMessage{}, fmt.Errorf("%w: %w", ErrProvider, err)
	}
	defer resp.Body.Close()
	r := &boundedReader{r: resp.Body, left: MaxResponse}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(r, 4096))
		return protocol.ChatMessage{}, fmt.Errorf("%w: HTTP %d: %s", ErrProvider, resp.StatusCode, strings.TrimSpace(string(b)))
	}
	if req.Stream {
		return readStream(r)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return protocol.ChatMessage{}, fmt.Errorf("%w: %w", ErrProvider, err)
	}
	var c protocol.ChatCompletion
	if err := json.Unmarshal(b, &c); err != nil {
		return protocol.ChatMessage{}, fmt.Errorf("%w: answer is not a chat.completion: %w", ErrProvider, err)
	}
	if len(c.Choices) == 0 {
		return protocol.ChatMessage{}, fmt.Errorf("%w: answer has no choice", ErrProvider)
	}
	return c.Choices[0].Message, nil
}

// ErrResponseTooLarge: the provider's answer passed MaxResponse bytes.
var ErrResponseTooLarge = fmt.Errorf("answer larger than %d bytes", MaxResponse)

// boundedReader reads at most left bytes and then fails with
// ErrResponseTooLarge, so an oversized answer is named as such rather than
// cut into a line that does not parse.
type boundedReader struct {
	r    io.Reader
	left int64
}

func (b *boundedReader) Read(p []byte) (int, error) {
	if b.left <= 0 {
		var one [1]byte
		n, err := b.r.Read(one[:])
		if n > 0 {
			return 0, ErrResponseTooLarge
		}
		return 0, err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	return n, err
}

func readStream(r io.Reader) (protocol.ChatMessage, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), MaxResponse)
	var text strings.Builder
	calls := map[int]*protocol.ChatToolCall{}
	done := false
	for sc.Scan() {
		line := sc.Text()
		data, ok := strings.CutPrefix(line, "data:")
		if !ok {
			continue // blank separators, comments, event: lines
		}
		data = strings.TrimSpace(data)
		if data == "[DONE]" {
			done = true
			break
		}
		var ch protocol.ChatChunk
		if err := json.Unmarshal([]byte(data), &ch); err != nil {
			if serr := sc.Err(); serr != nil { // the last, cut line of a failed read
				return protocol.ChatMessage{}, fmt.Errorf("%w: stream: %w", ErrProvider, serr)
			}
			return protocol.ChatMessage{}, fmt.Errorf("%w: stream event is not a chat.completion.chunk: %w", ErrProvider, err)
		}
		for _, c := range ch.Choices {
			if c.Index != 0 {
				continue
			}
			text.WriteString(c.Delta.Content)
			for _, d := range c.Delta.ToolCalls {
				tc := calls[d.Index]
				if tc == nil {
					if len(calls) >= MaxCallsPerAnswer {
						return protocol.ChatMessage{}, fmt.Errorf("%w: more than %d tool calls in one answer", ErrProvider, MaxCallsPerAnswer)
					}
					tc = &protocol.ChatToolCall{Type: "function"}
					calls[d.Index] = tc
				}
				if d.ID != "" {
					tc.ID = d.ID
				}
				if d.Function.Name != "" {
					tc.Function.Name = d.Function.Name
				}
				tc.Function.Arguments += d.Function.Arguments
			}
		}
	}
	if err := sc.Err(); err != nil {
		return protocol.ChatMessage{}, fmt.Errorf("%w: stream: %w", ErrProvider, err)
	}
	if !done {
		return protocol.ChatMessage{}, fmt.Errorf("%w: stream ended without [DONE]", ErrProvider)
	}
	msg := protocol.ChatMessage{Role: "assistant"}
	idx := make([]int, 0, len(calls))
	for i := range calls {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	for _, i := range idx {
		msg.ToolCalls = append(msg.ToolCalls, *calls[i])
	}
	if len(msg.ToolCalls) > 0 && text.Len() == 0 {
		msg.Content = json.RawMessage("null")
	} else {
		msg.Content = protocol.TextContent(text.String())
	}
	return msg, nil
}
