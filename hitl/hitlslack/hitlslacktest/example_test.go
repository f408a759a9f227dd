package hitlslacktest_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/slack-go/slack"

	"github.com/hitlkit/hitlkit/hitl/hitlslack/hitlslacktest"
)

// A test of a Slack app: the app posts a question with slack-go, the fake logs it, and the
// person's click reaches the app's interactivity handler signed as Slack signs it.
func Example() {
	ctx := context.Background()
	fake := hitlslacktest.NewUnstartedServer() // in a test: hitlslacktest.NewServer(t)
	fake.Start()
	defer fake.Close()

	// The app under test: it posts with the fake's client and verifies clicks with its secret.
	api := fake.API()
	approve := slack.NewButtonBlockElement("approve", "deploy-42", slack.NewTextBlockObject(slack.PlainTextType, "Approve", false, false))
	if _, _, err := api.PostMessageContext(ctx, "C0OPS", slack.MsgOptionText("Deploy build 42?", false),
		slack.MsgOptionBlocks(slack.NewActionBlock("decide", approve))); err != nil {
		panic(err)
	}
	interactivity := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sv, err := slack.NewSecretsVerifier(r.Header, fake.SigningSecret())
		if err != nil {
			http.Error(w, "unsigned", http.StatusUnauthorized)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 64<<10))
		if err != nil {
			http.Error(w, "too large", http.StatusRequestEntityTooLarge)
			return
		}
		if _, err := sv.Write(body); err != nil || sv.Ensure() != nil {
			http.Error(w, "forged", http.StatusUnauthorized)
			return
		}
		fmt.Println("signed click received")
	})

	posted, _ := fake.Await(ctx, "chat.postMessage", 1)
	fmt.Println(posted[0].Channel, posted[0].Text, posted[0].Buttons()[0].Label)
	click, err := fake.Click(posted[0], "Approve", "U0REVIEWER")
	if err != nil {
		panic(err)
	}
	w := httptest.NewRecorder()
	interactivity.ServeHTTP(w, click)
	fmt.Println(w.Code)
	// Output:
	// C0OPS Deploy build 42? Approve
	// signed click received
	// 200
}
