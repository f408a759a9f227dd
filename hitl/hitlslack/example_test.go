package hitlslack_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitlslack"
	"github.com/hitlkit/hitlkit/hitl/hitlslack/hitlslacktest"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/transport"
)

// A Slack approval, end to end: the question goes to the reviewer's direct message, their
// click on Approve is the decision, and the message then shows the verdict and who gave it.
// Here hitlslacktest plays Slack (and the reviewer's click), hitltest the service that asks.
func Example() {
	ctx := context.Background()
	svc := hitltest.NewUnstartedServer()
	svc.Start()
	defer svc.Close()
	slackAPI := hitlslacktest.NewUnstartedServer()
	slackAPI.Start()
	defer slackAPI.Close()

	// In production: slack.New(botToken) and the app's Signing Secret.
	bot, err := hitlslack.New(slackAPI.API(), slackAPI.SigningSecret(), hitlslack.WithAgentID("billing"))
	if err != nil {
		panic(err)
	}
	defer bot.Close()
	client, err := hitl.NewClient(transport.WithHTTPClient(svc.Client()), transport.WithAllowPrivateAddresses(),
		hitl.WithForwarder(bot.Forwarder(hitlslack.DM("U0REVIEWER"))))
	if err != nil {
		panic(err)
	}
	interactivity := bot.Handler(client) // mount at the app's interactivity request URL

	// The reviewer clicks Approve on the message the bot posted.
	clicked := make(chan error, 1)
	go func() {
		posted, err := slackAPI.Await(ctx, "chat.postMessage", 1)
		if err != nil {
			clicked <- err
			return
		}
		req, err := slackAPI.Click(posted[0], "Approve", "U0REVIEWER")
		if err == nil {
			interactivity.ServeHTTP(httptest.NewRecorder(), req)
		}
		clicked <- err
	}()

	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, svc.URL+"/actions/approval",
		strings.NewReader(`{"prompt":"Refund $120 to ACME Corp?","inline":true,"inline_actions":["approve","reject"]}`))
	resp, err := client.Do(ctx, req, nil)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	if err := <-clicked; err != nil {
		panic(err)
	}
	if err := bot.Finish(ctx, resp.Interrupt, resp.Result); err != nil {
		panic(err)
	}
	by := resp.Result.RespondedBy
	fmt.Println(resp.Result.Approved(), by.Platform, by.PlatformUserID)
	updates, _ := slackAPI.Await(ctx, "chat.update", 1)
	fmt.Println(updates[len(updates)-1].Text)
	// Output:
	// true slack U0REVIEWER
	// ✅ *Approved* by <@U0REVIEWER>
}
