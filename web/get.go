package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	neturl "net/url"
)

// Get fetches url with hc and returns the response and its body. A non-2xx
// status gives an *HTTPError.
func Get(ctx context.Context, hc *http.Client, url string, header http.Header) (*http.Response, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, nil, err
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	resp, err := hc.Do(req)
	if err != nil {
		// *url.Error repeats the full URL, query included; the transport's
		// error already names the redacted one.
		var ue *neturl.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, nil, redactedError{err}
	}
	defer resp.Body.Close()
	body, err := readAll(resp.Body)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: reading body: %w", ShownURL(req), err)
	}
	if err := CheckStatus(req, resp, body); err != nil {
		return resp, body, err
	}
	return resp, body, nil
}

// GetWithin is Get for one request of a task under WithBudget, returning the
// body: when the task's budget ends the request, the error (the task's
// *BudgetError) also names the request left without an answer, which the
// BudgetError, naming only the task, does not.
func GetWithin(ctx context.Context, hc *http.Client, url string, header http.Header) ([]byte, error) {
	_, body, err := Get(ctx, hc, url, header)
	if be := (*BudgetError)(nil); errors.As(err, &be) {
		err = fmt.Errorf("%w: no complete answer from %s", err, Redact(url))
	}
	return body, err
}

// DecodeJSON decodes body, fetched from url, into v, with errors that say what
// came instead of JSON (an HTML error page served with status 200, a
// truncated document) and name the URL redacted. A document with more objects,
// arrays or values than any index writes (MaxJSONContainers, MaxJSONValues)
// is refused before it is decoded.
func DecodeJSON(url string, body []byte, v any) error {
	shown := Redact(url)
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return fmt.Errorf("%s: empty response, expected JSON", shown)
	}
	if trimmed[0] == '<' {
		return fmt.Errorf("%s: expected JSON, got an HTML or XML page: %s", shown, RedactText(Sanitize(trimmed[:min(len(trimmed), 120)])))
	}
	if err := checkCounts(body); err != nil {
		return fmt.Errorf("%s: %w", shown, err)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("%s: invalid JSON (truncated or corrupt response): %w", shown, err)
	}
	return nil
}

// Decoding a document into Go values costs more memory than its bytes, most
// for small objects, arrays and values: "{}," in a list of files becomes a
// whole file record, `"1",` a string header and its bytes. A document within
// the size cap may still hold more of them than any index writes; counting
// them first bounds what decoding can build. A file costs PyPI's JSON API
// about 2 objects and 40 values, PEP 691 about 4 and 25, so the caps admit
// some 60,000 files (large projects have a few thousand), and decoding a
// document made of nothing but small objects or one-byte values stays
// under 200 MB.
const (
	// MaxJSONContainers is the most objects and arrays DecodeJSON decodes.
	MaxJSONContainers = 250_000
	// MaxJSONValues is the most values (members and elements) DecodeJSON
	// decodes.
	MaxJSONValues = 2_500_000
)

// checkCounts counts the objects, arrays and values of a JSON document (a
// value follows each comma and colon outside strings) and refuses one that
// holds more than MaxJSONContainers or MaxJSONValues.
func checkCounts(body []byte) error {
	containers, values, inString, escaped := 0, 0, false, false
	for _, c := range body {
		switch {
		case escaped:
			escaped = false
		case inString:
			switch c {
			case '\\':
				escaped = true
			case '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			containers++
		case c == ',' || c == ':':
			values++
		}
	}
	if containers > MaxJSONContainers || values > MaxJSONValues {
		return fmt.Errorf("%d objects and arrays and %d values (limits %d and %d): refusing a document larger than any index writes",
			containers, values, MaxJSONContainers, MaxJSONValues)
	}
	return nil
}

// redactedError shows an error from below the Transport (a custom base
// transport, a proxy) with every URL in its text redacted.
type redactedError struct{ err error }

func (e redactedError) Error() string { return RedactText(e.err.Error()) }
func (e redactedError) Unwrap() error { return e.err }
