package remote

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const testKey = "sk-remote-test-0a1b2c3d4e5f"

// Issue 24 case 13: an error body is redacted whole, then cut: a key that
// straddles the cut leaves no prefix.
func TestErrorBodyRedactedBeforeTheCut(t *testing.T) {
	for _, at := range []int{250, 290, 295, 299, 300, 310} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, "%s%s and more", strings.Repeat("x", at), r.Header.Get("Authorization"))
		}))
		c, err := New(Options{Endpoint: srv.URL, Secret: testKey, Retries: 0, Timeout: 5 * time.Second})
		require.NoError(t, err)
		err = c.GetJSON(context.Background(), "/x", nil)
		srv.Close()
		require.Error(t, err)
		assert.NotContains(t, err.Error(), testKey[:8], "cut at %d", at)
		var se *StatusError
		require.ErrorAs(t, err, &se)
		assert.NotContains(t, se.Body, testKey[:8])
	}
}

// A 2xx body echoing the key is decoded without it.
func TestAnswerEchoingTheKeyIsRedacted(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"echo": %q}`, r.Header.Get("Authorization"))
	}))
	defer srv.Close()
	c, err := New(Options{Endpoint: srv.URL, Secret: testKey})
	require.NoError(t, err)
	var got struct{ Echo string }
	require.NoError(t, c.GetJSON(context.Background(), "/", &got))
	assert.Equal(t, "Bearer [redacted]", got.Echo)
}

// Issue 24 case 11: a redirect to another origin (here another port of the
// same host, which Go's client would trust) never carries Authorization;
// one to the same origin does.
func TestRedirectKeepsCredentialsToTheSameOrigin(t *testing.T) {
	seen := map[string]string{}
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen["other"] = r.Header.Get("Authorization")
		io.WriteString(w, "{}")
	}))
	defer other.Close()
	var self *httptest.Server
	self = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/away":
			http.Redirect(w, r, other.URL+"/x", http.StatusTemporaryRedirect)
		case "/here":
			http.Redirect(w, r, self.URL+"/final", http.StatusTemporaryRedirect)
		default:
			seen["self"] = r.Header.Get("Authorization")
			io.WriteString(w, "{}")
		}
	}))
	defer self.Close()
	c, err := New(Options{Endpoint: self.URL, Secret: testKey})
	require.NoError(t, err)
	require.NoError(t, c.GetJSON(context.Background(), "/away", nil))
	require.NoError(t, c.GetJSON(context.Background(), "/here", nil))
	assert.Equal(t, "", seen["other"], "another origin gets no credentials")
	assert.Equal(t, "Bearer "+testKey, seen["self"])
}

// The endpoint's password is a secret too.
func TestEndpointPasswordIsASecret(t *testing.T) {
	c, err := New(Options{Endpoint: "http://alice:PASSW0RD@127.0.0.1:1/v1", Secret: testKey})
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{testKey, "PASSW0RD", "alice:PASSW0RD"}, c.Secrets())
	assert.Equal(t, "at [redacted] and [redacted]", c.Redact("at "+testKey+" and PASSW0RD"))
	assert.NotContains(t, c.Endpoint(), "PASSW0RD")
}
