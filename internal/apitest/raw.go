package apitest

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// RawExchange sends one HTTP/1.1 request to the host of baseURL with target
// written on the request line exactly as given ("//plugins",
// "/plugins/./1": Go's client would not let a test write such a target
// reliably) and returns the response with its body read. A non-empty token
// is sent as a Bearer credential; a POST carries the body {} as
// application/json. Any failure to connect, write or read fails the test.
func RawExchange(t testing.TB, baseURL, method, target, token string) (*http.Response, []byte) {
	t.Helper()
	host := strings.TrimPrefix(baseURL, "http://")
	host, _, _ = strings.Cut(host, "/")
	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	head := fmt.Sprintf("%s %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n", method, target, host)
	if token != "" {
		head += "Authorization: Bearer " + token + "\r\n"
	}
	if method == http.MethodPost {
		head += "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
	} else {
		head += "\r\n"
	}
	if _, err := io.WriteString(conn, head); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("%s %s: %v", method, target, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the body: %v", method, target, err)
	}
	return resp, body
}
