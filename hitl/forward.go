package hitl

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"runtime"
	"strings"
	"sync"
)

// Forwarder puts an interrupt's question in front of the agent's human: a chat message, a
// terminal line, a browser tab. It receives the full review URL, token included, because the
// human needs it; it must not log it. It is called from the goroutine that called
// [Client.Do], before the wait begins; an error ends the call. During the wait it may be
// called again for reminders (it.Reminder > 0) from the wait's own goroutine, so it must be
// safe for concurrent use; a reminder's error is logged and the wait goes on.
type Forwarder func(ctx context.Context, it *Interrupt) error

// WriteTo returns a Forwarder that writes the prompt, the envelope message when it adds
// something, a line saying what the review holds ([Interrupt.Summary]: the review type, a
// form's steps, the round) and the review URL ("Review: …") to w, for a human reading a
// terminal; a line with nothing to say (an A2A question has no review URL) is left out.
// Concurrent forwards are written one after another, never interleaved.
func WriteTo(w io.Writer) Forwarder {
	var mu sync.Mutex
	return func(_ context.Context, it *Interrupt) error {
		mu.Lock()
		defer mu.Unlock()
		var lines []string
		prompt := it.Prompt()
		if it.Message != "" && it.Message != prompt {
			lines = append(lines, it.Message)
		}
		if prompt != "" {
			lines = append(lines, prompt)
		}
		if s := it.Summary(); s != "" {
			lines = append(lines, s)
		}
		if u := it.ReviewURL(); u != "" {
			lines = append(lines, "Review: "+u)
		}
		if len(lines) == 0 {
			lines = append(lines, "A human is asked about "+it.ID())
		}
		if it.Reminder > 0 {
			lines[0] = "Reminder: " + lines[0]
		}
		_, err := io.WriteString(w, strings.Join(lines, "\n")+"\n")
		return err
	}
}

// OpenBrowser returns a Forwarder that opens the review URL in the system browser (xdg-open,
// open, or the Windows URL handler), for agents running on the human's desktop. It waits for
// the opener command to exit; the URL goes to it as an argument, never through a shell.
func OpenBrowser() Forwarder {
	return openWith(browserCommand(runtime.GOOS))
}

func browserCommand(goos string) []string {
	switch goos {
	case "darwin":
		return []string{"open"}
	case "windows":
		return []string{"rundll32", "url.dll,FileProtocolHandler"}
	default:
		return []string{"xdg-open"}
	}
}

func openWith(argv []string) Forwarder {
	return func(ctx context.Context, it *Interrupt) error {
		if it.ReviewURL() == "" {
			return fmt.Errorf("open browser: case %s has no review URL", it.ID())
		}
		args := append(append([]string(nil), argv[1:]...), it.ReviewURL())
		// exec errors name the command and its exit status, never its arguments.
		if err := exec.CommandContext(ctx, argv[0], args...).Run(); err != nil {
			return fmt.Errorf("open browser with %s: %w", argv[0], err)
		}
		return nil
	}
}
