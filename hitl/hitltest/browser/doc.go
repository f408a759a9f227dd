// Package browser drives the fake HITL service's review pages in a real, headless Chromium
// (github.com/chromedp/chromedp), playing the person an agent forwarded a review link to.
// It is a module of its own so that the core module does not depend on chromedp. Chromium
// comes from the operating system (Debian: apt-get install chromium); without one on PATH
// the tests skip, saying so, except under CI (HITLKIT_CI set), where they fail.
package browser
