package hitlslack_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slacktest"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitlslack"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/transport"
)

// The question goes to the reviewer's direct message in Slack; their click on Approve is the
// decision, and the message then says who decided. Here slack-go's test server plays Slack
// and hitltest the service that asks.
func Example() {
	ctx := context.Background()
	svc := hitltest.NewUnstartedServer()
	svc.Start()
	defer svc.Close()
	workspace := newFake()
	srv := slacktest.NewTestServer(workspace.bind)
	srv.Start()
	defer srv.Stop()

	api := slack.New("xoxb-your-bot-token", slack.OptionAPIURL(srv.GetAPIURL()))
	bot, err := hitlslack.New(api, secret, hitlslack.WithAgentID("billing"))
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

	// The reviewer clicks Approve (Slack's signed request, played here).
	go func() {
		posted, ok := workspace.awaitFor("chat.postMessage", 1, 10*time.Second)
		if !ok {
			return
		}
		var blocks slack.Blocks
		_ = json.Unmarshal([]byte(posted[0].Blocks), &blocks)
		approve := blocks.BlockSet[len(blocks.BlockSet)-1].(*slack.ActionBlock).Elements.ElementSet[0].(*slack.ButtonBlockElement)
		req := signed(clickPayload("U0REVIEWER", posted[0].Channel, posted[0].TS, approve.Value), secret, time.Now())
		interactivity.ServeHTTP(httptest.NewRecorder(), req)
	}()

	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, svc.URL+"/actions/approval",
		strings.NewReader(`{"prompt":"Refund $120 to ACME Corp?","inline":true,"inline_actions":["approve","reject"]}`))
	resp, err := client.Do(ctx, req, nil)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	if err := bot.Finish(ctx, resp.Interrupt, resp.Result); err != nil {
		panic(err)
	}
	by := resp.Result.RespondedBy
	fmt.Println(resp.Result.Status, resp.Result.Action, by.Platform, by.PlatformUserID)
	updates := workspace.of("chat.update")
	fmt.Println(updates[len(updates)-1].Text)
	// Output:
	// completed approve slack U0REVIEWER
	// ✅ *Approved* by <@U0REVIEWER>
}
